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

/**
 * The longest verbatim run of words shared by the response and a candidate text that is
 * evidence: once the masked words (boilerplate, or text the recipient sent itself) are
 * taken out, what is left of the run still holds `minWords` consecutive words. The run
 * reported is the whole verbatim run.
 */
export function longestEvidenceRun(rw: Words, rg: KGrams, sw: Words, sg: KGrams, minWords: number, masked: Uint8Array): Run | null {
  // The candidate's k-grams by h1 in a chained table of typed arrays, 12 bytes a k-gram. A
  // Map of position arrays took about 80 by its sizes, and verifying against an over-pool
  // prompt made a 100 MB spike in a 5M-record scan (measured; gone with this table). Each
  // chain lists positions in increasing order, and at most ANCHOR_CAP positions of one h1
  // are tried, the first ones, as before.
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
  const same = (i: number, j: number): boolean => rw.h1[i] === sw.h1[j] && rw.h2[i] === sw.h2[j]
  let best: Run | null = null
  for (let i = 0; i < rg.length; i++) {
    const h = rg.h1[i]!
    let tried = 0
    for (let j = head[h & mask]!; j !== -1; j = nexts[j]!) {
      if (sg.h1[j] !== h) continue
      if (++tried > ANCHOR_CAP) break
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

// The chained table's arrays, reused by every call (they grow to the longest candidate text).
let heads = new Int32Array(0)
let nexts = new Int32Array(0)

function longestUnmasked(masked: Uint8Array, start: number, len: number): number {
  let best = 0
  let cur = 0
  for (let k = start; k < start + len; k++) {
    if (masked[k] === 1) cur = 0
    else if (++cur > best) best = cur
  }
  return best
}

/** A 53-bit key of a fingerprint pair, for sets of k-grams. */
export function key53(h1: number, h2: number): number {
  return h1 * 0x200000 + (h2 & 0x1fffff)
}
