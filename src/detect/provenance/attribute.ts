import {createHash} from 'node:crypto'
import {K, kgramHashes, tokenizeWordsFast} from '../../extract/winnow.js'
import {wordsText} from '../../extract/words.js'
import {BOILERPLATE, key53, longestEvidenceRun, OWN, type Run} from './verify-run.js'

// The verification of each response's candidate sources and the choice of the source, under
// the chain rule: what `scan` (computeProvenance) and the Spark path (`crosstalk
// provenance-verify`) both run, so that a response is attributed by the same code wherever
// its candidates were counted. Candidates are postings v = rank * 2 + part (part 0 prompt, 1
// response), where rank is any order of the records by (time, record id): only comparisons
// between ranks are made, so a caller may number just the records it holds.
//
// The source is the earliest ORIGINAL occurrence of the text: a prompt, or an answer that was
// not itself contaminated. A contaminated answer (one with a cross-session/cross-tenant
// sighting, or attributed here to someone else) is a copy: it is never named as a source, and
// a later response that repeats it is checked against the copy's own source instead. That is
// why responses are attributed in time order, each after every response before it: the
// copy's source is known by then. When a canary sighting on the same response names the
// source session, a verified candidate of that session wins.

/** Candidate sources verified per response, by shared-fingerprint count. */
export const MAX_VERIFIED = 16

/** What attribution needs to know about the records around one response. */
export interface AttributionContext {
  /** The text of a part of the record with this rank (response: the recipient's or a candidate's). */
  text(part: 'request_text' | 'response_text', rank: number): string
  /** Decode node number of the record with this rank, -1 when unknown. */
  node(rank: number): number
  /** The tenant and session of the record with this rank. */
  session(rank: number): {tenant_id: string; session_id: string} | undefined
  /** The fingerprint (h1, h2) is boilerplate in the whole corpus. */
  isBoiler(h1: number, h2: number): boolean
  minWords: number
  stats?: {responses_with_candidates: number; candidates_verified: number}
}

export interface Attribution {
  /** The chosen source posting (rank * 2 + part). */
  v: number
  run: Run
  /** SHA-256 of the overlap's words as they stand in the response (what the case stores). */
  overlapSha256: string
  matched: 'prompt' | 'response'
  /**
   * earlier: the source was logged before the response (its rank is lower); unknown: a prompt
   * whose record was logged later. A record's time is when its response was returned, and no
   * log gives when a request arrived, so a source in flight (its prompt prefilled while this
   * response was decoded, its own answer returned after) cannot be told from a later one.
   */
  sourceOrder: 'earlier' | 'unknown'
  /**
   * named: the source is the one supported candidate with the longest run; ambiguous: the
   * prompts (or answers) of `sourceTenants` tenants hold that run alike (two customers pasted
   * the same article), so no one of them is the source; unknown: only answers whose own prompts
   * were not logged hold it, and an answer may itself have received the text from a source
   * never logged, so it names no source.
   */
  sourceStatus: 'named' | 'ambiguous' | 'unknown'
  /** Distinct tenants whose texts hold the chosen run (1 where the source is named). */
  sourceTenants: number
  /**
   * Where the source is ambiguous, its possible sources: each session (with its tenant) whose
   * supported text holds the run as long as the chosen one's, sorted; empty otherwise. A
   * processor tells each of those tenants its data may be the source (Art. 33(2)).
   */
  sourceCandidates: Array<{tenant_id: string; session_id: string}>
  /** Distinct candidates the response had, copies replaced by their sources (before the MAX_VERIFIED cut). */
  candidates: number
}

type Candidate = {v: number; run: Run; named: boolean; earlier: boolean; supported: boolean}

/**
 * The chain rule's state over ranks 0..n-1: which responses are copies, and the source each
 * attributed copy was given. Feed it the contaminating sightings first (markCopy), then
 * attribute the responses with candidates in increasing rank.
 */
export class SourceChain {
  private readonly copy: Uint8Array
  /**
   * An attributed response's source posting (rank * 2 + part); absent when none. A map: only
   * attributed responses have one (tens of thousands at 5M records, where a table by rank
   * would be 20 MB).
   */
  private readonly sourceOf = new Map<number, number>()
  /** The source sessions canary sightings name, per response rank. */
  private readonly named = new Map<number, Set<string>>()
  private last = -1

  constructor(n: number) {
    this.copy = new Uint8Array(n)
  }

  /** The response of this rank has a contaminating sighting; `source`: the session the sighting names, if any. */
  markCopy(rank: number, source: {tenant: string | null; session: string | null} | null): void {
    this.copy[rank] = 1
    if (!source || source.session === null) return
    let set = this.named.get(rank)
    if (!set) this.named.set(rank, (set = new Set()))
    set.add(JSON.stringify([source.tenant, source.session]))
  }

  /**
   * Verifies the response of rank `r` against its candidates ([v, shared fingerprints]) and
   * returns the best verified source, or null. Ranks must come in increasing order.
   */
  attribute(r: number, found: ReadonlyArray<readonly [number, number]>, ctx: AttributionContext): Attribution | null {
    if (r <= this.last) throw new Error(`provenance: response rank ${r} attributed after rank ${this.last} (time order is the chain rule's)`)
    this.last = r
    // A copy is replaced by its own source (its shared fingerprints counted there); a copy
    // whose source is unknown (a marker only, or a span too short to attribute) is dropped.
    // A prompt of the recipient's own session is no candidate: sent before the answer, it is
    // text the recipient sent itself (masked below); sent after, it is no evidence either way.
    const merged = new Map<number, number>()
    const ownPrompts: number[] = []
    let recipient: {tenant_id: string; session_id: string} | undefined | null = null
    const ownSession = (rank: number): boolean => {
      recipient ??= ctx.session(r)
      const src = ctx.session(rank)
      return recipient !== undefined && src !== undefined && src.tenant_id === recipient.tenant_id && src.session_id === recipient.session_id
    }
    let others = false
    for (const [v, n] of found) {
      const s = v >>> 1
      if ((v & 1) === 0 && s !== r && ownSession(s)) {
        if (s < r) ownPrompts.push(s)
        continue
      }
      others = true
      const original = (v & 1) === 0 || this.copy[s] === 0 ? v : (this.sourceOf.get(s) ?? -1)
      // A later response did not exist yet; a later prompt may have been in flight (its order unknown).
      if (original < 0 || (original >>> 1 >= r && (original & 1) === 1) || original >>> 1 === r) continue
      merged.set(original, (merged.get(original) ?? 0) + n)
    }
    if (ctx.stats && others) ctx.stats.responses_with_candidates++
    const candidates = [...merged]
    const ranked = candidates.sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, MAX_VERIFIED)
    const names = this.named.get(r)
    const isNamed = (v: number): boolean => {
      if (!names) return false
      const src = ctx.session(v >>> 1)
      return src !== undefined && names.has(JSON.stringify([src.tenant_id, src.session_id]))
    }
    const rText = ctx.text('response_text', r)
    const rw = tokenizeWordsFast(rText)
    const rg = kgramHashes(rw)
    // Masked words: covered by a boilerplate k-gram, or by a k-gram the recipient's own session
    // sent before the answer (this record's prompt, or an earlier prompt of the session).
    const masked = new Uint8Array(rw.length)
    for (let i = 0; i < rg.length; i++) if (ctx.isBoiler(rg.h1[i]!, rg.h2[i]!)) masked.fill(BOILERPLATE, i, i + K)
    let ownMasked = false
    let best: Candidate | null = null
    const verified: Candidate[] = []
    for (const [v] of ranked) {
      if (ctx.stats) ctx.stats.candidates_verified++
      const s = v >>> 1
      const sw = tokenizeWordsFast(ctx.text((v & 1) === 0 ? 'request_text' : 'response_text', s))
      const sg = kgramHashes(sw)
      // Cheap test first (boilerplate only); the recipient's prompts are read only when needed.
      if (longestEvidenceRun(rw, rg, sw, sg, ctx.minWords, masked) === null) continue
      if (!ownMasked) {
        ownMasked = true
        // The session's earlier prompts are those its candidate search found sharing text with
        // the answer: a shared run of 12 words or more always shares a fingerprint (winnow.ts).
        const ownSet = new Set<number>()
        for (const rank of [r, ...ownPrompts]) {
          const pg = kgramHashes(tokenizeWordsFast(ctx.text('request_text', rank)))
          for (let i = 0; i < pg.length; i++) ownSet.add(key53(pg.h1[i]!, pg.h2[i]!))
        }
        if (ownSet.size > 0) {
          for (let i = 0; i < rg.length; i++) {
            if (!ownSet.has(key53(rg.h1[i]!, rg.h2[i]!))) continue
            for (let w = i; w < i + K; w++) if (masked[w] !== BOILERPLATE) masked[w] = OWN
          }
        }
      }
      const run = longestEvidenceRun(rw, rg, sw, sg, ctx.minWords, masked)
      if (run === null) continue
      // Prompt text is the evidence a source sent it; an answer is evidence only where its own
      // prompt was logged (else it may be a copy of a source never logged, known to no chain).
      const supported = (v & 1) === 0 || ctx.text('request_text', s) !== ''
      const candidate = {v, run, named: isNamed(v), earlier: s < r, supported}
      verified.push(candidate)
      if (best === null || better(ctx, r, candidate, best)) best = candidate
    }
    if (best === null) return null
    // The tenants whose supported texts hold a run as long as the source's: more than one, and
    // no canary sighting naming one of them, and the source is ambiguous.
    const tied = new Set<string>()
    const tiedSessions = new Map<string, {tenant_id: string; session_id: string}>()
    for (const c of verified) {
      if (!(c.supported && c.named === best.named && c.run.len === best.run.len)) continue
      const src = ctx.session(c.v >>> 1)
      tied.add(src?.tenant_id ?? '')
      if (src) tiedSessions.set(JSON.stringify([src.tenant_id, src.session_id]), {tenant_id: src.tenant_id, session_id: src.session_id})
    }
    const sourceStatus = !best.supported ? 'unknown' : best.named || tied.size < 2 ? 'named' : 'ambiguous'
    this.copy[r] = 1
    this.sourceOf.set(r, best.v)
    const overlap = wordsText(rText, rw, best.run.start, best.run.len)
    return {
      v: best.v,
      run: best.run,
      overlapSha256: createHash('sha256').update(overlap).digest('hex'),
      matched: (best.v & 1) === 0 ? 'prompt' : 'response',
      sourceOrder: best.earlier ? 'earlier' : 'unknown',
      sourceStatus,
      sourceTenants: sourceStatus === 'ambiguous' ? tied.size : 1,
      sourceCandidates: sourceStatus === 'ambiguous' ? [...tiedSessions].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, c]) => c) : [],
      candidates: candidates.length,
    }
  }
}

/**
 * A session a canary sighting on the response names, first; then a candidate whose text is
 * evidence of a source (a prompt; an answer whose prompt was logged); then the longest overlap; then
 * a source logged before the response over one whose order is unknown; then the recipient's
 * own decode node; then the earliest (the original occurrence); prompts before responses.
 */
function better(ctx: AttributionContext, r: number, a: Candidate, b: Candidate): boolean {
  if (a.named !== b.named) return a.named
  if (a.supported !== b.supported) return a.supported
  if (a.run.len !== b.run.len) return a.run.len > b.run.len
  if (a.earlier !== b.earlier) return a.earlier
  const node = ctx.node(r)
  const an = node >= 0 && ctx.node(a.v >>> 1) === node
  const bn = node >= 0 && ctx.node(b.v >>> 1) === node
  if (an !== bn) return an
  if (a.v >>> 1 !== b.v >>> 1) return a.v >>> 1 < b.v >>> 1
  return (a.v & 1) < (b.v & 1)
}
