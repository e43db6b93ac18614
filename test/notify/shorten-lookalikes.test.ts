import {describe, expect, it} from 'vitest'
import {shortenMarkers} from '../../src/notify/facts.js'
import {findMarkers} from '../../src/probe/markers.js'

// The scan folds the look-alikes models write (a U+2011 hyphen, invisible characters inside a
// marker, full-width forms); a draft's excerpt shortened only `CANARY-<hex>` as written, so a
// look-alike marker was quoted whole in a document for others, and probe and replay, which read
// answers with their own pattern, missed one another tenant's model wrote that way.

const M = 'CANARY-a1b2c3d4e5f60718293a4b5c6d7e8f90'
const forms: Array<[string, string]> = [
  ['as written', `x ${M} y`],
  ['a non-breaking hyphen (U+2011)', 'x CANARY\u2011a1b2c3d4e5f60718293a y'],
  ['a zero-width space inside', 'x CANARY-a1b2\u200bc3d4e5f60718293a y'],
  ['full-width forms', 'x ＣＡＮＡＲＹ－ａ１ｂ２ｃ３ｄ４ｅ５ｆ６ y'],
  ['a soft hyphen after CANARY', 'x CANARY\u00ad-a1b2c3d4e5f60718 y'],
]

describe('a look-alike marker in a document or a probe answer', () => {
  it.each(forms)('%s is shortened to its first four digits in an excerpt', (_, text) => {
    const shown = shortenMarkers(text, M)
    expect(shown).toBe('x CANARY-a1b2… y')
    expect(shown).not.toMatch(/c3d4|ｃ３/)
  })

  it('a marker written in another letter case, and a run too short to be a token, are still shortened as before', () => {
    expect(shortenMarkers(`x ${M.toUpperCase()} y`, M)).toBe('x CANARY-A1B2… y')
    expect(shortenMarkers('see CANARY-ab', '')).toBe('see CANA…')
  })

  it.each(forms)('%s is found by probe and replay', (_, text) => {
    const found = findMarkers(text)
    expect(found).toHaveLength(1)
    expect(M.startsWith(found[0]!)).toBe(true)
  })
})
