import {afterEach, describe, expect, it} from 'vitest'
import {decodeResponse} from '../../src/extract/decode.js'
import {buildRegistry, findMarkers, markerTokens} from '../../src/extract/markers.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {listSightings} from '../../src/detect/list.js'
import {describeGap, detectionCoverage} from '../../src/detect/coverage.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

const NOW = new Date('2026-11-03T00:00:00.000Z')
const A1 = 'CANARY-3f9a1c2b4d5e6f70'
const A2 = 'CANARY-0a1b2c3d4e5f6a7b'
const B1 = 'CANARY-c0ffee00deadbeef1234'

let tc: TestCase | undefined
afterEach(() => {
  tc?.close()
  tc = undefined
})

async function setup(): Promise<TestCase> {
  tc = makeCase()
  await tc.addCanary(A1, 'tA', 'sA1')
  await tc.addCanary(A2, 'tA', 'sA2')
  await tc.addCanary(B1, 'tB', 'sB1')
  return tc
}

function sse(pieces: string[], tail = 'data: [DONE]'): string {
  const chunks = pieces.map((p) => `data: ${JSON.stringify({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: p}, finish_reason: null}]})}`)
  return [...chunks, tail, ''].join('\n\n')
}

describe('marker-shaped tokens', () => {
  it('ends a hex run at the next CANARY- (its C and A are hex digits): two markers with nothing between them are two', () => {
    expect(markerTokens('dump: CANARY-deadbeef00CANARY-0123456789abcdef0123 end')).toEqual([
      {token: 'CANARY-deadbeef00', position: 6},
      {token: 'CANARY-0123456789abcdef0123', position: 23},
    ])
    expect(markerTokens('CANARY-0123456789abcdefCAFE').map((t) => t.token)).toEqual(['CANARY-0123456789abcdefCAFE'])
  })
})

describe('marker classes', () => {
  it('classifies own, echo, cross_session, cross_tenant and orphan', async () => {
    const c = await setup()
    await c.addFile([
      {request_id: 'own', tenant_id: 'tA', session_id: 'sA1', request_text: 'hi', response_text: `your marker is ${A1}`},
      {request_id: 'echo', tenant_id: 'tA', session_id: 'sA1', request_text: `what is ${B1.toUpperCase().replace('CANARY', 'CANARY')}?`, response_text: `It is ${B1}.`},
      {request_id: 'xs', tenant_id: 'tA', session_id: 'sA1', request_text: 'hello', response_text: `leak: ${A2}`},
      {request_id: 'xt', tenant_id: 'tA', session_id: 'sA2', request_text: 'hello', response_text: `leak: ${B1}`},
      {request_id: 'orphan', tenant_id: 'tB', session_id: 'sB1', request_text: 'hello', response_text: 'random CANARY-deadbeef99 text'},
    ])
    const result = scanCase(c.db, {now: NOW, skipProvenance: true})
    const s = listSightings(c.db)
    expect(s.map((x) => [x.request_id, x.class, x.marker, x.source_session, x.source_tenant])).toEqual([
      ['own', 'own', A1, 'sA1', 'tA'],
      ['echo', 'echo', B1, 'sB1', 'tB'],
      ['xs', 'cross_session', A2, 'sA2', 'tA'],
      ['xt', 'cross_tenant', B1, 'sB1', 'tB'],
      ['orphan', 'orphan', 'CANARY-deadbeef99', null, null],
    ])
    expect(result.sightings_by_class).toEqual({own: 1, echo: 1, cross_session: 1, cross_tenant: 1, orphan: 1})
    expect(result.contaminated_responses).toBe(2)
    expect(s[0]).toMatchObject({recipient_session: 'sA1', recipient_tenant: 'tA', partial: false, ts: expect.stringMatching(/Z$/)})
  })

  it('takes for an echo the marker in the prompt, never its hex alone (a hash, an id, a pasted line)', async () => {
    const c = await setup()
    const hex = B1.slice('CANARY-'.length)
    await c.addFile([
      {request_id: 'bare', tenant_id: 'tA', session_id: 'sA1', request_text: `sha ${hex} / ${hex.toUpperCase()} / canary-${hex} / CANARY ${hex}`, response_text: `leak: ${B1}`},
      {request_id: 'bare-partial', tenant_id: 'tA', session_id: 'sA1', request_text: `id ${hex}`, response_text: `leak: ${B1.slice(0, -2)}`},
      {request_id: 'marker', tenant_id: 'tA', session_id: 'sA1', request_text: `x CANARY-${hex.toUpperCase()}`, response_text: `echo: ${B1}`},
      {request_id: 'marker-partial', tenant_id: 'tA', session_id: 'sA1', request_text: `CANARY-${hex.slice(0, 18)}`, response_text: `echo: ${B1.slice(0, -2)}`},
    ])
    scanCase(c.db, {now: NOW, skipProvenance: true})
    expect(listSightings(c.db).map((x) => [x.request_id, x.class, x.partial])).toEqual([
      ['bare', 'cross_tenant', false],
      ['bare-partial', 'cross_tenant', true],
      ['marker', 'echo', false],
      ['marker-partial', 'echo', true],
    ])
  })

  it('takes for an echo a marker outside the convention only as registered, as responses are matched', async () => {
    const c = await setup()
    await c.addCanary('HERON-SUMMIT-8811', 'tB', 'sB1')
    await c.addFile([
      {request_id: 'other-case', tenant_id: 'tA', session_id: 'sA1', request_text: 'heron-summit-8811', response_text: 'leak: HERON-SUMMIT-8811'},
      {request_id: 'as-registered', tenant_id: 'tA', session_id: 'sA1', request_text: 'see HERON-SUMMIT-8811', response_text: 'echo: HERON-SUMMIT-8811'},
    ])
    scanCase(c.db, {now: NOW, skipProvenance: true})
    expect(listSightings(c.db).map((x) => [x.request_id, x.class])).toEqual([['other-case', 'cross_tenant'], ['as-registered', 'echo']])
  })

  it('finds upper-case hex, one sighting per (record, marker)', async () => {
    const c = await setup()
    await c.addFile([{request_id: 'r', tenant_id: 'tB', session_id: 'sB1', response_text: `${A1.toUpperCase().replace('CANARY', 'CANARY')} and again ${A1}`}])
    scanCase(c.db, {now: NOW, skipProvenance: true})
    const s = listSightings(c.db)
    expect(s).toHaveLength(1)
    expect(s[0]).toMatchObject({class: 'cross_tenant', marker: A1, partial: false})
  })

  it('attributes a 16-digit partial to its source where the prefix names one session, and keeps it contamination where it names several (never an orphan the gate passes)', async () => {
    const c = await setup()
    const X1 = 'CANARY-1234567890abcdef11111111'
    const X2 = 'CANARY-1234567890abcdef22222222'
    const Y = 'CANARY-fedcba0987654321aaaaaaaa'
    await c.addCanary(X1, 'tA', 'sA1')
    await c.addCanary(X2, 'tA', 'sA2')
    await c.addCanary(Y, 'tA', 'sA2')
    await c.addFile([
      {request_id: 'ambiguous', tenant_id: 'tB', session_id: 'sB1', response_text: 'cut: CANARY-1234567890abcdef end'},
      {request_id: 'unique', tenant_id: 'tB', session_id: 'sB1', response_text: 'cut: CANARY-FEDCBA0987654321 end'},
      {request_id: 'short', tenant_id: 'tB', session_id: 'sB1', response_text: 'cut: CANARY-fedcba098765432 end'},
    ])
    scanCase(c.db, {now: NOW, skipProvenance: true})
    const s = listSightings(c.db)
    expect(s[0]).toMatchObject({source_tenant: 'tA', possible_sources: [{tenant: 'tA', session: 'sA1'}, {tenant: 'tA', session: 'sA2'}]})
    expect(s.map((x) => [x.request_id, x.class, x.partial, x.marker, x.source_session])).toEqual([
      ['ambiguous', 'cross_tenant', true, 'CANARY-1234567890abcdef', null],
      ['unique', 'cross_tenant', true, Y, 'sA2'],
      ['short', 'orphan', false, 'CANARY-fedcba098765432', null],
    ])
  })

  describe('a token cut short of several registered markers', () => {
    const M1 = 'CANARY-1234567890abcdef11112222'
    const M2 = 'CANARY-1234567890abcdef33334444'
    const CUT = 'CANARY-1234567890abcdef'
    const classes = async (owners: Array<[string, string, string]>, recipient: [string, string], prompt = 'hi') => {
      const c = await setup()
      for (const [m, t, s] of owners) await c.addCanary(m, t, s)
      await c.addFile([{request_id: 'r', tenant_id: recipient[0], session_id: recipient[1], request_text: prompt, response_text: `here: ${CUT}`}])
      const scan = scanCase(c.db, {now: NOW, skipProvenance: true})
      return {scan, s: listSightings(c.db).map((x) => ({class: x.class, partial: x.partial, marker: x.marker, source_tenant: x.source_tenant, source_session: x.source_session, possible_sources: x.possible_sources}))}
    }

    it("is that session's partial sighting where one session owns every marker it is cut short of", async () => {
      const {s, scan} = await classes([[M1, 'tB', 'sB1'], [M2, 'tB', 'sB1']], ['tA', 'sA1'])
      expect(s).toEqual([{class: 'cross_tenant', partial: true, marker: M1, source_tenant: 'tB', source_session: 'sB1', possible_sources: []}])
      expect(scan.contaminated_responses).toBe(1)
    })

    it("is cross_session where the one session owning them is of the recipient's tenant, and own where it is the recipient's", async () => {
      expect((await classes([[M1, 'tA', 'sA2'], [M2, 'tA', 'sA2']], ['tA', 'sA1'])).s[0]).toMatchObject({class: 'cross_session', source_session: 'sA2', partial: true})
      expect((await classes([[M1, 'tA', 'sA1'], [M2, 'tA', 'sA1']], ['tA', 'sA1'])).s[0]).toMatchObject({class: 'own', source_session: 'sA1', partial: true})
    })

    it('is contamination with its possible sources listed where several sessions, none the recipient, own them: cross_tenant where none is of its tenant', async () => {
      const {s, scan} = await classes([[M1, 'tB', 'sB1'], [M2, 'tC', 'sC1']], ['tA', 'sA1'])
      expect(s).toEqual([{class: 'cross_tenant', partial: true, marker: CUT, source_tenant: null, source_session: null, possible_sources: [{tenant: 'tB', session: 'sB1'}, {tenant: 'tC', session: 'sC1'}]}])
      expect(scan.contaminated_responses).toBe(1)
    })

    it("is cross_session (the least severe class it is certain to be) where one of those sessions is of the recipient's tenant", async () => {
      const {s} = await classes([[M1, 'tB', 'sB1'], [M2, 'tA', 'sA2']], ['tA', 'sA1'])
      expect(s[0]).toMatchObject({class: 'cross_session', source_tenant: null, source_session: null, possible_sources: [{tenant: 'tA', session: 'sA2'}, {tenant: 'tB', session: 'sB1'}]})
    })

    it("is an echo where the prompt holds it, and stays an orphan where one of the sessions is the recipient's own", async () => {
      expect((await classes([[M1, 'tB', 'sB1'], [M2, 'tC', 'sC1']], ['tA', 'sA1'], `see ${CUT}9`)).s[0]).toMatchObject({class: 'echo', source_session: null})
      const own = await classes([[M1, 'tB', 'sB1'], [M2, 'tA', 'sA1']], ['tA', 'sA1'])
      expect(own.s).toEqual([{class: 'orphan', partial: false, marker: CUT, source_tenant: null, source_session: null, possible_sources: []}])
      expect(own.scan.sightings_by_class.orphan).toBe(1)
    })
  })

  it("reads a token cut short of one marker that also extends a shorter registered one as the longer's partial (the contract's rule first)", async () => {
    const c = await setup()
    const SHORT = 'CANARY-aaaaaaaaaaaaaaaa'
    const LONG = 'CANARY-aaaaaaaaaaaaaaaa1111'
    await c.addCanary(SHORT, 'tB', 'sB1')
    await c.addCanary(LONG, 'tA', 'sA1')
    await c.addFile([
      // The response's own marker followed by "111", or tenant tA's marker cut short: the second may not pass as the first.
      {request_id: 'between', tenant_id: 'tB', session_id: 'sB1', response_text: `here ${SHORT}111 ok`},
      // Past the longer marker's length, the shorter one ran into adjoining hex.
      {request_id: 'run-on', tenant_id: 'tB', session_id: 'sB1', response_text: `here ${SHORT}1112 ok`},
    ])
    scanCase(c.db, {now: NOW, skipProvenance: true})
    expect(listSightings(c.db).map((x) => [x.request_id, x.class, x.partial, x.marker])).toEqual([
      ['between', 'cross_tenant', true, LONG],
      ['run-on', 'own', false, SHORT],
    ])
  })

  it('finds a marker split over three SSE chunks', async () => {
    const c = await setup()
    const decoded = decodeResponse(sse(['The code is CANA', 'RY-3f9a1c2b', '4d5e6f70, ok']))
    expect(decoded.text).toContain(A1)
    await c.addFile([{request_id: 'split', tenant_id: 'tB', session_id: 'sB1', response_text: decoded.text}])
    scanCase(c.db, {now: NOW, skipProvenance: true})
    expect(listSightings(c.db)).toMatchObject([{request_id: 'split', class: 'cross_tenant', marker: A1}])
  })

  it('finds a \\u0043ANARY- JSON escape', async () => {
    const c = await setup()
    const raw = '{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"x \\u0043ANARY-3F9A1C2B4D5E6F70 y"}}]}'
    const decoded = decodeResponse(raw)
    await c.addFile([{request_id: 'esc', tenant_id: 'tA', session_id: 'sA2', response_text: decoded.text}])
    scanCase(c.db, {now: NOW, skipProvenance: true})
    expect(listSightings(c.db)).toMatchObject([{request_id: 'esc', class: 'cross_session', marker: A1, source_session: 'sA1'}])
  })

  it('finds a marker inside a tool-call argument', async () => {
    const c = await setup()
    const body = {
      object: 'chat.completion',
      choices: [{index: 0, message: {role: 'assistant', content: null, tool_calls: [{id: 't', type: 'function', function: {name: 'save', arguments: JSON.stringify({note: `keep ${B1}`})}}]}}],
    }
    const decoded = decodeResponse(body)
    await c.addFile([{request_id: 'tool', tenant_id: 'tA', session_id: 'sA1', response_text: decoded.text}])
    scanCase(c.db, {now: NOW, skipProvenance: true})
    expect(listSightings(c.db)).toMatchObject([{request_id: 'tool', class: 'cross_tenant', marker: B1}])
  })

  it('scans a 200 SSE stream that ends in an error event', async () => {
    const c = await setup()
    const tail = 'data: {"error":{"code":400,"message":"Input length exceeds","object":"error","type":"BAD_REQUEST"}}\n\ndata: [DONE]'
    const body = sse(['partial answer ', A2], tail)
    expect(decodeResponse(body).isError).toBe(true)
    await c.addFile([{request_id: 'err', tenant_id: 'tB', session_id: 'sB1', response_raw: body}])
    scanCase(c.db, {now: NOW, skipProvenance: true})
    expect(listSightings(c.db)).toMatchObject([{request_id: 'err', class: 'cross_tenant', marker: A2}])
  })

  it('matches registered markers outside the convention with the automaton', async () => {
    const registry = buildRegistry([
      {marker_key: 'zebra-42-secret', marker: 'zebra-42-secret', tenant_id: 't', session_id: 's'},
      {marker_key: 'bra-42', marker: 'bra-42', tenant_id: 't', session_id: 's2'},
    ])
    const found = findMarkers('a zebra-42-secret and Zebra-42-secret', registry)
    expect(found.map((f) => f.registered?.marker)).toEqual(['zebra-42-secret', 'bra-42'])
  })
})

describe('incremental scan', () => {
  it('scans only new files, and re-classifies everything when the registry changes', async () => {
    const c = await setup()
    await c.addFile([{request_id: 'r1', tenant_id: 'tB', session_id: 'sB1', response_text: 'see CANARY-99999999aaaaaaaa'}])
    const first = scanCase(c.db, {now: NOW, skipProvenance: true})
    // The first scan classifies every file because every file is new, not because anything changed.
    expect(first).toMatchObject({records_scanned: 1, records_new: 1, full_rescan: false})
    expect(listSightings(c.db)[0]).toMatchObject({class: 'orphan'})
    const second = scanCase(c.db, {now: NOW, skipProvenance: true})
    expect(second).toMatchObject({records_scanned: 0, full_rescan: false})
    await c.addFile([{request_id: 'r2', tenant_id: 'tB', session_id: 'sB1', response_text: `see ${A1}`}])
    expect(scanCase(c.db, {now: NOW, skipProvenance: true})).toMatchObject({records_scanned: 1, records_new: 1, full_rescan: false})
    await c.addCanary('CANARY-99999999aaaaaaaa', 'tA', 'sA1')
    const fourth = scanCase(c.db, {now: NOW, skipProvenance: true})
    expect(fourth).toMatchObject({records_scanned: 2, records_new: 0, full_rescan: true})
    expect(listSightings(c.db).map((s) => [s.request_id, s.class])).toEqual([
      ['r1', 'cross_tenant'],
      ['r2', 'cross_tenant'],
    ])
    expect(listSightings(c.db, {classes: ['orphan']})).toEqual([])
  })

  it('classifies every file again where the last scan classified under other rules (an echo from the hex alone)', async () => {
    const c = await setup()
    await c.addFile([{request_id: 'r1', tenant_id: 'tA', session_id: 'sA1', request_text: `hash ${B1.slice(7)}`, response_text: `leak: ${B1}`}])
    expect(scanCase(c.db, {now: NOW, skipProvenance: true})).toMatchObject({full_rescan: false, sightings_by_class: {cross_tenant: 1}})
    // A case scanned before migration 012: no rules recorded, and the echo the old rules gave.
    c.db.prepare('UPDATE scan_runs SET sighting_rules = NULL').run()
    c.db.prepare("UPDATE sightings SET class = 'echo'").run()
    // Until then its findings are not current: every report says so, and refuses without --allow-incomplete.
    const stale = detectionCoverage(c.db)
    expect(stale).toMatchObject({complete: false, sighting_rules_changed: true})
    expect(describeGap(stale)).toMatch(/earlier rules \(before rules 2, a marker's hex digits alone in a prompt made an echo; before rules 3, .*before rules 4, /)
    expect(scanCase(c.db, {now: NOW, skipProvenance: true})).toMatchObject({records_scanned: 1, records_new: 0, full_rescan: true})
    expect(listSightings(c.db).map((s) => [s.request_id, s.class])).toEqual([['r1', 'cross_tenant']])
    expect(scanCase(c.db, {now: NOW, skipProvenance: true})).toMatchObject({records_scanned: 0, full_rescan: false})
    expect(detectionCoverage(c.db).sighting_rules_changed).toBe(false)
  })
})
