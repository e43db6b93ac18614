import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {InputError} from '../../src/errors.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {getIncident, openIncident} from '../../src/notify/incident.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// `report article33 --phase follow-up` with no initial notification to the authority on record
// answered field 3 "Follow-up" about a notification the case does not hold, while `notify record`
// refuses such a follow-up. It is refused the same way (QA "sentences" S3-2).

const A1 = 'CANARY-b1b1b1b1b1b1b1b1b1b1'
const NOW = new Date('2026-10-26T12:00:00Z')
let c: TestCase

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A1, 'acme', 'acme-s1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s2', request_text: 'hi', response_text: `Sure ${A1}`},
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'controller', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

describe('report article33 --phase follow-up', () => {
  it('is refused while no initial notification to the authority is recorded, and drafted once one is', () => {
    const facts = () => buildFacts(loadFactsInputs(c.db), NOW)
    expect(() => buildArticle33(facts(), {language: 'en', phase: 'follow-up'})).toThrow(InputError)
    expect(() => buildArticle33(facts(), {language: 'en', phase: 'follow-up'})).toThrow(/--phase follow-up, but no initial notification to the authority is recorded: record it first \(crosstalk notify record --phase initial/)
    // The initial draft is still drafted.
    expect(buildArticle33(facts(), {language: 'en', phase: 'initial'}).phase).toBe('initial')
    recordNotification(c.db, getIncident(c.db)!, {phase: 'initial', at: new Date('2026-10-24T09:00:00Z'), reference: 'SA-1', now: new Date('2026-10-24T10:00:00Z')})
    expect(buildArticle33(facts(), {language: 'en', phase: 'follow-up'}).phase).toBe('follow-up')
  })
})
