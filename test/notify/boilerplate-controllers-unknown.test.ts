import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {loadCaseClock} from '../../src/notify/case-clock.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {openIncident} from '../../src/notify/incident.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA tenants #3: one user's text reproduced verbatim in answers to three other customers is set
// aside as boilerplate (seen in 3+ customers' sessions). The clock then said "no controller to
// notify" (controllers: [], controllers_known: true) and the register "0 of 0": unknown shown as none.

const SECRET = 'My name is Jolanda Przybylska and my diagnosis from doctor Hamid at Lindenhof clinic is stage two lymphoma, my insurance number is kept at home in the blue folder near the piano'
const NOW = new Date('2026-11-02T13:00:00Z')
let c: TestCase

beforeAll(async () => {
  c = makeCase()
  await c.addFile([
    {request_id: 'a0', ts_ms: Date.parse('2026-11-02T06:00:00Z'), tenant_id: 'alpha', session_id: 'a', request_text: SECRET, response_text: 'I am sorry to hear that.'},
    ...['beta', 'gamma', 'delta'].map((t, i) => ({request_id: `x${i}`, ts_ms: Date.parse(`2026-11-02T06:00:0${i + 1}Z`), tenant_id: t, session_id: t[0]!, request_text: 'What is the weather like today in Paris?', response_text: `Sure. ${SECRET}`})),
  ])
  scanCase(c.db, {now: new Date('2026-11-02T11:00:00Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-11-02T12:00:00Z'), fields: {controller_deadline_hours: 24}, now: new Date('2026-11-02T12:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

describe('responses set aside as boilerplate leave the controllers to notify open', () => {
  it('the clock says the controllers are not known, and why, never that none is affected', () => {
    const clock = loadCaseClock(c.db, NOW)
    expect(clock.nothing_owed).toBeUndefined()
    expect(clock.controllers_known).toBe(false)
    expect(clock.controllers_unknown_because).toBe('boilerplate')
    expect(clock.boilerplate_responses).toBe(3)
  })
  it('the register says the controllers are not known, with an open item naming the responses', () => {
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    expect(facts.clock?.controllers_known).toBe(false)
    expect(facts.clock?.nothing_owed).toBeUndefined()
    const entry = buildRegisterEntry(facts, {language: 'en'})
    expect(entry.controllers_known).toBe(false)
    expect(entry.controllers_unknown_because).toBe('boilerplate')
    expect(entry.open_items.map((o) => o.item)).toContainEqual(expect.stringMatching(/^which controllers \(customers\) are affected.*3 responses set aside as boilerplate/))
  })
})
