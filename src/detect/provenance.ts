import {getHeapStatistics} from 'node:v8'
import {recordTextLoader, type RecordTexts} from '../evidence/record-texts.js'
import {fingerprintSession} from '../store/extracts.js'
import {contaminationFacts, provenanceTally, provenanceWriter, type ProvenanceTally} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {inTransaction} from '../store/session.js'
import {releaseMemory} from '../ingest/release-memory.js'
import {fullGc} from '../util/gc.js'
import {tallyCandidates} from './provenance/candidates.js'
import {HashTable} from './provenance/hash-table.js'
import {BOILERPLATE_TALLY} from './provenance/pass.js'
import {ProvenanceHelper, type HelperOptions} from './provenance/helper.js'
import {SpillFiles} from './provenance/spill.js'
import {idByRank, loadRecordOrder, type NodeNumbers} from './provenance/record-order.js'
import {SourceChain, type AttributionContext} from './provenance/attribute.js'

// Canary-less provenance: a response that repeats, verbatim, text an *other* session sent
// or received *earlier*. Stale KV pages hold an earlier request's prompt, and a decode
// worker reading a stale reference can regenerate that request's answer (vLLM #52234), so
// earlier prompts and earlier responses are both candidate sources.
//
// Pipeline: the stored winnowed fingerprints of every record, put in time order
// (record-order.ts) -> per response, the earlier other-session records that share a
// non-boilerplate fingerprint, counted in passes over parts of the hash space so that
// memory stays bounded (candidates.ts) -> verification of the longest common verbatim word
// run against each candidate's text, decoded again from the evidence (verify-run.ts; the
// helper thread, helper.ts, decodes most of them a chunk or two ahead of the main thread).
//
// The source is the earliest ORIGINAL occurrence of the text: a prompt, or an answer that
// was not itself contaminated. A contaminated answer (one with a cross-session/cross-tenant
// sighting, or attributed here to someone else) is a copy: it is never named as a source,
// and a later response that repeats it is checked against the copy's own source instead
// (responses are attributed in time order, so the copy's source is known by then). When a
// canary sighting on the same response names the source session, a verified candidate of
// that session wins.

export interface ProvenanceOptions {
  /** Shortest verbatim run (in words) that counts as evidence. */
  minWords: number
  /** Text whose fingerprints occur in this many distinct tenants is boilerplate. */
  boilerplateTenants: number
}

export const DEFAULT_PROVENANCE: ProvenanceOptions = {minWords: 12, boilerplateTenants: 3}

export interface ProvenanceStats {
  records: number
  /** Fingerprints of all responses (the query side). */
  response_fingerprints: number
  /** Index entries: response fingerprints plus the prompt fingerprints that share a hash with some response. */
  index_entries: number
  boilerplate_hashes: number
  /** Passes over the fingerprints table, each indexing one part of the hash space. */
  passes: number
  responses_with_candidates: number
  candidates_verified: number
  attributed: number
  /**
   * Responses not attributed that hold text an earlier prompt of another session holds, set
   * aside as boilerplate (found in the sessions of boilerplateTenants or more tenants): counted
   * so that no statement reads as an all-clear over them; never verified, never evidence.
   */
  boilerplate_responses: number
  /**
   * load: the records put in time order and the fingerprints split by part; index: the passes
   * (each part indexed, its candidates tallied); match: the candidates verified against the texts.
   */
  timings_ms: {load: number; index: number; match: number}
}

/**
 * Memory for the index of one pass. The hash space is split into as many passes as it
 * takes to keep each pass's index under this budget, so the peak does not grow with the
 * size of the case.
 */
export const DEFAULT_INDEX_BUDGET_BYTES = 32 * 1024 * 1024
/** Index bytes per response fingerprint: hash slots and keys, (rank, slot) entries, postings, offsets, flags. */
const BYTES_PER_RESPONSE_FP = 40
/** Garbage allowed to build up on the JS heap during verification before a full collection. */
const HEAP_SLACK_BYTES = 24 * 1024 * 1024
/** Records whose decoded texts verification keeps at hand, and the most characters they may hold. */
const TEXT_CACHE_RECORDS = 512
const TEXT_CACHE_CHARS = 8 * 1024 * 1024
/** Responses whose candidate tallies are read back at a time. */
const MATCH_CHUNK = 4096
/** Chunks beyond the one being verified whose texts the helper decodes ahead. */
const READ_AHEAD_CHUNKS = 2
/**
 * Characters of text the helper decodes ahead for one chunk, at most (about 0.4M for a chunk of a
 * 200k-record incident; an over-pool prompt alone can be megabytes).
 */
const READ_AHEAD_CHARS = 2 * 1024 * 1024

export interface ProvenanceTuning {
  /** Memory budget of one pass's index (default 32 MiB). */
  indexBudgetBytes?: number
  /** Force the number of passes (tests: the result must not depend on it). */
  passes?: number
  /** Share the passes with a helper thread (tests: the result must not depend on it); default: when there is a second core. */
  helper?: boolean
  /** Tests: how the helper behaves (helper.ts). */
  helperTest?: Pick<HelperOptions, 'helperTakesAll' | 'silentFrom' | 'stallMs' | 'failFrom'>
  /** Ranks verified a chunk (tests: small chunks, so that a small case has several to read ahead). */
  matchChunk?: number
  /** Tests: verification waits for the helper's texts of each chunk it asked for (else it never waits). */
  awaitTexts?: boolean
}

/** Recomputes the provenance table from the stored fingerprints (boilerplate is a property of the whole case). */
export function computeProvenance(db: CaseDb, options: ProvenanceOptions, tuning: ProvenanceTuning = {}): ProvenanceStats {
  const t0 = performance.now()
  const budget = tuning.indexBudgetBytes ?? DEFAULT_INDEX_BUDGET_BYTES
  // With a helper thread two passes' indexes are held at once, one a thread: half the budget each.
  const helper = ProvenanceHelper.start(db, {...tuning.helperTest, passes: tuning.passes, bytesPerPass: budget / 2, bytesPerResponseFingerprint: BYTES_PER_RESPONSE_FP, helper: tuning.helper})
  let ownSpill: SpillFiles | null = null
  try {
    // Everything is read from the compact fingerprints table (never from `records`), then put
    // in time order, while the helper splits the fingerprints into its spill files.
    const loaded = loadRecordOrder(db)
    const {order, maxId} = loaded
    // The passes read the fingerprints by record id, so rank by id is held through them; id by
    // rank, the same 4 bytes a record, is not needed until verification: it is let go, and
    // rebuilt from rank by id once the passes are done (holding both put the peak of a 5M
    // scan 20 MB higher).
    let rankOfId: Int32Array | null = loaded.rankOfId
    loaded.rankOfId = new Int32Array(0)
    order.id = new Uint32Array(0)
    // The loader's scratch, SQLite's sorter and the pages it read.
    releaseMemory(db)
    const spilled = helper?.spilled() ?? null
    let passes: number
    let spill: SpillFiles | null
    if (spilled !== null) {
      ;({passes, spill} = spilled)
    } else {
      passes = Math.max(1, tuning.passes ?? Math.ceil((loaded.rfps * BYTES_PER_RESPONSE_FP) / budget))
      spill = ownSpill = passes > 1 ? SpillFiles.create(passes) : null
      ownSpill?.write(db)
    }
    const nRec = loaded.records
    const stats: ProvenanceStats = {
      records: nRec,
      response_fingerprints: 0,
      index_entries: 0,
      boilerplate_hashes: 0,
      responses_with_candidates: 0,
      candidates_verified: 0,
      attributed: 0,
      boilerplate_responses: 0,
      passes,
      timings_ms: {load: 0, index: 0, match: 0},
    }
    // Boilerplate hashes of all passes (few: text many tenants share), for masking during verification.
    const boilerTable = new HashTable(1024)
    const tally = provenanceTally(db)
    try {
      const t1 = performance.now()
      // The passes' index arrays (tens of MB on a large case) are garbage once the tallies are
      // written: they live inside tallyCandidates only, and verification runs without them.
      tallyCandidates(
        db,
        {records: nRec, maxId, rfps: loaded.rfps, order, rankOfId, passes, spill, boilerplateTenants: options.boilerplateTenants},
        tally, boilerTable, stats, spilled !== null ? helper : null,
      )
      helper?.removeSpill()
      ownSpill?.remove()
      const t2 = performance.now()
      // Attribution needs each rank's record id and decode node: sessions and tenants are let go
      // before it runs.
      order.id = idByRank(rankOfId, nRec)
      rankOfId = null
      const {id, node} = order
      order.session = new Int32Array(0)
      order.tenant = new Int32Array(0)
      // The passes' index arrays go first: built beside them, the table and the chain made a
      // 40 MB spike at 5M records (measured).
      releaseMemory(db)
      const chain = knownCopies(db, id, nRec)
      // The helper, if it is still of use, reads the texts verification compares ahead of it.
      attributeResponses(db, {id, node}, chain, tally, boilerTable, options, stats, spilled !== null ? helper : null, tuning)
      stats.timings_ms = {load: Math.round(t1 - t0), index: Math.round(t2 - t1), match: Math.round(performance.now() - t2)}
    } finally {
      tally.drop()
    }
    return stats
  } finally {
    helper?.close()
    ownSpill?.remove()
  }
}

/**
 * Copies known before provenance runs: responses with a contaminating sighting, with the
 * source session each sighting names (the chain rule, attribute.ts).
 */
function knownCopies(db: CaseDb, id: Uint32Array, nRec: number): SourceChain {
  const chain = new SourceChain(nRec)
  const rows = contaminationFacts(db)
  // The ranks of these few records, found in one sweep of the ids by rank: a table of rank by
  // id would be 4 bytes a record (20 MB at 5M, beside attribution's own arrays).
  const rankOf = new Map<number, number>()
  for (const c of rows) rankOf.set(c.record_id, -1)
  for (let r = 0; r < id.length; r++) if (rankOf.has(id[r]!)) rankOf.set(id[r]!, r)
  for (const c of rows) {
    const rank = rankOf.get(c.record_id)!
    if (rank >= 0) chain.markCopy(rank, {tenant: c.source_tenant, session: c.source_session})
  }
  return chain
}

/**
 * Verifies each response's best-tallied candidates against the texts (decoded again from the
 * evidence), in time order, and records the best verified source by the chain rule
 * (attribute.ts: a copy is replaced by its own source; a session a sighting names first, then
 * the longest evidence run, the recipient's own decode node, the earliest).
 */
function attributeResponses(
  db: CaseDb, order: {id: Uint32Array; node: NodeNumbers}, chain: SourceChain, tally: ProvenanceTally, boilerTable: HashTable, options: ProvenanceOptions, stats: ProvenanceStats,
  helper: ProvenanceHelper | null, tuning: Pick<ProvenanceTuning, 'matchChunk' | 'awaitTexts'>,
): void {
  const matchChunk = tuning.matchChunk ?? MATCH_CHUNK
  const nRec = order.id.length
  // A response and its candidates are looked up together, so a small cache saves most re-decoding.
  const decode = recordTextLoader(db, {random: true})
  // Texts the helper decoded ahead (the chunk each was read for), not yet used.
  const ahead = new Map<number, {chunk: number; texts: RecordTexts}>()
  let chunk = 0
  const keep = (c: number, got: number, request_text: string | null, response_text: string | null): void => {
    if (c >= chunk) ahead.set(got, {chunk: c, texts: {request_text, response_text}})
  }
  const loadTexts = (id: number): RecordTexts => {
    helper?.receivedTexts(keep)
    const read = ahead.get(id)
    if (read === undefined) return decode(id)
    ahead.delete(id)
    return read.texts
  }
  // Bounded by count and by characters: an over-pool prompt is megabytes of text, and a
  // cache of 512 of them would be the largest thing the scan holds.
  const textCache = new Map<number, RecordTexts>()
  let cachedChars = 0
  const charsOf = (t: RecordTexts): number => (t.request_text?.length ?? 0) + (t.response_text?.length ?? 0)
  const text = (part: 'request_text' | 'response_text', id: number): string => {
    let t = textCache.get(id)
    if (t === undefined) {
      t = loadTexts(id)
      cachedChars += charsOf(t)
      textCache.set(id, t)
      while (textCache.size > 1 && (textCache.size > TEXT_CACHE_RECORDS || cachedChars > TEXT_CACHE_CHARS)) {
        const [oldest, old] = textCache.entries().next().value!
        cachedChars -= charsOf(old)
        textCache.delete(oldest)
      }
    }
    return t[part] ?? ''
  }
  const sessionOf = fingerprintSession(db)
  const writer = provenanceWriter(db)
  const isBoiler = (h1: number, h2: number): boolean => boilerTable.size > 0 && boilerTable.get(h1, h2) >= 0
  // Verification garbage (texts, word arrays) outlives young-generation collections, and V8
  // lets the old generation grow to a multiple of the live heap (hundreds of MB on a large
  // case) before it collects: collect whenever it has grown by the slack.
  const heapBase = getHeapStatistics().used_heap_size

  const ctx: AttributionContext = {
    text: (part, rank) => text(part, order.id[rank]!),
    node: (rank) => order.node[rank]!,
    session: (rank) => sessionOf(order.id[rank]!),
    isBoiler,
    minWords: options.minWords,
    stats,
  }

  /** Whether the response was attributed. */
  const matchResponse = (r: number, found: Array<[number, number]>): boolean => {
    const best = found.length === 0 ? null : chain.attribute(r, found, ctx)
    if (best === null) return false
    const s = best.v >>> 1
    const source = sessionOf(order.id[s]!)!
    writer.insert({
      recordId: order.id[r]!,
      sourceRecordId: order.id[s]!,
      sourceSession: source.session_id,
      sourceTenant: source.tenant_id,
      overlapWords: best.run.len,
      overlapSha256: best.overlapSha256,
      matched: best.matched,
      wordStart: best.run.start,
      candidates: best.candidates,
      sourceOrder: best.sourceOrder,
      sourceStatus: best.sourceStatus,
      sourceTenants: best.sourceTenants,
      sourceCandidates: best.sourceCandidates,
    })
    stats.attributed++
    return true
  }

  // Chunks of ranks whose tallies are read, READ_AHEAD_CHUNKS beyond the one verified: the
  // helper decodes the texts they will compare (theirs and their candidates') meanwhile.
  const chunks = Math.ceil(nRec / matchChunk)
  const rowsOf = new Map<number, Array<[number, number, number]>>()
  const asked = new Set<number>()
  const readChunk = (c: number): void => {
    if (c >= chunks || rowsOf.has(c)) return
    const rows = tally.read(c * matchChunk, (c + 1) * matchChunk)
    rowsOf.set(c, rows)
    // The chunk being verified is read here (the helper would race the main thread for it).
    if (helper === null || c <= chunk) return
    const ids = new Set<number>()
    for (const [r, v] of rows) {
      if (v === BOILERPLATE_TALLY) continue
      ids.add(order.id[r]!)
      ids.add(order.id[v >>> 1]!)
    }
    if (helper.readAhead(c, Uint32Array.from(ids), READ_AHEAD_CHARS)) asked.add(c)
  }

  inTransaction(db, () => {
    writer.clear()
    for (chunk = 0; chunk < chunks; chunk++) {
      if (getHeapStatistics().used_heap_size > heapBase + HEAP_SLACK_BYTES) fullGc()
      if (tuning.awaitTexts && asked.has(chunk)) helper?.receivedTexts(keep, chunk)
      asked.delete(chunk)
      helper?.reached(chunk)
      for (const [id, read] of ahead) if (read.chunk < chunk) ahead.delete(id)
      for (let c = chunk; c <= chunk + READ_AHEAD_CHUNKS; c++) readChunk(c)
      const rows = rowsOf.get(chunk) ?? []
      rowsOf.delete(chunk)
      for (let i = 0; i < rows.length; ) {
        const r = rows[i]![0]
        const candidates: Array<[number, number]> = []
        let setAside = false
        for (; i < rows.length && rows[i]![0] === r; i++) {
          if (rows[i]![1] === BOILERPLATE_TALLY) setAside = true
          else candidates.push([rows[i]![1], rows[i]![2]])
        }
        if (!matchResponse(r, candidates) && setAside) stats.boilerplate_responses++
      }
    }
  })
}
