import {join} from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {renderVerdict} from '../../src/cli/render-scope.js'
import {scanCase} from '../../src/detect/scan-case.js'
import type {ScopeResult} from '../../src/scope/compute-scope.js'
import {canaryVerdict} from '../../src/scope/verdict.js'
import {openCase} from '../../src/store/open-case.js'
import {convertIncident} from '../helpers/convert-formats.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// Issue 18: triage prints the exact canary verdict as soon as every record's markers are
// classified, before canary-less provenance, personal data and scope, and --fail-on-leak
// decides on it. The verdict is the one scope prints at the end, by construction and here
// by measurement.

type Scope = Pick<ScopeResult, 'contaminated_responses' | 'cross_tenant_responses' | 'cross_session_responses' | 'exposed_sessions' | 'exposed_tenants' | 'recipient_tenants' | 'first_seen' | 'last_seen' | 'flows'>

describe('triage, verdict first', () => {
  it('prints the canary verdict before the scan and the scope, with the numbers scope prints last', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    const r = await run(['triage', incident.logs, '--canaries', incident.canaries, '--db', db, '--fail-on-leak', '--accept-bad-lines'])
    expect(r.code, r.stderr).toBe(3)
    const out = r.stdout
    const verdictAt = out.indexOf('Canary verdict')
    expect(verdictAt).toBeGreaterThanOrEqual(0)
    expect(verdictAt).toBeLessThan(out.indexOf('Scanned '))
    expect(verdictAt).toBeLessThan(out.indexOf('Scope'))
    const scope = await runJson<Scope>(['scope', '--db', db])
    expect(scope.contaminated_responses).toBeGreaterThan(0)
    expect(out).toContain(`  ${scope.contaminated_responses} responses carried another session's canary marker: ${scope.cross_tenant_responses} cross-tenant, ${scope.cross_session_responses} cross-session.`)
    expect(out).toContain(`first ${scope.first_seen}, last ${scope.last_seen}.`)
    // the gate's line came with the verdict, once
    expect(r.stderr.match(/Gate: contamination found/g)).toHaveLength(1)
    // the same figures, field by field, from the function triage calls
    const c = openCase(db)
    try {
      const v = canaryVerdict(c)
      const {flows, ...figures} = v
      const {flows: scopeFlows, ...rest} = scope
      // The lower bounds where a marker cut short names no source session are scope's too, where scope gives them.
      const bounds = Object.fromEntries((['exposed_session_not_named', 'exposed_sessions_low', 'exposed_tenants_low'] as const).filter((k) => k in rest).map((k) => [k, (rest as Record<string, unknown>)[k]]))
      expect(figures).toEqual({
        contaminated_responses: rest.contaminated_responses, cross_tenant_responses: rest.cross_tenant_responses, cross_session_responses: rest.cross_session_responses,
        exposed_sessions: rest.exposed_sessions, exposed_tenants: rest.exposed_tenants, recipient_tenants: rest.recipient_tenants, first_seen: rest.first_seen, last_seen: rest.last_seen,
        ...bounds,
      })
      expect(flows).toEqual(scopeFlows)
    } finally {
      c.close()
    }
  }, 120_000)

  it('--json says when the verdict was known (the quick pass, inside the ingest step) and that the scan confirmed it', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    const t = await runJson<{timings_ms: {canaries: number; ingest: number; scan: number; total: number; verdict: number}; verdict: unknown}>(['triage', incident.logs, '--canaries', incident.canaries, '--db', db])
    expect(t.verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
    expect(t.timings_ms.verdict).toBeGreaterThan(t.timings_ms.canaries)
    expect(t.timings_ms.verdict).toBeLessThan(t.timings_ms.canaries + t.timings_ms.ingest)
  }, 120_000)

  it('without a canary registry the verdict is unknown and --fail-on-leak cannot pass on the markers (it exited 0 on "nothing found"); the leaks provenance finds trip it', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    const r = await run(['triage', incident.logs, '--db', db, '--fail-on-leak', '--accept-bad-lines'])
    expect(r.stdout).toContain('Not known: the case holds no canary registry')
    expect(r.stdout).not.toContain("No response carried another session's canary marker")
    expect(r.stderr).toMatch(/--fail-on-leak cannot pass: the case holds no canary registry/)
    // The incident's leaks are found by verbatim text too: a leak without a registry is still a leak (3).
    expect(r.stderr).toMatch(/Gate: contamination found after the canary verdict above: \d+ responses repeat another session's text verbatim/)
    expect(r.code).toBe(3)
    const scan = await run(['scan', '--db', db, '--fail-on-leak', '--accept-bad-lines'])
    expect(scan.code).toBe(3)
    expect(scan.stderr).toMatch(/Gate: also: .*no canary registry/)
    // Markers only (--no-provenance over a fresh case): nothing can be attributed, so the gate cannot pass (1).
    const bare = join(tempDir(), 'bare.db')
    const markersOnly = await run(['triage', incident.logs, '--db', bare, '--fail-on-leak', '--accept-bad-lines', '--no-provenance'])
    expect(markersOnly.code).toBe(1)
  }, 180_000)

  it('--no-quick-verdict skips the pass: the verdict is the scan\'s', async () => {
    const incident = inject('incident')
    const t = await runJson<{verdict: unknown; scan: {contaminated_responses: number}}>(['triage', incident.logs, '--canaries', incident.canaries, '--db', join(tempDir(), 'case.db'), '--no-quick-verdict'])
    expect(t.verdict).toEqual({basis: 'scan', confirmed_by_scan: null})
    expect(t.scan.contaminated_responses).toBeGreaterThan(0)
  }, 120_000)

  it('on a case that holds logs already the verdict is the scan\'s, printed after classification', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    await runJson(['ingest', 'canaries', incident.canaries, '--db', db])
    await runJson(['ingest', 'logs', join(incident.logs, 'gw-ams1-2026-10-30.jsonl'), '--db', db])
    const t = await runJson<{timings_ms: {canaries: number; ingest: number; scan: number; verdict: number}; verdict: unknown}>(['triage', incident.logs, '--db', db])
    expect(t.verdict).toEqual({basis: 'scan', confirmed_by_scan: null})
    expect(t.timings_ms.verdict).toBeGreaterThanOrEqual(t.timings_ms.canaries + t.timings_ms.ingest)
    expect(t.timings_ms.verdict).toBeLessThan(t.timings_ms.canaries + t.timings_ms.ingest + t.timings_ms.scan)
  }, 120_000)

  // Langfuse's lines join by trace (a SPAN with an output is unread only where no GENERATION of its
  // trace is among the files), so its files are read as one set, as OTel's are: the scan's verdict.
  it('in other formats: quick and confirmed where lines are read alone (LiteLLM), the scan\'s where lines join (OTel, Langfuse)', async () => {
    const incident = inject('incident')
    const converted = convertIncident(incident.logs, join(tempDir(), 'converted'))
    const native = await runJson<{scan: {contaminated_responses: number}}>(['triage', incident.logs, '--canaries', incident.canaries, '--db', join(tempDir(), 'n.db')])
    const cases: Array<[string[], string]> = [
      [[converted.langfuse], 'scan'],
      [[converted.litellm, '--assume-tz', 'UTC'], 'quick'],
      [[converted.otel.traces, converted.otel.logs], 'scan'],
    ]
    for (const [args, basis] of cases) {
      const t = await runJson<{verdict: {basis: string; confirmed_by_scan: boolean | null}; scan: {contaminated_responses: number}}>(['triage', ...args, '--canaries', incident.canaries, '--db', join(tempDir(), 'f.db')])
      expect(t.verdict, args[0]).toEqual({basis, confirmed_by_scan: basis === 'quick' ? true : null})
      expect(t.scan.contaminated_responses, args[0]).toBe(native.scan.contaminated_responses)
    }
  }, 240_000)

  it('scan calls the hook after classifying markers and before provenance and personal data', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    await runJson(['ingest', 'canaries', incident.canaries, '--db', db])
    await runJson(['ingest', 'logs', incident.logs, '--db', db])
    const c = openCase(db)
    try {
      const events: string[] = []
      scanCase(c, {now: new Date(), onProgress: (p) => events.push(p.phase), onMarkersClassified: () => events.push('verdict')})
      const at = events.indexOf('verdict')
      expect(at).toBeGreaterThan(0)
      expect(events.slice(0, at).every((e) => e === 'markers')).toBe(true)
      expect(events.slice(at + 1)).toEqual(expect.arrayContaining(['provenance', 'pii']))
      expect(events.slice(at + 1)).not.toContain('markers')
    } finally {
      c.close()
    }
  }, 120_000)
})

describe('renderVerdict', () => {
  const none = {contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, exposed_sessions: 0, exposed_tenants: 0, recipient_tenants: 0, first_seen: null, last_seen: null, flows: []}
  it('says "no response" of what was read only, and names what was not', () => {
    expect(renderVerdict({...none, basis: 'scan', canaries: 5, unreadable_files: [], quarantined_lines: 0})).toContain("  No response carried another session's canary marker.")
    expect(renderVerdict({...none, basis: 'scan', canaries: 0, unreadable_files: [], quarantined_lines: 0})).not.toContain('No response carried')
    const partial = renderVerdict({...none, basis: 'scan', canaries: 5, unreadable_files: [{path: 'a.jsonl'}], quarantined_lines: 3})
    expect(partial).toContain("No response carried another session's canary marker in the lines that could be read.")
    expect(partial).toContain('3 quarantined lines could not be read and are not judged')
    expect(partial).toContain('1 log file could not be judged')
  })
})
