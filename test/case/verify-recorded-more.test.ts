import Database from 'better-sqlite3'
import {copyFileSync, existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// QA (integrity, findings 2, 4, 4b, 5): facts the audit log records that verify did not
// compare with the case. A notification moved to another controller made that controller's
// draft a follow-up of a notification never made for it; a deleted incident made every draft
// say none was opened; an edited next-update date reached a processor's notice; a deleted
// scan made verify say the case was never scanned.

const A = 'CANARY-aaaaaaaaaaaaaaaa1111'
const B = 'CANARY-bbbbbbbbbbbbbbbb2222'
let dir: string
let base: string

beforeAll(async () => {
  dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,a1,\n${B},tenant-b,b1,\n`)
  const logs = join(dir, 'gateway.jsonl')
  writeFileSync(logs, `${[
    chatLine({request_id: 'r1', tenant_id: 'tenant-a', session_id: 'a1', ts: '2026-11-02T06:00:00.000Z', prompt: `${A} hi`}),
    chatLine({request_id: 'r2', tenant_id: 'tenant-b', session_id: 'b1', ts: '2026-11-02T06:01:00.000Z', prompt: `${B} hi`, answer: `here: ${A}`}),
  ].join('\n')}\n`)
  const sent = join(dir, 'sent.txt')
  writeFileSync(sent, 'sent\n')
  base = join(dir, 'case.db')
  await runJson(['ingest', 'canaries', canaries, '--db', base])
  await runJson(['ingest', 'logs', logs, '--db', base])
  await runJson(['scan', '--db', base])
  const now = Date.now()
  await runJson(['incident', 'open', '--db', base, '--title', 'KV leak', '--aware-at', new Date(now - 3600_000).toISOString(), '--role', 'processor'])
  await runJson(['incident', 'set', '--db', base, '--next-update', new Date(now + 3 * 86400_000).toISOString()])
  await runJson(['notify', 'record', '--db', base, '--phase', 'initial', '--at', new Date(now - 600_000).toISOString(), '--reference', 'CNIL-1', '--file', sent, '--controller', 'tenant-a'])
})

let copies = 0
function tampered(sql: string): string {
  const path = join(dir, `tampered-${++copies}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  const db = new Database(path)
  db.exec(sql)
  db.close()
  return path
}

async function verify(path: string): Promise<{code: number; out: string}> {
  const r = await run(['verify', '--db', path, '--no-originals'])
  return {code: r.code, out: r.stdout + r.stderr}
}

describe('verify compares more recorded facts with the audit log', () => {
  it('passes on the untouched case', async () => {
    const r = await verify(base)
    expect(r.out).toMatch(/^OK: /m)
    expect(r.code).toBe(0)
  })

  const cases: Array<[string, string, RegExp]> = [
    ['a notification moved to another controller', `UPDATE notifications SET controller = 'tenant-b'`, /FAIL recorded: notification 1: its controller is "tenant-b", but audit entry \d+ recorded "tenant-a"/],
    ['a notification made for no controller', `UPDATE notifications SET controller = NULL`, /FAIL recorded: notification 1: its controller is null, but audit entry \d+ recorded "tenant-a"/],
    ['the size of the file sent edited', `UPDATE notifications SET file_size = 99`, /FAIL recorded: notification 1: its file_size is 99, but audit entry \d+ recorded 5/],
    ['the incident deleted', `DELETE FROM incident_amendments; DELETE FROM incident`, /FAIL recorded: incident: audit entry \d+ records its opening, but the case no longer holds it: removed outside crosstalk/],
    ['the next update date moved', `UPDATE incident SET next_update_at = '2027-06-30T00:00:00.000Z'`, /FAIL recorded: incident next_update_at: is "2027-06-30T00:00:00\.000Z", but audit entry \d+ recorded "/],
    ['the scan deleted', `PRAGMA foreign_keys = OFF; DELETE FROM scan_runs`, /FAIL audit: scan of [0-9T:.-]+Z: audit entry \d+ records it, but the case holds no finished scan run begun then: removed outside crosstalk/],
    ['the registry version of the scan lowered', `UPDATE scan_runs SET registry_version = registry_version - 1`, /FAIL audit: scan run 1 \([^)]*\): ran under registry version \d+, but the case's registry is at version \d+ and no audited command changed the registry since the scan/],
  ]
  it.each(cases)('fails when %s', async (_what, sql, expected) => {
    const r = await verify(tampered(sql))
    expect(r.out).toMatch(expected)
    expect(r.code).toBe(1)
  })
})
