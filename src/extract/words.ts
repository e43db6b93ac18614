// Normalised words for provenance, as the generator's ground truth counts them: white-space
// separated tokens, compared as their lower-cased letters and digits only; a token with no
// letter or digit is not a word. (Letters and digits beyond ASCII count too, so a Cyrillic
// or Greek text still has words.) Canary markers are words like any other: a leaked prompt
// that starts with its session's marker repeats that word too.
//
// Only hashes and character offsets are produced (no per-word strings) so that hundreds of
// megabytes of text can be fingerprinted quickly; strings are rebuilt from the offsets for
// the few overlaps that are reported.

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

export function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c >= 0xa0 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff))
}

/** Seeds of the two word hashes. */
export const WORD_SEED_A = 0x811c9dc5
export const WORD_SEED_B = 0x9747b28c

/**
 * The word starting at or after `from`: its two hashes (not yet finalised), the number of
 * normalised characters, and where it ends. Shared by tokenizeWords and the fused
 * fingerprinting pass so both see exactly the same words. Returns false at the end of text.
 */
export interface WordCursor {
  i: number
  start: number
  a: number
  b: number
  kept: number
}

export function nextWord(text: string, cur: WordCursor): boolean {
  const len = text.length
  let i = cur.i
  for (;;) {
    while (i < len) {
      const c = text.charCodeAt(i)
      if (c === 32 || (c >= 9 && c <= 13) || (c >= 0xa0 && isSpace(c))) i++
      else break
    }
    if (i >= len) {
      cur.i = i
      return false
    }
    const wordStart = i
    let a = WORD_SEED_A
    let b = WORD_SEED_B
    let kept = 0
    while (i < len) {
      let c = text.charCodeAt(i)
      if (c < 128) {
        if (c >= 97 && c <= 122) {
          // lower-case letter: the common case
        } else if (c >= 65 && c <= 90) c += 32
        else if (c >= 48 && c <= 57) {
          // digit
        } else if (c === 32 || (c >= 9 && c <= 13)) break
        else {
          i++
          continue
        }
        i++
        a = Math.imul(a ^ c, 0x01000193)
        b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15)
        kept++
        continue
      }
      if (isSpace(c)) break
      if (nfcSensitive(c >= 0xd800 && c <= 0xdbff && i + 1 < len ? text.codePointAt(i)! : c)) {
        // A unit NFC changes or composes with the one before it (e + U+0301 is é): the word is
        // read again, whole, in NFC, so that text differing only by normalization gives the
        // same word. Its offsets stay those of the text as logged.
        let end = i
        while (end < len) {
          const u = text.charCodeAt(end)
          if (u === 32 || (u >= 9 && u <= 13) || (u >= 0xa0 && isSpace(u))) break
          end++
        }
        const h = hashLetters(text.slice(wordStart, end).normalize('NFC'))
        a = h.a
        b = h.b
        kept = h.kept
        i = end
        break
      }
      i++
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
    }
    if (kept === 0) continue
    cur.i = i
    cur.start = wordStart
    cur.a = a
    cur.b = b
    cur.kept = kept
    return true
  }
}

/** A word's running hashes and normalised length, as nextWord keeps them. */
function hashLetters(word: string): {a: number; b: number; kept: number} {
  let a = WORD_SEED_A
  let b = WORD_SEED_B
  let kept = 0
  for (const ch of word) {
    if (!LETTER_OR_DIGIT.test(ch)) continue
    const lower = ch.toLowerCase()
    for (let j = 0; j < lower.length; j++) {
      const lc = lower.charCodeAt(j)
      a = Math.imul(a ^ lc, 0x01000193)
      b = Math.imul(b ^ lc, 0x5bd1e995) ^ (b >>> 15)
    }
    kept += lower.length
  }
  return {a, b, kept}
}

let nfcBmp: Uint8Array | null = null
let nfcAstral: Set<number> | null = null

/**
 * Whether NFC can change a word holding this code point: it is not its own NFC (a singleton
 * such as U+212B ANGSTROM SIGN, which is U+00C5), or it is the second of a canonical pair
 * that composes (U+0301 after e; a Hangul vowel or final jamo after its syllable's start).
 * Those seconds are the last code point of the canonical decomposition of every composite
 * that NFC keeps. A word with none of these is its own NFC as far as its letters and digits
 * go (marks that compose with nothing are not letters, so their order does not count).
 */
export function nfcSensitive(cp: number): boolean {
  if (cp < 0x300) return false
  if (nfcBmp === null) {
    const bmp = new Uint8Array(0x10000)
    const astral = new Set<number>()
    const mark = (x: number): void => {
      if (x < 0x10000) bmp[x] = 1
      else astral.add(x)
    }
    for (let x = 0x80; x < 0x30000; x++) {
      if (x >= 0xd800 && x <= 0xdfff) continue
      const ch = String.fromCodePoint(x)
      const nfd = ch.normalize('NFD')
      if (nfd === ch) continue
      if (ch.normalize('NFC') !== ch) mark(x)
      else mark(nfd.codePointAt(nfd.length - 1 - (nfd.charCodeAt(nfd.length - 1) >= 0xdc00 && nfd.charCodeAt(nfd.length - 1) <= 0xdfff ? 1 : 0))!)
    }
    nfcBmp = bmp
    nfcAstral = astral
  }
  return cp < 0x10000 ? nfcBmp[cp] === 1 : nfcAstral!.has(cp)
}

/** Flags of wordTable's entries (bits 16-31 hold a letter's or digit's lower case). */
export const TABLE_SPACE = 1
export const TABLE_LETTER_OR_DIGIT = 2
/** A code unit whose word needs more than the table: a surrogate, or a lower case of two units. */
export const TABLE_DECLINE = 4

/**
 * What nextWord makes of each code unit outside ASCII, for the native fingerprints
 * (native/src/words.rs), which take this engine's Unicode answers rather than their own:
 * white space, a letter or digit and its one-unit lower case, or a unit they must leave to
 * nextWord (a surrogate, whose meaning depends on the unit after it; a lower case of two
 * units, such as U+0130's). Entries below 128 are not read (nextWord's ASCII rules are fixed).
 */
export function wordTable(): Uint32Array {
  const table = new Uint32Array(0x10000)
  for (let c = 128; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) {
      table[c] = TABLE_DECLINE
      continue
    }
    if (isSpace(c)) {
      table[c] = TABLE_SPACE
      continue
    }
    // NFC may change the word (nextWord reads it again in NFC): the reference reads the text.
    if (nfcSensitive(c)) {
      table[c] = TABLE_DECLINE
      continue
    }
    const ch = String.fromCharCode(c)
    if (!LETTER_OR_DIGIT.test(ch)) continue
    const lower = ch.toLowerCase()
    table[c] = lower.length === 1 ? TABLE_LETTER_OR_DIGIT | (lower.charCodeAt(0) << 16) : TABLE_DECLINE
  }
  return table
}

export function tokenizeWords(text: string): Words {
  const cap = Math.max(16, text.length >>> 2)
  let h1: Uint32Array = new Uint32Array(cap)
  let h2: Uint32Array = new Uint32Array(cap)
  let start: Uint32Array = new Uint32Array(cap)
  let end: Uint32Array = new Uint32Array(cap)
  let n = 0
  const cur: WordCursor = {i: 0, start: 0, a: 0, b: 0, kept: 0}
  while (nextWord(text, cur)) {
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
    h1[n] = fmix(cur.a)
    h2[n] = fmix(cur.b ^ cur.kept)
    start[n] = cur.start
    end[n] = cur.i
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
  for (const ch of raw.normalize('NFC')) if (LETTER_OR_DIGIT.test(ch)) out += ch.toLowerCase()
  return out
}

/** Normalised words [from, from + count) joined by single spaces: what overlap_sha256 covers. */
export function wordsText(text: string, words: Words, from: number, count: number): string {
  const out: string[] = []
  for (let k = from; k < from + count && k < words.length; k++) out.push(normaliseWord(text.slice(words.start[k], words.end[k])))
  return out.join(' ')
}
