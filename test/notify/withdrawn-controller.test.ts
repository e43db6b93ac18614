import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {dropFiles} from '../../src/case/drop-files.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {loadCaseClock} from '../../src/notify/case-clock.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {getIncident, openIncident} from '../../src/notify/incident.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {appendAudit} from '../../src/store/audit.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA lifecycle #4: a processor notified a controller; the log holding its exposure was then dropped
// (wrong incident). The follow-up notice was refused ("no exposure in this case"), and the clock and
// the register forgot the controller: nothing said a correction was owed.

const A1 = 'CANARY-f4f4f4f4f4f4f4f4f4f4'
const NOW = new Date('2026-10-25T12:00:00Z')
let c: TestCase

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A1, 'acme', 'acme-s1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s1', request_text: 'hi', response_text: `Sure ${A1}`},
  ])
  const other = await c.addFile([{request_id: 'r3', ts_ms: Date.parse('2026-10-22T11:00:00Z'), tenant_id: 'initech', session_id: 'initech-s1', request_text: 'yo', response_text: `Here ${A1}`}])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
  recordNotification(c.db, getIncident(c.db)!, {phase: 'initial', at: new Date('2026-10-24T09:00:00Z'), reference: 'INI-1', recipient: 'initech', now: new Date('2026-10-24T10:00:00Z'), knownTenant: () => true})
  const result = dropFiles(c.db, [other], 'belongs to another incident')
  appendAudit(c.db, {at: new Date('2026-10-24T15:00:00Z'), command: 'drop', args: {files: [other], reason: result.reason}, version: 'test', summary: result})
  scanCase(c.db, {now: new Date('2026-10-24T16:00:00.000Z')})
}, 60_000)
afterAll(() => c?.close())

const facts = () => buildFacts(loadFactsInputs(c.db), NOW)

describe('a controller notified of an exposure the case no longer shows', () => {
  it('gets a correcting follow-up notice, is listed by the clock as owed a correction (not as a notified controller), and the register says the correction is owed until one is recorded', () => {
    const notice = buildProcessorNotice(facts(), 'initech', {language: 'en'})
    expect(notice.phase).toBe('follow-up')
    expect(notice.what_happened[0]).toMatch(/^Correction: our notice of 2026-10-24T09:00:00.000Z \(reference INI-1\) described an exposure of your data that the case no longer shows/)
    expect(notice.investigation.join('\n')).toMatch(/dropped from the case on 2026-10-24T15:00:00.000Z; reason recorded: belongs to another incident/)
    const clock = loadCaseClock(c.db, NOW)
    // QA tenants #7: no longer among the controllers affected (never counted as notified), listed as owed a correction
    expect(clock.controllers?.map((x) => x.tenant_id)).not.toContain('initech')
    expect(clock.corrections_owed).toEqual([{tenant_id: 'initech', notified_at: '2026-10-24T09:00:00.000Z'}])
    expect(facts().clock?.corrections_owed).toEqual(clock.corrections_owed)
    const owed = () => buildRegisterEntry(facts(), {language: 'en'}).open_items.filter((o) => /correcting follow-up to controller "initech"/.test(o.item))
    expect(owed()).toHaveLength(1)
    recordNotification(c.db, getIncident(c.db)!, {phase: 'follow-up', at: new Date('2026-10-25T09:00:00Z'), reference: 'INI-2', recipient: 'initech', now: new Date('2026-10-25T10:00:00Z'), knownTenant: () => true})
    expect(owed()).toHaveLength(0)
    expect(loadCaseClock(c.db, NOW).corrections_owed).toBeUndefined()
  })
})
