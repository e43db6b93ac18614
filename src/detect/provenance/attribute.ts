import {createHash} from 'node:crypto'
import {K, kgramHashes} from '../../extract/winnow.js'
import {tokenizeWords, wordsText} from '../../extract/words.js'
import {key53, longestEvidenceRun, type Run} from './verify-run.js'

// The verification of one response's candidate sources and the choice of the best one:
// what `scan` (computeProvenance) and the Spark path (`crosstalk provenance-verify`) both
// run, so that a response is attributed by the same code wherever its candidates were
// counted. Candidates are postings v = rank * 2 + part (part 0 prompt, 1 response), where
// rank is any order of the records by (time, record id): only comparisons between ranks
// are ever made, so a caller may number just the records it holds.

/** Candidate sources verified per response, by shared-fingerprint count. */
export const MAX_VERIFIED = 16

/** What attribution needs to know about the records around one response. */
export interface AttributionContext {
  /** The text of a part of the record with this rank (response: the recipient's or a candidate's). */
  text(part: 'request_text' | 'response_text', rank: number): string
  /** Decode node number of the record with this rank, -1 when unknown. */
  node(rank: number): number
  /** The fingerprint (h1, h2) is boilerplate in the whole corpus. */
  isBoiler(h1: number, h2: number): boolean
  minWords: number
  stats?: {responses_with_candidates: number; candidates_verified: number}
}

export interface Attribution {
  /** The chosen source posting (rank * 2 + part). */
  v: number
  run: Run
  /** The overlap's normalised words joined by single spaces, and its SHA-256 (what the case stores). */
  overlapSha256: string
  matched: 'prompt' | 'response'
  /** Distinct candidates the response had (before the MAX_VERIFIED cut). */
  candidates: number
}

/**
 * Verifies the response of rank `r` against its best-tallied candidates ([v, shared
 * fingerprints]) and returns the best verified source, or null: the longest evidence run,
 * then a source on the recipient's own decode node, then the most recent, prompts before
 * responses. Boilerplate and the recipient's own prompt are masked out of the evidence.
 * `total`: the distinct candidates the response had, when the caller passes only the best
 * MAX_VERIFIED of them (as the Spark job does).
 */
export function attributeResponse(r: number, candidates: Array<[number, number]>, ctx: AttributionContext, total = candidates.length): Attribution | null {
  if (ctx.stats) ctx.stats.responses_with_candidates++
  const ranked = candidates.sort((x, y) => y[1] - x[1] || y[0] - x[0]).slice(0, MAX_VERIFIED)
  const rText = ctx.text('response_text', r)
  const rw = tokenizeWords(rText)
  const rg = kgramHashes(rw)
  // Masked words: covered by a boilerplate k-gram, or by a k-gram of the recipient's own prompt.
  const masked = new Uint8Array(rw.length)
  for (let i = 0; i < rg.length; i++) if (ctx.isBoiler(rg.h1[i]!, rg.h2[i]!)) masked.fill(1, i, i + K)
  let ownMasked = false
  let best: {v: number; run: Run} | null = null
  for (const [v] of ranked) {
    if (ctx.stats) ctx.stats.candidates_verified++
    const s = v >>> 1
    const sw = tokenizeWords(ctx.text((v & 1) === 0 ? 'request_text' : 'response_text', s))
    const sg = kgramHashes(sw)
    // Cheap test first (boilerplate only); the recipient's prompt is read only when needed.
    if (longestEvidenceRun(rw, rg, sw, sg, ctx.minWords, masked) === null) continue
    if (!ownMasked) {
      ownMasked = true
      const pg = kgramHashes(tokenizeWords(ctx.text('request_text', r)))
      if (pg.length > 0) {
        const ownSet = new Set<number>()
        for (let i = 0; i < pg.length; i++) ownSet.add(key53(pg.h1[i]!, pg.h2[i]!))
        for (let i = 0; i < rg.length; i++) if (ownSet.has(key53(rg.h1[i]!, rg.h2[i]!))) masked.fill(1, i, i + K)
      }
    }
    const run = longestEvidenceRun(rw, rg, sw, sg, ctx.minWords, masked)
    if (run === null) continue
    if (best === null || better(ctx, r, {v, run}, best)) best = {v, run}
  }
  if (best === null) return null
  const overlap = wordsText(rText, rw, best.run.start, best.run.len)
  return {
    v: best.v,
    run: best.run,
    overlapSha256: createHash('sha256').update(overlap).digest('hex'),
    matched: (best.v & 1) === 0 ? 'prompt' : 'response',
    candidates: total,
  }
}

/** Longest overlap first; then the recipient's own decode node; then the most recent; prompts before responses. */
function better(ctx: AttributionContext, r: number, a: {v: number; run: Run}, b: {v: number; run: Run}): boolean {
  if (a.run.len !== b.run.len) return a.run.len > b.run.len
  const node = ctx.node(r)
  const an = node >= 0 && ctx.node(a.v >>> 1) === node
  const bn = node >= 0 && ctx.node(b.v >>> 1) === node
  if (an !== bn) return an
  if (a.v >>> 1 !== b.v >>> 1) return a.v >>> 1 > b.v >>> 1
  return (a.v & 1) < (b.v & 1)
}
