import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {giveOtherTenantLabels} from '../../src/scope/tenant-view.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA lifecycle #7: a record held since day 1 gained a source later (here: a second registry names
// the owner of a marker that was nobody's), so its customer took a lower label and the customer
// an initial notice called "tenant#1" was "tenant#2" in the follow-up. Labels, once given, are
// stored and kept; a customer met later takes the next free number.

const A1 = 'CANARY-c1c1c1c1c1c1c1c1c1c1'
const K1 = 'CANARY-d2d2d2d2d2d2d2d2d2d2'
const NOW = new Date('2026-10-23T12:00:00Z')
let c: TestCase

/** a scan as the scan command runs it: the labels are given as it finishes */
const scan = (at: string) => {
  scanCase(c.db, {now: new Date(at)})
  giveOtherTenantLabels(c.db, new Date(at))
}

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A1, 'acme', 'acme-s1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    // acme's user receives a marker nobody registered yet (an orphan on day 1)
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T09:00:00Z'), tenant_id: 'acme', session_id: 'acme-s2', request_text: 'hi', response_text: `Look ${K1}`},
    {request_id: 'r3', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `Sure ${A1}`},
  ])
  scan('2026-10-23T09:00:00.000Z')
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

const labels = (): Map<string, string> => {
  const n = buildProcessorNotice(buildFacts(loadFactsInputs(c.db), NOW), 'acme', {language: 'en'})
  return new Map(n.your_data_reached_others.other_customers_detail.concat(n.you_received_other_data.other_customers_detail).map((d) => [d.first_seen ?? '', d.label]))
}

describe('the other customers keep the labels once given', () => {
  it('a source found later for a record held since day 1 takes the next free label', async () => {
    const initial = labels()
    expect([...initial.entries()]).toEqual([['2026-10-22T10:15:00.000Z', 'tenant#1']])
    // day 2: the registry of the marker's owner arrives; the record r2 (held since day 1, before r3) now has a source
    await c.addCanaries([[K1, 'kestrel', 'kestrel-s1']])
    scan('2026-10-23T11:00:00.000Z')
    const followUp = labels()
    expect(followUp.size).toBe(2)
    expect(followUp.get('2026-10-22T10:15:00.000Z')).toBe('tenant#1')
    expect(followUp.get('2026-10-22T09:00:00.000Z')).toBe('tenant#2')
    // read again (and scanned again), nothing moves
    scan('2026-10-23T11:30:00.000Z')
    expect([...labels().entries()].sort()).toEqual([...followUp.entries()].sort())
  })
})
