import {describe, expect, it} from 'vitest'
import {EN} from '../../src/notify/phrases-en.js'
import {FR} from '../../src/notify/phrases-fr.js'
import type {Exposure, ExposureFlow} from '../../src/scope/exposure.js'

// QA life 07: the nature sentence counted only the receiving customers of the flows (named
// sources), "reached 4 receiving customers", while the same draft's table (exposure.recipient_tenants)
// said 5: the fifth customer's only response held a canary marker cut short, naming no source.
const flow = (source: string, recipient: string): ExposureFlow => ({source_tenant: source, recipient_tenant: recipient, responses: 1})
const exposure: Exposure = {
  responses: 5, by_canary: 3, by_text_only: 2, sessions: 4, source_tenants: 3, recipient_tenants: 5,
  flows: [flow('a', 'r1'), flow('b', 'r2'), flow('c', 'r3'), flow('a', 'r4')],
  source_not_named: 1, marker_source_not_named: 1, marker_session_not_named: 1, session_not_named: 1, sessions_low: 5, source_tenants_low: 4,
} as Exposure

describe('the nature sentence counts every receiving customer, as the table does', () => {
  it('en: the whole count, with the customer that received only responses of an unnamed source said apart', () => {
    const s = EN.exposure(exposure, '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z')
    const counts = [...s.matchAll(/reached (\d+) receiving customers?/g)].map((m) => Number(m[1]))
    expect(counts).toEqual([5])
    expect(s).toContain('reached 4 of them, and 1 other received only responses whose source is not named')
  })

  it('fr: the same', () => {
    const s = FR.exposure(exposure, '2026-11-01T00:00:00Z', '2026-11-02T00:00:00Z')
    const counts = [...s.matchAll(/atteint (\d+) clients? destinataires?/g)].map((m) => Number(m[1]))
    expect(counts).toEqual([5])
    expect(s).toContain("ont atteint 4 d'entre eux, et 1 autre n'a reçu que des réponses dont la source n'est pas nommée")
  })

  it('with every receiver in a flow, unchanged', () => {
    const all = {...exposure, recipient_tenants: 4}
    expect(EN.exposure(all, null, null)).toContain('The data of 4 sessions of 3 customers reached 4 receiving customers.')
  })
})
