import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {run as runCommand} from '../helpers/commands.js'
import type {TestCase} from '../helpers/case-builder.js'
import {buildKnownCase, POOL} from '../scope/known-case.js'

const CONTRACT_KEYS = ['contaminated_responses', 'cross_tenant_responses', 'cross_session_responses', 'exposed_sessions', 'exposed_tenants', 'recipient_tenants', 'first_seen', 'last_seen', 'at_risk_responses', 'flows']
const EXTENSION_KEYS = ['exposure', 'pool_tokens', 'advertised_tokens', 'at_risk_error_responses', 'over_advertised_responses', 'orphan_sightings', 'provenance_responses', 'provenance_cross_tenant_responses', 'provenance_cross_session_responses', 'provenance_only_responses', 'contaminated_without_prompt', 'contaminated_prompt_in_part', 'prompt_in_part', 'provenance_flows', 'flow_matrix', 'by_node', 'by_hour', 'data_categories', 'data_subjects', 'records_concerned', 'bug_window', 'pool_basis', 'at_risk_unknown_records', 'unknown_fields', 'detection', 'duplicate_leaks_not_counted', 'duplicate_lines_not_examined', 'pii_attributed_only_responses', 'pii_attributed_only_flows', 'responses_dated_after_ingest', 'responses_dated_before_marker_issued', 'not_read']

const run = (args: string[], env: Record<string, string> = {}) => runCommand(args, {env})

let c: TestCase
let dbPath: string
/** The known case holds a file whose ingest did not finish (it stays 'loading'); where a responder drops it, detection is whole again. */
function unfinishedPath(path: string): string {
  const raw = new Database(path, {readonly: true})
  try {
    return raw.prepare(`SELECT path FROM files WHERE kind = 'log' AND state = 'loading'`).pluck().get() as string
  } finally {
    raw.close()
  }
}

beforeAll(async () => {
  c = await buildKnownCase()
  dbPath = c.path
  c.close()
  const dropped = await run(['drop', unfinishedPath(dbPath), '--reason', 'ingest killed before the end', '--db', dbPath])
  expect(dropped.code, dropped.stderr).toBe(0)
  expect((await run(['scan', '--db', dbPath])).code).toBe(0)
})

describe('a case holding a file whose ingest did not finish', () => {
  it('is not whole: status says so, scope and the Article 33 draft refuse naming the ingest to finish, even after a scan', async () => {
    const k = await buildKnownCase()
    k.close()
    expect((await run(['scan', '--db', k.path])).code).toBe(0)
    const status = JSON.parse((await run(['status', '--json', '--db', k.path])).stdout)
    expect(status.detection).toMatchObject({complete: false, files_unfinished: 1})
    for (const args of [['scope', '--json', '--pool-tokens', String(POOL)], ['report', 'article33', '--format', 'json']]) {
      const r = await run([...args, '--db', k.path])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/1 log file whose ingest did not finish \(run the same ingest command again: it resumes\)/)
    }
    const allowed = await run(['scope', '--json', '--allow-incomplete', '--db', k.path, '--pool-tokens', String(POOL)])
    expect(JSON.parse(allowed.stdout).detection).toMatchObject({complete: false, files_unfinished: 1})
  })
})
afterAll(() => c.close())

describe('crosstalk scope', () => {
  it('--json prints exactly the contract object plus the documented extensions', async () => {
    const r = await run(['scope', '--json', '--db', dbPath, '--pool-tokens', String(POOL)])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(Object.keys(out)).toEqual([...CONTRACT_KEYS, ...EXTENSION_KEYS])
    expect(out).toMatchObject({contaminated_responses: 4, at_risk_responses: 5, first_seen: '2026-11-02T06:00:00.123Z', last_seen: '2026-11-02T07:15:30.789Z'})
    for (const flow of out.flows) expect(Object.keys(flow)).toEqual(['source_tenant', 'recipient_tenant', 'responses'])
    // CONTRACT.md: exposure counts all evidence, canary and verbatim text, each part shown
    expect(Object.keys(out.exposure)).toEqual(['responses', 'by_canary', 'by_text_only', 'sessions', 'source_tenants', 'recipient_tenants', 'flows', 'source_not_named'])
    expect(out.exposure).toMatchObject({responses: 5, by_canary: 4, by_text_only: 1, sessions: 4, source_tenants: 3, recipient_tenants: 3})
  })

  it('reads --db from CROSSTALK_DB, and at_risk_responses is null without --pool-tokens', async () => {
    const r = await run(['scope', '--json'], {CROSSTALK_DB: dbPath})
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout).at_risk_responses).toBeNull()
  })

  it('prints readable tables by default', async () => {
    const r = await run(['scope', '--db', dbPath, '--pool-tokens', String(POOL)])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/contaminated responses\s+4/)
    expect(r.stdout).toContain('By decode node')
    expect(r.stdout).toContain('By hour (UTC)')
    // The flows by either kind of evidence: acme -> beta is verbatim text only (no marker).
    expect(r.stdout).toContain('Flows (marker or verbatim text): 5 tenant pairs among 3 tenants\n')
    expect(r.stdout).toMatch(/^acme\s+gamma\s+2\s+2\nacme\s+acme \(same tenant\)\s+1\s+1\nacme\s+beta\s+1\s+0$/m)
  })

  it('--tenant shows no other tenant id without --reveal-tenants, in text, JSON and CSV', async () => {
    for (const extra of [[], ['--json'], ['--csv']]) {
      const r = await run(['scope', '--db', dbPath, '--tenant', 'gamma', ...extra])
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('tenant#1')
      expect(r.stdout).not.toMatch(/acme|beta/)
    }
    const revealed = await run(['scope', '--db', dbPath, '--tenant', 'gamma', '--reveal-tenants', '--json'])
    expect(JSON.parse(revealed.stdout).received.counterparts.map((x: {tenant: string}) => x.tenant)).toEqual(['acme', 'beta'])
  })

  it('--csv --table nodes prints CSV; bad flag values are usage errors; an unknown tenant exits 1', async () => {
    const csv = await run(['scope', '--db', dbPath, '--csv', '--table', 'nodes', '--pool-tokens', String(POOL)])
    expect(csv.code).toBe(0)
    expect(csv.stdout.split('\r\n')[0]).toBe('decode_node,contaminated_responses,cross_tenant_responses,cross_session_responses,provenance_responses,at_risk_responses,first_seen,last_seen,at_risk_first,at_risk_last')
    expect(csv.stdout.split('\r\n')[1]).toMatch(/^d1,3,2,1,0,3,/)
    const bad = await run(['scope', '--db', dbPath, '--pool-tokens', 'lots'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/pool-tokens/)
    const reveal = await run(['scope', '--db', dbPath, '--reveal-tenants'])
    expect(reveal.code).toBe(2)
    expect(reveal.stderr).toContain('--reveal-tenants only applies with --tenant')
    const nobody = await run(['scope', '--db', dbPath, '--tenant', 'nobody', '--json'])
    expect(nobody.code).toBe(1)
    expect(JSON.parse(nobody.stdout)).toEqual({error: {message: expect.stringMatching(/nobody/), code: 'E_NO_TENANT'}})
  })
})

describe('crosstalk timeline', () => {
  it('--json lists events in time order; the TTY view has an hourly histogram', async () => {
    const j = await run(['timeline', '--json', '--db', dbPath, '--pool-tokens', String(POOL)])
    expect(j.code).toBe(0)
    const t = JSON.parse(j.stdout)
    expect(Object.keys(t)).toEqual(['bug_window', 'exposure', 'nodes', 'pairs', 'hours', 'events', 'detection', 'at_risk_basis', 'at_risk_unknown_records', 'retry_leaks_not_counted', 'duplicate_lines_not_examined', 'not_read'])
    expect(t.at_risk_basis).toBe('counted')
    expect(t.bug_window.start).toBe('2026-11-02T06:00:00.123Z')
    // the timeline tells the same exposure as scope
    const scope = JSON.parse((await run(['scope', '--json', '--db', dbPath, '--pool-tokens', String(POOL)])).stdout)
    expect(t.exposure).toEqual(scope.exposure)
    expect(t.at_risk_unknown_records).toBe(scope.at_risk_unknown_records)
    const text = await run(['timeline', '--db', dbPath, '--pool-tokens', String(POOL)])
    expect(text.code).toBe(0)
    expect(text.stdout).toMatch(/2026-11-02T06:00Z\s+3\+0 █+/)
    // the known case's verbatim-only leak (acme -> beta) has its hour, drawn apart from the markers
    expect(text.stdout).toMatch(/2026-11-02T07:00Z\s+1\+1 [█▏▎▍▌▋▊▉]+░+\n/)
    expect(text.stdout).toContain("Responses carrying another session's data per hour: with its marker █, by verbatim text only ░")
    expect(text.stdout).toContain('node_first_contamination')
    // A node's first and last are those of the markers it served, and say so: a verbatim-text leak can come earlier.
    expect(text.stdout).toMatch(/node_first_contamination +first response with another session's marker on \S+/)
    expect(text.stdout).not.toContain('first contaminated response')
  })
})
