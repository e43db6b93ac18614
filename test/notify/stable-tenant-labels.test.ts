import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA docs #6: phased processor notices re-labelled the other customers: a log ingested after
// the initial notice, with an earlier contact, shifted every label, so "tenant#1" in the
// follow-up named another customer than in the initial notice.

const A1 = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
let c: TestCase
const NOW = new Date('2026-10-23T12:00:00Z')

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A1, 'acme', 'acme-s1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `Sure ${A1}`},
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

const labels = (): Map<string, string> => {
  const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'en'})
  return new Map(n.your_data_reached_others.other_customers_detail.map((d) => [d.first_seen ?? '', d.label]))
}

describe('the other customers keep their labels as more logs are scanned', () => {
  it('a later log with an earlier contact adds a label after the ones already given', async () => {
    const initial = labels()
    expect(initial.get('2026-10-22T10:15:00.000Z')).toBe('tenant#1')
    // arrives after the initial notice: initech received acme's marker before globex did
    await c.addFile([{request_id: 'r3', ts_ms: Date.parse('2026-10-22T09:00:00Z'), tenant_id: 'initech', session_id: 'initech-s1', request_text: 'yo', response_text: `Here ${A1}`}])
    scanCase(c.db, {now: new Date('2026-10-23T11:00:00.000Z')})
    const followUp = labels()
    expect(followUp.size).toBe(2)
    expect(followUp.get('2026-10-22T10:15:00.000Z')).toBe('tenant#1')
    expect(followUp.get('2026-10-22T09:00:00.000Z')).toBe('tenant#2')
  })
})
