import {createHash} from 'node:crypto'
import type {CaseDb} from '../store/open-case.js'
import {K, SCHEME, W, cmpHash, kgramHashes, packFingerprints, unpackFingerprints, windowMin, winnow, type KGrams} from './winnow.js'
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

export function fingerprintTexts(requestText: string | null, responseText: string | null): RecordFingerprints {
  const pw = tokenizeWords(requestText ?? '')
  const rw = tokenizeWords(responseText ?? '')
  const pg = kgramHashes(pw)
  const rg = kgramHashes(rw)
  return {promptWords: pw.length, responseWords: rw.length, promptFp: packFingerprints(pg, winnow(pg)), responseFp: packFingerprints(rg, winnow(rg))}
}

export function storeFingerprints(db: CaseDb): (recordId: number, fp: RecordFingerprints) => void {
  const insert = db.prepare(
    `INSERT OR REPLACE INTO fingerprints (record_id, scheme, prompt_words, response_words, prompt_fp, response_fp) VALUES (?, ?, ?, ?, ?, ?)`,
  )
  return (id, fp) => {
    insert.run(id, SCHEME, fp.promptWords, fp.responseWords, fp.promptFp, fp.responseFp)
  }
}

export interface ProvenanceStats {
  records: number
  fingerprints: number
  boilerplate_fingerprints: number
  responses_with_candidates: number
  candidates_verified: number
  attributed: number
  timings_ms: {index: number; match: number}
}

// ------------------------------------------------------------------ the hash index

interface FingerprintIndex {
  k1: Uint32Array
  k2: Uint32Array
  /** recIdx * 2 + part (0 prompt, 1 response); ascending within a hash group. */
  val: Uint32Array
  /** 1 where the entry's hash group spans >= boilerplateTenants tenants. */
  boiler: Uint8Array
  n: number
}

/** Stable LSD radix sort of (k1, k2, val) by (k1, k2), 16 bits a pass. */
function radixSort(k1: Uint32Array, k2: Uint32Array, val: Uint32Array, n: number): void {
  let a1: Uint32Array = k1, a2: Uint32Array = k2, av: Uint32Array = val
  let b1: Uint32Array = new Uint32Array(n), b2: Uint32Array = new Uint32Array(n), bv: Uint32Array = new Uint32Array(n)
  const counts = new Uint32Array(65536)
  const passes: Array<[0 | 1, number]> = [[1, 0], [1, 16], [0, 0], [0, 16]]
  for (const [which, shift] of passes) {
    counts.fill(0)
    const src = which === 0 ? a1 : a2
    for (let i = 0; i < n; i++) counts[(src[i]! >>> shift) & 0xffff]!++
    let sum = 0
    for (let d = 0; d < 65536; d++) {
      const c = counts[d]!
      counts[d] = sum
      sum += c
    }
    for (let i = 0; i < n; i++) {
      const d = (src[i]! >>> shift) & 0xffff
      const to = counts[d]!++
      b1[to] = a1[i]!
      b2[to] = a2[i]!
      bv[to] = av[i]!
    }
    ;[a1, b1] = [b1, a1]
    ;[a2, b2] = [b2, a2]
    ;[av, bv] = [bv, av]
  }
  // Four passes: the sorted data is back in the caller's arrays.
}

/** First index whose (k1, k2) >= (h1, h2). */
function lowerBound(ix: FingerprintIndex, h1: number, h2: number): number {
  let lo = 0
  let hi = ix.n
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (cmpHash(ix.k1[mid]!, ix.k2[mid]!, h1, h2) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

function markBoilerplate(ix: FingerprintIndex, tenantOf: Int32Array, threshold: number): number {
  let groups = 0
  const seen: number[] = []
  for (let lo = 0; lo < ix.n; ) {
    let hi = lo + 1
    while (hi < ix.n && ix.k1[hi] === ix.k1[lo] && ix.k2[hi] === ix.k2[lo]) hi++
    seen.length = 0
    for (let i = lo; i < hi && seen.length < threshold; i++) {
      const t = tenantOf[ix.val[i]! >>> 1]!
      if (!seen.includes(t)) seen.push(t)
    }
    if (seen.length >= threshold) {
      ix.boiler.fill(1, lo, hi)
      groups++
    }
    lo = hi
  }
  return groups
}

// ------------------------------------------------------------------ verification

function key53(h1: number, h2: number): number {
  return h1 * 0x200000 + (h2 & 0x1fffff)
}

interface Run {
  len: number
  /** Word index in the response. */
  start: number
}

/**
 * The longest verbatim run of words shared by the response and a candidate text that is
 * evidence: at least one winnowing window wholly inside the run has a minimum that is not
 * boilerplate and not in the recipient's own prompt. (Every window minimum inside a run is
 * selected in every text containing the run, so this judges the run itself, not where it
 * happens to sit.)
 */
function longestEvidenceRun(
  rw: Words,
  rg: KGrams,
  sw: Words,
  sg: KGrams,
  minWords: number,
  isEvidenceKgram: (i: number) => boolean,
): Run | null {
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
      if (runIsEvidence(rg, i, len, isEvidenceKgram)) best = {len, start: i}
    }
  }
  return best
}

function runIsEvidence(rg: KGrams, start: number, len: number, isEvidenceKgram: (i: number) => boolean): boolean {
  const grams = len - K + 1
  if (grams <= 0) return false
  if (grams < W) return isEvidenceKgram(windowMin(rg, start, start + grams))
  for (let a = start; a + W <= start + grams; a++) {
    if (isEvidenceKgram(windowMin(rg, a, a + W))) return true
  }
  return false
}

// ------------------------------------------------------------------ the pass

interface Meta {
  id: Float64Array
  ts: Float64Array
  session: Int32Array
  tenant: Int32Array
  node: Int32Array
  sessionNames: string[]
  tenantNames: string[]
}

/** Recomputes the provenance table from the stored fingerprints (boilerplate is a property of the whole case). */
export function computeProvenance(db: CaseDb, options: ProvenanceOptions): ProvenanceStats {
  const t0 = performance.now()
  const count = db
    .prepare(
      `SELECT COUNT(*) AS records, COALESCE(SUM(length(fp.prompt_fp) + length(fp.response_fp)), 0) / 8 AS fps,
              COALESCE(SUM(length(fp.response_fp)), 0) / 8 AS rfps
       FROM fingerprints fp JOIN records r ON r.id = fp.record_id JOIN files f ON f.id = r.file_id WHERE f.state = 'complete'`,
    )
    .get() as {records: number; fps: number; rfps: number}
  const nRec = count.records
  const meta: Meta = {
    id: new Float64Array(nRec),
    ts: new Float64Array(nRec),
    session: new Int32Array(nRec),
    tenant: new Int32Array(nRec),
    node: new Int32Array(nRec),
    sessionNames: [],
    tenantNames: [],
  }
  const intern = (map: Map<string, number>, names: string[], key: string): number => {
    let v = map.get(key)
    if (v === undefined) {
      v = names.length
      names.push(key)
      map.set(key, v)
    }
    return v
  }
  const sessions = new Map<string, number>()
  const tenants = new Map<string, number>()
  const nodes = new Map<string, number>()
  const nodeNames: string[] = []
  const ix: FingerprintIndex = {
    k1: new Uint32Array(count.fps),
    k2: new Uint32Array(count.fps),
    val: new Uint32Array(count.fps),
    boiler: new Uint8Array(count.fps),
    n: 0,
  }
  // Response fingerprints in record order, kept apart because the sort permutes the index.
  const resp1 = new Uint32Array(count.rfps)
  const resp2 = new Uint32Array(count.rfps)
  const respStart = new Uint32Array(nRec + 1)
  let nResp = 0
  const rows = db
    .prepare(
      `SELECT r.id, r.ts_ms, r.tenant_id, r.session_id, r.decode_node, fp.prompt_fp, fp.response_fp
       FROM fingerprints fp JOIN records r ON r.id = fp.record_id JOIN files f ON f.id = r.file_id
       WHERE f.state = 'complete' ORDER BY r.ts_ms, r.id`,
    )
    .raw()
    .iterate() as IterableIterator<[number, number, string, string, string | null, Buffer, Buffer]>
  let idx = 0
  for (const [id, ts, tenant, session, node, pfp, rfp] of rows) {
    meta.id[idx] = id
    meta.ts[idx] = ts
    meta.tenant[idx] = intern(tenants, meta.tenantNames, tenant)
    // A session belongs to its tenant: the same session id under two tenants is two sessions.
    meta.session[idx] = intern(sessions, meta.sessionNames, `${tenant}\u0000${session}`)
    meta.node[idx] = node === null || node === '' ? -1 : intern(nodes, nodeNames, node)
    for (const [blob, part] of [[pfp, 0], [rfp, 1]] as const) {
      const fps = unpackFingerprints(blob)
      for (let i = 0; i + 1 < fps.length; i += 2) {
        ix.k1[ix.n] = fps[i]!
        ix.k2[ix.n] = fps[i + 1]!
        ix.val[ix.n] = idx * 2 + part
        ix.n++
        if (part === 1) {
          resp1[nResp] = fps[i]!
          resp2[nResp] = fps[i + 1]!
          nResp++
        }
      }
    }
    idx++
    respStart[idx] = nResp
  }
  radixSort(ix.k1, ix.k2, ix.val, ix.n)
  markBoilerplate(ix, meta.tenant, options.boilerplateTenants)
  const t1 = performance.now()

  const getText = db.prepare(`SELECT request_text, response_text FROM records WHERE id = ?`).raw()
  const insert = db.prepare(
    `INSERT INTO provenance (record_id, source_record_id, source_session, source_tenant, overlap_words, overlap_sha256, matched, word_start, candidates)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const stats: ProvenanceStats = {
    records: nRec,
    fingerprints: ix.n,
    boilerplate_fingerprints: 0,
    responses_with_candidates: 0,
    candidates_verified: 0,
    attributed: 0,
    timings_ms: {index: 0, match: 0},
  }
  for (let i = 0; i < ix.n; i++) stats.boilerplate_fingerprints += ix.boiler[i]!

  const isBoiler = (h1: number, h2: number): boolean => {
    const p = lowerBound(ix, h1, h2)
    return p < ix.n && ix.k1[p] === h1 && ix.k2[p] === h2 && ix.boiler[p] === 1
  }

  db.transaction(() => {
    db.prepare('DELETE FROM provenance').run()
    const hits: Array<{h1: number; h2: number; vals: number[]}> = []
    for (let r = 0; r < nRec; r++) {
      hits.length = 0
      for (let e = respStart[r]!; e < respStart[r + 1]!; e++) {
        const h1 = resp1[e]!
        const h2 = resp2[e]!
        const lo = lowerBound(ix, h1, h2)
        if (lo >= ix.n || ix.k1[lo] !== h1 || ix.k2[lo] !== h2 || ix.boiler[lo] === 1) continue
        // Entries of a group ascend by record order: walk back from the last one before r.
        let p = lo
        while (p < ix.n && ix.k1[p] === h1 && ix.k2[p] === h2 && ix.val[p]! < r * 2) p++
        const vals: number[] = []
        for (let q = p - 1, seen = 0; q >= lo && seen < POSTING_CAP; q--, seen++) {
          const v = ix.val[q]!
          if (meta.session[v >>> 1] !== meta.session[r]) vals.push(v)
        }
        if (vals.length > 0) hits.push({h1, h2, vals})
      }
      if (hits.length === 0) continue

      const [requestText, responseText] = getText.get(meta.id[r]) as [string | null, string | null]
      const rText = responseText ?? ''
      const rw = tokenizeWords(rText)
      const rg = kgramHashes(rw)
      // Text the recipient itself sent is never evidence against someone else.
      const own = new Set<number>()
      {
        const pg = kgramHashes(tokenizeWords(requestText ?? ''))
        for (let i = 0; i < pg.length; i++) own.add(key53(pg.h1[i]!, pg.h2[i]!))
      }
      const tally = new Map<number, number>()
      for (const hit of hits) {
        if (own.has(key53(hit.h1, hit.h2))) continue
        for (const v of hit.vals) tally.set(v, (tally.get(v) ?? 0) + 1)
      }
      if (tally.size === 0) continue
      stats.responses_with_candidates++
      const ranked = [...tally.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0]).slice(0, MAX_VERIFIED)

      const evidence = new Int8Array(rg.length).fill(-1)
      const isEvidenceKgram = (i: number): boolean => {
        if (evidence[i] === -1) {
          const h1 = rg.h1[i]!
          const h2 = rg.h2[i]!
          evidence[i] = !own.has(key53(h1, h2)) && !isBoiler(h1, h2) ? 1 : 0
        }
        return evidence[i] === 1
      }
      let best: {v: number; run: Run} | null = null
      const textCache = new Map<number, [string | null, string | null]>()
      for (const [v] of ranked) {
        const s = v >>> 1
        const part = v & 1
        stats.candidates_verified++
        let texts = textCache.get(s)
        if (!texts) {
          texts = getText.get(meta.id[s]) as [string | null, string | null]
          textCache.set(s, texts)
        }
        const sw = tokenizeWords((part === 0 ? texts[0] : texts[1]) ?? '')
        const run = longestEvidenceRun(rw, rg, sw, kgramHashes(sw), options.minWords, isEvidenceKgram)
        if (run === null) continue
        if (best === null || better(meta, r, {v, run}, best)) best = {v, run}
      }
      if (best === null) continue
      const s = best.v >>> 1
      const overlap = wordsText(rText, rw, best.run.start, best.run.len)
      const [tenant, session] = splitSession(meta.sessionNames[meta.session[s]!]!)
      insert.run(
        meta.id[r],
        meta.id[s],
        session,
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
  const t2 = performance.now()
  stats.timings_ms = {index: Math.round(t1 - t0), match: Math.round(t2 - t1)}
  return stats
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
