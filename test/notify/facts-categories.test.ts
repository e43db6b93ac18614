import {describe, expect, it} from 'vitest'
import {scopeFacts} from '../../src/notify/facts.js'
import {computeScope} from '../../src/scope/compute-scope.js'
import type {ScopeInputs} from '../../src/scope/scope-data.js'

// A clean, fully scanned case: nothing reached another session, so no category of data is
// concerned, not even the free text of the conversations.
function cleanInputs(): ScopeInputs {
  return {
    pool: null, advertised: null, pool_basis: 'unknown', contamination: [], provenance: [], atRisk: null, atRiskByTenant: null,
    unknownForAtRisk: {records: 100, no_status: 0, no_prompt_tokens: 0, no_completion_tokens: 0, no_decode_node: 0, no_status_or_prompt_tokens: 0},
    atRiskUndecided: null, atRiskUndecidedRule: 'exact', atRiskUndecidedByTenant: null,
    orphans: 0, pii: [], exposure: null,
    detection: {complete: true, files_not_scanned: 0, records_not_scanned: 0, files_unfinished: 0, never_scanned: false, unfinished_scan_started_at: null, registry_changed: false, sighting_rules_changed: false, files_extracted_earlier: 0, provenance: 'current', provenance_parameters: {min_words: 12, boilerplate_tenants: 3}, provenance_boilerplate_responses: 0, last_scan_at: '2026-11-01T00:00:00.000Z'},
  }
}

describe('scopeFacts data categories', () => {
  it('lists no category on a case where nothing leaked (free text was listed with a count of 0)', () => {
    const inputs = cleanInputs()
    const s = computeScope(inputs)
    expect(s.exposure.responses).toBe(0)
    expect(scopeFacts(s, inputs).categories).toEqual([])
  })
})
