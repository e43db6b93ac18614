import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {DistinctPairs, PairMap, sessionKey} from '../../src/scope/scope-data.js'

// Scope counts sessions (tenant, session) and flows (source, recipient) by pairs of texts
// that may be null; the pairs must be told apart exactly as the joined key sessionKey tells
// them apart (null is neither 'null' nor '', and no separator can be forged).
const text = fc.oneof(fc.constant(null), fc.constantFrom('', 'null', 'a', 'a","b', '["a"', 'b'), fc.string({maxLength: 3}))

describe('PairMap and DistinctPairs', () => {
  it('count and list the same pairs as a set of joined keys', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(text, text), {maxLength: 60}), (pairs) => {
        const distinct = new DistinctPairs()
        const byKey = new Map<string, [string | null, string | null]>()
        for (const [a, b] of pairs) {
          distinct.add(a, b)
          byKey.set(sessionKey(a, b), [a, b])
        }
        expect(distinct.size).toBe(byKey.size)
        const listed = [...distinct.pairs()].map(([a, b]) => sessionKey(a, b)).sort()
        expect(listed).toEqual([...byKey.keys()].sort())
      }),
    )
  })

  it('makes a value once per pair and hands the same one back', () => {
    const map = new PairMap<number[]>()
    let made = 0
    const make = () => (made++, [])
    map.at(null, 'x', make).push(1)
    map.at('null', 'x', make).push(2)
    map.at(null, 'x', make).push(3)
    map.at('', null, make).push(4)
    expect(made).toBe(3)
    expect(map.size).toBe(3)
    expect([...map.entries()]).toEqual([[null, 'x', [1, 3]], ['null', 'x', [2]], ['', null, [4]]])
  })
})
