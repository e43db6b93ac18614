import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {BOILERPLATE, longestEvidenceRun, OWN, wordsExtended, type Run} from '../../src/detect/provenance/verify-run.js'
import {K, kgramHashes, type KGrams} from '../../src/extract/winnow.js'
import {tokenizeWords, type Words} from '../../src/extract/words.js'

// The longest evidence run finds the candidate's k-grams through a chained table of typed
// arrays. Held here to the plain reading it replaced (a map from h1 to the first 32
// positions), on texts drawn from a small vocabulary so that runs, repeats past the cap and
// masked words are common.

const ANCHOR_CAP = 32

/**
 * The most evidence words in a stretch of the run free of boilerplate (1); the recipient's own
 * words (2) neither count nor break a stretch.
 */
function evidenceWords(masked: Uint8Array, start: number, len: number): number {
  let most = 0
  let cur = 0
  for (let k = start; k < start + len; k++) {
    if (masked[k] === 1) cur = 0
    else if (masked[k] === 0) most = Math.max(most, ++cur)
  }
  return most
}

function reference(rw: Words, rg: KGrams, sw: Words, sg: KGrams, minWords: number, masked: Uint8Array): Run | null {
  const anchors = new Map<number, number[]>()
  for (let j = 0; j < sg.length; j++) {
    const list = anchors.get(sg.h1[j]!)
    if (list === undefined) anchors.set(sg.h1[j]!, [j])
    else list.push(j)
  }
  const same = (i: number, j: number): boolean => rw.h1[i] === sw.h1[j] && rw.h2[i] === sw.h2[j]
  // Per response k-gram, the candidate positions tried: the first ANCHOR_CAP of its h1.
  const tried = (i: number): number[] => (anchors.get(rg.h1[i]!) ?? []).slice(0, ANCHOR_CAP)
  const done = new Set<string>()
  let best: Run | null = null
  for (let i = 0; i < rg.length; i++) {
    for (const j of tried(i)) {
      if (sg.h2[j] !== rg.h2[i]) continue
      let start = i
      let from = j
      if (i > 0 && j > 0 && same(i - 1, j - 1)) {
        // Found from its first k-gram where that one's positions reached it; else from here, back to its start.
        if (tried(i - 1).includes(j - 1)) continue
        while (start > 0 && from > 0 && same(start - 1, from - 1)) {
          start--
          from--
        }
        if (done.has(`${start}:${from}`)) continue
        done.add(`${start}:${from}`)
      }
      let len = 0
      while (start + len < rw.length && from + len < sw.length && same(start + len, from + len)) len++
      if (len < minWords || (best !== null && len <= best.len)) continue
      if (evidenceWords(masked, start, len) >= minWords) best = {len, start}
    }
  }
  return best
}

/** Every maximal run over every pair of positions, no cap: the longest one that is evidence, the first by start among equals. */
function everyRun(rw: Words, sw: Words, minWords: number, masked: Uint8Array): Run | null {
  const same = (i: number, j: number): boolean => rw.h1[i] === sw.h1[j] && rw.h2[i] === sw.h2[j]
  let best: Run | null = null
  for (let i = 0; i < rw.length; i++) {
    for (let j = 0; j < sw.length; j++) {
      if (!same(i, j) || (i > 0 && j > 0 && same(i - 1, j - 1))) continue
      let len = 0
      while (i + len < rw.length && j + len < sw.length && same(i + len, j + len)) len++
      if (len < Math.max(minWords, K) || (best !== null && len <= best.len)) continue
      if (evidenceWords(masked, i, len) >= minWords) best = {len, start: i}
    }
  }
  return best
}

const vocabulary = fc.constantFrom('alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta')
// Text from a few words (repeats everywhere) with stretches copied from a shared passage.
const text = (shared: string[]) =>
  fc.array(fc.oneof({weight: 3, arbitrary: fc.array(vocabulary, {maxLength: 40})}, {weight: 1, arbitrary: fc.constant(shared)}), {maxLength: 12}).map((parts) => parts.flat().join(' '))

describe('longest evidence run', () => {
  it('finds what the map of anchors found, run for run', () => {
    let found = 0
    fc.assert(
      fc.property(
        fc.array(vocabulary, {minLength: 10, maxLength: 60}).chain((shared) => fc.tuple(text(shared), text(shared), fc.integer({min: K, max: 20}), fc.array(fc.tuple(fc.nat(400), fc.constantFrom(1, 2)), {maxLength: 30}))),
        ([response, source, minWords, maskedAt]) => {
          const rw = tokenizeWords(response)
          const sw = tokenizeWords(source)
          const rg = kgramHashes(rw)
          const sg = kgramHashes(sw)
          const masked = new Uint8Array(rw.length)
          for (const [m, kind] of maskedAt) if (m < masked.length && masked[m] !== 1) masked[m] = kind
          const got = longestEvidenceRun(rw, rg, sw, sg, minWords, masked)
          expect(got).toEqual(reference(rw, rg, sw, sg, minWords, masked))
          // Where no k-gram repeats past the cap, that is the longest run of all, as long.
          const counts = new Map<number, number>()
          for (let j = 0; j < sg.length; j++) counts.set(sg.h1[j]!, (counts.get(sg.h1[j]!) ?? 0) + 1)
          if (Math.max(0, ...counts.values()) <= ANCHOR_CAP) expect(got?.len ?? null).toEqual(everyRun(rw, sw, minWords, masked)?.len ?? null)
          if (got !== null) found++
        },
      ),
      {seed: 180_052, numRuns: 400},
    )
    // The texts share runs often enough for the comparison to mean something.
    expect(found).toBeGreaterThan(50)
  })

  it('finds a run whose first k-gram repeats past the cap in the candidate from a later k-gram, whole', () => {
    // The response's run starts at the source's 33rd occurrence of its first k-gram: its later k-grams reach it.
    const unit = 'alpha beta gamma delta eps'
    const source = `${Array(32).fill(unit).join(' zeta ')} theta ${unit} eta eta eta eta eta eta eta eta`
    const response = `${unit} eta eta eta eta eta eta eta eta`
    const rw = tokenizeWords(response)
    const sw = tokenizeWords(source)
    const masked = new Uint8Array(rw.length)
    expect(longestEvidenceRun(rw, kgramHashes(rw), sw, kgramHashes(sw), 12, masked)).toEqual({len: 13, start: 0})
    expect(reference(rw, kgramHashes(rw), sw, kgramHashes(sw), 12, masked)).toEqual({len: 13, start: 0})
    // Within reach (the 3rd repeat), the same run.
    const near = `${Array(3).fill(unit).join(' zeta ')} theta ${unit} eta eta eta eta eta eta eta eta`
    const nw = tokenizeWords(near)
    expect(longestEvidenceRun(rw, kgramHashes(rw), nw, kgramHashes(nw), 12, masked)).toEqual({len: 13, start: 0})
  })

  it('the recipient\'s own words inside a run neither count nor split it; boilerplate splits it', () => {
    const text = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen'
    const rw = tokenizeWords(text)
    const run = (kind: number, at: number[]): Run | null => {
      const masked = new Uint8Array(rw.length)
      for (const k of at) masked[k] = kind
      return longestEvidenceRun(rw, kgramHashes(rw), rw, kgramHashes(rw), 12, masked)
    }
    const middle = [7, 8, 9, 10, 11]
    // 13 evidence words around 5 of its own (7 + 6 either side): the whole 18-word run.
    expect(run(OWN, middle)).toEqual({len: 18, start: 0})
    expect(run(BOILERPLATE, middle)).toBeNull()
    // 7 of its own leave 11 evidence words: not evidence.
    expect(run(OWN, [5, 6, ...middle])).toBeNull()
  })

  it('compares a number of words linear in the length of two answers looping over one line, masked or not', () => {
    const loop = (times: number): string => Array(times).fill('the same line again and again for ever').join(' ')
    const work = (times: number, maskAll: boolean): number => {
      const rw = tokenizeWords(loop(times))
      const sw = tokenizeWords(loop(times))
      const masked = new Uint8Array(rw.length).fill(maskAll ? 1 : 0)
      const before = wordsExtended()
      const run = longestEvidenceRun(rw, kgramHashes(rw), sw, kgramHashes(sw), 12, masked)
      expect(run === null).toBe(maskAll)
      return wordsExtended() - before
    }
    // 8 words a line: 4,000 and 8,000 lines. Extending every repetition's run made it quadratic (4x per doubling).
    const [small, large] = [work(4000, false), work(8000, false)]
    expect(small).toBeGreaterThan(0)
    expect(large / small).toBeLessThan(2.5)
    expect(work(8000, true)).toBeLessThan(8 * 8000)
  })
})
