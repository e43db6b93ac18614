import type {KGrams} from '../../extract/winnow.js'
import type {Words} from '../../extract/words.js'

// Verification of a candidate source: the longest verbatim run of words a response shares
// with the source's text, once boilerplate and the recipient's own words are masked, and
// the ranking between verified sources.

/** Anchor positions kept per k-gram in a candidate text (repetitive text). */
const ANCHOR_CAP = 32

export interface Run {
  len: number
  /** Word index in the response. */
  start: number
}

/** A response word in `masked`: evidence (0), boilerplate (BOILERPLATE) or the recipient's own (OWN). */
export const BOILERPLATE = 1
/**
 * Words the recipient's own session sent (this request's prompt or an earlier one's): they are
 * no evidence, but they do not break a run either. An answer repeats the words of its
 * question, so a phrase of the question inside a longer verbatim run of another session's
 * text must not split the run into pieces each too short to count.
 */
export const OWN = 2

/**
 * The longest verbatim run of words shared by the response and a candidate text that is
 * evidence: the run holds a stretch free of boilerplate words with `minWords` words that are
 * not the recipient's own (its own words are skipped, neither counted nor breaking the
 * stretch). The run reported is the whole verbatim run.
 *
 * Each run is found from the k-grams it shares with the candidate, trying at most ANCHOR_CAP
 * positions of one k-gram (the first ones: a repetitive text lists thousands). A run is
 * extended from its first k-gram; where that k-gram's positions were cut off before the
 * run's own, it is found from a later k-gram whose positions reach it, and extended back to
 * its start. A run is extended only when it could be longer than the best so far and hold
 * `minWords` unmasked words: two answers looping over one line share a run from every
 * repetition, and extending each of them made verification quadratic in their length.
 */
export function longestEvidenceRun(rw: Words, rg: KGrams, sw: Words, sg: KGrams, minWords: number, masked: Uint8Array): Run | null {
  // The candidate's k-grams by h1 in a chained table of typed arrays, 12 bytes a k-gram. A
  // Map of position arrays took about 80 by its sizes, and verifying against an over-pool
  // prompt made a 100 MB spike in a 5M-record scan (measured; gone with this table). Each
  // chain lists positions in increasing order.
  const n = sg.length
  let size = 16
  while (size < n * 2) size *= 2
  const mask = size - 1
  if (heads.length < size) heads = new Int32Array(size)
  if (nexts.length < n) nexts = new Int32Array(Math.max(n, nexts.length * 2))
  const head = heads.subarray(0, size).fill(-1)
  for (let j = n - 1; j >= 0; j--) {
    const slot = sg.h1[j]! & mask
    nexts[j] = head[slot]!
    head[slot] = j
  }
  // Per response position, the least end of a stretch free of boilerplate, starting at or
  // after it, that holds minWords evidence words (Infinity: none): a run from i is evidence
  // exactly when it reaches that far. Read backwards, keeping the positions of the next
  // minWords evidence words in a ring (cleared at each boilerplate word).
  const m = rw.length
  if (qualEnds.length < m + 1) qualEnds = new Float64Array(Math.max(m + 1, qualEnds.length * 2))
  const qualEnd = qualEnds.subarray(0, m + 1)
  qualEnd[m] = Infinity
  if (rings.length < minWords) rings = new Int32Array(Math.max(minWords, rings.length * 2))
  for (let k = m - 1, held = 0, next = 0; k >= 0; k--) {
    if (masked[k] === BOILERPLATE) held = 0
    else if (masked[k] !== OWN) {
      // rings[next] holds the farthest of the last minWords evidence words once the ring is full.
      rings[next] = k
      next = (next + 1) % minWords
      if (held < minWords) held++
    }
    qualEnd[k] = held >= minWords ? Math.min(rings[next]! + 1, qualEnd[k + 1]!) : qualEnd[k + 1]!
  }
  // Per response k-gram, the last candidate position tried where its positions were cut off
  // at ANCHOR_CAP (Infinity: all were tried).
  if (lastTried.length < rg.length) lastTried = new Float64Array(Math.max(rg.length, lastTried.length * 2))
  const same = (i: number, j: number): boolean => rw.h1[i] === sw.h1[j] && rw.h2[i] === sw.h2[j]
  // Runs found from a later k-gram, by diagonal: their start, so that each is extended once.
  let fromLater: Map<number, number> | null = null
  let best: Run | null = null
  for (let i = 0; i < rg.length; i++) {
    const h = rg.h1[i]!
    let tried = 0
    lastTried[i] = Infinity
    for (let j = head[h & mask]!; j !== -1; j = nexts[j]!) {
      if (sg.h1[j] !== h) continue
      if (++tried > ANCHOR_CAP) {
        lastTried[i] = j - 1
        break
      }
      if (sg.h2[j] !== rg.h2[i]) continue
      let start = i
      let from = j
      if (i > 0 && j > 0 && same(i - 1, j - 1)) {
        // Not the start of a maximal run: found from its first k-gram where that k-gram's
        // positions reached j - 1 (its run is that one); otherwise from here, back to its start.
        if (j - 1 <= lastTried[i - 1]!) continue
        while (start > 0 && from > 0 && same(start - 1, from - 1)) {
          start--
          from--
        }
        fromLater ??= new Map()
        if (fromLater.get(start - from) === start) continue
        fromLater.set(start - from, start)
      }
      const most = Math.min(rw.length - start, sw.length - from)
      if (most < minWords || (best !== null && most <= best.len) || qualEnd[start]! > start + most) continue
      let len = 0
      while (len < most && same(start + len, from + len)) len++
      extended += len
      if (len < minWords || (best !== null && len <= best.len)) continue
      if (qualEnd[start]! <= start + len) best = {len, start}
    }
  }
  return best
}

/** Words compared while extending runs, over every call (for tests: verification stays linear on repetitive text). */
export function wordsExtended(): number {
  return extended
}
let extended = 0

// The chained table's arrays, reused by every call (they grow to the longest candidate text).
let heads = new Int32Array(0)
let nexts = new Int32Array(0)
let qualEnds = new Float64Array(0)
let lastTried = new Float64Array(0)
let rings = new Int32Array(0)

/** A 53-bit key of a fingerprint pair, for sets of k-grams. */
export function key53(h1: number, h2: number): number {
  return h1 * 0x200000 + (h2 & 0x1fffff)
}
