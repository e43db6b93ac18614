import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs, truncatedMarkers} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA tenants #4: one processor notice at 500 tenants and 100k sightings did not finish in 10
// minutes: every tenant's figures copied and filtered every row of the case. Checked as a
// mechanism: the passes over the sightings do not grow with the number of tenants.

const NOW = new Date('2026-11-02T14:00:00Z')
const marker = (i: number) => `CANARY-${(0xa000 + i).toString(16)}${'0'.repeat(12)}`

async function ringCase(n: number): Promise<TestCase> {
  const c = makeCase()
  const tenant = (i: number) => `T${String(i).padStart(3, '0')}`
  await c.addCanaries(Array.from({length: n}, (_, i) => [marker(i), tenant(i), `s${i}`] as [string, string, string]))
  await c.addFile(Array.from({length: n}, (_, i) => ({request_id: `r${i}`, ts_ms: Date.parse('2026-11-02T06:00:00Z') + i * 1000, tenant_id: tenant(i), session_id: `s${i}`, request_text: `hi ${marker(i)}`, response_text: `ok ${marker((i + 1) % n)}`})))
  scanCase(c.db, {now: new Date('2026-11-02T11:00:00Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-11-02T12:00:00Z'), now: new Date('2026-11-02T12:00:00Z')})
  return c
}

/** How many times the facts walk the case's sightings (each map, filter, iteration ... over the whole list). */
function passesOverSightings(c: TestCase): {passes: number; tenants: number} {
  const inputs = loadFactsInputs(c.db)
  let passes = 0
  const walks = new Set(['map', 'filter', 'forEach', 'reduce', 'flatMap', 'some', 'every', 'find', 'slice', 'concat', Symbol.iterator])
  inputs.scope.contamination = new Proxy(inputs.scope.contamination, {
    get(target, key, receiver) {
      if (walks.has(key as string)) passes++
      return Reflect.get(target, key, receiver)
    },
  })
  const facts = buildFacts(inputs, NOW)
  return {passes, tenants: facts.tenants.length}
}

let small: TestCase
let large: TestCase
beforeAll(async () => {
  small = await ringCase(5)
  large = await ringCase(60)
}, 120_000)
afterAll(() => {
  small?.close()
  large?.close()
})

describe('each tenant\'s exposure reads its own rows', () => {
  it('walks the sightings as often for 60 tenants as for 5', () => {
    const a = passesOverSightings(small)
    const b = passesOverSightings(large)
    expect(a.tenants).toBe(5)
    expect(b.tenants).toBe(60)
    expect(b.passes).toBe(a.passes)
  })
})

describe('truncated markers (QA tenants #5)', () => {
  it('lists each distinct marker, and says how many a truncated form stands for where several coincide', () => {
    expect(truncatedMarkers(['CANARY-3f9a222222222222', 'CANARY-3f9a111111111111', 'CANARY-0b0b333333333333', 'CANARY-3f9a111111111111'])).toEqual(['CANARY-0b0b…', 'CANARY-3f9a… (2)'])
  })
})
