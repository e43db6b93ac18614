import type {ProvenanceTally} from '../../store/findings.js'
import type {CaseDb} from '../../store/open-case.js'
import {inTransaction} from '../../store/session.js'
import {HashTable, U32List} from './hash-table.js'
import type {RecordOrder} from './record-order.js'
import {readFingerprints, SpillFiles} from './spill.js'

// Candidate sources for every response: the earlier records of other sessions that share a
// non-boilerplate fingerprint with it, with how many they share. The hash space is split
// into passes, each indexing only its part, so that memory does not grow with the case; the
// tallies are summed across passes in the store (ProvenanceTally).

/** Most recent earlier entries looked at per fingerprint (a tenant's system prompt can repeat in every record). */
const POSTING_CAP = 64

export interface CandidateInput {
  records: number
  maxId: number
  /** Response fingerprints in the case (sizes the per-pass arrays). */
  rfps: number
  order: RecordOrder
  /**
   * Hands over rank by record id, which the caller then no longer holds: it is needed only
   * to read the fingerprints, and with more than one pass they are read once, before the
   * passes, so the passes run without it (4 bytes a record).
   */
  takeRankOfId: () => Int32Array
  passes: number
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
 * boilerplate hash to `boilerTable`. Returns the time spent loading, indexing and matching.
 */
export function tallyCandidates(
  db: CaseDb, input: CandidateInput, out: ProvenanceTally, boilerTable: HashTable, stats: CandidateStats,
): {load: number; index: number; match: number} {
  const timings = {load: 0, index: 0, match: 0}
  const {passes, order} = input
  const count = input
  let rankOfId: Int32Array | null = input.takeRankOfId()
  const T = input.boilerplateTenants
  // One pass's entries as (rank, slot) pairs in the order read. A record's fingerprints of
  // one part are read together (the table is read record by record), so its entries are
  // consecutive: no per-record arrays (16 bytes a record, 80 MB at 5M records) are needed,
  // only what the pass itself indexes.
  const expected = Math.ceil((count.rfps / passes) * 1.05) + 16
  const table = new HashTable(expected)
  const resp = new U32List(expected * 2)
  // Prompt fingerprints of this part that some response also has.
  const prompt = new U32List(expected * 2)
  let offBuf = new Uint32Array(0)
  let lastValBuf = new Int32Array(0)
  let postBuf = new Uint32Array(0)
  let boilerBuf = new Uint8Array(0)
  // More than one pass: read the table once, writing each fingerprint to its part's spill
  // file, so every pass reads only its own part (instead of the whole table every pass).
  const spill = passes > 1 ? SpillFiles.write(db, passes, count.maxId, rankOfId, stats) : null
  if (spill) rankOfId = null
  try {
    for (let pass = 0; pass < passes; pass++) {
      const tp0 = performance.now()
      table.clear()
      resp.length = 0
      prompt.length = 0
      // Responses first: the table holds only their hashes. Then the prompts, each fingerprint
      // looked up as it is read and kept (as its slot) only when some response has it, so the
      // prompts cost no memory beyond their matches.
      const respEntry = (r: number, h1: number, h2: number): void => resp.push2(r, table.add(h1, h2))
      const promptEntry = (r: number, h1: number, h2: number): void => {
        const slot = table.get(h1, h2)
        if (slot >= 0) prompt.push2(r, slot)
      }
      if (spill) {
        // Several passes: the table was read once and split by part into spill files.
        spill.read(pass, 0, respEntry)
        spill.read(pass, 1, promptEntry)
      } else {
        for (const [r, fps] of readFingerprints(db, 'response', count.maxId, rankOfId!)) {
          stats.response_fingerprints += fps.length >>> 1
          for (let i = 0; i + 1 < fps.length; i += 2) respEntry(r, fps[i]!, fps[i + 1]!)
        }
        for (const [r, fps] of readFingerprints(db, 'prompt', count.maxId, rankOfId!)) {
          for (let i = 0; i + 1 < fps.length; i += 2) promptEntry(r, fps[i]!, fps[i + 1]!)
        }
      }
      const nSlots = table.size
      const tp1 = performance.now()
      timings.load += tp1 - tp0

      // Postings per hash (CSR: off/post), values rank * 2 + part, for every response
      // fingerprint and every prompt fingerprint whose hash some response has. Repeats of a
      // hash within one text are one posting.
      if (offBuf.length < nSlots + 1) {
        offBuf = new Uint32Array(Math.ceil((nSlots + 1) * 1.1))
        lastValBuf = new Int32Array(offBuf.length)
        boilerBuf = new Uint8Array(offBuf.length)
      }
      const off = offBuf.subarray(0, nSlots + 1).fill(0)
      const lastVal = lastValBuf.subarray(0, nSlots).fill(-1)
      // Each distinct (hash, text) once: v = rank * 2 + part (0 prompt, 1 response).
      const eachSlot = (list: U32List, part: 0 | 1, visit: (slot: number, v: number) => void): void => {
        const data = list.data
        for (let i = 0; i < list.length; i += 2) {
          const v = data[i]! * 2 + part
          const slot = data[i + 1]!
          if (lastVal[slot] === v) continue
          lastVal[slot] = v
          visit(slot, v)
        }
      }
      let nEntries = 0
      const countEntry = (slot: number): void => {
        off[slot + 1]!++
        nEntries++
      }
      eachSlot(resp, 1, countEntry)
      eachSlot(prompt, 0, countEntry)
      for (let sl = 0; sl < nSlots; sl++) off[sl + 1]! += off[sl]!
      if (postBuf.length < nEntries) postBuf = new Uint32Array(Math.ceil(nEntries * 1.1))
      const post = postBuf.subarray(0, nEntries)
      lastVal.fill(-1)
      // Fill with off[slot] as the cursor (it ends at the next slot's start), then shift back.
      const place = (slot: number, v: number): void => {
        post[off[slot]!++] = v
      }
      eachSlot(resp, 1, place)
      eachSlot(prompt, 0, place)
      for (let sl = nSlots; sl > 0; sl--) off[sl] = off[sl - 1]!
      off[0] = 0
      // Each group in time order: only hashes shared by two or more texts have more than one posting.
      for (let sl = 0; sl < nSlots; sl++) if (off[sl + 1]! - off[sl]! > 1) post.subarray(off[sl]!, off[sl + 1]!).sort()
      stats.index_entries += nEntries

      // Boilerplate: a hash found in the prompts of >= T tenants, or in the responses of >= T
      // tenants. Prompts and responses are counted apart so that a prompt leaked into the
      // responses of two other tenants does not become "boilerplate" (1 + 2 = 3 tenants): only
      // what many tenants *sent*, or what the model *said* to many tenants, is.
      // A leak can itself leak again (a contaminated answer is cached like any other), so one
      // record's text can reach the responses of T tenants through a chain of copies. A chain
      // stays on the decode node whose stale pages carried it, and is short; what the model
      // says to many tenants is said on every node, and often. So text in the responses of
      // >= T tenants that all came from one known decode node, in at most 2T responses, is
      // kept as evidence.
      const boiler = boilerBuf.subarray(0, nSlots).fill(0)
      {
        const prompts: number[] = []
        const responses: number[] = []
        for (let s = 0; s < nSlots; s++) {
          prompts.length = 0
          responses.length = 0
          let node = -2
          let oneNode = true
          let responseCount = 0
          let flagged = false
          for (let q = off[s]!; q < off[s + 1]!; q++) {
            const v = post[q]!
            const rank = v >>> 1
            const t = order.tenant[rank]!
            if ((v & 1) === 0) {
              if (!prompts.includes(t)) prompts.push(t)
              if (prompts.length >= T) {
                flagged = true
                break
              }
              continue
            }
            responseCount++
            const nd = order.node[rank]!
            if (nd < 0 || (node !== -2 && nd !== node)) oneNode = false
            node = nd
            if (!responses.includes(t)) responses.push(t)
          }
          if (!flagged && responses.length >= T && (!oneNode || responseCount > 2 * T)) flagged = true
          if (flagged) {
            boiler[s] = 1
            boilerTable.add(table.k1[s]!, table.k2[s]!)
            stats.boilerplate_hashes++
          }
        }
      }
      const tp2 = performance.now()
      timings.index += tp2 - tp1

      // Candidates: per response, the earlier postings of other sessions on its non-boilerplate hashes.
      inTransaction(db, () => {
        const tally = new Map<number, number>()
        const data = resp.data
        for (let e = 0; e < resp.length; ) {
          const r = data[e]!
          tally.clear()
          const own = r * 2
          const session = order.session[r]!
          for (; e < resp.length && data[e] === r; e += 2) {
            const slot = data[e + 1]!
            if (boiler[slot] === 1) continue
            const lo = off[slot]!
            const hi = off[slot + 1]!
            if (hi - lo < 2) continue // only this response has it
            // First posting at or after this record's own entries.
            let a = lo
            let b = hi
            while (a < b) {
              const m = (a + b) >>> 1
              if (post[m]! < own) a = m + 1
              else b = m
            }
            // Text the recipient itself sent is never evidence against someone else.
            if (a < hi && post[a] === own) continue
            for (let q = a - 1, seen = 0; q >= lo && seen < POSTING_CAP; q--, seen++) {
              const v = post[q]!
              if (order.session[v >>> 1] !== session) tally.set(v, (tally.get(v) ?? 0) + 1)
            }
          }
          for (const [v, n] of tally) out.add(r, v, n)
        }
      })
      timings.match += performance.now() - tp2
    }
  } finally {
    spill?.remove()
  }
  return timings
}
