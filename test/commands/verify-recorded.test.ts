import Database from 'better-sqlite3'
import {copyFileSync, existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// verify replays the incident's facts, its amendments, the notifications and the risk
// decisions from the audit entries of the commands that recorded them: each one changed with
// sqlite is named, with the value its entry recorded.

const A = 'CANARY-aaaaaaaaaaaaaaaa1111'
let dir: string
let base: string

beforeAll(async () => {
  dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,a1,\n`)
  const logs = join(dir, 'gateway.jsonl')
  writeFileSync(logs, `${[
    chatLine({request_id: 'r1', tenant_id: 'tenant-a', session_id: 'a1', ts: '2026-11-02T06:00:00.000Z', prompt: `${A} hi`}),
    chatLine({request_id: 'r2', tenant_id: 'tenant-b', session_id: 'b1', ts: '2026-11-02T06:01:00.000Z', answer: `here: ${A}`}),
  ].join('\n')}\n`)
  const sent = join(dir, 'sent.txt')
  writeFileSync(sent, 'sent\n')
  base = join(dir, 'case.db')
  await runJson(['ingest', 'canaries', canaries, '--db', base])
  await runJson(['ingest', 'logs', logs, '--db', base])
  await runJson(['scan', '--db', base])
  await runJson(['incident', 'open', '--db', base, '--title', 'Stale KV', '--aware-at', '2026-11-02T09:00:00+01:00', '--role', 'controller'])
  await runJson(['incident', 'set', '--db', base, '--measures-taken', ' cache isolated per tenant ', '--cause-category', 'internal-non-malicious', '--breach-started-at', '2026-11-01T00:00:00+01:00', '--cross-border', 'no', '--data-unintelligible', 'no'])
  await runJson(['incident', 'amend-awareness', '--db', base, '--aware-at', '2026-11-02T07:30:00Z', '--reason', 'paged earlier', '--amended-by', 'on-call'])
  // Late (the deadline is 2026-11-05T07:30Z), with its reasons for the delay.
  await runJson(['notify', 'record', '--db', base, '--phase', 'initial', '--at', '2026-11-06T10:00:00Z', '--reference', 'DPA-1', '--file', sent, '--delay-reason', 'scoping took longer'])
  await runJson(['assess', '--db', base, '--decide', 'notify', '--rationale', 'cross-tenant data', '--decided-by', 'DPO'])
})

let copies = 0
function tampered(edit: (sql: Database.Database) => void): string {
  const path = join(dir, `tampered-${++copies}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  const sql = new Database(path)
  edit(sql)
  sql.close()
  return path
}

async function verify(path: string): Promise<{code: number; out: string}> {
  const r = await run(['verify', '--db', path, '--no-originals'])
  return {code: r.code, out: r.stdout + r.stderr}
}

describe('verify replays incident facts, notifications and decisions from the audit log', () => {
  it('passes on the untouched case', async () => {
    const r = await verify(base)
    expect(r.out).toMatch(/^OK: /m)
    expect(r.code).toBe(0)
  })

  const cases: Array<[string, string, RegExp]> = [
    ['measures_taken edited', `UPDATE incident SET measures_taken = 'keys rotated'`, /FAIL recorded: incident measures_taken: is "keys rotated", but audit entry \d+ recorded "cache isolated per tenant"/],
    ['cause_category edited', `UPDATE incident SET cause_category = 'external-malicious'`, /FAIL recorded: incident cause_category: is "external-malicious", but audit entry \d+ recorded "internal-non-malicious"/],
    ['cross_border edited (field 113)', `UPDATE incident SET cross_border = 'yes'`, /FAIL recorded: incident cross_border: is "yes", but audit entry \d+ recorded "no"/],
    ['data_unintelligible edited (field 57)', `UPDATE incident SET data_unintelligible = 'protection-intact'`, /FAIL recorded: incident data_unintelligible: is "protection-intact", but audit entry \d+ recorded "no"/],
    ['dpo_name filled in', `UPDATE incident SET dpo_name = 'Mallory'`, /FAIL recorded: incident dpo_name: is "Mallory", but no audit entry sets it/],
    ['title edited', `UPDATE incident SET title = 'Nothing happened'`, /FAIL recorded: incident title: is "Nothing happened", but audit entry \d+ recorded "Stale KV"/],
    ['breach_started_at moved', `UPDATE incident SET breach_started_at = '2026-11-01T12:00:00.000Z'`, /FAIL recorded: incident breach_started_at: is "2026-11-01T12:00:00.000Z", but audit entry \d+ recorded "2026-10-31T23:00:00.000Z"/],
    ['an amendment reason edited', `UPDATE incident_amendments SET reason = 'nobody knew'`, /FAIL recorded: awareness amendment 1 \([^)]*\): its reason is "nobody knew", but audit entry \d+ recorded "paged earlier"/],
    [
      'a late notification moved before the deadline',
      `UPDATE notifications SET at = '2026-11-04T10:00:00.000Z', at_ms = ${Date.parse('2026-11-04T10:00:00.000Z')}`,
      /FAIL recorded: notification 1: its at is "2026-11-04T10:00:00.000Z", but audit entry \d+ recorded "2026-11-06T10:00:00.000Z"/,
    ],
    ['a notification reference edited', `UPDATE notifications SET reference = 'DPA-999'`, /FAIL recorded: notification 1: its reference is "DPA-999", but audit entry \d+ recorded "DPA-1"/],
    ['a notification deleted', 'DELETE FROM notifications', /FAIL recorded: notification 1: audit entry \d+ records it, but the case no longer holds it/],
    ['an assessment deleted', 'DELETE FROM assessments', /FAIL recorded: risk decisions: the audit log records 1 decision, the case holds 0: decisions were removed/],
    ['an assessment rationale edited', `UPDATE assessments SET rationale = 'no risk'`, /FAIL recorded: assessment 1: its rationale is "no risk", but audit entry \d+ recorded "cross-tenant data"/],
  ]
  for (const [what, sql, message] of cases) {
    it(what, async () => {
      const r = await verify(tampered((db) => db.exec(sql)))
      expect(r.code).toBe(1)
      expect(r.out).toMatch(message)
    })
  }
})
