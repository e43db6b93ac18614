import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {longestEvidenceRun, type Run} from '../../src/detect/provenance/verify-run.js'
import {K, kgramHashes, type KGrams} from '../../src/extract/winnow.js'
import {tokenizeWords, type Words} from '../../src/extract/words.js'

// The longest evidence run finds the candidate's k-grams through a chained table of typed
// arrays. Held here to the plain reading it replaced (a map from h1 to the first 32
// positions), on texts drawn from a small vocabulary so that runs, repeats past the cap and
// masked words are common.

const ANCHOR_CAP = 32

function reference(rw: Words, rg: KGrams, sw: Words, sg: KGrams, minWords: number, masked: Uint8Array): Run | null {
  const anchors = new Map<number, number[]>()
  for (let j = 0; j < sg.length; j++) {
    const list = anchors.get(sg.h1[j]!)
    if (list === undefined) anchors.set(sg.h1[j]!, [j])
    else if (list.length < ANCHOR_CAP) list.push(j)
  }
  const same = (i: number, j: number): boolean => rw.h1[i] === sw.h1[j] && rw.h2[i] === sw.h2[j]
  let best: Run | null = null
  for (let i = 0; i < rg.length; i++) {
    for (const j of anchors.get(rg.h1[i]!) ?? []) {
      if (sg.h2[j] !== rg.h2[i]) continue
      if (i > 0 && j > 0 && same(i - 1, j - 1)) continue
      let len = 0
      while (i + len < rw.length && j + len < sw.length && same(i + len, j + len)) len++
      if (len < minWords || (best !== null && len <= best.len)) continue
      let run = 0
      let longest = 0
      for (let k = i; k < i + len; k++) longest = Math.max(longest, (run = masked[k] === 1 ? 0 : run + 1))
      if (longest >= minWords) best = {len, start: i}
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
        fc.array(vocabulary, {minLength: 10, maxLength: 60}).chain((shared) => fc.tuple(text(shared), text(shared), fc.integer({min: K, max: 20}), fc.array(fc.nat(400), {maxLength: 30}))),
        ([response, source, minWords, maskedAt]) => {
          const rw = tokenizeWords(response)
          const sw = tokenizeWords(source)
          const rg = kgramHashes(rw)
          const sg = kgramHashes(sw)
          const masked = new Uint8Array(rw.length)
          for (const m of maskedAt) if (m < masked.length) masked[m] = 1
          const got = longestEvidenceRun(rw, rg, sw, sg, minWords, masked)
          expect(got).toEqual(reference(rw, rg, sw, sg, minWords, masked))
          if (got !== null) found++
        },
      ),
      {seed: 180_052, numRuns: 400},
    )
    // The texts share runs often enough for the comparison to mean something.
    expect(found).toBeGreaterThan(50)
  })

  it('tries only the first 32 positions of a k-gram that repeats more often', () => {
    // The response's run starts at the source's 33rd occurrence of its first k-gram: out of reach.
    const unit = 'alpha beta gamma delta eps'
    const source = `${Array(32).fill(unit).join(' zeta ')} theta ${unit} eta eta eta eta eta eta eta eta`
    const response = `${unit} eta eta eta eta eta eta eta eta`
    const rw = tokenizeWords(response)
    const sw = tokenizeWords(source)
    const masked = new Uint8Array(rw.length)
    const got = longestEvidenceRun(rw, kgramHashes(rw), sw, kgramHashes(sw), 12, masked)
    expect(got).toBeNull()
    expect(reference(rw, kgramHashes(rw), sw, kgramHashes(sw), 12, masked)).toBeNull()
    // Within reach (the 3rd repeat), the same run is found.
    const near = `${Array(3).fill(unit).join(' zeta ')} theta ${unit} eta eta eta eta eta eta eta eta`
    const nw = tokenizeWords(near)
    expect(longestEvidenceRun(rw, kgramHashes(rw), nw, kgramHashes(nw), 12, masked)).toEqual({len: 13, start: 0})
  })
})
