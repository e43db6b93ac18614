import Database from 'better-sqlite3'
import {readdirSync, statSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestbed} from '../../src/testbed/server.js'
import {ROOT, tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'
import {caseWithRecords} from '../helpers/replay-case.js'

// What the CLI says, as a user reads it: command names as typed (never oclif's "ingest:logs"),
// typo suggestions, counts in good English, and no line that repeats another.

describe('unknown commands', () => {
  it('suggests the closest command, exit 2, one line', async () => {
    const r = await run(['scpoe'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toEqual(['Error: command "scpoe" not found; did you mean "crosstalk scope"? (crosstalk --help lists every command)'])
  })

  it('names a mistyped two-word command with spaces, never as ingets:logs:x', async () => {
    const r = await run(['ingets', 'logs', 'x'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('did you mean "crosstalk ingest logs"?')
    expect(r.stderr).not.toMatch(/ingets:logs|ingest:logs/)
  })

  it('a command typed right, then a word it does not take: names the word, never the command, as not found', async () => {
    for (const [args, word, command] of [[['generate', 'incident', '--out', 'x'], 'incident', 'generate'], [['scope', 'extra'], 'extra', 'scope'], [['ingest', 'canaries'], null, null]] as const) {
      const r = await run([...args])
      if (word === null) {
        expect(r.stderr).not.toContain('unexpected argument')
        continue
      }
      expect(r.code).toBe(2)
      expect(r.stderr.trim().split('\n')).toEqual([`Error: unexpected argument "${word}": "crosstalk ${command}" has no subcommand and takes no argument there (crosstalk ${command} --help shows its usage)`])
    }
  })

  it('under --json prints the error object on stdout', async () => {
    const r = await run(['scpoe', '--json'])
    expect(r.code).toBe(2)
    expect(JSON.parse(r.stdout)).toEqual({error: {message: expect.stringContaining('crosstalk scope'), code: 'E_USAGE'}})
  })

  it('a usage error points to the command\'s help with spaces', async () => {
    const r = await run(['ingest', 'logs', '--bogus'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('See: crosstalk ingest logs --help')
  })
})

describe('--help descriptions', () => {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : n.endsWith('.ts') ? [join(dir, n)] : []))
  it('are paragraphs, not lines broken mid-sentence (oclif wraps them to the terminal)', async () => {
    const broken: string[] = []
    for (const file of files(join(ROOT, 'src/commands'))) {
      const mod = (await import(file)) as {default: {description?: string; summary?: string}}
      for (const text of [mod.default.description, mod.default.summary]) {
        if (text && /[^\n]\n(?!\n)/.test(text)) broken.push(relative(ROOT, file))
      }
    }
    expect(broken).toEqual([])
  })
})

describe('counts and messages', () => {
  let dir: string
  beforeAll(async () => {
    dir = tempDir()
    writeFileSync(join(dir, 'one.jsonl'), chatLine({request_id: 'r1'}) + '\n')
  })

  it('says "1 new record", not "1 records"', async () => {
    const r = await run(['ingest', 'logs', join(dir, 'one.jsonl'), '--db', join(dir, 'case.db')])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Ingested 1 file: 1 new record, 0 duplicates, 0 bad lines quarantined.')
    expect(r.stdout).not.toMatch(/\b1 (records|files|file\(s\))\b/)
  })

  it('registry-export and an unknown tenant agree at one: "1 marker written", "affected: 1 tenant"', async () => {
    const db = join(dir, 'one-marker.db')
    writeFileSync(join(dir, 'one.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-0123456789abcdef0123456789abcdef,tA,sA,2026-11-01T00:00:00Z\n')
    // tC has a record and no exposure: a tenant the case holds that is not affected (an id it does not hold is refused as unknown).
    writeFileSync(join(dir, 'leak.jsonl'), chatLine({request_id: 'l1', tenant_id: 'tB', session_id: 'sB', answer: 'here: CANARY-0123456789abcdef0123456789abcdef'}) + '\n' + chatLine({request_id: 'c1', tenant_id: 'tC', session_id: 'sC', answer: 'fine'}) + '\n')
    expect((await run(['triage', join(dir, 'leak.jsonl'), '--canaries', join(dir, 'one.csv'), '--db', db])).code).toBe(0)
    const exported = await run(['registry-export', '--db', db, '--out', join(dir, 'registry')])
    expect(exported.stdout).toContain('1 marker written to ')
    expect((await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-02T00:00:00Z', '--role', 'processor'])).code).toBe(0)
    const unaffected = await run(['report', 'processor-notice', '--db', db, '--tenant', 'tC'])
    expect(unaffected.stderr).toContain('(affected: 2 tenants; see --all)')
    expect((await run(['report', 'processor-notice', '--db', db, '--tenant', 'nobody'])).stderr).toContain('tenant "nobody" has no records in this case')
    const one = join(dir, 'one-tenant.db')
    writeFileSync(join(dir, 'self.jsonl'), chatLine({request_id: 's1', tenant_id: 'tA', session_id: 'sOther', answer: 'here: CANARY-0123456789abcdef0123456789abcdef'}) + '\n' + chatLine({request_id: 'c2', tenant_id: 'tC', session_id: 'sC', answer: 'fine'}) + '\n')
    expect((await run(['triage', join(dir, 'self.jsonl'), '--canaries', join(dir, 'one.csv'), '--db', one])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', one, '--title', 't', '--aware-at', '2026-11-02T00:00:00Z', '--role', 'processor'])).code).toBe(0)
    expect((await run(['report', 'processor-notice', '--db', one, '--tenant', 'tC'])).stderr).toContain('(affected: 1 tenant; see --all)')
  })

  it('incident open prints what is set and one line naming incident set for the rest', async () => {
    const r = await run(['incident', 'open', '--db', join(dir, 'case.db'), '--title', 'Leak', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toContain('(not set)')
    expect(r.stdout).toMatch(/^title\s+Leak$/m)
    expect(r.stdout).toMatch(/^aware_at\s+2026-11-02T09:00:00.000Z$/m)
    expect(r.stdout.match(/crosstalk incident set/g)).toHaveLength(1)
    expect(r.stdout).toMatch(/39 more fields not set yet/)
  })

  it('assess shows the DPC sum only where there is one (never "DPC = 3 = 3")', async () => {
    const plain = await run(['assess', '--db', join(dir, 'case.db'), '--dpc', '2'])
    expect(plain.code, plain.stderr).toBe(0)
    expect(plain.stdout).toMatch(/^DPC = 2$/m)
    const adjusted = await run(['assess', '--db', join(dir, 'case.db'), '--dpc', '2', '--vulnerable-subjects'])
    expect(adjusted.stdout).toMatch(/^DPC = 2 \+ 1 = 3$/m)
  })

  it('assess --decide says "Decision recorded" once', async () => {
    const r = await run(['assess', '--db', join(dir, 'case.db'), '--decide', 'notify', '--rationale', 'cross-tenant disclosure'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.match(/Decision recorded/g)).toHaveLength(1)
    expect(r.stdout).toContain('Decision: notify: cross-tenant disclosure')
  })

  it('the first scan does not claim the registry changed', async () => {
    const r = await run(['scan', '--db', join(dir, 'case.db')])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('Scanned 1 of 1 record (1 new) against 0 canaries.')
    expect(r.stdout).not.toContain('re-classified')
  })
})

describe('replay', () => {
  let testbed: Awaited<ReturnType<typeof startTestbed>>
  beforeAll(async () => {
    testbed = await startTestbed({port: 0, poolTokens: 1024, maxModelLen: 4096, onOverflow: 'stale', disaggregated: true})
  })
  afterAll(async () => testbed.close())

  it('ends with an "n of m confirmed" line', async () => {
    const {db, path} = await caseWithRecords([{request_id: 'req-1', prompt_tokens: 700_000}, {request_id: 'req-2', prompt_tokens: 700_000}])
    db.close()
    const r = await run(['replay', '--db', path, '--target', testbed.url, '--request-id', 'req-1', '--request-id', 'req-2', '--trials', '2', '--pool-tokens', '1024', '--timeout', '2'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.trim().split('\n').at(-1)).toBe('2 of 2 records confirmed (0 not reproduced, 0 rejected by the target)')
  })
})

describe('work on opening a case that grows with it', () => {
  it('is said on stderr before it starts (indexes an interrupted ingest left suspended), and stdout stays the one JSON document', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'one.jsonl'), chatLine({request_id: 'r1'}) + '\n')
    expect((await run(['ingest', 'logs', join(dir, 'one.jsonl'), '--db', db])).code).toBe(0)
    // What a bulk load killed mid-way leaves: record indexes dropped and remembered.
    const raw = new Database(db)
    for (const name of ['records_by_ts', 'records_by_tenant']) {
      const sql = raw.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).pluck().get(name) as string
      raw.prepare('INSERT INTO suspended_indexes (name, sql) VALUES (?, ?)').run(name, sql)
      raw.exec(`DROP INDEX ${name}`)
    }
    raw.close()
    const r = await run(['scan', '--db', db, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`${db}: rebuilding 2 indexes an interrupted ingest left suspended, over 1 record (once)`)
    expect(() => JSON.parse(r.stdout)).not.toThrow()
    const again = await run(['scan', '--db', db, '--json'])
    expect(again.stderr).not.toContain('rebuilding')
  })
})


describe('usage errors from flag parsing', () => {
  it('are one line naming what is missing or wrong as the user types it, with our own pointer to --help', async () => {
    const cases: Array<[string[], string]> = [
      [['incident', 'open', '--db', join(tempDir(), 'c.db')], 'Error: missing required flags --aware-at, --role, --title'],
      [['drop', 'x.jsonl', '--db', join(tempDir(), 'c.db')], 'Error: missing required flag --reason'],
      [['show', '--db', join(tempDir(), 'c.db')], 'Error: missing required argument REQUEST_ID (request_id of the record)'],
      // oclif's note on flags of several values is said apart from the argument's description.
      [['ingest', 'logs', '--db', join(tempDir(), 'c.db')], 'Error: missing required argument PATHS (log files, directories or globs); give them before --map and --tenant-attribute (they take several values), or after --'],
      [['scan', '--pool-tokens', 'abc', '--db', join(tempDir(), 'c.db')], 'Error: --pool-tokens: expected an integer but received: abc'],
    ]
    for (const [args, first] of cases) {
      const r = await run(args)
      expect(r.code, args.join(' ')).toBe(2)
      const lines = r.stderr.trim().split('\n')
      expect(lines[0]).toBe(first)
      expect(lines[1]).toMatch(/^See: crosstalk [a-z ]+ --help$/)
      expect(r.stderr).not.toMatch(/The following errors? occurred|See more help with --help/)
    }
  })
})
