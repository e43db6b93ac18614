import type {ProvenanceTally} from '../../store/findings.js'
import type {CaseDb} from '../../store/open-case.js'
import {inTransaction} from '../../store/session.js'
import type {HashTable} from './hash-table.js'
import type {ProvenanceHelper} from './helper.js'
import {PassIndex, type PassCounts} from './pass.js'
import type {RecordOrder} from './record-order.js'
import {readFingerprints, type SpillFiles} from './spill.js'

// Candidate sources for every response: the earlier records of other sessions that share a
// non-boilerplate fingerprint with it, with how many they share. The hash space is split
// into passes, each indexing only its part (pass.ts), so that memory does not grow with the
// case; the tallies are summed across passes in the store (ProvenanceTally), so the passes
// may run in any order, on the main thread or on its helper (helper.ts).

export interface CandidateInput {
  records: number
  maxId: number
  /** Response fingerprints in the case (sizes the per-pass arrays). */
  rfps: number
  order: RecordOrder
  /** Rank by record id: the fingerprints are stored by record. */
  rankOfId: Int32Array
  passes: number
  /** The fingerprints split by part, where there is more than one pass (else each pass reads the case). */
  spill: SpillFiles | null
  /** Text whose fingerprints occur in this many distinct tenants is boilerplate. */
  boilerplateTenants: number
}

export interface CandidateStats {
  response_fingerprints: number
  index_entries: number
  boilerplate_hashes: number
}

/**
 * Runs the passes, adding each response's candidate tallies to `out` (rank r, posting
 * v = rank * 2 + part with part 0 prompt, 1 response, shared fingerprints n) and every
 * boilerplate hash to `boilerTable`; with a helper, the passes are shared with it.
 */
export function tallyCandidates(
  db: CaseDb, input: CandidateInput, out: ProvenanceTally, boilerTable: HashTable, stats: CandidateStats, helper: ProvenanceHelper | null,
): void {
  const {passes, order, spill, rankOfId} = input
  const expected = Math.ceil((input.rfps / passes) * 1.05) + 16
  const count = (c: PassCounts): void => {
    stats.response_fingerprints += c.responseFingerprints
    stats.index_entries += c.entries
    stats.boilerplate_hashes += c.boilerplate
  }
  const onBoilerplate = (h1: number, h2: number): void => void boilerTable.add(h1, h2)
  let index: PassIndex | undefined
  const own = (pass: number): void => {
    index ??= new PassIndex(expected, order, input.boilerplateTenants)
    const fromCase = (part: 'response' | 'prompt') => (visit: (r: number, h1: number, h2: number) => void): void => {
      for (const [r, fps] of readFingerprints(db, part, input.maxId, rankOfId)) {
        for (let i = 0; i + 1 < fps.length; i += 2) visit(r, fps[i]!, fps[i + 1]!)
      }
    }
    const built = spill
      ? index.build((visit) => spill.read(pass, 0, rankOfId, visit), (visit) => spill.read(pass, 1, rankOfId, visit), onBoilerplate)
      : index.build(fromCase('response'), fromCase('prompt'), onBoilerplate)
    count(built)
    const indexed = index
    inTransaction(db, () => indexed.match(out.add))
  }
  if (helper !== null && spill !== null) {
    helper.runPasses(
      {passes, expected, boilerplateTenants: input.boilerplateTenants, rankOfId, session: order.session, tenant: order.tenant, node: order.node},
      own,
      (m) => {
        count(m.counts)
        for (let i = 0; i + 1 < m.boilerplate.length; i += 2) onBoilerplate(m.boilerplate[i]!, m.boilerplate[i + 1]!)
        const t = m.tallies
        inTransaction(db, () => {
          for (let i = 0; i + 2 < t.length; i += 3) out.add(t[i]!, t[i + 1]!, t[i + 2]!)
        })
      },
    )
  } else {
    for (let pass = 0; pass < passes; pass++) own(pass)
  }
}
