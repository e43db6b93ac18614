import {createHash} from 'node:crypto'
import type {CaseDb} from '../store/open-case.js'
import {FingerprintBuffer, K, SCHEME, fingerprintText, kgramHashes, type KGrams} from './winnow.js'
import {tokenizeWords, wordsText, type Words} from './words.js'

// Canary-less provenance: a response that repeats, verbatim, text an *other* session sent
// or received *earlier*. Stale KV pages hold an earlier request's prompt, and a decode
// worker reading a stale reference can regenerate that request's answer (vLLM #52234), so
// earlier prompts and earlier responses are both candidate sources.
//
// Pipeline: winnowed fingerprints per record (stored, computed once) -> an in-memory
// index sorted by hash (typed arrays, 12 bytes per fingerprint) -> per response, the
// earlier other-session records sharing a non-boilerplate fingerprint -> verification of
// the longest common verbatim word run against each candidate's text.

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
  readonly mask: number
  /** Slot -> dense id + 1 (0 = empty); the keys live densely by id. */
  readonly slots: Int32Array
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

  /** Dense id of (h1, h2), inserting it when new (at most `expected` keys). */
  add(h1: number, h2: number): number {
    let p = (h1 ^ Math.imul(h2, 0x9e3779b1)) & this.mask
    for (;;) {
      const v = this.slots[p]!
      if (v === 0) {
        const id = this.size++
        this.k1[id] = h1
        this.k2[id] = h2
        this.slots[p] = id + 1
        return id
      }
      if (this.k1[v - 1] === h1 && this.k2[v - 1] === h2) return v - 1
      p = (p + 1) & this.mask
    }
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

function copyFingerprints(blob: Uint8Array): Uint32Array {
  // Copy: a Buffer from SQLite need not be 4-byte aligned.
  if ((blob.byteOffset & 3) === 0) return new Uint32Array(blob.buffer, blob.byteOffset, blob.byteLength >>> 2)
  const copy = new Uint8Array(blob.byteLength)
  copy.set(blob)
  return new Uint32Array(copy.buffer, 0, copy.byteLength >>> 2)
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

interface Meta {
  id: Float64Array
  session: Int32Array
  tenant: Int32Array
  node: Int32Array
  sessionNames: string[]
}

/** Recomputes the provenance table from the stored fingerprints (boilerplate is a property of the whole case). */
export function computeProvenance(db: CaseDb, options: ProvenanceOptions): ProvenanceStats {
  const t0 = performance.now()
  // Everything is read from the compact fingerprints table in storage order (never from
  // `records`, whose rows carry the texts), then put in time order here.
  const count = db.prepare(`SELECT COUNT(*) AS records, COALESCE(MAX(record_id), 0) AS maxId, COALESCE(SUM(length(response_fp)), 0) / 8 AS rfps FROM fingerprints`).get() as {
    records: number
    maxId: number
    rfps: number
  }
  const nRec = count.records
  const intern = (map: Map<string, number>, names: string[] | null, key: string): number => {
    let v = map.get(key)
    if (v === undefined) {
      v = map.size
      names?.push(key)
      map.set(key, v)
    }
    return v
  }
  const sessionsOf = new Map<string, Map<string, number>>()
  const tenants = new Map<string, number>()
  const nodes = new Map<string, number>()
  const sessionNames: string[] = []

  // Pass 1: record facts and every response fingerprint (storage order k).
  const table = new HashTable(count.rfps)
  let kId: Float64Array = new Float64Array(nRec)
  let kTs: Float64Array = new Float64Array(nRec)
  let kSession: Int32Array = new Int32Array(nRec)
  let kTenant: Int32Array = new Int32Array(nRec)
  let kNode: Int32Array = new Int32Array(nRec)
  const kRespSlot = new Uint32Array(count.rfps)
  const kRespStart = new Uint32Array(nRec + 1)
  let nResp = 0
  {
    const rows = db
      .prepare(`SELECT record_id, ts_ms, tenant_id, session_id, decode_node, response_fp FROM fingerprints`)
      .raw()
      .iterate() as IterableIterator<[number, number, string, string, string | null, Buffer]>
    let k = 0
    for (const [id, ts, tenant, session, node, rfp] of rows) {
      kId[k] = id
      kTs[k] = ts
      kTenant[k] = intern(tenants, null, tenant)
      // A session belongs to its tenant: the same session id under two tenants is two sessions.
      let inTenant = sessionsOf.get(tenant)
      if (inTenant === undefined) sessionsOf.set(tenant, (inTenant = new Map()))
      let sid = inTenant.get(session)
      if (sid === undefined) {
        sid = sessionNames.length
        sessionNames.push(`${tenant}\u0000${session}`)
        inTenant.set(session, sid)
      }
      kSession[k] = sid
      kNode[k] = node === null || node === '' ? -1 : intern(nodes, null, node)
      const fps = copyFingerprints(rfp)
      for (let i = 0; i + 1 < fps.length; i += 2) kRespSlot[nResp++] = table.add(fps[i]!, fps[i + 1]!)
      k++
      kRespStart[k] = nResp
    }
  }
  // Time order: rank r of each record (ties by record id).
  // Storage order is record-id order, so ties keep it. Packed keys sort natively when
  // (time span) x (records) fits in 53 bits; otherwise a comparator sort.
  const byTime = new Uint32Array(nRec)
  {
    let min = Infinity
    let max = -Infinity
    for (let k = 0; k < nRec; k++) {
      if (kTs[k]! < min) min = kTs[k]!
      if (kTs[k]! > max) max = kTs[k]!
    }
    if (nRec > 0 && (max - min + 1) * nRec < 2 ** 53) {
      const packed = new Float64Array(nRec)
      for (let k = 0; k < nRec; k++) packed[k] = (kTs[k]! - min) * nRec + k
      packed.sort()
      for (let r = 0; r < nRec; r++) byTime[r] = packed[r]! % nRec
    } else {
      for (let k = 0; k < nRec; k++) byTime[k] = k
      byTime.sort((x, y) => kTs[x]! - kTs[y]! || x - y)
    }
  }
  const meta: Meta = {id: new Float64Array(nRec), session: new Int32Array(nRec), tenant: new Int32Array(nRec), node: new Int32Array(nRec), sessionNames}
  const rankOfId = new Int32Array(count.maxId + 1).fill(-1)
  for (let r = 0; r < nRec; r++) {
    const k = byTime[r]!
    meta.id[r] = kId[k]!
    meta.session[r] = kSession[k]!
    meta.tenant[r] = kTenant[k]!
    meta.node[r] = kNode[k]!
    rankOfId[kId[k]!] = r
  }
  // Response fingerprints stay in storage order: record r's are respSlot[respStart[k] ..
  // respStart[k + 1]) with k = byTime[r].
  const respSlot = kRespSlot
  const respStart = kRespStart
  kId = kTs = new Float64Array(0)
  kSession = kTenant = kNode = new Int32Array(0)
  const nSlots = table.size
  const t1 = performance.now()

  // Pass 2: postings per hash (CSR: off/post), values rank * 2 + part, for every response
  // fingerprint and every prompt fingerprint whose hash some response has. Repeats of a
  // hash within one text are one posting.
  const off = new Uint32Array(nSlots + 1)
  const lastVal = new Int32Array(nSlots).fill(-1)
  const eachResponseSlot = (visit: (slot: number, rv: number) => void): void => {
    for (let r = 0; r < nRec; r++) {
      const k = byTime[r]!
      const rv = r * 2 + 1
      for (let e = respStart[k]!; e < respStart[k + 1]!; e++) {
        const slot = respSlot[e]!
        if (lastVal[slot] === rv) continue
        lastVal[slot] = rv
        visit(slot, rv)
      }
    }
  }
  let nEntries = 0
  eachResponseSlot((slot) => {
    off[slot + 1]!++
    nEntries++
  })
  // Prompt postings: only hashes some response has (few, unless prompts are repeated in responses).
  const pSlot = new U32List()
  const pVal = new U32List()
  {
    const prompts = db.prepare(`SELECT record_id, prompt_fp FROM fingerprints`).raw().iterate() as IterableIterator<[number, Buffer]>
    for (const [id, pfp] of prompts) {
      const r = rankOfId[id]!
      if (r < 0) continue // added since pass 1
      const pv = r * 2
      const fps = copyFingerprints(pfp)
      for (let i = 0; i + 1 < fps.length; i += 2) {
        const slot = table.get(fps[i]!, fps[i + 1]!)
        if (slot < 0 || lastVal[slot] === pv) continue
        lastVal[slot] = pv
        pSlot.push(slot)
        pVal.push(pv)
        off[slot + 1]!++
        nEntries++
      }
    }
  }
  for (let sl = 0; sl < nSlots; sl++) off[sl + 1]! += off[sl]!
  const post = new Uint32Array(nEntries)
  lastVal.fill(-1)
  // Fill with off[slot] as the cursor (it ends at the next slot's start), then shift back.
  eachResponseSlot((slot, rv) => {
    post[off[slot]!++] = rv
  })
  for (let i = 0; i < pSlot.length; i++) post[off[pSlot.data[i]!]!++] = pVal.data[i]!
  for (let sl = nSlots; sl > 0; sl--) off[sl] = off[sl - 1]!
  off[0] = 0
  // Each group in time order: only hashes shared by two or more texts have more than one posting.
  for (let sl = 0; sl < nSlots; sl++) if (off[sl + 1]! - off[sl]! > 1) post.subarray(off[sl]!, off[sl + 1]!).sort()

  // Boilerplate: a hash found in the prompts of >= T tenants, or in the responses of >= T
  // tenants. Prompts and responses are counted apart so that a prompt leaked into the
  // responses of two other tenants does not become "boilerplate" (1 + 2 = 3 tenants): only
  // what many tenants *sent*, or what the model *said* to many tenants, is.
  const T = options.boilerplateTenants
  const boiler = new Uint8Array(nSlots)
  let boilerHashes = 0
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
            boilerHashes++
            break
          }
        }
      }
    }
  }
  const t2 = performance.now()

  const getResponse = db.prepare(`SELECT response_text FROM records WHERE id = ?`).pluck()
  const getPrompt = db.prepare(`SELECT request_text FROM records WHERE id = ?`).pluck()
  const insert = db.prepare(
    `INSERT INTO provenance (record_id, source_record_id, source_session, source_tenant, overlap_words, overlap_sha256, matched, word_start, candidates)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const stats: ProvenanceStats = {
    records: nRec,
    response_fingerprints: nResp,
    index_entries: nEntries,
    boilerplate_hashes: boilerHashes,
    responses_with_candidates: 0,
    candidates_verified: 0,
    attributed: 0,
    timings_ms: {load: 0, index: 0, match: 0},
  }

  db.transaction(() => {
    db.prepare('DELETE FROM provenance').run()
    const tally = new Map<number, number>()
    for (let r = 0; r < nRec; r++) {
      const e0 = respStart[byTime[r]!]!
      const e1 = respStart[byTime[r]! + 1]!
      if (e0 === e1) continue
      tally.clear()
      const own = r * 2
      const session = meta.session[r]!
      for (let e = e0; e < e1; e++) {
        const slot = respSlot[e]!
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
      if (tally.size === 0) continue
      stats.responses_with_candidates++
      const ranked = [...tally.entries()].sort((x, y) => y[1] - x[1] || y[0] - x[0]).slice(0, MAX_VERIFIED)

      const rText = (getResponse.get(meta.id[r]) as string | null) ?? ''
      const rw = tokenizeWords(rText)
      const rg = kgramHashes(rw)
      // Masked words: covered by a boilerplate k-gram, or by a k-gram of the recipient's own prompt.
      const masked = new Uint8Array(rw.length)
      for (let i = 0; i < rg.length; i++) {
        const slot = table.get(rg.h1[i]!, rg.h2[i]!)
        if (slot >= 0 && boiler[slot] === 1) masked.fill(1, i, i + K)
      }
      let ownMasked = false
      let best: {v: number; run: Run} | null = null
      for (const [v] of ranked) {
        stats.candidates_verified++
        const s = v >>> 1
        const sText = ((v & 1) === 0 ? getPrompt.get(meta.id[s]) : getResponse.get(meta.id[s])) as string | null
        const sw = tokenizeWords(sText ?? '')
        const sg = kgramHashes(sw)
        // Cheap test first (boilerplate only); the recipient's prompt is read only when needed.
        if (longestEvidenceRun(rw, rg, sw, sg, options.minWords, masked) === null) continue
        if (!ownMasked) {
          ownMasked = true
          const pg = kgramHashes(tokenizeWords((getPrompt.get(meta.id[r]) as string | null) ?? ''))
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
      if (best === null) continue
      const s = best.v >>> 1
      const overlap = wordsText(rText, rw, best.run.start, best.run.len)
      const [tenant, sessionName] = splitSession(meta.sessionNames[meta.session[s]!]!)
      insert.run(
        meta.id[r],
        meta.id[s],
        sessionName,
        tenant,
        best.run.len,
        createHash('sha256').update(overlap).digest('hex'),
        (best.v & 1) === 0 ? 'prompt' : 'response',
        best.run.start,
        tally.size,
      )
      stats.attributed++
    }
  })()
  const t3 = performance.now()
  stats.timings_ms = {load: Math.round(t1 - t0), index: Math.round(t2 - t1), match: Math.round(t3 - t2)}
  return stats
}

function key53(h1: number, h2: number): number {
  return h1 * 0x200000 + (h2 & 0x1fffff)
}

function splitSession(key: string): [string, string] {
  const cut = key.indexOf('\u0000')
  return [key.slice(0, cut), key.slice(cut + 1)]
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
