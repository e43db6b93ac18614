import {mkdtempSync, readdirSync, readFileSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {FingerprintBuffer, fingerprintText, fingerprintTextFast, NATIVE_MAX_UNITS, nativeFingerprints, tokenizeWordsFast} from '../../src/extract/winnow.js'
import {TABLE_DECLINE, tokenizeWords, wordTable, type Words} from '../../src/extract/words.js'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {ADDON_PATH, nativeAddon} from '../../src/util/native-addon.js'

// The differential test of the native fingerprints (native/src/words.rs): every text gives the
// same pairs and the same word count as fingerprintText, the reference; texts the addon
// declines (a surrogate, a letter whose lower case is two units) are read by the reference.

const native = nativeAddon() !== null && typeof nativeAddon()!.fingerprintText === 'function'

function reference(text: string): {words: number; pairs: number[]} {
  const out = new FingerprintBuffer()
  const words = fingerprintText(text, out)
  return {words, pairs: [...out.data.subarray(0, out.length)]}
}

function fast(text: string, out = new FingerprintBuffer()): {words: number; pairs: number[]} {
  const before = out.length
  const words = fingerprintTextFast(text, out)
  return {words, pairs: [...out.data.subarray(before, out.length)]}
}

/** The addon's own answer (-1: declined), with the pairs it wrote. */
function addonOnly(text: string): {words: number; pairs: number[]} {
  const a = createRequire(import.meta.url)(ADDON_PATH) as {fingerprintText: (t: string, out: Uint32Array, at: number, w: Uint32Array) => number}
  const out = new Uint32Array(2 * ((text.length >>> 1) + 2) + 3)
  const written = new Uint32Array(1)
  const words = a.fingerprintText(text, out, 3, written)
  return {words, pairs: words < 0 ? [] : [...out.subarray(3, 3 + written[0]!)]}
}

describe.skipIf(!native)('native fingerprints, against fingerprintText', () => {
  it('are in use where the addon is built', () => {
    expect(nativeFingerprints()).toBe(true)
  })

  it('agree on every code unit of the Basic Multilingual Plane inside a word', () => {
    // Five words make one k-gram, always selected: a unit the table gets wrong (space or not,
    // letter or not, its lower case) changes the pair or the word count.
    const table = wordTable()
    const same = (x: {words: number; pairs: number[]}, y: {words: number; pairs: number[]}): boolean => x.words === y.words && x.pairs.join() === y.pairs.join()
    const wrong: string[] = []
    let byAddon = 0
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c)
      for (const text of [`one two three four x${ch}y`, `${ch}A b c d e${ch}`]) {
        const want = reference(text)
        if (!same(fast(text), want)) wrong.push(`U+${c.toString(16)} in ${JSON.stringify(text)}`)
        const own = addonOnly(text)
        if (c >= 128 && table[c]! & TABLE_DECLINE) {
          if (own.words !== -1) wrong.push(`U+${c.toString(16)} not declined`)
        } else if (same(own, want)) byAddon++
        else wrong.push(`U+${c.toString(16)} by the addon in ${JSON.stringify(text)}`)
      }
    }
    expect(wrong.slice(0, 20)).toEqual([])
    // Only surrogates, the few letters whose lower case is two units and the units NFC may
    // change (combining marks that compose, singletons such as the CJK compatibility
    // ideographs: 667 under Unicode 15) are declined.
    expect(byAddon).toBeGreaterThan(2 * (0x10000 - 0x800 - 16 - 700))
  })

  it('agree on random texts: any code points, lone surrogates, words of many scripts and spaces', () => {
    const unit = fc.oneof(
      fc.constantFrom('a', 'Z', '7', '-', '.', 'É', 'ß', 'İ', 'Σ', 'ς', 'ǅ', 'Ⅻ', '٣', '中', 'ﬀ', '\u0345', '\ud835\udc00', '\ud800', '\udc00', '😀', '\u00ad', '\u200b'),
      fc.constantFrom(' ', '\t', '\n', '\r', '\u000b', '\u000c', '\u001c', '\u0085', '\u00a0', '\u1680', '\u2000', '\u2028', '\u202f', '\u3000', '\ufeff'),
      fc.string({unit: 'binary', maxLength: 3}),
      fc.string({unit: 'grapheme', maxLength: 3}),
      fc.constantFrom('CANARY-0a1b2c3d4e5f6a7b', 'canary-0A1B', 'word', 'Words', 'WORDS', 'x1', '42'),
    )
    fc.assert(
      fc.property(fc.array(unit, {maxLength: 160}), fc.nat(5), (parts, pad) => {
        const text = parts.join('')
        // Into a buffer already holding pairs and too small to take these: it grows, and what it held stays.
        const out = new FingerprintBuffer()
        for (let i = 0; i < pad * 300; i++) out.push(i, ~i >>> 0)
        const held = [...out.data.subarray(0, out.length)]
        expect(fast(text, out)).toEqual(reference(text))
        expect([...out.data.subarray(0, held.length)]).toEqual(held)
      }),
      {numRuns: 3000},
    )
  })

  it('decline a text with a surrogate or a two-unit lower case, which the reference then reads', () => {
    for (const text of ['one two three four five six 😀 seven', 'a b c d \ud800 e', 'İstanbul is a city with many words in it today']) {
      expect(addonOnly(text).words).toBe(-1)
      expect(fast(text)).toEqual(reference(text))
    }
    expect(addonOnly('plain words only, nothing declined here at all').words).toBeGreaterThan(0)
  })

  it('give the same pairs for a text in NFC and in NFD (the addon declines the NFD text, the reference reads it in NFC)', () => {
    const nfc = 'Le café de la rue Sainte-Hélène sert un thé très noir à côté de l\'église, où Ångström déjeûne; 한국어 문장도 같은 단어입니다'
    // NFC, NFD, and NFC with U+212B ANGSTROM SIGN (a singleton whose NFC is U+00C5).
    for (const text of [nfc, nfc.normalize('NFD'), nfc.replace('Å', '\u212b')]) {
      expect(fast(text)).toEqual(reference(nfc))
      expect(reference(text)).toEqual(reference(nfc))
      expect(tokenizeWordsFast(text).length).toBe(tokenizeWords(nfc).length)
    }
    expect(addonOnly(nfc.normalize('NFD')).words).toBe(-1)
    // Precomposed text with nothing NFC changes stays with the addon.
    expect(addonOnly('Le café de la rue Sainte-Hélène sert un thé très noir').words).toBeGreaterThan(0)
  })

  it('leave a text longer than the addon takes to fingerprintText, without room for every possible pair', () => {
    const words = ['alpha', 'Beta', 'gamma7', 'delta', 'épsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda']
    let text = ''
    for (let i = 0; text.length <= NATIVE_MAX_UNITS * 3; i++) text += `${words[(i * 7) % words.length]}${i % 13} `
    const out = new FingerprintBuffer()
    expect(fast(text, out)).toEqual(reference(text))
    // The addon reserves a pair per two units before it starts: 3M values for this text.
    expect(out.data.length).toBeLessThan(text.length / 2)
    const short = text.slice(0, NATIVE_MAX_UNITS)
    expect(fast(short)).toEqual(reference(short))
  })

  describe('on a generated incident', () => {
    let dir: string
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'crosstalk-words-'))
      await generateIncident({out: dir, records: 1500, seed: 23})
    }, 120_000)
    afterAll(() => rmSync(dir, {recursive: true, force: true}))

    it('agree on every line of its logs, read as text', () => {
      let texts = 0
      let byAddon = 0
      for (const f of readdirSync(join(dir, 'logs')).filter((n) => n.endsWith('.jsonl'))) {
        for (const line of readFileSync(join(dir, 'logs', f), 'utf8').split('\n')) {
          const text = line.replaceAll('\\n', '\n').replaceAll('\\"', '"')
          const want = reference(text)
          expect(fast(text)).toEqual(want)
          if (addonOnly(text).words >= 0) byAddon++
          texts++
        }
      }
      expect(texts).toBeGreaterThan(1000)
      expect(byAddon / texts).toBeGreaterThan(0.9)
    })
  })
})

// The native word tokenizer (native/src/words.rs tokenize) that provenance's verification uses:
// the same words, hashes and positions as tokenizeWords, the reference.
const nativeTokens = native && typeof nativeAddon()!.tokenizeWords === 'function'

function words(w: Words): {h1: number[]; h2: number[]; start: number[]; end: number[]} {
  const n = w.length
  return {h1: [...w.h1.subarray(0, n)], h2: [...w.h2.subarray(0, n)], start: [...w.start.subarray(0, n)], end: [...w.end.subarray(0, n)]}
}

/** The addon's own answer: -1 where it declined. */
function addonTokens(text: string): number {
  const a = createRequire(import.meta.url)(ADDON_PATH) as {tokenizeWords: (t: string, ...arrays: Uint32Array[]) => number}
  const room = (text.length >>> 1) + 1
  return a.tokenizeWords(text, new Uint32Array(room), new Uint32Array(room), new Uint32Array(room), new Uint32Array(room))
}

describe.skipIf(!nativeTokens)('native word tokens, against tokenizeWords', () => {
  it('agree on every code unit of the Basic Multilingual Plane, around and inside words', () => {
    const table = wordTable()
    const wrong: string[] = []
    let byAddon = 0
    for (let c = 0; c < 0x10000; c++) {
      const ch = String.fromCharCode(c)
      for (const text of [`one ${ch} x${ch}y`, `${ch}A b${ch}${ch} c`, ch]) {
        if (JSON.stringify(words(tokenizeWordsFast(text))) !== JSON.stringify(words(tokenizeWords(text)))) wrong.push(`U+${c.toString(16)} in ${JSON.stringify(text)}`)
        const own = addonTokens(text)
        if (c >= 128 && table[c]! & TABLE_DECLINE) {
          if (own !== -1) wrong.push(`U+${c.toString(16)} not declined`)
        } else if (own === tokenizeWords(text).length) byAddon++
        else wrong.push(`U+${c.toString(16)}: ${own} words by the addon in ${JSON.stringify(text)}`)
      }
    }
    expect(wrong.slice(0, 20)).toEqual([])
    // Declined as by fingerprintText: surrogates, two-unit lower cases, units NFC may change.
    expect(byAddon).toBeGreaterThan(3 * (0x10000 - 0x800 - 16 - 700))
  })

  it('agree on random texts, the shortest and the densest included', () => {
    const unit = fc.oneof(
      fc.constantFrom('a', 'Z', '7', '-', '.', 'É', 'ß', 'İ', 'Σ', '中', '\ud835\udc00', '\ud800', '😀', '\u00ad'),
      fc.constantFrom(' ', '\t', '\n', '\u00a0', '\u2028', '\u3000', '\ufeff'),
      fc.string({unit: 'binary', maxLength: 3}),
      fc.constantFrom('CANARY-0a1b2c3d4e5f6a7b', 'word', 'WORDS', 'x1'),
    )
    fc.assert(
      fc.property(fc.array(unit, {maxLength: 120}), (parts) => {
        const text = parts.join('')
        expect(words(tokenizeWordsFast(text))).toEqual(words(tokenizeWords(text)))
      }),
      {numRuns: 3000},
    )
    // One word per two units, the most a text can hold: the arrays the addon is given are just big enough.
    for (const text of ['a', 'a b', 'a b ', ' a b c d e f g', 'x '.repeat(5000)]) {
      expect(addonTokens(text)).toBe(tokenizeWords(text).length)
      expect(words(tokenizeWordsFast(text))).toEqual(words(tokenizeWords(text)))
    }
  })
})
