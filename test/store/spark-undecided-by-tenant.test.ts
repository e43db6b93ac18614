import {describe, expect, it} from 'vitest'
import {atRiskUndecidedByTenant, recordsMissingAtRiskFieldsByTenant} from '../../src/store/records.js'
import {insertCorpusFacts, type CorpusFacts} from '../../src/store/scale.js'
import {makeCase} from '../helpers/case-builder.js'

// A case of Spark findings holds only the findings' records; the job counts, over every record,
// those whose missing fields leave open whether they were at risk. Where it counted none, every
// customer has none: processor notices gave at_risk_unknown_records null (unknown) for each.

const facts = (undecided: number | null, missing: number): CorpusFacts => ({
  imported_at: '2026-12-01T00:00:00.000Z', job: '{}', records: 100, tenants: 2, tenant_ids: '["tenant-a","tenant-b"]', sessions: 4, first_ms: 1, last_ms: 2,
  no_status: missing, no_prompt_tokens: 0, no_completion_tokens: 0, no_decode_node: 0, no_status_or_prompt_tokens: missing, undecided_at_risk: undecided,
  pool_tokens: 681280, advertised_tokens: null, sessions_served: 0, sessions_served_with_confirmed: 0, served_windows: '[]',
})

describe('records left undecided for the at-risk test, per tenant, on a case of Spark findings', () => {
  it('are none for every tenant where the job counted none for the pool, and not known otherwise', () => {
    for (const [undecided, missing, pool, known] of [[0, 0, 681280, true], [0, 5, 681280, true], [3, 5, 681280, false], [0, 0, 100000, false], [null, 0, 681280, false]] as const) {
      const c = makeCase()
      try {
        insertCorpusFacts(c.db, facts(undecided, missing))
        const byTenant = atRiskUndecidedByTenant(c.db, pool)
        expect(byTenant === undefined ? undefined : [...byTenant], `undecided ${undecided}, pool ${pool}`).toEqual(known ? [] : undefined)
      } finally {
        c.close()
      }
    }
  })

  it('every record says both fields: none missing for any tenant', () => {
    const c = makeCase()
    try {
      insertCorpusFacts(c.db, facts(null, 0))
      expect(recordsMissingAtRiskFieldsByTenant(c.db)?.size).toBe(0)
      c.db.prepare('DELETE FROM corpus_facts').run()
      insertCorpusFacts(c.db, facts(null, 2))
      expect(recordsMissingAtRiskFieldsByTenant(c.db)).toBeUndefined()
    } finally {
      c.close()
    }
  })
})
