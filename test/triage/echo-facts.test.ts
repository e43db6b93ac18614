import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {extractMarkers, UnconventionalSet} from '../../src/extract/extract.js'
import {buildRegistry, promptSearch} from '../../src/extract/markers.js'
import {responseSightings} from '../../src/detect/scan-case.js'
import {echoFacts} from '../../src/ingest/quick-unit.js'
import {echoFromFacts} from '../../src/triage/run-triage.js'

// The quick verdict keeps, of each marked record's prompt, only what the echo check needs (a
// prefix length per token, a flag per unconventional hit). Held to the scan's check, which reads
// the prompt itself: every sighting and class the same, on prompts that paste markers whole, cut,
// in other letter cases and run into other hex, or their hex alone (no echo), against registries of
// markers sharing prefixes.

const SEED = 180_022
const hexChar = fc.constantFrom(...'0123456789abcdefABCDEF')
const hex = (min: number, max: number) => fc.string({unit: hexChar, minLength: min, maxLength: max})
// HERON-SUMMIT-88 lies inside HERON-SUMMIT-8811: a prompt holding the longer does not hold it.
const UNCONVENTIONAL = ['HERON-SUMMIT-8811', 'HERON-SUMMIT-88', 'Blue-Falcon-42x']

describe('the echo check from a quick record', () => {
  it('classifies every sighting as the scan does, which reads the prompt', () => {
    let echoes = 0
    fc.assert(
      fc.property(
        hex(8, 10).chain((stem) =>
          fc.record({
            keys: fc.array(fc.oneof(hex(0, 12).map((t) => `CANARY-${(stem + t).toLowerCase()}`), hex(8, 20).map((h) => `CANARY-${h.toLowerCase()}`)), {minLength: 1, maxLength: 12}),
            pieces: fc.array(
              fc.oneof(hex(0, 16).map((t) => `CANARY-${stem}${t}`), hex(0, 16).map((t) => `CANARY-${stem}${t}. `), hex(8, 24).map((h) => `CANARY-${h}`), hex(1, 12), hex(0, 16).map((t) => `${stem}${t}`), fc.constant('canary-'), fc.constantFrom(...UNCONVENTIONAL, 'heron-summit-8811', ' ', 'text '), fc.string({maxLength: 4})),
              {maxLength: 8},
            ),
            response: fc.array(fc.oneof(hex(0, 16).map((t) => `CANARY-${stem}${t}`), fc.constantFrom(...UNCONVENTIONAL, ' ', 'x'), hex(8, 20).map((h) => `CANARY-${h}`)), {minLength: 1, maxLength: 5}),
            recipient: fc.constantFrom(0, 1, 2),
            // Registered markers pasted whole, in some letter case: the echoes the check is for.
            pasted: fc.array(fc.tuple(fc.nat(), fc.boolean()), {maxLength: 2}),
          }),
        ),
        ({keys, pieces, response, recipient, pasted}) => {
          const rows = [...keys.map((k) => ({marker: k, key: k})), ...UNCONVENTIONAL.map((m) => ({marker: m, key: m}))]
          const registry = buildRegistry(rows.map((r, i) => ({marker_key: r.key, marker: r.marker, tenant_id: `t${i % 2}`, session_id: `s${i % 3}`})))
          const byMarker = new Map(registry.unconventional.map((m) => [m.marker, m]))
          const prompt = pieces.join('') + pasted.map(([i, upper]) => ` ${upper ? `CANARY-${keys[i % keys.length]!.slice(7).toUpperCase()}` : keys[i % keys.length]} `).join('')
          const text = response.join(' ')
          const set = new UnconventionalSet(UNCONVENTIONAL)
          const m = extractMarkers(prompt, text, set)
          if (m.prompt === null) return
          const who = {tenant: `t${recipient % 2}`, session: `s${recipient}`}
          const byScan = responseSightings(m.tokens, m.unconventional, registry, byMarker, {...who, promptHas: promptSearch(() => prompt, (t) => set.hits(t))})
          const record = {request_id: 'r', tenant_id: who.tenant, session_id: who.session, ts_ms: 0, tokens: m.tokens, hits: m.unconventional, ...echoFacts(m.tokens, m.unconventional, m.prompt, set)}
          const byFacts = responseSightings(m.tokens, m.unconventional, registry, byMarker, {...who, promptHas: echoFromFacts(record)})
          expect(byFacts).toEqual(byScan)
          echoes += byScan.filter((s) => s.class === 'echo').length
        },
      ),
      {seed: SEED, numRuns: 3000},
    )
    // The property reaches the case it is about.
    expect(echoes).toBeGreaterThan(200)
  })
})

describe('the quick verdict\'s echo check', () => {
  const hexA = '0123456789abcdef0123'
  const registry = buildRegistry([{marker_key: `CANARY-${hexA}`, marker: `CANARY-${hexA.toUpperCase()}`, tenant_id: 'tA', session_id: 'sA'}])
  const classOf = (prompt: string): string[] => {
    const m = extractMarkers(prompt, `leaked CANARY-${hexA}`)
    const record = {request_id: 'r', tenant_id: 'tB', session_id: 'sB', ts_ms: 0, tokens: m.tokens, hits: m.unconventional, ...echoFacts(m.tokens, m.unconventional, m.prompt!)}
    return responseSightings(m.tokens, m.unconventional, registry, new Map(), {tenant: 'tB', session: 'sB', promptHas: echoFromFacts(record)}).map((s) => s.class)
  }

  it('takes a prompt that holds the marker\'s hex without CANARY- for no echo', () => {
    expect(classOf(`my hash ${hexA} and ${hexA.toUpperCase()}`)).toEqual(['cross_tenant'])
    expect(classOf(`canary-${hexA}, CANARY ${hexA}, CANARY-x${hexA}`)).toEqual(['cross_tenant'])
  })

  it('takes the marker itself, hex in either case, for an echo', () => {
    expect(classOf(`I sent CANARY-${hexA.toUpperCase()} before`)).toEqual(['echo'])
    expect(classOf(`CANARY-0123 then CANARY-${hexA}`)).toEqual(['echo'])
  })

  it('takes a longer marker that starts with the marker for no echo: the prompt\'s hex run must end where the marker ends', () => {
    // The recipient's own CANARY-<hex>ff (registered or not) is not the marker CANARY-<hex>.
    expect(classOf(`CANARY-0123 then CANARY-${hexA}ff`)).toEqual(['cross_tenant'])
    expect(classOf(`mine is CANARY-${hexA}42 and CANARY-${hexA.slice(0, 16)}`)).toEqual(['cross_tenant'])
  })
})
