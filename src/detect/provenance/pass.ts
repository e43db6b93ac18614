import type {NodeNumbers, TenantNumbers} from './record-order.js'
import {HashTable, U32List} from './hash-table.js'

// One pass of candidate search over one part of the hash space (candidates.ts runs the
// passes): the part's fingerprints indexed, its boilerplate found, and each response's
// candidate sources tallied. Nothing here touches the case, so a pass runs the same on the
// main thread or on provenance's helper thread (helper.ts), given the same records in the
// same order.

/** Most recent earlier entries looked at per fingerprint (a tenant's system prompt can repeat in every record). */
const POSTING_CAP = 64

/**
 * The tally a response gets (n = 1) when one of its boilerplate hashes is also in an earlier
 * prompt of another session: text a customer sent that reached it, set aside as boilerplate.
 * Never a rank's posting (rank * 2 + part stays far below it); attribution counts it apart and
 * never verifies it, so the findings are what they were without it.
 */
export const BOILERPLATE_TALLY = 0xffffffff

/** Per-rank facts a pass reads (record-order.ts). */
export interface PassOrder {
  session: Int32Array
  tenant: TenantNumbers
  node: NodeNumbers
}

/** Called with each fingerprint of one kind as (rank, h1, h2), a record's fingerprints together. */
export type Visit = (r: number, h1: number, h2: number) => void

export interface PassCounts {
  /** Response fingerprints read (of records with a rank). */
  responseFingerprints: number
  entries: number
  boilerplate: number
}

/**
 * A pass's index and its scratch arrays, kept from one pass to the next (a pass sized by the
 * index budget needs the same arrays again).
 */
export class PassIndex {
  private readonly table: HashTable
  private readonly resp: U32List
  /** Prompt fingerprints of this part that some response also has. */
  private readonly prompt: U32List
  private offBuf = new Uint32Array(0)
  private lastValBuf = new Int32Array(0)
  private postBuf = new Uint32Array(0)
  private boilerBuf = new Uint8Array(0)
  private off = new Uint32Array(0)
  private post = new Uint32Array(0)
  private boiler = new Uint8Array(0)

  /**
   * `expected`: about how many response fingerprints one part holds (sizes the arrays, which
   * grow as needed). `boilerplateTenants`: text whose fingerprints occur in this many distinct
   * tenants is boilerplate.
   */
  constructor(expected: number, private readonly order: PassOrder, private readonly boilerplateTenants: number) {
    this.table = new HashTable(expected)
    // One pass's entries as (rank, slot) pairs in the order read. A record's fingerprints of
    // one part are read together (the table is read record by record), so its entries are
    // consecutive: no per-record arrays (16 bytes a record, 80 MB at 5M records) are needed,
    // only what the pass itself indexes.
    this.resp = new U32List(expected * 2)
    this.prompt = new U32List(expected * 2)
  }

  /**
   * Indexes one part: `responses` and then `prompts` call their visitor with every fingerprint
   * of the part. Each boilerplate hash is given to `onBoilerplate`.
   */
  build(responses: (visit: Visit) => void, prompts: (visit: Visit) => void, onBoilerplate: (h1: number, h2: number) => void): PassCounts {
    const {table, resp, prompt, order} = this
    const T = this.boilerplateTenants
    table.clear()
    resp.length = 0
    prompt.length = 0
    // Responses first: the table holds only their hashes. Then the prompts, each fingerprint
    // looked up as it is read and kept (as its slot) only when some response has it, so the
    // prompts cost no memory beyond their matches.
    responses((r, h1, h2) => resp.push2(r, table.add(h1, h2)))
    prompts((r, h1, h2) => {
      const slot = table.get(h1, h2)
      if (slot >= 0) prompt.push2(r, slot)
    })
    const nSlots = table.size

    // Postings per hash (CSR: off/post), values rank * 2 + part, for every response
    // fingerprint and every prompt fingerprint whose hash some response has. Repeats of a
    // hash within one text are one posting.
    if (this.offBuf.length < nSlots + 1) {
      this.offBuf = new Uint32Array(Math.ceil((nSlots + 1) * 1.1))
      this.lastValBuf = new Int32Array(this.offBuf.length)
      this.boilerBuf = new Uint8Array(this.offBuf.length)
    }
    const off = this.offBuf.subarray(0, nSlots + 1).fill(0)
    const lastVal = this.lastValBuf.subarray(0, nSlots).fill(-1)
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
    if (this.postBuf.length < nEntries) this.postBuf = new Uint32Array(Math.ceil(nEntries * 1.1))
    const post = this.postBuf.subarray(0, nEntries)
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
    const boiler = this.boilerBuf.subarray(0, nSlots).fill(0)
    let boilerplate = 0
    const tenantsSent: number[] = []
    const tenantsTold: number[] = []
    for (let s = 0; s < nSlots; s++) {
      tenantsSent.length = 0
      tenantsTold.length = 0
      let node = -2
      let oneNode = true
      let responseCount = 0
      let flagged = false
      for (let q = off[s]!; q < off[s + 1]!; q++) {
        const v = post[q]!
        const rank = v >>> 1
        const t = order.tenant[rank]!
        if ((v & 1) === 0) {
          if (!tenantsSent.includes(t)) tenantsSent.push(t)
          if (tenantsSent.length >= T) {
            flagged = true
            break
          }
          continue
        }
        responseCount++
        const nd = order.node[rank]!
        if (nd < 0 || (node !== -2 && nd !== node)) oneNode = false
        node = nd
        if (!tenantsTold.includes(t)) tenantsTold.push(t)
      }
      if (!flagged && tenantsTold.length >= T && (!oneNode || responseCount > 2 * T)) flagged = true
      if (flagged) {
        boiler[s] = 1
        onBoilerplate(table.k1[s]!, table.k2[s]!)
        boilerplate++
      }
    }
    this.off = off
    this.post = post
    this.boiler = boiler
    return {responseFingerprints: resp.length >>> 1, entries: nEntries, boilerplate}
  }

  /**
   * Candidates: per response of the part built last, the earlier postings of other sessions (and
   * their later prompts, whose order against it the records cannot tell; and the earlier prompts
   * of its own session, which attribution masks as the recipient's own text) on
   * its non-boilerplate hashes, given as (rank r, posting v = rank * 2 + part, shared
   * fingerprints n); a response's tallies together, in the order first seen.
   */
  match(onTally: (r: number, v: number, n: number) => void): void {
    const {resp, off, post, boiler, order} = this
    const tally = new Map<number, number>()
    const data = resp.data
    for (let e = 0; e < resp.length; ) {
      const r = data[e]!
      tally.clear()
      const own = r * 2
      const session = order.session[r]!
      let setAside = false
      for (; e < resp.length && data[e] === r; e += 2) {
        const slot = data[e + 1]!
        const lo = off[slot]!
        const hi = off[slot + 1]!
        if (boiler[slot] === 1) {
          // Counted, never evidence: an earlier prompt of another session holds this boilerplate hash.
          if (!setAside && hi - lo > 1) {
            const a = firstPostingFrom(post, lo, hi, own)
            // The most recent earlier postings, as many as candidates look at.
            for (let q = a - 1, seen = 0; q >= lo && seen < POSTING_CAP; q--, seen++) {
              const v = post[q]!
              if ((v & 1) === 0 && order.session[v >>> 1] !== session) {
                setAside = true
                break
              }
            }
          }
          continue
        }
        if (hi - lo < 2) continue // only this response has it
        // First posting at or after this record's own entries.
        const a = firstPostingFrom(post, lo, hi, own)
        // Text the recipient itself sent is never evidence against someone else.
        if (a < hi && post[a] === own) continue
        // Earlier postings of other sessions, and earlier prompts of the recipient's own session:
        // attribution masks those as text the recipient sent itself (a multi-turn chat whose
        // gateway logs only each turn's new input), and never takes them as sources.
        for (let q = a - 1, seen = 0; q >= lo && seen < POSTING_CAP; q--, seen++) {
          const v = post[q]!
          if (order.session[v >>> 1] !== session || (v & 1) === 0) tally.set(v, (tally.get(v) ?? 0) + 1)
        }
        // Later prompts too: a record's time is when its response was returned, so a prompt
        // logged later may have arrived, and been prefilled, while this response was decoded
        // (a request in flight). Attribution marks such a source's order as unknown. Later
        // responses are not candidates: their text did not exist yet.
        for (let q = a, seen = 0; q < hi && seen < POSTING_CAP; q++, seen++) {
          const v = post[q]!
          if ((v & 1) === 0 && v !== own && order.session[v >>> 1] !== session) tally.set(v, (tally.get(v) ?? 0) + 1)
        }
      }
      for (const [v, n] of tally) onTally(r, v, n)
      if (setAside) onTally(r, BOILERPLATE_TALLY, 1)
    }
  }
}

/** The first index in [lo, hi) of a sorted posting list whose entry is at or after `own` (hi when none is). */
function firstPostingFrom(post: ArrayLike<number>, lo: number, hi: number, own: number): number {
  let a = lo
  let b = hi
  while (a < b) {
    const m = (a + b) >>> 1
    if (post[m]! < own) a = m + 1
    else b = m
  }
  return a
}
