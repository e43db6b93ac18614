import {join} from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {runJson} from '../helpers/commands.js'

// One case, two commands, one set of numbers: after `scan --pool-tokens N`, `scope --json` and
// `report article33 --format json` read the same recorded pool and the same findings, so every
// number they share is equal. (They once disagreed: only the report read the stored pool.)
describe('scope and the Article 33 draft agree', () => {
  it('on every number they share, field by field', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    await runJson(['triage', incident.logs, '--canaries', incident.canaries, '--db', db, '--pool-tokens', '681280', '--advertised-tokens', '1048576'])
    const scope = await runJson<Record<string, unknown> & {data_subjects: {low: number; high: number | null}; records_concerned: {low: number; high: number | null}}>(['scope', '--db', db])
    const draft = await runJson<{scope: Record<string, unknown>; data_subjects: {approximate: {low: number; high: number | null}}; records: {approximate: {low: number; high: number | null}}}>(
      ['report', 'article33', '--db', db, '--format', 'json', '--now', '2026-11-03T00:00:00Z', '--delay-reason', 'rehearsal'],
    )
    // The pool came from the case, in both.
    expect(scope.pool_tokens).toBe(681280)
    expect(scope.data_subjects.high).not.toBeNull()
    const shared = Object.keys(draft.scope).filter((k) => k in scope && !['by_hour', 'method'].includes(k))
    expect(shared.length).toBeGreaterThanOrEqual(14)
    for (const key of shared) expect(draft.scope[key], key).toEqual(scope[key])
    expect(draft.data_subjects.approximate).toMatchObject({low: scope.data_subjects.low, high: scope.data_subjects.high})
    expect(draft.records.approximate).toMatchObject({low: scope.records_concerned.low, high: scope.records_concerned.high})
    const hours = (scope.by_hour as Array<{hour: string; contaminated_responses: number; cross_tenant_responses: number; provenance_responses: number; text_only_responses: number; at_risk_responses: number | null}>).map(
      (h) => ({hour: h.hour, responses: h.contaminated_responses, cross_tenant_responses: h.cross_tenant_responses, provenance_responses: h.provenance_responses, text_only_responses: h.text_only_responses, at_risk_responses: h.at_risk_responses}),
    )
    expect(draft.scope.by_hour).toEqual(hours)
  })
})
