import {describe, expect, it} from 'vitest'
import {extractMarkers, UnconventionalSet} from '../../src/extract/extract.js'
import {buildRegistry, classifySighting, findMarkers, markerKey, promptSearch, type CanaryRow} from '../../src/extract/markers.js'
import {responseSightings} from '../../src/detect/scan-case.js'
import {echoFacts} from '../../src/ingest/quick-unit.js'
import {echoFromFacts} from '../../src/triage/run-triage.js'

// Registered markers are matched whole, in responses and in prompts alike. A registry may hold
// markers that nest (ZEBRA-MARKER-7 inside ZEBRA-MARKER-71, CANARY-<hex> inside CANARY-<hex>42,
// a CANARY-<hex> head with a suffix): a longer one is not a sighting of the shorter, and a
// prompt holding the longer does not hold the shorter (its echo check).

const rows = (...list: Array<[string, string, string]>): CanaryRow[] =>
  list.map(([marker, tenant_id, session_id]) => ({marker_key: markerKey(marker), marker, tenant_id, session_id}))

/** The sightings of `response` for the recipient, as the scan classifies them (reading the prompt) and as the quick verdict does (from its facts). */
function classes(registryRows: CanaryRow[], prompt: string, response: string, tenant: string, session: string): {scan: string[]; quick: string[]} {
  const registry = buildRegistry(registryRows)
  const set = new UnconventionalSet(registry.unconventional.map((m) => m.marker))
  const byMarker = new Map(registry.unconventional.map((m) => [m.marker, m]))
  const m = extractMarkers(prompt, response, set)
  const show = (s: {class: string; marker: string; partial: boolean}) => `${s.class} ${s.marker}${s.partial ? ' (partial)' : ''}`
  const scan = responseSightings(m.tokens, m.unconventional, registry, byMarker, {tenant, session, promptHas: promptSearch(() => prompt, (t) => set.hits(t))}).map(show)
  const record = {request_id: 'r', tenant_id: tenant, session_id: session, ts_ms: 0, tokens: m.tokens, hits: m.unconventional, ...echoFacts(m.tokens, m.unconventional, m.prompt ?? '', set)}
  const quick = responseSightings(m.tokens, m.unconventional, registry, byMarker, {tenant, session, promptHas: echoFromFacts(record)}).map(show)
  return {scan, quick}
}

const both = (c: {scan: string[]; quick: string[]}): string[] => {
  expect(c.quick).toEqual(c.scan)
  return c.scan
}

describe('the echo check compares whole markers (QA registry #1)', () => {
  const registry = rows(
    ['ZEBRA-MARKER-7', 'tenant-a', 'sess-a'],
    ['ZEBRA-MARKER-71', 'tenant-b', 'sess-b'],
    ['CANARY-0123456789abcdef', 'tenant-c', 'sess-c'],
    ['CANARY-0123456789abcdef42', 'tenant-d', 'sess-d'],
  )

  it('a prompt holding its own ZEBRA-MARKER-71 does not hold ZEBRA-MARKER-7: the foreign marker is cross_tenant', () => {
    expect(both(classes(registry, 'ref ZEBRA-MARKER-71', "The other customer's ref is ZEBRA-MARKER-7.", 'tenant-b', 'sess-b'))).toEqual(['cross_tenant ZEBRA-MARKER-7'])
  })

  it('a prompt whose CANARY- run is 0123456789abcdef42 does not hold CANARY-0123456789abcdef: cross_tenant', () => {
    expect(both(classes(registry, 'ref CANARY-0123456789abcdef42', "Another session's marker: CANARY-0123456789abcdef.", 'tenant-d', 'sess-d'))).toEqual(['cross_tenant CANARY-0123456789abcdef'])
    expect(both(classes(registry, 'ref CANARY-0123456789ABCDEF42', 'CANARY-0123456789abcdef', 'tenant-d', 'sess-d'))).toEqual(['cross_tenant CANARY-0123456789abcdef'])
  })

  it('the marker itself in the prompt, whole, is still an echo (hex in either case)', () => {
    expect(both(classes(registry, 'I got ZEBRA-MARKER-7, what is it?', 'It is ZEBRA-MARKER-7.', 'tenant-b', 'sess-b'))).toEqual(['echo ZEBRA-MARKER-7'])
    expect(both(classes(registry, 'ref CANARY-0123456789ABCDEF, mine CANARY-0123456789abcdef42', 'that is CANARY-0123456789abcdef.', 'tenant-d', 'sess-d'))).toEqual(['echo CANARY-0123456789abcdef'])
  })

  it('a partial keeps its rule: the prompt holding the whole marker (its token cut short in the response) is an echo', () => {
    const reg = rows(['CANARY-0123456789abcdef0123', 'tenant-a', 'sess-a'])
    expect(both(classes(reg, 'pasted CANARY-0123456789abcdef0123', 'cut: CANARY-0123456789abcdef', 'tenant-b', 'sess-b'))).toEqual(['echo CANARY-0123456789abcdef0123 (partial)'])
    expect(both(classes(reg, 'nothing pasted', 'cut: CANARY-0123456789abcdef', 'tenant-b', 'sess-b'))).toEqual(['cross_tenant CANARY-0123456789abcdef0123 (partial)'])
  })

  it('the same marker run into the same adjoining hex in prompt and response is an echo', () => {
    expect(both(classes(registry, 'I sent CANARY-0123456789abcdef9 before', 'you sent CANARY-0123456789abcdef9', 'tenant-b', 'sess-b'))).toEqual(['echo CANARY-0123456789abcdef'])
  })
})

describe('a marker inside a longer registered marker or token is no sighting of it (QA registry #3)', () => {
  const registry = rows(
    ['ZEBRA-MARKER-7', 'tenant-a', 'sess-a'],
    ['ZEBRA-MARKER-71', 'tenant-b', 'sess-b'],
    ['abcdef0123', 'tenant-c', 'sess-c'],
    ['CANARY-abcdef0123456789abcd', 'tenant-d', 'sess-d'],
  )

  it('a response holding only its own longer marker has only an own sighting', () => {
    expect(both(classes(registry, 'what was my reference?', 'Your reference is ZEBRA-MARKER-71.', 'tenant-b', 'sess-b'))).toEqual(['own ZEBRA-MARKER-71'])
    expect(both(classes(registry, 'repeat it', 'CANARY-abcdef0123456789abcd', 'tenant-d', 'sess-d'))).toEqual(['own CANARY-abcdef0123456789abcd'])
  })

  it('and no echo of the shorter where the prompt holds the longer', () => {
    expect(both(classes(registry, 'ref ZEBRA-MARKER-71', 'ZEBRA-MARKER-71', 'tenant-b', 'sess-b'))).toEqual(['own ZEBRA-MARKER-71'])
  })

  it('the shorter marker standing alone elsewhere in the same response is still found', () => {
    expect(both(classes(registry, 'hi', 'ZEBRA-MARKER-71 and ZEBRA-MARKER-7 too', 'tenant-b', 'sess-b'))).toEqual(['own ZEBRA-MARKER-71', 'cross_tenant ZEBRA-MARKER-7'])
    expect(findMarkers('ZEBRA-MARKER-71, then abcdef0123 alone', buildRegistry(registry)).map((f) => f.registered?.marker)).toEqual(['ZEBRA-MARKER-71', 'abcdef0123'])
  })
})

describe('a registered CANARY-<hex><suffix> found exactly is one whole sighting (QA registry #6)', () => {
  const registry = rows(
    ['CANARY-0123456789abcdef-s42', 'tenant-a', 'sess-42'],
    ['CANARY-fedcba9876543210-s7', 'tenant-a', 'sess-7'],
    ['CANARY-fedcba9876543210-s8', 'tenant-a', 'sess-8'],
  )

  it('is not partial and has no orphan for its hex head', () => {
    expect(both(classes(registry, 'hi', 'see CANARY-0123456789abcdef-s42', 'tenant-b', 'sess-b'))).toEqual(['cross_tenant CANARY-0123456789abcdef-s42'])
    expect(both(classes(registry, 'hi', 'see CANARY-fedcba9876543210-s7', 'tenant-b', 'sess-b'))).toEqual(['cross_tenant CANARY-fedcba9876543210-s7'])
    // A later occurrence of the same marker leaves no orphan either (only the first hit is extracted).
    expect(both(classes(registry, 'hi', 'CANARY-fedcba9876543210-s7 and again CANARY-fedcba9876543210-s7', 'tenant-b', 'sess-b'))).toEqual(['cross_tenant CANARY-fedcba9876543210-s7'])
  })

  it('its echo needle is the whole marker: a prompt holding only its hex head does not hold it', () => {
    expect(both(classes(registry, 'my id is CANARY-0123456789abcdef', 'CANARY-0123456789abcdef-s42', 'tenant-b', 'sess-b'))).toEqual(['cross_tenant CANARY-0123456789abcdef-s42'])
    expect(both(classes(registry, 'I sent CANARY-0123456789abcdef-s42', 'CANARY-0123456789abcdef-s42', 'tenant-b', 'sess-b'))).toEqual(['echo CANARY-0123456789abcdef-s42'])
  })

  it('its head standing alone, unregistered, is still an orphan', () => {
    const found = findMarkers('CANARY-0123456789abcdef alone', buildRegistry(registry))
    expect(found.map((f) => [f.registered, f.token, f.partial])).toEqual([[null, 'CANARY-0123456789abcdef', false]])
  })

  it('classifySighting over findMarkers agrees', () => {
    const reg = buildRegistry(registry)
    const [f, ...rest] = findMarkers('CANARY-0123456789abcdef-s42', reg)
    expect(rest).toEqual([])
    expect(f!.partial).toBe(false)
    expect(classifySighting(f!, {tenant: 'tenant-b', session: 'sess-b', promptHas: promptSearch(() => 'CANARY-0123456789abcdef')}).class).toBe('cross_tenant')
  })
})
