import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA time #2: a log line dated 2099 (after the log was ingested) was taken as a real time: the
// Article 34 letter said the answers "were given between 2026-10-25 01:30 and 2099-06-01 12:00".
// QA time #4: a line dated a year before its marker was issued set the breach start, unflagged.
// Neither time is a fact. The records are kept (their markers found, the gate sees them), their
// times are kept out of every first, last and window, ingest or triage warns, scope --json counts
// them and the drafts name them as an open item.

const A = 'CANARY-aaaa1111aaaa1111'
const B = 'CANARY-bbbb2222bbbb2222'
const REGISTRY = `marker,tenant_id,session_id,issued_at\n${A},acme,s-a1,2026-10-01T00:00:00Z\n${B},beta,s-b1,2026-10-01T00:00:00Z\n`
const line = (ts: string | number, id: string, tenant: string, session: string, request: string, response: string): string =>
  JSON.stringify({ts, request_id: id, tenant_id: tenant, session_id: session, status: 200, request, response})

async function caseWith(third: string) {
  const dir = tempDir()
  const db = join(dir, 'c.db')
  writeFileSync(join(dir, 'canaries.csv'), REGISTRY)
  mkdirSync(join(dir, 'logs'))
  writeFileSync(join(dir, 'logs', 'a.jsonl'), [
    line('2026-10-25T00:30:00Z', 'r1', 'acme', 's-a1', `hello ${A}`, 'ok'),
    line('2026-10-25T01:30:00Z', 'r2', 'beta', 's-b1', `hi ${B}`, `here is ${A}`),
    third,
  ].join('\n') + '\n')
  const triage = await run(['triage', join(dir, 'logs'), '--canaries', join(dir, 'canaries.csv'), '--db', db])
  expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-10-26T09:00:00Z', '--role', 'controller'])).code).toBe(0)
  const scope = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout) as Record<string, unknown>
  const drafts: string[] = []
  for (const kind of ['article33', 'article34']) {
    const out = join(dir, `${kind}.md`)
    const r = await run(['report', kind, '--db', db, '--out', out])
    expect(r.code, r.stderr).toBeLessThanOrEqual(1)
    drafts.push(readFileSync(out, 'utf8'))
  }
  return {triage, scope, drafts, db}
}

describe('record times that are no fact', () => {
  it('a time after the ingest: kept and counted, out of every date, warned at ingest, an open item in the drafts', async () => {
    const {triage, scope, drafts} = await caseWith(line('2099-06-01T12:00:00Z', 'r3', 'beta', 's-b1', 'again', `again ${A}`))
    expect(triage.stderr).toMatch(/a\.jsonl: 1 line carries a time more than 5 minutes after this ingest \(the latest 2099-06-01T12:00:00\.000Z\)/)
    // kept: its marker found and counted
    expect(scope.contaminated_responses).toBe(2)
    expect(scope.responses_dated_after_ingest).toBe(1)
    expect(scope.first_seen).toBe('2026-10-25T01:30:00.000Z')
    expect(scope.last_seen).toBe('2026-10-25T01:30:00.000Z')
    expect(JSON.stringify(scope)).not.toContain('2099')
    for (const d of drafts) {
      expect(d).not.toContain('2099')
      expect(d).toContain('1 affected response carries a time more than 5 minutes after its log file was ingested')
    }
  }, 120_000)

  it('a time before the marker was issued: warned, counted, out of every date, an open item in the drafts', async () => {
    const {triage, scope, drafts} = await caseWith(line(1761356000123, 'r3', 'beta', 's-b1', 'again', `again ${A}`))
    expect(triage.stderr).toMatch(/1 affected response is dated before the canary registry's issued_at of the marker found in it \(the earliest 2025-10-25T01:33:20\.123Z\)/)
    expect(scope.contaminated_responses).toBe(2)
    expect(scope.responses_dated_before_marker_issued).toBe(1)
    expect(scope.first_seen).toBe('2026-10-25T01:30:00.000Z')
    expect(JSON.stringify(scope)).not.toContain('2025-10-25')
    for (const d of drafts) {
      expect(d).not.toContain('2025-10-25')
      // Markdown escapes the underscore
      expect(d.replace(/\\_/g, '_')).toContain("1 affected response is dated before the canary registry's issued_at of the marker found in it")
    }
  }, 120_000)
})
