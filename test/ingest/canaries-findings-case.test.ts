import {describe, expect, it} from 'vitest'
import {countCanaries} from '../../src/store/canaries.js'
import {insertCorpusFacts, type CorpusFacts} from '../../src/store/scale.js'
import {makeCase} from '../helpers/case-builder.js'

// A case of Spark findings: its sightings were classified by the job against the registry it ran
// with, and `scan` is refused there. `ingest canaries` took a new registry in, and every draft
// then said to run `crosstalk scan`, which refuses: the fix named could not be followed.

const facts: CorpusFacts = {
  imported_at: '2026-12-01T00:00:00.000Z', job: '{}', records: 10, tenants: 1, tenant_ids: '["tenant-a"]', sessions: 1, first_ms: 1, last_ms: 2,
  no_status: 0, no_prompt_tokens: 0, no_completion_tokens: 0, no_decode_node: 0, no_status_or_prompt_tokens: 0, undecided_at_risk: 0, pool_tokens: null, advertised_tokens: null,
  sessions_served: null, sessions_served_with_confirmed: null, served_windows: null,
}

describe('ingest canaries into a case of Spark findings', () => {
  it('refuses a registry the job did not run with, naming what to do; the registry it ran with is already present', async () => {
    const c = makeCase()
    try {
      await c.addCanary('CANARY-0123456789abcdef0123', 'tenant-a', 'sess-a')
      insertCorpusFacts(c.db, facts)
      // The same registry again: nothing changes, nothing to refuse.
      await expect(c.addCanary('CANARY-0123456789abcdef0123', 'tenant-a', 'sess-a')).resolves.toBeUndefined()
      const refused = c.addCanary('CANARY-fedcba98765432100123', 'tenant-b', 'sess-b')
      await expect(refused).rejects.toThrow(/this case holds Spark findings \(ingest findings\), classified by the job against the registry it ran with: run the job again with this registry/)
      await expect(refused).rejects.toMatchObject({code: 'E_REFERENCE_CASE', exit: 1})
      expect(countCanaries(c.db)).toBe(1)
    } finally {
      c.close()
    }
  })
})
