import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ingestCanaries, registryEntries} from '../../src/ingest/ingest-canaries.js'
import {nativeQuickStatus, nativeRegistryRows} from '../../src/ingest/native-quick.js'
import {countCanaries} from '../../src/store/canaries.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'
import {BIN, tempDir} from '../helpers/cli.js'

// QA report (registry): registries the reader read wrongly without a word. A stray quote joined
// the rows after it into one record and dropped all but the first; a CR-only file read as its
// header; a cell past the header's columns was dropped and the ids shifted; a repeated key or
// column kept its last copy; `canary-<hex>` was accepted though no response can show it as
// written; a zone-less issued_at was read as UTC. Each is refused with file:line and its cause,
// and the native reader declines the same files (TypeScript words the refusal).

const dir = tempDir()
const now = () => new Date('2026-11-01T00:00:00Z')
const open: CaseDb[] = []
afterAll(() => {
  for (const db of open) db.close()
})
let n = 0
const fresh = (): CaseDb => {
  const db = openCase(join(dir, `case-${n++}.db`), {create: true})
  open.push(db)
  return db
}
const file = (name: string, text: string): string => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
const H = 'marker,tenant_id,session_id,issued_at\n'

const refused: Array<[string, string, string, RegExp]> = [
  [
    'two stray quotes in unquoted fields (the rows between them were dropped)',
    'reg.csv',
    'marker,tenant_id,session_id\nCANARY-0123456789abcdef,tenant-a,sess-a"\nCANARY-fedcba9876543210,tenant-b,sess-b\nCANARY-1111222233334444,tenant-c,sess-c"\n',
    /^reg\.csv:2: a double quote inside an unquoted field/,
  ],
  ['a stray quote in one line', 'reg.csv', `${H}CANARY-0123456789abcdef,ten"ant"-a,sess-a,\n`, /^reg\.csv:2: a double quote inside an unquoted field/],
  ['text after a closing quote', 'reg.csv', `${H}CANARY-0123456789abcdef,"tenant"-a,sess-a,\n`, /^reg\.csv:2: a double quote/],
  [
    'CR-only line ends (read as the header alone)',
    'reg.csv',
    'marker,tenant_id,session_id\rCANARY-0123456789abcdef,tenant-a,sess-a\rCANARY-fedcba9876543210,tenant-b,sess-b\r',
    /^reg\.csv:1: a CR \(carriage return\) outside a quoted field/,
  ],
  ['a row with more cells than the header', 'reg.csv', 'marker,tenant_id,session_id\nCANARY-0123456789abcdef,Acme,Inc,sess-1\n', /^reg\.csv:2: 4 cells, the header has 3/],
  ['a column named twice', 'reg.csv', 'marker,tenant_id,session_id,tenant_id\nCANARY-0123456789abcdef,tenant-a,sess-a,tenant-b\n', /^reg\.csv:1: the header names column "tenant_id" twice/],
  [
    'a JSONL key given twice',
    'reg.jsonl',
    '{"marker":"CANARY-0123456789abcdef","tenant_id":"tenant-a","session_id":"sess-a"}\n{"marker":"CANARY-fedcba9876543210","tenant_id":"tenant-a","session_id":"sess-b","tenant_id":"tenant-b"}\n',
    /^reg\.jsonl:2: duplicate key "tenant_id"/,
  ],
  ['a lower-case canary- prefix', 'reg.csv', `${H}canary-1234567890abcdef,tenant-a,sess-a,\n`, /^reg\.csv:2: marker "canary-1234567890abcdef" starts "canary-": the marker convention is CANARY- in upper case/],
  ['a mixed-case Canary- prefix', 'reg.jsonl', '{"marker":"Canary-fedcba0987654321","tenant_id":"tenant-a","session_id":"sess-a2"}\n', /^reg\.jsonl:1: marker "Canary-fedcba0987654321" starts "Canary-"/],
  ['an issued_at with no zone', 'reg.csv', `${H}CANARY-0123456789abcdef,tenant-a,sess-a,2026-11-01T09:00:00\n`, /^reg\.csv:2: issued_at "2026-11-01T09:00:00" has no time zone/],
]

describe('registries the reader refuses', () => {
  it.each(refused)('%s: refused with file:line and its cause, nothing stored', async (_what, name, text, message) => {
    const path = file(name, text)
    expect(() => registryEntries(name, Buffer.from(text))).toThrow(message)
    const db = fresh()
    await expect(ingestCanaries(db, {path, now})).rejects.toThrow(/:\d+: /)
    expect(countCanaries(db)).toBe(0)
  })

  it.runIf(nativeQuickStatus().native).each(refused)('%s: the native reader declines it', (_what, _name, text) => {
    expect(nativeRegistryRows(Buffer.from(text))).toBeNull()
  })

  it('still reads what it read before: quoted fields with quotes and commas, CRLF, upper-case hex, a zoned issued_at', () => {
    const text = `${H}"CANARY-0123456789ABCDEF","Acme, ""Inc""",sess-1,2026-11-01T09:00:00+01:00\r\nHERON-SUMMIT-8811,t,"s\r\n2",\r\n`
    expect(registryEntries('r.csv', Buffer.from(text))).toEqual([
      {line: 2, marker: 'CANARY-0123456789ABCDEF', tenant_id: 'Acme, "Inc"', session_id: 'sess-1', issued_at: '2026-11-01T08:00:00.000Z'},
      {line: 3, marker: 'HERON-SUMMIT-8811', tenant_id: 't', session_id: 's\r\n2', issued_at: null},
    ])
  })
})

describe('what ingest canaries says', () => {
  it('counts as already registered only markers the case held before, not a marker the file gives twice', async () => {
    const db = fresh()
    const twice = file('twice.csv', `${H}CANARY-0123456789abcdef,tenant-a,sess-a,\nCANARY-0123456789ABCDEF,tenant-a,sess-a,\n`)
    expect(await ingestCanaries(db, {path: twice, now})).toMatchObject({entries: 2, added: 1, already_registered: 0})
    const more = file('more.csv', `${H}CANARY-0123456789abcdef,tenant-a,sess-a,\nCANARY-0123456789abcdef,tenant-a,sess-a,\nCANARY-fedcba9876543210,tenant-b,sess-b,\n`)
    expect(await ingestCanaries(db, {path: more, now})).toMatchObject({entries: 3, added: 1, already_registered: 1})
  })

  it('names the tenants of a marker given to one session id under two tenants', async () => {
    const path = file('conf.csv', `${H}CANARY-0123456789abcdef,tenant-a,sess-1,\nCANARY-0123456789abcdef,tenant-b,sess-1,\n`)
    await expect(ingestCanaries(fresh(), {path, now})).rejects.toThrow('registered to tenant "tenant-a" session "sess-1" (line 2) and tenant "tenant-b" session "sess-1" (line 3)')
  })

  it('refuses a registry it was told to expect with other bytes before storing any of it', async () => {
    const db = fresh()
    const path = file('expect.csv', `${H}CANARY-0123456789abcdef,tenant-a,sess-1,\n`)
    await expect(ingestCanaries(db, {path, now, expectSha256: '0'.repeat(64)})).rejects.toMatchObject({code: 'E_CHANGED', message: expect.stringContaining('nothing of it was stored')})
    expect(countCanaries(db)).toBe(0)
  })
})

describe('a registry path that is not a regular file', () => {
  // Through the command, with a time limit: the old reader blocked in openSync (no signal handler ran).
  const cli = (shell: string) => spawnSync('bash', ['-c', shell], {cwd: dir, encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL'})

  it('refuses a FIFO at once, naming it not a regular file (exit 1)', () => {
    const r = cli(`rm -f reg.fifo && mkfifo reg.fifo && node ${BIN} ingest canaries reg.fifo --db fifo.db; echo "exit $?"`)
    expect(r.signal).toBeNull()
    expect(r.stderr).toMatch(/reg\.fifo: a pipe or FIFO, not a regular file/)
    expect(r.stdout).toMatch(/exit 1$/m)
  }, 30_000)

  it('refuses a pipe, saying it cannot be read twice and how to go on', () => {
    writeFileSync(join(dir, 'piped.csv'), `${H}CANARY-0123456789abcdef,tenant-a,sess-a,\n`)
    const r = cli(`node ${BIN} ingest canaries <(cat piped.csv) --db pipe.db; echo "exit $?"`)
    expect(r.stderr).toMatch(/a pipe cannot be read twice.*save it to a file/)
    expect(r.stderr).not.toMatch(/changed while it was being read/)
    expect(r.stdout).toMatch(/exit 1$/m)
  }, 30_000)

  it('refuses a FIFO given to triage at once (exit 1)', () => {
    writeFileSync(join(dir, 'logs.jsonl'), '{"ts":"2026-11-02T06:48:01Z","request_id":"r1","tenant_id":"tenant-b","session_id":"sess-b","status":200,"response":"hello"}\n')
    const r = cli(`rm -f t.fifo && mkfifo t.fifo && node ${BIN} triage logs.jsonl --canaries t.fifo --db triage.db; echo "exit $?"`)
    expect(r.signal).toBeNull()
    expect(r.stderr).toMatch(/t\.fifo: a pipe or FIFO, not a regular file/)
    expect(r.stdout).toMatch(/exit 1$/m)
  }, 30_000)
})
