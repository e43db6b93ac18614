// Normalised words for provenance: split on white space, punctuation stripped, lower-case.
// Only hashes and character offsets are produced (no per-word strings) so that hundreds of
// megabytes of text can be fingerprinted quickly; strings are rebuilt from the offsets for
// the few overlaps that are reported.
//
// Canary markers are dropped from the word sequence: a marker is evidence for `sightings`,
// and as a unique token it would otherwise make any text around it look like a match.

export interface Words {
  /** Two independent 32-bit hashes per word (a 64-bit identity). */
  h1: Uint32Array
  h2: Uint32Array
  /** Offsets in the original text, [start, end) of each word. */
  start: Uint32Array
  end: Uint32Array
  length: number
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u
const C_LOWER = 'canary'

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff
}

function isHexLower(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102)
}

export function tokenizeWords(text: string): Words {
  const cap = Math.max(16, text.length >>> 2)
  let h1: Uint32Array = new Uint32Array(cap)
  let h2: Uint32Array = new Uint32Array(cap)
  let start: Uint32Array = new Uint32Array(cap)
  let end: Uint32Array = new Uint32Array(cap)
  let n = 0
  const len = text.length
  let i = 0
  while (i < len) {
    while (i < len && isSpace(text.charCodeAt(i))) i++
    if (i >= len) break
    const wordStart = i
    let a = 0x811c9dc5
    let b = 0x9747b28c
    let kept = 0
    // Marker detection on the normalised form: "canary" then 8+ lower-case hex digits.
    let canaryState = 0
    while (i < len) {
      let c = text.charCodeAt(i)
      if (isSpace(c)) break
      i++
      if (c < 128) {
        if (c >= 65 && c <= 90) c += 32
        else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) continue
      } else {
        // Surrogate pairs: take the whole code point.
        let ch = String.fromCharCode(c)
        if (c >= 0xd800 && c <= 0xdbff && i < len) {
          ch += text[i]
          i++
        }
        if (!LETTER_OR_DIGIT.test(ch)) continue
        const lower = ch.toLowerCase()
        for (let j = 0; j < lower.length; j++) {
          const lc = lower.charCodeAt(j)
          a = Math.imul(a ^ lc, 0x01000193)
          b = Math.imul(b ^ lc, 0x5bd1e995) ^ (b >>> 15)
        }
        kept += lower.length
        canaryState = -1
        continue
      }
      a = Math.imul(a ^ c, 0x01000193)
      b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15)
      if (canaryState >= 0) {
        if (kept < 6) canaryState = c === C_LOWER.charCodeAt(kept) ? canaryState : -1
        else canaryState = isHexLower(c) ? canaryState + 1 : -1
      }
      kept++
    }
    if (kept === 0) continue
    if (canaryState >= 8) continue
    if (n === h1.length) {
      const grow = (arr: Uint32Array): Uint32Array => {
        const next = new Uint32Array(arr.length * 2)
        next.set(arr)
        return next
      }
      h1 = grow(h1)
      h2 = grow(h2)
      start = grow(start)
      end = grow(end)
    }
    h1[n] = fmix(a)
    h2[n] = fmix(b ^ kept)
    start[n] = wordStart
    end[n] = i
    n++
  }
  return {h1, h2, start, end, length: n}
}

export function fmix(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** The normalised form of one word, as fingerprinted. */
export function normaliseWord(raw: string): string {
  let out = ''
  for (const ch of raw) if (LETTER_OR_DIGIT.test(ch)) out += ch.toLowerCase()
  return out
}

/** Normalised words [from, from + count) joined by single spaces: what overlap_sha256 covers. */
export function wordsText(text: string, words: Words, from: number, count: number): string {
  const out: string[] = []
  for (let k = from; k < from + count && k < words.length; k++) out.push(normaliseWord(text.slice(words.start[k], words.end[k])))
  return out.join(' ')
}
