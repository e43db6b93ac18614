import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {buildRegistry, resolveTokens, type MarkerRegistry, type RegisteredMarker} from '../../src/extract/markers.js'
import {sqliteRegistry} from '../../src/detect/registry.js'
import {makeCase} from '../helpers/case-builder.js'

// A token that is a registered marker followed by more hex resolves to the longest such marker.
// The search for it fetches the markers sharing the token's first 8 hex digits in one range
// search; held here to the definition (a lookup per length, longest first), on registries whose
// markers share prefixes, and on one with more sharers than the search fetches at once.

const SEED = 180_021
const P = 'CANARY-'

/** The definition: the longest registered proper prefix of 8+ hex digits, looked up length by length. */
function reference(registry: MarkerRegistry, key: string): RegisteredMarker | null {
  for (let end = key.length - 1; end >= P.length + 8; end--) {
    const hit = registry.exact(key.slice(0, end))
    if (hit) return hit
  }
  return null
}

const hex = (min: number, max: number) => fc.string({unit: fc.constantFrom(...'0123456789abcdef'), minLength: min, maxLength: max})

describe('a token running on past a registered marker', () => {
  it('resolves to the longest registered prefix, as the definition says', () => {
    fc.assert(
      fc.property(
        hex(8, 10).chain((stem) =>
          fc.record({
            stem: fc.constant(stem),
            keys: fc.array(fc.oneof(hex(0, 14).map((t) => P + stem + t), hex(8, 24).map((h) => P + h)), {minLength: 1, maxLength: 90}),
            tokens: fc.array(fc.oneof(hex(0, 20).map((t) => P + stem + t), hex(0, 6).map((t) => P + stem.slice(0, 8) + t), hex(8, 30).map((h) => P + h)), {minLength: 1, maxLength: 20}),
          }),
        ),
        ({keys, tokens}) => {
          const registry = buildRegistry(keys.map((k, i) => ({marker_key: k, marker: k, tenant_id: `t${i % 3}`, session_id: `s${i}`})))
          for (const token of tokens) {
            const found = [...resolveTokens([{token, position: 0}], registry).values()][0]!
            if (registry.exact(token)) continue
            const expected = reference(registry, token)
            if (expected) expect(found).toMatchObject({registered: expected, partial: false})
            else expect(found.registered === null || found.partial).toBe(true)
          }
        },
      ),
      {seed: SEED, numRuns: 1500},
    )
  })

  it('an unregistered token costs a few lookups, not one per length', () => {
    const registry = buildRegistry([{marker_key: `${P}0123456789abcdef`, marker: `${P}0123456789abcdef`, tenant_id: 't', session_id: 's'}])
    let calls = 0
    const counted: MarkerRegistry = {...registry, exact: (k) => (calls++, registry.exact(k)), extending: (k, n) => (calls++, registry.extending(k, n))}
    const found = [...resolveTokens([{token: `${P}${'fedcba98'.repeat(4)}`, position: 0}], counted).values()][0]!
    expect(found.registered).toBeNull()
    expect(calls).toBeLessThanOrEqual(4)
  })

  it('in the case: with more markers sharing the first 8 digits than one search fetches, the same answer', async () => {
    const tc = makeCase()
    try {
      const stem = `${P}abcdef01`
      for (let i = 0; i < 80; i++) await tc.addCanary(`${stem}${i.toString(16).padStart(2, '0')}`, 't', `s${i}`)
      await tc.addCanary(`${stem}4f77`, 't', 'long')
      const registry = sqliteRegistry(tc.db)
      const resolve = (token: string) => [...resolveTokens([{token, position: 0}], registry).values()][0]!
      expect(resolve(`${stem}4f77aa`).registered?.session).toBe('long')
      expect(resolve(`${stem}4f7`).registered?.session).toBe(`s${0x4f}`)
      expect(resolve(`${stem}07beef`).registered?.session).toBe('s7')
    } finally {
      tc.close()
    }
  })
})
