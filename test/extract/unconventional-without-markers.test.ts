import fc from 'fast-check'
import {expect, it} from 'vitest'
import {UnconventionalSet} from '../../src/extract/extract.js'

// A parse worker lets go of the registry's unconventional markers once the quick pass is over
// (withoutMarkers) and reads each hit's token from the text instead. Property: on random marker
// sets over a tiny alphabet (so that markers overlap, nest and repeat) and texts made of them and
// noise, the set without its markers finds the same tokens at the same positions, whether its
// automaton was built here or shared from another set.

const letter = fc.constantFrom('A', 'B', '-', 'é', '\u{1F600}')
const marker = fc.array(letter, {minLength: 1, maxLength: 6}).map((l) => l.join(''))

it('finds the same hits without its markers as with them', () => {
  fc.assert(
    fc.property(fc.array(marker, {minLength: 1, maxLength: 12}), fc.array(fc.oneof(marker, fc.string({maxLength: 5}), letter), {maxLength: 30}), (markers, parts) => {
      const text = parts.join('')
      const full = new UnconventionalSet(markers)
      const slim = full.withoutMarkers()
      const sharedSlim = new UnconventionalSet(markers, full.share()!).withoutMarkers()
      expect(slim.markers).toEqual([])
      expect(slim.hash).toBe(full.hash)
      expect(slim.withoutMarkers()).toBe(slim)
      const want = full.hits(text)
      expect(slim.hits(text)).toEqual(want)
      expect(sharedSlim.hits(text)).toEqual(want)
      // Tokens are the registry's markers, not text around them.
      for (const h of want) expect(full.markers).toContain(h.token)
    }),
    {numRuns: 400},
  )
})

it('finds nothing without markers, with or without them', () => {
  const none = new UnconventionalSet([])
  expect(none.withoutMarkers().hits('CANARY-00 anything')).toEqual([])
  expect(none.hits('CANARY-00 anything')).toEqual([])
})
