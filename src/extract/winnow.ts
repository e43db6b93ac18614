import {nativeAddon} from '../util/native-addon.js'
import {fmix, nextWord, tokenizeWords, wordTable, type WordCursor, type Words} from './words.js'

// Winnowing (Schleimer, Wilkerson, Aiken, "Winnowing: local algorithms for document
// fingerprinting", SIGMOD 2003). Hash every k-gram of words; in every window of W
// consecutive k-gram hashes select the minimum (the rightmost one on ties). Any shared run
// of at least t = W + K - 1 words contains a whole window, whose minimum is selected in
// both texts: a verbatim overlap of t words is always found. With K = 5 and W = 8, t = 12,
// the guarantee the issue asks for, at a density of about 2 / (W + 1) = 22% of k-grams.

export const K = 5
export const W = 8
export const GUARANTEE_WORDS = W + K - 1

/**
 * Why a --min-words below the winnowing guarantee is refused: a shared run of GUARANTEE_WORDS
 * (12) words or more always shares a fingerprint, a shorter one only by chance, so a lower
 * minimum would read as a search it is not.
 */
export function minWordsMessage(given: number): string {
  return `--min-words must be at least ${GUARANTEE_WORDS} (got ${given}): the word fingerprints find every verbatim run of ${GUARANTEE_WORDS} or more words, and a shorter one only by chance`
}

/**
 * The largest --min-words taken: a verbatim run of 10,000 words is some forty pages, past any
 * answer's length, so a larger minimum finds nothing a 10,000 would not. Bounded so that a
 * mistyped value is a usage error before the scan claims the case (verification sizes a ring
 * buffer by it: 100000000000 failed with "Invalid typed array length" and left the scan unfinished).
 */
export const MAX_MIN_WORDS = 10_000

/** The largest --boilerplate-tenants taken (a value above the case's tenant count sets nothing aside by count; larger ones cannot be stored). */
export const MAX_BOILERPLATE_TENANTS = 2_147_483_647

/** Why a --min-words above MAX_MIN_WORDS is refused. */
export function maxMinWordsMessage(given: number): string {
  return `--min-words must be at most ${MAX_MIN_WORDS} (got ${given}): no answer holds a longer verbatim run`
}

/** v2: canary markers are words (v1 dropped them). */
export const SCHEME = `words-k${K}-w${W}-v2`

export interface KGrams {
  h1: Uint32Array
  h2: Uint32Array
  length: number
}

export function kgramHashes(words: Words, k = K): KGrams {
  const n = Math.max(0, words.length - k + 1)
  const h1 = new Uint32Array(n)
  const h2 = new Uint32Array(n)
  for (let i = 0; i < n; i++) {
    let a = 0x2545f491
    let b = 0x6a09e667
    for (let j = 0; j < k; j++) {
      a = Math.imul(a ^ words.h1[i + j]!, 0x9e3779b1)
      a = (a << 13) | (a >>> 19)
      b = Math.imul(b ^ words.h2[i + j]!, 0x85ebca77)
      b = (b << 17) | (b >>> 15)
    }
    h1[i] = fmix(a ^ k)
    h2[i] = fmix(b ^ (k << 8))
  }
  return {h1, h2, length: n}
}

/** (h1, h2) lexicographic: -1, 0, 1. */
export function cmpHash(a1: number, a2: number, b1: number, b2: number): number {
  return a1 < b1 ? -1 : a1 > b1 ? 1 : a2 < b2 ? -1 : a2 > b2 ? 1 : 0
}

/** Index of the window minimum among k-grams [from, to), rightmost on ties. */
export function windowMin(g: KGrams, from: number, to: number): number {
  let best = from
  for (let i = from + 1; i < to; i++) {
    if (cmpHash(g.h1[i]!, g.h2[i]!, g.h1[best]!, g.h2[best]!) <= 0) best = i
  }
  return best
}

/**
 * Selected k-gram indexes, ascending and distinct. A text shorter than one window is one
 * (short) window: its minimum is its only fingerprint.
 */
export function winnow(g: KGrams, w = W): number[] {
  const picked: number[] = []
  if (g.length === 0) return picked
  if (g.length <= w) {
    picked.push(windowMin(g, 0, g.length))
    return picked
  }
  let last = -1
  for (let s = 0; s + w <= g.length; s++) {
    // The previous minimum is still in the window and nothing new beats it: reuse it.
    let m: number
    if (last >= s) {
      const incoming = s + w - 1
      m = cmpHash(g.h1[incoming]!, g.h2[incoming]!, g.h1[last]!, g.h2[last]!) <= 0 ? incoming : last
    } else m = windowMin(g, s, s + w)
    if (m !== last) {
      picked.push(m)
      last = m
    }
  }
  return picked
}

/** Fingerprints packed as uint32 pairs (h1, h2), for storage. */
export function packFingerprints(g: KGrams, picked: readonly number[]): Buffer {
  const out = new Uint32Array(picked.length * 2)
  picked.forEach((p, i) => {
    out[2 * i] = g.h1[p]!
    out[2 * i + 1] = g.h2[p]!
  })
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength)
}

/** Growable output of fingerprintText: (h1, h2) pairs. */
export class FingerprintBuffer {
  data = new Uint32Array(1024)
  length = 0
  push(h1: number, h2: number): void {
    if (this.length + 2 > this.data.length) {
      const next = new Uint32Array(this.data.length * 2)
      next.set(this.data)
      this.data = next
    }
    this.data[this.length++] = h1
    this.data[this.length++] = h2
  }
  /** Room for `values` more uint32 values without growing. */
  reserve(values: number): void {
    if (this.length + values <= this.data.length) return
    let size = this.data.length * 2
    while (size < this.length + values) size *= 2
    const next = new Uint32Array(size)
    next.set(this.data.subarray(0, this.length))
    this.data = next
  }
  /** The pairs as a Buffer over this buffer's memory (valid until the next push). */
  view(): Buffer {
    return Buffer.from(this.data.buffer, this.data.byteOffset, this.length * 4)
  }
  /** A copy of the pairs as a Buffer (for storage). */
  toBuffer(): Buffer {
    return Buffer.from(this.data.buffer.slice(0, this.length * 4))
  }
}

const cursor: WordCursor = {i: 0, start: 0, a: 0, b: 0, kept: 0}
// Rings indexed by `& RING` (a power of two at least K and W): no division per word.
const RING = 7
if (K > RING + 1 || W !== RING + 1) throw new Error('winnow: rings must hold K words and exactly W k-grams')
const wa = new Uint32Array(RING + 1)
const wb = new Uint32Array(RING + 1)
const ga = new Uint32Array(W)
const gb = new Uint32Array(W)

/**
 * One pass over the text: words, k-gram hashes and winnowing together, with no per-word
 * allocation. Exactly winnow(kgramHashes(tokenizeWords(text))) (tested). Appends the
 * selected fingerprints to `out` and returns the number of words.
 */
export function fingerprintText(text: string, out: FingerprintBuffer): number {
  cursor.i = 0
  let words = 0
  let grams = 0
  let last = -1 // k-gram index of the last selected minimum
  let lastA = 0
  let lastB = 0
  while (nextWord(text, cursor)) {
    wa[words & RING] = fmix(cursor.a)
    wb[words & RING] = fmix(cursor.b ^ cursor.kept)
    words++
    if (words < K) continue
    let a = 0x2545f491
    let b = 0x6a09e667
    for (let j = words - K; j < words; j++) {
      a = Math.imul(a ^ wa[j & RING]!, 0x9e3779b1)
      a = (a << 13) | (a >>> 19)
      b = Math.imul(b ^ wb[j & RING]!, 0x85ebca77)
      b = (b << 17) | (b >>> 15)
    }
    const h1 = fmix(a ^ K)
    const h2 = fmix(b ^ (K << 8))
    const g = grams++
    ga[g & RING] = h1
    gb[g & RING] = h2
    if (g < W - 1) continue
    const s = g - W + 1
    let m: number
    if (last >= s) {
      m = h1 < lastA || (h1 === lastA && h2 <= lastB) ? g : last
    } else {
      m = s
      for (let i = s + 1; i <= g; i++) {
        const x1 = ga[i & RING]!
        const x2 = gb[i & RING]!
        const b1 = ga[m & RING]!
        if (x1 < b1 || (x1 === b1 && x2 <= gb[m & RING]!)) m = i
      }
    }
    if (m !== last) {
      last = m
      lastA = ga[m & RING]!
      lastB = gb[m & RING]!
      out.push(lastA, lastB)
    }
  }
  if (grams > 0 && grams < W) {
    let m = 0
    for (let i = 1; i < grams; i++) {
      const x1 = ga[i]!
      const b1 = ga[m]!
      if (x1 < b1 || (x1 === b1 && gb[i]! <= gb[m]!)) m = i
    }
    out.push(ga[m]!, gb[m]!)
  }
  return words
}

export function unpackFingerprints(blob: Uint8Array): Uint32Array {
  // Copy: a Buffer from SQLite need not be 4-byte aligned.
  const copy = new Uint8Array(blob.byteLength)
  copy.set(blob)
  return new Uint32Array(copy.buffer, 0, copy.byteLength >>> 2)
}

interface WordsAddon {
  setWordTable(table: Uint32Array): boolean
  hasWordTable(): boolean
  fingerprintText(text: string, out: Uint32Array, at: number, written: Uint32Array): number
  /** Absent from an addon built before it was added. */
  tokenizeWords?(text: string, h1: Uint32Array, h2: Uint32Array, start: Uint32Array, end: Uint32Array): number
}

let addonSeen: object | null | undefined
let words: WordsAddon | null = null
const written = new Uint32Array(1)

/** The addon's fingerprints, where it has them, with this engine's word table handed over. */
function wordsAddon(): WordsAddon | null {
  const a = nativeAddon()
  if (a === addonSeen) return words
  addonSeen = a
  words = null
  if (a && typeof a.fingerprintText === 'function' && typeof a.setWordTable === 'function' && typeof a.hasWordTable === 'function') {
    const w = a as unknown as WordsAddon
    if (w.hasWordTable() || w.setWordTable(wordTable())) words = w
  }
  return words
}

/** Whether fingerprintTextFast has the addon (for the tests that compare the two). */
export function nativeFingerprints(): boolean {
  return wordsAddon() !== null
}

/**
 * The longest text handed to the addon (UTF-16 units). It needs room for the most pairs a text
 * can give (one per two units) before it starts, and the caller's buffer keeps its size: a
 * text of 256 MB would ask for 512 MB. Beyond this, fingerprintText grows the buffer as pairs come.
 */
export const NATIVE_MAX_UNITS = 1 << 20

/**
 * fingerprintText, by the native addon where it is built (native/src/words.rs: the same
 * pairs and count, test/extract/native-words.test.ts), else, and for any text the addon
 * declines (a surrogate; a letter whose lower case is two units) or that is longer than
 * NATIVE_MAX_UNITS, by fingerprintText.
 */
export function fingerprintTextFast(text: string, out: FingerprintBuffer): number {
  const w = text.length <= NATIVE_MAX_UNITS ? wordsAddon() : null
  if (w !== null) {
    // native/src/words.rs max_output: a pair per word at most, and a word takes two units.
    out.reserve(2 * ((text.length >>> 1) + 2))
    const n = w.fingerprintText(text, out.data, out.length, written)
    if (n >= 0) {
      out.length += written[0]!
      return n
    }
  }
  return fingerprintText(text, out)
}

/**
 * tokenizeWords, by the native addon where it is built (native/src/words.rs tokenize: the same
 * words, hashes and positions, tested against it); by tokenizeWords where the addon is absent,
 * declines a text (a code unit its table cannot answer for), or the text is over
 * NATIVE_MAX_UNITS. Provenance's verification tokenizes every text it compares (about a third
 * of its time at 200k records).
 */
export function tokenizeWordsFast(text: string): Words {
  const w = text.length <= NATIVE_MAX_UNITS ? wordsAddon() : null
  if (w?.tokenizeWords) {
    // native/src/words.rs max_words: a word takes a unit and a space after it.
    const room = (text.length >>> 1) + 1
    const h1 = new Uint32Array(room)
    const h2 = new Uint32Array(room)
    const start = new Uint32Array(room)
    const end = new Uint32Array(room)
    const n = w.tokenizeWords(text, h1, h2, start, end)
    if (n >= 0) return {h1, h2, start, end, length: n}
  }
  return tokenizeWords(text)
}
