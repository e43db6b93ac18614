import {afterEach, describe, expect, it} from 'vitest'
import {buildRegistry, findMarkers, markerTokens, promptHoldsMarker, shortenMarkerTokens} from '../../src/extract/markers.js'
import {findMarkers as probeFindMarkers, readForeign} from '../../src/probe/markers.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {listSightings} from '../../src/detect/list.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// A marker a model wrote wrapped inside its hex (a fixed width, a code block), or inside an answer
// that is itself encoded text: a JSON document written with ASCII escapes, HTML, a URL. The
// client reads each as the marker issued, so each is that marker (a sighting, never a gate passed
// in silence), and the recipient's own paste in those forms is an echo.

const NOW = new Date('2026-11-03T00:00:00.000Z')
const HEX = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'
const V = `CANARY-${HEX}`
const OWN = 'CANARY-0f1e2d3c4b5a69788796a5b4c3d2e1f0'

/** The marker V written in each encoded or wrapped way, with a name. */
const WRITTEN: Array<[string, string]> = [
  ['a JSON escape of U+2011 for the hyphen', `CANARY\\u2011${HEX}`],
  ['a JSON escape of the hyphen', `CANARY\\u002d${HEX}`],
  ['a JSON escape of the hyphen, upper-case hex', `CANARY\\u002D${HEX}`],
  ['JSON-escaped hex digits', `CANARY-\\u0061\\u0031${HEX.slice(2, 10)}\\u0066${HEX.slice(11)}`],
  ['a JSON-escaped invisible character between digits', `CANARY-${HEX.slice(0, 8)}\\u200b${HEX.slice(8)}`],
  ['&#45;', `CANARY&#45;${HEX}`],
  ['&#x2d;', `CANARY&#x2d;${HEX}`],
  ['&#X2D;', `CANARY&#X2D;${HEX}`],
  ['&#8209;', `CANARY&#8209;${HEX}`],
  ['&#x2011;', `CANARY&#x2011;${HEX}`],
  ['&hyphen;', `CANARY&hyphen;${HEX}`],
  ['&dash;', `CANARY&dash;${HEX}`],
  ['&minus;', `CANARY&minus;${HEX}`],
  ['&shy; after the hyphen', `CANARY-&shy;${HEX}`],
  ['a referenced digit', `CANARY-&#97;${HEX.slice(1)}`],
  ['%2D', `CANARY%2D${HEX}`],
  ['%2d', `CANARY%2d${HEX}`],
  ['%E2%80%91', `CANARY%E2%80%91${HEX}`],
  ['%e2%88%92', `CANARY%e2%88%92${HEX}`],
  ['a line break inside the hex', `CANARY-${HEX.slice(0, 12)}\n${HEX.slice(12)}`],
  ['a CR LF inside the hex', `CANARY-${HEX.slice(0, 12)}\r\n${HEX.slice(12)}`],
  ['an indented line break inside the hex', `CANARY-${HEX.slice(0, 10)}\n        ${HEX.slice(10)}`],
  ['a tab-indented break after the hyphen', `CANARY-\n\t${HEX}`],
  ['a narrow wrap', `CANARY-${HEX.slice(0, 4)}\n${HEX.slice(4, 8)}\n${HEX.slice(8, 12)}\n${HEX.slice(12, 16)}${HEX.slice(16)}`],
]

describe('markers wrapped inside their hex or encoded in a response', () => {
  it.each(WRITTEN)('finds the marker written with %s, as the folded marker at its first character', (_name, written) => {
    expect(markerTokens(`Your code is ${written} .`)).toEqual([{token: V, position: 13}])
  })

  it("resolves each to the registered marker, another tenant's in this response", () => {
    const registry = buildRegistry([{marker_key: V, marker: V, tenant_id: 'tV', session_id: 'sV'}])
    for (const [, written] of WRITTEN) {
      expect(findMarkers(`Your code is ${written} .`, registry).map((f) => [f.registered?.session, f.partial])).toEqual([['sV', false]])
    }
  })

  it('decodes nothing outside a marker, nor an escape or reference that is no hyphen where the hyphen stands', () => {
    expect(markerTokens(`x%2D${HEX} &#45;${HEX} \\u002d${HEX}`)).toEqual([])
    // Percent-encoding is read for the hyphen only.
    expect(markerTokens(`CANARY%E2%80%8B-${HEX} CANARY-%61${HEX}`)).toEqual([])
    expect(markerTokens(`CANARY\\u0041${HEX} CANARY&#65;${HEX} CANARY&amp;${HEX} CANARY&#45${HEX} CANARY%2${HEX} CANARY\\u2d${HEX} CANARY&#x110000;${HEX}`)).toEqual([])
    // The word itself is read as written; lower case is no marker (the contract).
    expect(markerTokens(`canary\\u2011${HEX} canary&#45;${HEX}`)).toEqual([])
  })

  it('joins a line break inside the hex only while the run is shorter than a partial (16 digits), and never into the next marker', () => {
    // 16 digits or more before the break: a sighting on its own, not lengthened by the next line's hex word.
    expect(markerTokens(`CANARY-${HEX.slice(0, 16)}\nadd milk`)).toEqual([{token: `CANARY-${HEX.slice(0, 16)}`, position: 0}])
    expect(markerTokens(`${V}\nBe careful`)).toEqual([{token: V, position: 0}])
    // The next line opening with a marker is that marker, however its hyphen is written.
    expect(markerTokens(`CANARY-deadbeef\nCANARY&#45;${HEX}`)).toEqual([{token: 'CANARY-deadbeef', position: 0}, {token: V, position: 16}])
    // No digit on the next line, a blank line, or a break before any digit past the hyphen's own: not joined.
    expect(markerTokens(`CANARY-deadbeef\n  - ${HEX}`)).toEqual([{token: 'CANARY-deadbeef', position: 0}])
    expect(markerTokens(`CANARY-deadbeef\n\n${HEX}`)).toEqual([{token: 'CANARY-deadbeef', position: 0}])
    expect(markerTokens(`CANARY-\n\n${HEX}`)).toEqual([])
  })

  it('keeps a cut-short marker (16 digits) a partial sighting and a short registered marker run into a hex word its own sighting: joining finds no other marker', () => {
    const SHORT = 'CANARY-5e5e5e5e'
    const registry = buildRegistry([
      {marker_key: V, marker: V, tenant_id: 'tV', session_id: 'sV'},
      {marker_key: SHORT, marker: SHORT, tenant_id: 'tS', session_id: 'sS'},
    ])
    const cut = findMarkers(`CANARY-${HEX.slice(0, 16)}\nadd the rest later`, registry)
    expect(cut.map((f) => [f.registered?.session, f.partial])).toEqual([['sV', true]])
    const short = findMarkers(`${SHORT}\nAdd it`, registry)
    expect(short.map((f) => [f.registered?.session, f.partial])).toEqual([['sS', false]])
  })

  it('shortens a wrapped or encoded marker whole, the next line of its digits too', () => {
    expect(shortenMarkerTokens(`a CANARY-${HEX.slice(0, 12)}\n  ${HEX.slice(12)} b CANARY&#x2011;${HEX} c`, 4)).toBe('a CANARY-a1b2… b CANARY-a1b2… c')
  })

  it('stays linear on long runs of references and escapes', () => {
    const hostile = `CANARY&#45;${'&#97;'.repeat(100_000)} ${'CANARY&'.repeat(50_000)} ${`CANARY-${'a\n'.repeat(8)}`.repeat(20_000)}`
    const started = performance.now()
    const tokens = markerTokens(hostile)
    expect(tokens[0]!.token).toBe(`CANARY-${'a'.repeat(100_000)}`)
    expect(tokens).toHaveLength(20_001)
    expect(performance.now() - started).toBeLessThan(2000)
  })
})

describe("a wrapped or encoded marker in the recipient's own prompt", () => {
  const found = {hex: HEX, partial: false}
  it.each(WRITTEN)('holds it written with %s', (_name, written) => {
    expect(promptHoldsMarker(`code ${written} repeat it`, V, found)).toBe(true)
  })

  it('does not hold it where the escaped or referenced digits are not its own', () => {
    expect(promptHoldsMarker(`CANARY&#45;${HEX.slice(0, 10)}&#48;${HEX.slice(11)}`, V, found)).toBe(false)
    expect(promptHoldsMarker(`x&#45;${HEX}`, V, found)).toBe(false)
  })
})

describe('probe and replay', () => {
  it('find a wrapped or encoded marker in an answer, and read it as the marker the run gave another tenant', () => {
    for (const [, written] of WRITTEN) {
      expect(probeFindMarkers(`Your code is ${written} .`)).toContain(V)
      expect(readForeign(`Your code is ${written} .`, [OWN], new Map([[V, 'other']])).map((m) => [m.marker, m.owners])).toEqual([[V, ['other']]])
    }
  })
})

describe('scan of wrapped and encoded markers', () => {
  let tc: TestCase | undefined
  afterEach(() => {
    tc?.close()
    tc = undefined
  })

  it('states each as cross-tenant contamination, and each the recipient pasted as an echo', async () => {
    tc = makeCase()
    await tc.addCanary(V, 'tV', 'sV')
    await tc.addCanary(OWN, 'tR', 'sR')
    const leaks = WRITTEN.map(([, written], i) => ({request_id: `leak-${i}`, tenant_id: 'tR', session_id: 'sR', request_text: `hello ${OWN}`, response_text: `Your code is ${written} .`}))
    const echoes = WRITTEN.map(([, written], i) => ({request_id: `echo-${i}`, tenant_id: 'tR', session_id: 'sR', request_text: `hello ${OWN}, my colleague's code is ${written} , repeat it`, response_text: `The code is ${V}.`}))
    await tc.addFile([...leaks, ...echoes])
    const result = scanCase(tc.db, {now: NOW, skipProvenance: true})
    const s = listSightings(tc.db).filter((x) => x.marker === V)
    expect(s.filter((x) => x.request_id.startsWith('leak-')).map((x) => x.class)).toEqual(WRITTEN.map(() => 'cross_tenant'))
    expect(s.filter((x) => x.request_id.startsWith('echo-')).map((x) => x.class)).toEqual(WRITTEN.map(() => 'echo'))
    expect(result.contaminated_responses).toBe(WRITTEN.length)
  })
})
