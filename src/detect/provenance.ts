import {createHash} from 'node:crypto'
import {closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {getHeapStatistics, setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'
import {IntegrityError} from '../errors.js'
import {recordTextLoader, type RecordTexts} from '../ingest/record-texts.js'
import type {CaseDb} from '../store/open-case.js'
import {FingerprintBuffer, K, SCHEME, fingerprintText, kgramHashes, type KGrams} from './winnow.js'
import {tokenizeWords, wordsText, type Words} from './words.js'

// Canary-less provenance: a response that repeats, verbatim, text an *other* session sent
// or received *earlier*. Stale KV pages hold an earlier request's prompt, and a decode
// worker reading a stale reference can regenerate that request's answer (vLLM #52234), so
// earlier prompts and earlier responses are both candidate sources.
//
// Pipeline: winnowed fingerprints per record (stored, computed once) -> an in-memory
// index by hash, built in passes over parts of the hash space so that each pass stays
// under a fixed memory budget -> per response, the earlier other-session records sharing
// a non-boilerplate fingerprint (tallies summed over passes in a temp table) ->
// verification of the longest common verbatim word run against each candidate's text.

export interface ProvenanceOptions {
  /** Shortest verbatim run (in words) that counts as evidence. */
  minWords: number
  /** Text whose fingerprints occur in this many distinct tenants is boilerplate. */
  boilerplateTenants: number
}

export const DEFAULT_PROVENANCE: ProvenanceOptions = {minWords: 12, boilerplateTenants: 3}

/** Most recent earlier entries looked at per fingerprint (a tenant's system prompt can repeat in every record). */
const POSTING_CAP = 64
/** Candidate sources verified per response, by shared-fingerprint count. */
const MAX_VERIFIED = 16
/** Anchor positions kept per k-gram in a candidate text (repetitive text). */
const ANCHOR_CAP = 32

export interface RecordFingerprints {
  promptWords: number
  responseWords: number
  promptFp: Buffer
  responseFp: Buffer
}

const promptBuf = new FingerprintBuffer()
const responseBuf = new FingerprintBuffer()

export function fingerprintTexts(requestText: string | null, responseText: string | null): RecordFingerprints {
  promptBuf.length = 0
  responseBuf.length = 0
  const promptWords = requestText ? fingerprintText(requestText, promptBuf) : 0
  const responseWords = responseText ? fingerprintText(responseText, responseBuf) : 0
  // Views, not copies: SQLite copies the bytes when it binds them.
  return {promptWords, responseWords, promptFp: promptBuf.view(), responseFp: responseBuf.view()}
}

export interface RecordMeta {
  ts_ms: number
  tenant_id: string
  session_id: string
  decode_node: string | null
}

export function storeFingerprints(db: CaseDb): (recordId: number, fp: RecordFingerprints, meta: RecordMeta) => void {
  const insert = db.prepare(
    `INSERT OR REPLACE INTO fingerprints (record_id, scheme, prompt_words, response_words, prompt_fp, response_fp, ts_ms, tenant_id, session_id, decode_node)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  return (id, fp, m) => {
    insert.run(id, SCHEME, fp.promptWords, fp.responseWords, fp.promptFp, fp.responseFp, m.ts_ms, m.tenant_id, m.session_id, m.decode_node)
  }
}

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
  timings_ms: {load: number; index: number; match: number}
}

// ------------------------------------------------------------------ the hash table

/**
 * Open addressing over (h1, h2) pairs: only the hashes of response fingerprints. A source
 * can only matter through a hash some response also has, so prompt fingerprints that are
 * not in this table are never indexed: the index grows with the number of responses, not
 * with the size of the prompts.
 */
class HashTable {
  mask: number
  /** Slot -> dense id + 1 (0 = empty); the keys live densely by id. */
  slots: Int32Array
  k1: Uint32Array
  k2: Uint32Array
  size = 0

  constructor(expected: number) {
    let cap = 1024
    while (cap < expected * 1.5) cap *= 2
    this.mask = cap - 1
    this.slots = new Int32Array(cap)
    this.k1 = new Uint32Array(Math.max(16, expected))
    this.k2 = new Uint32Array(Math.max(16, expected))
  }

  /** Dense id of (h1, h2), inserting it when new (the table grows as needed; ids never change). */
  add(h1: number, h2: number): number {
    let p = (h1 ^ Math.imul(h2, 0x9e3779b1)) & this.mask
    for (;;) {
      const v = this.slots[p]!
      if (v === 0) {
        if (this.size === this.k1.length) this.growKeys()
        const id = this.size++
        this.k1[id] = h1
        this.k2[id] = h2
        this.slots[p] = id + 1
        if (this.size * 1.5 > this.slots.length) this.rehash()
        return id
      }
      if (this.k1[v - 1] === h1 && this.k2[v - 1] === h2) return v - 1
      p = (p + 1) & this.mask
    }
  }

  /** Empties the table, keeping its memory (the next pass reuses it). */
  clear(): void {
    this.slots.fill(0)
    this.size = 0
  }

  /** Dense id of (h1, h2), or -1. */
  get(h1: number, h2: number): number {
    let p = (h1 ^ Math.imul(h2, 0x9e3779b1)) & this.mask
    for (;;) {
      const v = this.slots[p]!
      if (v === 0) return -1
      if (this.k1[v - 1] === h1 && this.k2[v - 1] === h2) return v - 1
      p = (p + 1) & this.mask
    }
  }

  private growKeys(): void {
    const n = Math.ceil(this.k1.length * 1.5)
    const k1 = new Uint32Array(n)
    const k2 = new Uint32Array(n)
    k1.set(this.k1)
    k2.set(this.k2)
    this.k1 = k1
    this.k2 = k2
  }

  private rehash(): void {
    const cap = this.slots.length * 2
    this.mask = cap - 1
    this.slots = new Int32Array(cap)
    for (let id = 0; id < this.size; id++) {
      let p = (this.k1[id]! ^ Math.imul(this.k2[id]!, 0x9e3779b1)) & this.mask
      while (this.slots[p] !== 0) p = (p + 1) & this.mask
      this.slots[p] = id + 1
    }
  }
}

class U32List {
  data: Uint32Array
  length = 0
  constructor(cap = 1024) {
    this.data = new Uint32Array(Math.max(16, cap))
  }
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Uint32Array(Math.ceil(this.data.length * 1.5))
      next.set(this.data)
      this.data = next
    }
    this.data[this.length++] = v
  }
}

let scratch = new Uint32Array(4096)
const EMPTY = Buffer.alloc(0)

/** The blob's pairs as uint32s: a view when aligned, else a copy into a reused scratch array (valid until the next call). */
function copyFingerprints(blob: Uint8Array): Uint32Array {
  // Copy: a Buffer from SQLite need not be 4-byte aligned.
  if ((blob.byteOffset & 3) === 0) return new Uint32Array(blob.buffer, blob.byteOffset, blob.byteLength >>> 2)
  const n = blob.byteLength >>> 2
  if (scratch.length < n) scratch = new Uint32Array(Math.max(n, scratch.length * 2))
  new Uint8Array(scratch.buffer, 0, n * 4).set(blob.subarray(0, n * 4))
  return scratch.subarray(0, n)
}

// ------------------------------------------------------------------ reading fingerprints

/** Each stored record's fingerprint pairs of one part, by rank, in table order. */
function* readFingerprints(db: CaseDb, column: 'prompt_fp' | 'response_fp', maxId: number, rankOfId: Int32Array): Generator<[number, Uint32Array]> {
  const rows = db.prepare(`SELECT record_id, ${column} FROM fingerprints`).raw().iterate() as IterableIterator<[number, Buffer]>
  for (const [id, blob] of rows) {
    const r = id <= maxId ? rankOfId[id]! : -1
    if (r < 0) continue // added since the records were counted
    yield [r, copyFingerprints(blob)]
  }
}

/**
 * The part (pass) of a fingerprint: its h2's top 16 bits scaled to [0, passes). Integer
 * arithmetic throughout; `h2 % passes` on a uint32 above 2^31 is a floating-point
 * remainder, about three times slower, and this runs once per stored fingerprint. Exact
 * while passes < 65536, thousands of times more passes than any case needs.
 */
export function partOf(h2: number, passes: number): number {
  return ((h2 >>> 16) * passes) >>> 16
}

/**
 * The fingerprints split by part (partOf) into temporary files of (rank, h1, h2)
 * triples, responses and prompts apart, in table order. Written in one read of the table;
 * each pass then reads its own part sequentially.
 */
class SpillFiles {
  private constructor(
    private readonly dir: string,
    private readonly passes: number,
  ) {}

  private path(pass: number, kind: 0 | 1): string {
    return join(this.dir, `${pass}-${kind}.bin`)
  }

  static write(db: CaseDb, passes: number, maxId: number, rankOfId: Int32Array, stats: ProvenanceStats): SpillFiles {
    const dir = mkdtempSync(join(tmpdir(), 'crosstalk-prov-'))
    const spill = new SpillFiles(dir, passes)
    const CAP = 8 * 1024 // triples per buffer
    const bufs: Uint32Array[] = []
    const lens: number[] = []
    const fds: number[] = []
    try {
      for (let p = 0; p < passes; p++) {
        for (const kind of [0, 1] as const) {
          fds.push(openSync(spill.path(p, kind), 'w', 0o600))
          bufs.push(new Uint32Array(CAP * 3))
          lens.push(0)
        }
      }
      const flush = (k: number): void => {
        if (lens[k] === 0) return
        writeSync(fds[k]!, bufs[k]!, 0, lens[k]! * 12)
        lens[k] = 0
      }
      const spread = (r: number, blob: Buffer, kind: 0 | 1, from = 0, to = blob.length): number => {
        const fps = copyFingerprints(from === 0 && to === blob.length ? blob : blob.subarray(from, to))
        for (let i = 0; i + 1 < fps.length; i += 2) {
          const k = partOf(fps[i + 1]!, passes) * 2 + kind
          const b = bufs[k]!
          let n = lens[k]!
          b[n * 3] = r
          b[n * 3 + 1] = fps[i]!
          b[n * 3 + 2] = fps[i + 1]!
          lens[k] = ++n
          if (n === CAP) flush(k)
        }
        return fps.length >>> 1
      }
      if (db.pragma('encoding', {simple: true}) === 'UTF-8') {
        // Both blobs of a row as one: every blob read costs a buffer of its own, and at a
        // million records that is most of this loop. `||` joins them byte for byte (in a
        // UTF-8 database text is not re-encoded), and the cast makes the result a blob again.
        const rows = db
          .prepare('SELECT record_id, length(response_fp), CAST(ifnull(response_fp, x\'\') || ifnull(prompt_fp, x\'\') AS BLOB) FROM fingerprints')
          .raw()
          .iterate() as IterableIterator<[number, number | null, Buffer | null]>
        for (const [id, rlen, joined] of rows) {
          const r = id <= maxId ? rankOfId[id]! : -1
          if (r < 0) continue
          const both = joined ?? EMPTY
          const split = rlen ?? 0
          stats.response_fingerprints += spread(r, both, 0, 0, split)
          spread(r, both, 1, split)
        }
      } else {
        const rows = db.prepare('SELECT record_id, response_fp, prompt_fp FROM fingerprints').raw().iterate() as IterableIterator<[number, Buffer, Buffer]>
        for (const [id, rfp, pfp] of rows) {
          const r = id <= maxId ? rankOfId[id]! : -1
          if (r < 0) continue
          stats.response_fingerprints += spread(r, rfp, 0)
          spread(r, pfp, 1)
        }
      }
      for (let k = 0; k < fds.length; k++) flush(k)
    } catch (error) {
      spill.remove()
      throw error
    } finally {
      for (const fd of fds) closeSync(fd)
    }
    return spill
  }

  /** Every (rank, h1, h2) of one part and kind (0 responses, 1 prompts), in the order written. */
  read(pass: number, kind: 0 | 1, visit: (r: number, h1: number, h2: number) => void): void {
    const fd = openSync(this.path(pass, kind), 'r')
    try {
      const buf = new Uint32Array(3 * 64 * 1024)
      const bytes = new Uint8Array(buf.buffer)
      for (;;) {
        const n = readSync(fd, bytes, 0, bytes.length, null)
        if (n === 0) break
        const triples = Math.floor(n / 12)
        if (triples * 12 !== n) throw new Error(`provenance spill file ${this.path(pass, kind)}: short read`)
        for (let t = 0; t < triples; t++) visit(buf[t * 3]!, buf[t * 3 + 1]!, buf[t * 3 + 2]!)
      }
    } finally {
      closeSync(fd)
    }
  }

  remove(): void {
    rmSync(this.dir, {recursive: true, force: true})
  }
}

// ------------------------------------------------------------------ verification

interface Run {
  len: number
  /** Word index in the response. */
  start: number
}

/**
 * The longest verbatim run of words shared by the response and a candidate text that is
 * evidence: once the masked words (boilerplate, or text the recipient sent itself) are
 * taken out, what is left of the run still holds `minWords` consecutive words. The run
 * reported is the whole verbatim run.
 */
function longestEvidenceRun(rw: Words, rg: KGrams, sw: Words, sg: KGrams, minWords: number, masked: Uint8Array): Run | null {
  const anchors = new Map<number, number[]>()
  for (let j = 0; j < sg.length; j++) {
    const list = anchors.get(sg.h1[j]!)
    if (list === undefined) anchors.set(sg.h1[j]!, [j])
    else if (list.length < ANCHOR_CAP) list.push(j)
  }
  const same = (i: number, j: number): boolean => rw.h1[i] === sw.h1[j] && rw.h2[i] === sw.h2[j]
  let best: Run | null = null
  for (let i = 0; i < rg.length; i++) {
    const list = anchors.get(rg.h1[i]!)
    if (list === undefined) continue
    for (const j of list) {
      if (sg.h2[j] !== rg.h2[i]) continue
      if (i > 0 && j > 0 && same(i - 1, j - 1)) continue // not the start of a maximal run
      let len = 0
      while (i + len < rw.length && j + len < sw.length && same(i + len, j + len)) len++
      if (len < minWords || (best !== null && len <= best.len)) continue
      if (longestUnmasked(masked, i, len) >= minWords) best = {len, start: i}
    }
  }
  return best
}

function longestUnmasked(masked: Uint8Array, start: number, len: number): number {
  let best = 0
  let cur = 0
  for (let k = start; k < start + len; k++) {
    if (masked[k] === 1) cur = 0
    else if (++cur > best) best = cur
  }
  return best
}

// ------------------------------------------------------------------ the pass

/**
 * Memory for the index of one pass. The hash space is split into as many passes as it
 * takes to keep each pass's index under this budget, so the peak does not grow with the
 * size of the case: the fingerprints table is read once into per-part spill files (see
 * SpillFiles), and each pass indexes only its own part.
 */
export const DEFAULT_INDEX_BUDGET_BYTES = 32 * 1024 * 1024
/** Index bytes per response fingerprint: hash slots and keys, postings, offsets, flags. */
const BYTES_PER_RESPONSE_FP = 36
/** Garbage allowed to build up on the JS heap during verification before a full collection. */
const HEAP_SLACK_BYTES = 24 * 1024 * 1024
/** Responses whose candidate tallies are read back at a time. */
const MATCH_CHUNK = 4096

export interface ProvenanceTuning {
  /** Memory budget of one pass's index (default 64 MiB). */
  indexBudgetBytes?: number
  /** Force the number of passes (tests: the result must not depend on it). */
  passes?: number
}

interface Meta {
  /** Record id by rank. */
  id: Uint32Array
  session: Int32Array
  tenant: Int32Array
  node: Int32Array
}

/** Recomputes the provenance table from the stored fingerprints (boilerplate is a property of the whole case). */
export function computeProvenance(db: CaseDb, options: ProvenanceOptions, tuning: ProvenanceTuning = {}): ProvenanceStats {
  const t0 = performance.now()
  const timings = {load: 0, index: 0, match: 0}
  // Everything is read from the compact fingerprints table (never from `records`, whose
  // rows carry the texts), then put in time order here.
  const count = loadMeta(db)
  const nRec = count.records
  const meta = count.meta
  fullGc() // the loader's scratch arrays
  const rankOfId = meta.rankOfId

  const budget = tuning.indexBudgetBytes ?? DEFAULT_INDEX_BUDGET_BYTES
  const passes = Math.max(1, tuning.passes ?? Math.ceil((count.rfps * BYTES_PER_RESPONSE_FP) / budget))
  const stats: ProvenanceStats = {
    records: nRec,
    response_fingerprints: 0,
    index_entries: 0,
    boilerplate_hashes: 0,
    responses_with_candidates: 0,
    candidates_verified: 0,
    attributed: 0,
    passes,
    timings_ms: timings,
  }
  const T = options.boilerplateTenants
  // Boilerplate hashes of all passes (few: text many tenants share), for masking during verification.
  const boilerTable = new HashTable(1024)
  // Candidate tallies (rank r, posting v = rank * 2 + part, shared fingerprints), summed over passes.
  db.exec(`DROP TABLE IF EXISTS temp.prov_tally;
           CREATE TEMP TABLE prov_tally (r INTEGER NOT NULL, v INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (r, v)) WITHOUT ROWID`)
  const addTally = db.prepare('INSERT INTO temp.prov_tally (r, v, n) VALUES (?, ?, ?) ON CONFLICT (r, v) DO UPDATE SET n = n + excluded.n')
  const t1 = performance.now()
  timings.load += t1 - t0

  // The passes: their index arrays (tens of MB on a large case) are garbage once the
  // tallies are written, so they live in this scope only and verification runs without them.
  ;(() => {
  // Per pass, by rank: the record's response fingerprints of this part are respSlot[respBegin[r] .. respEnd[r]).
  const respBegin = new Uint32Array(nRec)
  const respEnd = new Uint32Array(nRec)
  const promptBegin = new Uint32Array(nRec)
  const promptEnd = new Uint32Array(nRec)
  // One pass's index arrays, allocated once and reused by every pass (views of the needed length).
  const expected = Math.ceil((count.rfps / passes) * 1.05) + 16
  const table = new HashTable(expected)
  const respSlot = new U32List(expected)
  // Slots of the prompt fingerprints of this part that some response also has.
  const promptSlots = new U32List(expected)
  let offBuf = new Uint32Array(0)
  let lastValBuf = new Int32Array(0)
  let postBuf = new Uint32Array(0)
  let boilerBuf = new Uint8Array(0)
  // More than one pass: read the table once, writing each fingerprint to its part's spill
  // file, so every pass reads only its own part (instead of the whole table every pass).
  const spill = passes > 1 ? SpillFiles.write(db, passes, count.maxId, rankOfId, stats) : null
  try {
  for (let pass = 0; pass < passes; pass++) {
    const tp0 = performance.now()
    respBegin.fill(0)
    respEnd.fill(0)
    promptBegin.fill(0)
    promptEnd.fill(0)
    table.clear()
    respSlot.length = 0
    promptSlots.length = 0
    // Responses first: the table holds only their hashes. Then the prompts, each fingerprint
    // looked up as it is read and kept (as its slot) only when some response has it, so the
    // prompts cost no memory beyond their matches.
    let cur = -1
    const respEntry = (r: number, h1: number, h2: number): void => {
      if (r !== cur) {
        cur = r
        respBegin[r] = respSlot.length
      }
      respSlot.push(table.add(h1, h2))
      respEnd[r] = respSlot.length
    }
    const promptEntry = (r: number, h1: number, h2: number): void => {
      if (r !== cur) {
        cur = r
        promptBegin[r] = promptSlots.length
        promptEnd[r] = promptSlots.length
      }
      const slot = table.get(h1, h2)
      if (slot >= 0) {
        promptSlots.push(slot)
        promptEnd[r] = promptSlots.length
      }
    }
    if (spill) {
      // Several passes: the table was read once and split by part into spill files.
      spill.read(pass, 0, respEntry)
      cur = -1
      spill.read(pass, 1, promptEntry)
    } else {
      for (const [r, fps] of readFingerprints(db, 'response_fp', count.maxId, rankOfId)) {
        stats.response_fingerprints += fps.length >>> 1
        for (let i = 0; i + 1 < fps.length; i += 2) respEntry(r, fps[i]!, fps[i + 1]!)
      }
      cur = -1
      for (const [r, fps] of readFingerprints(db, 'prompt_fp', count.maxId, rankOfId)) {
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
    const eachResponseSlot = (visit: (slot: number, rv: number) => void): void => {
      for (let r = 0; r < nRec; r++) {
        const rv = r * 2 + 1
        for (let e = respBegin[r]!; e < respEnd[r]!; e++) {
          const slot = respSlot.data[e]!
          if (lastVal[slot] === rv) continue
          lastVal[slot] = rv
          visit(slot, rv)
        }
      }
    }
    const eachPromptSlot = (visit: (slot: number, pv: number) => void): void => {
      for (let r = 0; r < nRec; r++) {
        const pv = r * 2
        for (let e = promptBegin[r]!; e < promptEnd[r]!; e++) {
          const slot = promptSlots.data[e]!
          if (lastVal[slot] === pv) continue
          lastVal[slot] = pv
          visit(slot, pv)
        }
      }
    }
    let nEntries = 0
    const countEntry = (slot: number): void => {
      off[slot + 1]!++
      nEntries++
    }
    eachResponseSlot(countEntry)
    eachPromptSlot(countEntry)
    for (let sl = 0; sl < nSlots; sl++) off[sl + 1]! += off[sl]!
    if (postBuf.length < nEntries) postBuf = new Uint32Array(Math.ceil(nEntries * 1.1))
    const post = postBuf.subarray(0, nEntries)
    lastVal.fill(-1)
    // Fill with off[slot] as the cursor (it ends at the next slot's start), then shift back.
    const place = (slot: number, v: number): void => {
      post[off[slot]!++] = v
    }
    eachResponseSlot(place)
    eachPromptSlot(place)
    for (let sl = nSlots; sl > 0; sl--) off[sl] = off[sl - 1]!
    off[0] = 0
    // Each group in time order: only hashes shared by two or more texts have more than one posting.
    for (let sl = 0; sl < nSlots; sl++) if (off[sl + 1]! - off[sl]! > 1) post.subarray(off[sl]!, off[sl + 1]!).sort()
    stats.index_entries += nEntries

    // Boilerplate: a hash found in the prompts of >= T tenants, or in the responses of >= T
    // tenants. Prompts and responses are counted apart so that a prompt leaked into the
    // responses of two other tenants does not become "boilerplate" (1 + 2 = 3 tenants): only
    // what many tenants *sent*, or what the model *said* to many tenants, is.
    const boiler = boilerBuf.subarray(0, nSlots).fill(0)
    {
      const seen: number[][] = [[], []]
      for (let s = 0; s < nSlots; s++) {
        seen[0]!.length = 0
        seen[1]!.length = 0
        for (let q = off[s]!; q < off[s + 1]!; q++) {
          const v = post[q]!
          const list = seen[v & 1]!
          const t = meta.tenant[v >>> 1]!
          if (!list.includes(t)) {
            list.push(t)
            if (list.length >= T) {
              boiler[s] = 1
              boilerTable.add(table.k1[s]!, table.k2[s]!)
              stats.boilerplate_hashes++
              break
            }
          }
        }
      }
    }
    const tp2 = performance.now()
    timings.index += tp2 - tp1

    // Candidates: per response, the earlier postings of other sessions on its non-boilerplate hashes.
    db.transaction(() => {
      const tally = new Map<number, number>()
      for (let r = 0; r < nRec; r++) {
        const e0 = respBegin[r]!
        const e1 = respEnd[r]!
        if (e0 === e1) continue
        tally.clear()
        const own = r * 2
        const session = meta.session[r]!
        for (let e = e0; e < e1; e++) {
          const slot = respSlot.data[e]!
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
            if (meta.session[v >>> 1] !== session) tally.set(v, (tally.get(v) ?? 0) + 1)
          }
        }
        for (const [v, n] of tally) addTally.run(r, v, n)
      }
    })()
    timings.match += performance.now() - tp2
  }
  } finally {
    spill?.remove()
  }
  })()
  fullGc() // the passes' arrays

  const tm0 = performance.now()
  // Texts are decoded again from the evidence (ingest does not store them); a response and
  // its candidates are looked up together, so a small cache saves most re-decoding.
  const loadTexts = recordTextLoader(db, {random: true})
  const textCache = new Map<number, RecordTexts>()
  const textsOf = (id: number): RecordTexts => {
    let t = textCache.get(id)
    if (t === undefined) {
      t = loadTexts(id)
      if (textCache.size >= 512) textCache.delete(textCache.keys().next().value!)
      textCache.set(id, t)
    }
    return t
  }
  const getResponse = 'response_text'
  const getPrompt = 'request_text'
  const sessionOf = db.prepare('SELECT tenant_id, session_id FROM fingerprints WHERE record_id = ?')
  const readTallies = db.prepare('SELECT r, v, n FROM temp.prov_tally WHERE r >= ? AND r < ? ORDER BY r, v').raw()
  const insert = db.prepare(
    `INSERT INTO provenance (record_id, source_record_id, source_session, source_tenant, overlap_words, overlap_sha256, matched, word_start, candidates)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const text = (part: 'request_text' | 'response_text', id: number): string => textsOf(id)[part] ?? ''
  // Verification garbage (texts, word arrays) outlives young-generation collections, and V8
  // lets the old generation grow to a multiple of the live heap (hundreds of MB on a large
  // case) before it collects: collect whenever it has grown by the slack.
  const heapBase = getHeapStatistics().used_heap_size
  const isBoiler = (h1: number, h2: number): boolean => boilerTable.size > 0 && boilerTable.get(h1, h2) >= 0

  db.transaction(() => {
    db.prepare('DELETE FROM provenance').run()
    for (let lo = 0; lo < nRec; lo += MATCH_CHUNK) {
      if (getHeapStatistics().used_heap_size > heapBase + HEAP_SLACK_BYTES) fullGc()
      const rows = readTallies.all(lo, lo + MATCH_CHUNK) as Array<[number, number, number]>
      for (let i = 0; i < rows.length; ) {
        const r = rows[i]![0]
        const tally: Array<[number, number]> = []
        for (; i < rows.length && rows[i]![0] === r; i++) tally.push([rows[i]![1], rows[i]![2]])
        matchResponse(r, tally)
      }
    }
  })()
  db.exec('DROP TABLE IF EXISTS temp.prov_tally')
  timings.match += performance.now() - tm0
  stats.timings_ms = {load: Math.round(timings.load), index: Math.round(timings.index), match: Math.round(timings.match)}
  return stats

  function matchResponse(r: number, tally: Array<[number, number]>): void {
    stats.responses_with_candidates++
    const ranked = tally.sort((x, y) => y[1] - x[1] || y[0] - x[0]).slice(0, MAX_VERIFIED)

    const rText = text(getResponse, meta.id[r]!)
    const rw = tokenizeWords(rText)
    const rg = kgramHashes(rw)
    // Masked words: covered by a boilerplate k-gram, or by a k-gram of the recipient's own prompt.
    const masked = new Uint8Array(rw.length)
    for (let i = 0; i < rg.length; i++) if (isBoiler(rg.h1[i]!, rg.h2[i]!)) masked.fill(1, i, i + K)
    let ownMasked = false
    let best: {v: number; run: Run} | null = null
    for (const [v] of ranked) {
      stats.candidates_verified++
      const s = v >>> 1
      const sw = tokenizeWords(text((v & 1) === 0 ? getPrompt : getResponse, meta.id[s]!))
      const sg = kgramHashes(sw)
      // Cheap test first (boilerplate only); the recipient's prompt is read only when needed.
      if (longestEvidenceRun(rw, rg, sw, sg, options.minWords, masked) === null) continue
      if (!ownMasked) {
        ownMasked = true
        const pg = kgramHashes(tokenizeWords(text(getPrompt, meta.id[r]!)))
        if (pg.length > 0) {
          const ownSet = new Set<number>()
          for (let i = 0; i < pg.length; i++) ownSet.add(key53(pg.h1[i]!, pg.h2[i]!))
          for (let i = 0; i < rg.length; i++) if (ownSet.has(key53(rg.h1[i]!, rg.h2[i]!))) masked.fill(1, i, i + K)
        }
      }
      const run = longestEvidenceRun(rw, rg, sw, sg, options.minWords, masked)
      if (run === null) continue
      if (best === null || better(meta, r, {v, run}, best)) best = {v, run}
    }
    if (best === null) return
    const s = best.v >>> 1
    const overlap = wordsText(rText, rw, best.run.start, best.run.len)
    const {tenant_id: tenant, session_id: sessionName} = sessionOf.get(meta.id[s]!) as {tenant_id: string; session_id: string}
    insert.run(
      meta.id[r],
      meta.id[s],
      sessionName,
      tenant,
      best.run.len,
      createHash('sha256').update(overlap).digest('hex'),
      (best.v & 1) === 0 ? 'prompt' : 'response',
      best.run.start,
      tally.length,
    )
    stats.attributed++
  }
}

/**
 * Per-record facts in time order (rank r; ties by record id), and rank by record id, read
 * in one pass over the fingerprints table sorted by session: sessions are numbered as
 * they change (no JS map of hundreds of thousands of session strings, no temp table and
 * join), and the fingerprint counts that size the passes are summed on the way.
 * Typed arrays: about 24 bytes per record.
 */
function loadMeta(db: CaseDb): {records: number; maxId: number; rfps: number; pfps: number; meta: Meta & {rankOfId: Int32Array}} {
  const intern = (map: Map<string, number>, key: string): number => {
    let v = map.get(key)
    if (v === undefined) {
      v = map.size
      map.set(key, v)
    }
    return v
  }
  // Record ids are the records' rowids: the largest bounds the count (every record is
  // fingerprinted when it is ingested, so the bound is tight).
  const maxId = (db.prepare('SELECT COALESCE(MAX(record_id), 0) FROM fingerprints').pluck().get() as number) ?? 0
  const tenants = new Map<string, number>()
  const nodes = new Map<string, number>()
  // Read order k (by session). The arrays are reused below as the time order is built, so
  // that the peak stays near 24 bytes per record (plus 12 while sorting). Ids index typed
  // arrays (rankOfId), so they are 32-bit: SQLite numbers rows from 1 in insert order.
  if (maxId >= 0x7fffffff) throw new IntegrityError(`fingerprints: record id ${maxId} is beyond what provenance indexes (2^31 - 1)`)
  const id = new Uint32Array(maxId)
  const ts = new Float64Array(maxId)
  const session = new Int32Array(maxId)
  const tenant = new Int32Array(maxId)
  const node = new Int32Array(maxId)
  let n = 0
  let rBytes = 0
  let pBytes = 0
  {
    const rows = db
      .prepare(
        `SELECT record_id, ts_ms, tenant_id, session_id, decode_node, length(response_fp), length(prompt_fp)
           FROM fingerprints WHERE record_id <= ? ORDER BY tenant_id, session_id`,
      )
      .raw()
      .iterate(maxId) as IterableIterator<[number, number, string, string, string | null, number, number]>
    // A session belongs to its tenant: the same session id under two tenants is two sessions.
    let sid = -1
    let lastTenant: string | undefined
    let lastSession: string | undefined
    for (const [rid, t, tn, ss, nd, rl, pl] of rows) {
      if (ss !== lastSession || tn !== lastTenant) {
        sid++
        lastSession = ss
        lastTenant = tn
      }
      id[n] = rid
      ts[n] = t
      tenant[n] = intern(tenants, tn)
      session[n] = sid
      node[n] = nd === null || nd === '' ? -1 : intern(nodes, nd)
      rBytes += rl
      pBytes += pl
      n++
    }
  }
  // Time order, ties by record id: byTime[rank] = read position k. Packed keys (time, id)
  // sort natively (in place of the times) when (time span) x (ids) fits in 53 bits;
  // otherwise a comparator sort. rankOfId first serves as k by id.
  const byTime = new Uint32Array(n)
  const rankOfId = new Int32Array(maxId + 1)
  {
    let min = Infinity
    let max = -Infinity
    for (let k = 0; k < n; k++) {
      if (ts[k]! < min) min = ts[k]!
      if (ts[k]! > max) max = ts[k]!
    }
    const width = maxId + 1
    if (n > 0 && (max - min + 1) * width < 2 ** 53) {
      const packed = ts.subarray(0, n)
      for (let k = 0; k < n; k++) {
        packed[k] = (packed[k]! - min) * width + id[k]!
        rankOfId[id[k]!] = k
      }
      packed.sort()
      for (let r = 0; r < n; r++) byTime[r] = rankOfId[packed[r]! % width]!
    } else {
      for (let k = 0; k < n; k++) byTime[k] = k
      byTime.sort((x, y) => ts[x]! - ts[y]! || id[x]! - id[y]!)
    }
  }
  // Permute into time order, each array through one scratch array.
  rankOfId.fill(-1)
  const idByRank = new Uint32Array(n)
  for (let r = 0; r < n; r++) {
    idByRank[r] = id[byTime[r]!]!
    rankOfId[idByRank[r]!] = r
  }
  const scratch = new Int32Array(ts.buffer, 0, n) // the times are no longer needed
  for (const arr of [session, tenant, node]) {
    for (let r = 0; r < n; r++) scratch[r] = arr[byTime[r]!]!
    arr.set(scratch)
  }
  return {
    records: n,
    maxId,
    rfps: Math.floor(rBytes / 8),
    pfps: Math.floor(pBytes / 8),
    meta: {id: idByRank, session: session.subarray(0, n), tenant: tenant.subarray(0, n), node: node.subarray(0, n), rankOfId},
  }
}

let gcFn: (() => void) | null | undefined

/** A full garbage collection where the runtime allows it (a bound on peak memory, not a correctness matter). */
export function fullGc(): void {
  if (gcFn === undefined) {
    try {
      setFlagsFromString('--expose-gc')
      gcFn = runInNewContext('gc') as () => void
    } catch {
      gcFn = null
    }
  }
  gcFn?.()
}

function key53(h1: number, h2: number): number {
  return h1 * 0x200000 + (h2 & 0x1fffff)
}


/** Longest overlap first; then the recipient's own decode node; then the most recent; prompts before responses. */
function better(meta: Meta, r: number, a: {v: number; run: Run}, b: {v: number; run: Run}): boolean {
  if (a.run.len !== b.run.len) return a.run.len > b.run.len
  const node = meta.node[r]!
  const an = node >= 0 && meta.node[a.v >>> 1] === node
  const bn = node >= 0 && meta.node[b.v >>> 1] === node
  if (an !== bn) return an
  if (a.v >>> 1 !== b.v >>> 1) return a.v >>> 1 > b.v >>> 1
  return (a.v & 1) < (b.v & 1)
}

