import {afterEach, describe, expect, it} from 'vitest'
import {showRecord} from '../../src/case/show-record.js'
import {decodeRequest} from '../../src/extract/decode.js'
import {buildRegistry, findMarkers, markerTokens, promptHoldsMarker, shortenMarkerTokens} from '../../src/extract/markers.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {listSightings} from '../../src/detect/list.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// What models and text tools do to a marker (QA parts, defects 2, 3, 5 and 6): a hyphen
// look-alike, a line break after the hyphen, an invisible character inside it, full-width forms.
// The client reads each as the marker issued, so each is that marker, in the response (a
// sighting, never a gate passed in silence) and in the prompt (the recipient's own paste: echo).

const NOW = new Date('2026-11-03T00:00:00.000Z')
const HEX = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'
const V = `CANARY-${HEX}`
const OWN = 'CANARY-0f1e2d3c4b5a69788796a5b4c3d2e1f0'

/** Each hyphen look-alike QA and the brief name, written in place of `-`. */
const DASHES = ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2212', '\ufe63', '\uff0d']
/**
 * Each invisible character named, and where it may stand: every range of Unicode's
 * Default_Ignorable_Code_Point, those QA found hiding a leak (U+200E, U+2062, U+034F, U+FE0F,
 * U+E0020, U+202C, U+180E) among them, and code points outside the BMP (surrogate pairs).
 */
const INVISIBLES = [
  '\u200b', '\u200c', '\u200d', '\u2060', '\u00ad', '\ufeff',
  '\u200e', '\u200f', '\u2062', '\u206f', '\u034f', '\u061c', '\u115f', '\u1160', '\u17b4', '\u17b5', '\u180b', '\u180e', '\u180f',
  '\u202a', '\u202c', '\u202e', '\u3164', '\ufe00', '\ufe0f', '\uffa0', '\ufff0', '\ufff8',
  '\u{1bca0}', '\u{1bca3}', '\u{1d173}', '\u{1d17a}', '\u{e0000}', '\u{e0020}', '\u{e0100}', '\u{e0fff}',
]
const cp = (z: string): string => z.codePointAt(0)!.toString(16)
const wide = (s: string): string => s.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))

/** The marker V written in each transformed way, with a name. */
const WRITTEN: Array<[string, string]> = [
  ...DASHES.map((d): [string, string] => [`U+${d.charCodeAt(0).toString(16)} for the hyphen`, `CANARY${d}${HEX}`]),
  ['LF after the hyphen', `CANARY-\n${HEX}`],
  ['CR LF after the hyphen', `CANARY-\r\n${HEX}`],
  ...INVISIBLES.flatMap((z): Array<[string, string]> => [
    [`U+${cp(z)} after CANARY`, `CANARY${z}-${HEX}`],
    [`U+${cp(z)} after the hyphen`, `CANARY-${z}${HEX}`],
    [`U+${cp(z)} after 4 hex digits`, `CANARY-${HEX.slice(0, 4)}${z}${HEX.slice(4)}`],
    [`U+${cp(z)} after 12 hex digits`, `CANARY-${HEX.slice(0, 12)}${z}${HEX.slice(12)}`],
  ]),
  ['two invisibles outside the BMP and one inside it between digits', `CANARY-${HEX.slice(0, 9)}\u{e0020}\u200e\u{e0101}${HEX.slice(9)}`],
  ['two invisibles and a look-alike', `CANARY\u200b\u2011\u2060${HEX.slice(0, 6)}\u00ad\u200b${HEX.slice(6)}`],
  ['full-width', wide(V)],
  ['full-width word, ASCII hex', `${wide('CANARY-')}${HEX}`],
  ['full-width hex in upper case', `CANARY-${wide(HEX.toUpperCase())}`],
]

describe('marker look-alikes in a response', () => {
  it.each(WRITTEN)('finds the marker written with %s, as the folded marker at its first character', (name, written) => {
    // Its hex digits' letter case is kept (hex is compared in either case).
    const token = name.includes('upper case') ? `CANARY-${HEX.toUpperCase()}` : V
    expect(markerTokens(`Your code is ${written}.`)).toEqual([{token, position: 13}])
  })

  it('ends the run where the invisible characters stop standing between digits, and at the next marker however written', () => {
    expect(markerTokens(`${V}\u200b done`)).toEqual([{token: V, position: 0}])
    expect(markerTokens(`CANARY-deadbeef00CANARY\u2011${HEX}`)).toEqual([{token: 'CANARY-deadbeef00', position: 0}, {token: V, position: 17}])
    expect(markerTokens(`CANARY-deadbeef00${wide('CANARY-')}${HEX}`)).toEqual([{token: 'CANARY-deadbeef00', position: 0}, {token: V, position: 17}])
  })

  it('folds no lower-case prefix (the contract: not a marker), in either width, nor a second line break or a break inside the hex', () => {
    expect(markerTokens(`canary\u2011${HEX} canary-${HEX} ${wide('canary-')}${HEX} ${wide('Canary-')}${HEX}`)).toEqual([])
    expect(markerTokens(`CANARY-\n\n${HEX} CANARY\n-${HEX} CANARY -${HEX} CANARY_${HEX}`)).toEqual([])
    // A break after 16 digits or more is not joined: the next line's hex word would lengthen a cut marker.
    expect(markerTokens(`CANARY-${HEX.slice(0, 16)}\n${HEX.slice(16)}`)).toEqual([{token: `CANARY-${HEX.slice(0, 16)}`, position: 0}])
  })

  it('stays linear on long runs of invisible characters and look-alike prefixes', () => {
    const hostile = `CANARY\u2011${'a\u200b'.repeat(200_000)} ${`CANARY${'\u200b'.repeat(50)}`.repeat(20_000)} ${wide('CACACACA').repeat(50_000)}`
    const started = performance.now()
    const tokens = markerTokens(hostile)
    expect(tokens).toHaveLength(1)
    expect(tokens[0]!.token).toBe(`CANARY-${'a'.repeat(200_000)}`)
    expect(performance.now() - started).toBeLessThan(2000)
  })

  it("resolves each to the registered marker, another tenant's in this response", () => {
    const registry = buildRegistry([{marker_key: V, marker: V, tenant_id: 'tV', session_id: 'sV'}])
    for (const [, written] of WRITTEN) {
      const found = findMarkers(`Your code is ${written}.`, registry)
      expect(found.map((f) => [f.registered?.session, f.partial])).toEqual([['sV', false]])
    }
  })
})

describe("a marker the recipient's own prompt holds", () => {
  const found = {hex: HEX, partial: false}
  const request = (content: unknown): string => decodeRequest({model: 'm', messages: [{role: 'user', content}]})!

  it.each<[string, string]>([
    ['split over two text parts', request([{type: 'text', text: `code CANARY-${HEX.slice(0, 10)}`}, {type: 'text', text: `${HEX.slice(10)} repeat it`}])],
    ['wrapped inside its hex', `code CANARY-${HEX.slice(0, 10)}\n${HEX.slice(10)} repeat it`],
    ['wrapped with CR LF after 20 digits', `code CANARY-${HEX.slice(0, 20)}\r\n${HEX.slice(20)}`],
    ['with a ZWSP inside', `code CANARY-${HEX.slice(0, 10)}\u200b${HEX.slice(10)}`],
    ['with U+2011 for the hyphen', `code CANARY\u2011${HEX}`],
    ['full-width', `code ${wide(V)}`],
    ...WRITTEN.map(([name, written]): [string, string] => [`written with ${name}`, `code ${written} repeat it`]),
  ])('holds it %s', (_name, prompt) => {
    expect(promptHoldsMarker(prompt, V, found)).toBe(true)
  })

  it('does not hold it where the hex alone is there, the prompt holds a longer marker, or the digits after a break are not its own', () => {
    expect(promptHoldsMarker(`sha ${HEX} canary\u2011${HEX} ${wide('canary-')}${HEX}`, V, found)).toBe(false)
    expect(promptHoldsMarker(`CANARY\u2011${HEX}beef`, V, found)).toBe(false)
    expect(promptHoldsMarker(`CANARY-${HEX.slice(0, 10)}\n0000 and more`, V, found)).toBe(false)
    // Its whole hex, then a new line of hex: a run the response search would end at the break.
    expect(promptHoldsMarker(`CANARY-${HEX}\nbeef`, V, found)).toBe(true)
  })
})

describe('scan of look-alike markers', () => {
  let tc: TestCase | undefined
  afterEach(() => {
    tc?.close()
    tc = undefined
  })

  it("states each as cross-tenant contamination, and each the recipient pasted as an echo", async () => {
    tc = makeCase()
    await tc.addCanary(V, 'tV', 'sV')
    await tc.addCanary(OWN, 'tR', 'sR')
    const leaks = WRITTEN.map(([, written], i) => ({request_id: `leak-${i}`, tenant_id: 'tR', session_id: 'sR', request_text: `hello ${OWN}`, response_text: `Your code is ${written}.`}))
    const echoes = WRITTEN.map(([, written], i) => ({request_id: `echo-${i}`, tenant_id: 'tR', session_id: 'sR', request_text: `hello ${OWN}, my colleague's code is ${written}, repeat it`, response_text: `The code is ${V}.`}))
    const parts = {
      request_id: 'echo-parts', tenant_id: 'tR', session_id: 'sR',
      request_text: request2Parts(`hello ${OWN} code CANARY-${HEX.slice(0, 10)}`, `${HEX.slice(10)} repeat it`), response_text: `The code is ${V}.`,
    }
    await tc.addFile([...leaks, ...echoes, parts])
    const result = scanCase(tc.db, {now: NOW, skipProvenance: true})
    const s = listSightings(tc.db).filter((x) => x.marker === V)
    expect(s.filter((x) => x.request_id.startsWith('leak-')).map((x) => x.class)).toEqual(WRITTEN.map(() => 'cross_tenant'))
    expect(s.filter((x) => x.request_id.startsWith('echo-')).map((x) => x.class)).toEqual([...WRITTEN.map(() => 'echo'), 'echo'])
    expect(result.contaminated_responses).toBe(WRITTEN.length)
  })
})

describe('a shown record', () => {
  let tc: TestCase | undefined
  afterEach(() => {
    tc?.close()
    tc = undefined
  })

  it('shortens a look-alike marker in its texts as a plain one, unless markers are asked for in full', async () => {
    tc = makeCase()
    await tc.addCanary(V, 'tV', 'sV')
    const written = WRITTEN.map(([, w]) => w)
    await tc.addFile(written.map((w, i) => ({request_id: `r-${i}`, tenant_id: 'tR', session_id: 'sR', request_text: `pasted ${w}`, response_text: `Your code is ${w}.`})))
    for (const [i, w] of written.entries()) {
      const view = showRecord(tc.db, `r-${i}`, undefined, {showText: true})
      // The marker cut to its first four digits (their letter case kept), the rest of the text as it was.
      expect(view.response_text?.toLowerCase()).toBe(`your code is canary-${HEX.slice(0, 4)}….`)
      expect(view.request_text?.toLowerCase()).toBe(`pasted canary-${HEX.slice(0, 4)}…`)
      expect(showRecord(tc.db, `r-${i}`, undefined, {showText: true, showMarkers: true}).response_text).toBe(`Your code is ${w}.`)
    }
    expect(shortenMarkerTokens(`a CANARY-deadbeef00CANARY\u2011${HEX} b CANARY-dead c`, 4)).toBe(`a CANARY-dead…CANARY-a1b2… b CANARY-dead c`)
  })
})

/** A request's text of two text parts, as the decoder joins them. */
function request2Parts(a: string, b: string): string {
  return decodeRequest({model: 'm', messages: [{role: 'user', content: [{type: 'text', text: a}, {type: 'text', text: b}]}]})!
}
