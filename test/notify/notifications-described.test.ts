import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {renderCaseReportHtml} from '../../src/cli/html/case-report.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {InputError} from '../../src/errors.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {gatherCaseReport} from '../../src/notify/case-report-data.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {getIncident, openIncident} from '../../src/notify/incident.js'
import {notificationScopeNow} from '../../src/notify/notification-scope.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// How recorded notifications are described (QA "sentences" S1-1, S1-2, S1-5, S3-1, S3-2, S3-3).
// A processor's case: acme's marker reached globex, initech's reached acme. Notices:
//   acme    initial at 08:30, recorded a day later, after the scan that finished at 09:00 (back-dated);
//   globex  initial at 10:00, recorded at 10:30, after that scan (what it rested on is known);
//   the authority, for globex within its 72 hours, for acme after them; initech never notified.

const A1 = 'CANARY-b1b1b1b1b1b1b1b1b1b1'
const B1 = 'CANARY-c2c2c2c2c2c2c2c2c2c2'
const C1 = 'CANARY-d3d3d3d3d3d3d3d3d3d3'
const SCAN_AT = '2026-10-23T09:00:00.000Z'
const NOW = new Date('2026-10-28T12:00:00Z')
let c: TestCase

const facts = (tenant?: string) => buildFacts(loadFactsInputs(c.db), NOW, tenant === undefined ? {} : {tenant})

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A1, 'acme', 'acme-s1'], [B1, 'globex', 'globex-s1'], [C1, 'initech', 'initech-s1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s2', request_text: 'hi', response_text: `Sure ${A1}`},
    {request_id: 'r3', ts_ms: Date.parse('2026-10-22T09:00:00Z'), tenant_id: 'initech', session_id: 'initech-s1', request_text: `note ${C1}`, response_text: 'ok'},
    {request_id: 'r4', ts_ms: Date.parse('2026-10-22T11:15:00Z'), tenant_id: 'acme', session_id: 'acme-s3', request_text: 'yo', response_text: `Here ${C1}`},
  ])
  scanCase(c.db, {now: new Date(SCAN_AT)})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T08:10:00Z')})
  const record = (o: {phase?: 'initial' | 'follow-up'; at: string; reference: string; controllerRecipient?: string; controller?: string; now: string; delayReason?: string}) => {
    const now = new Date(o.now)
    recordNotification(c.db, getIncident(c.db)!, {phase: o.phase ?? 'initial', at: new Date(o.at), reference: o.reference, controllerRecipient: o.controllerRecipient, controller: o.controller, ...(o.delayReason ? {delayReason: o.delayReason} : {}), now, knownTenant: () => true, scope: notificationScopeNow(c.db, now)})
  }
  record({at: '2026-10-23T08:30:00Z', reference: 'ACME-1', controllerRecipient: 'acme', now: '2026-10-24T10:00:00Z'})
  record({at: '2026-10-23T10:00:00Z', reference: 'GLOBEX-1', controllerRecipient: 'globex', now: '2026-10-23T10:30:00Z'})
  record({at: '2026-10-24T09:00:00Z', reference: 'SA-GLOBEX', controller: 'globex', now: '2026-10-24T09:30:00Z'})
  // After acme's own 72 hours (from our notice of 2026-10-23T08:30Z): the reasons for the delay go with it (Art. 33(1)).
  record({at: '2026-10-27T12:00:00Z', reference: 'SA-ACME', controller: 'acme', now: '2026-10-27T12:30:00Z', delayReason: 'acme asked us to file after its own review'})
}, 60_000)
afterAll(() => c?.close())

describe('a notice recorded after a scan that finished after it was sent (S1-1)', () => {
  it('is never said to have rested on that scan: the follow-up notice, the register and its statements say when the scope was recorded', () => {
    const notice = buildProcessorNotice(facts('acme'), 'acme', {language: 'en', phase: 'follow-up'})
    expect(notice.phase_text).not.toMatch(/rested on the findings of the scan/)
    expect(notice.phase_text).toMatch(/recorded here on 2026-10-24T10:00:00\.000Z, when the latest scan had finished after it was sent \(on 2026-10-23T09:00:00\.000Z\): what it rested on is not recorded/)
    const fr = buildProcessorNotice(facts('acme'), 'acme', {language: 'fr', phase: 'follow-up'})
    expect(fr.phase_text).not.toMatch(/reposait sur les résultats de l'analyse/)
    const register = buildRegisterEntry(facts(), {language: 'en'})
    expect(register.notification_references).toMatch(/ref ACME-1 \(late: not known, no fixed deadline\) \(scope then: not recorded; recorded on 2026-10-24T10:00:00\.000Z from a scan finished after it was sent: /)
    const statement = register.statements.find((s) => s.text.includes('ACME-1'))!.text
    expect(statement).not.toMatch(/It was based on the scope as found then/)
    expect(statement).toMatch(/What it was based on is not recorded: it was recorded in this case on 2026-10-24T10:00:00\.000Z, with the scope of the scan then current \(scan finished 2026-10-23T09:00:00\.000Z/)
    // One sent after the scan rested on it, and says so.
    expect(register.notification_references).toMatch(/ref GLOBEX-1 \(late: not known, no fixed deadline\) \(scope then: 2 responses/)
    const a33 = buildArticle33(facts('acme'), {language: 'en', onBehalfOf: 'acme'})
    expect(a33.notifications.find((n) => n.reference === 'ACME-1')).toMatchObject({scope_recorded_after_sent: true})
  })
})

describe("one controller's Article 33 draft (S1-2)", () => {
  it("never states the whole case's figures as what that controller's notice was based on", () => {
    const a33 = buildArticle33(facts('globex'), {language: 'en', onBehalfOf: 'globex'})
    const statement = a33.notification_statements.find((s) => s.includes('GLOBEX-1'))!
    expect(statement).not.toMatch(/customers \(controllers\) concerned|It was based on the scope/)
    expect(statement).toMatch(new RegExp(`It rested on the findings of the scan finished ${SCAN_AT.replace(/\./g, '\\.')}.*; the figures it gave this controller are not recorded in this case`))
    const listed = a33.notifications.find((n) => n.reference === 'GLOBEX-1')!
    expect(listed.scope_at_notification).toBeNull()
    expect(listed.scope_withheld).toBe(true)
    const fr = buildArticle33(facts('globex'), {language: 'fr', onBehalfOf: 'globex'})
    expect(fr.notification_statements.find((s) => s.includes('GLOBEX-1'))).not.toMatch(/client\(s\) \(responsables de traitement\) concerné/)
    // The whole case's draft of the register still gives them (its own figures).
    expect(buildRegisterEntry(facts(), {language: 'en'}).statements.find((s) => s.text.includes('GLOBEX-1'))!.text).toMatch(/It was based on the scope as found then/)
  })
})

describe("a processor's notification to the authority made for a controller (S1-5)", () => {
  it("is judged by Art. 33(1): 72 hours from that controller's awareness (the processor's notice to it), never 'no fixed deadline'", () => {
    const all = facts()
    const forGlobex = all.notifications.find((n) => n.reference === 'SA-GLOBEX')!
    const forAcme = all.notifications.find((n) => n.reference === 'SA-ACME')!
    expect(forGlobex).toMatchObject({late: false, controller_aware_at: '2026-10-23T10:00:00.000Z'})
    expect(forAcme).toMatchObject({late: true, controller_aware_at: '2026-10-23T08:30:00.000Z'})
    const a33 = buildArticle33(facts('globex'), {language: 'en', onBehalfOf: 'globex'})
    const s = a33.notification_statements.find((t) => t.includes('SA-GLOBEX'))!
    expect(s).not.toMatch(/no fixed deadline/)
    expect(s).toMatch(/Its deadline: 72 hours from the controller's awareness under Art\. 33\(1\), taken as the processor's initial notice to it on 2026-10-23T10:00:00\.000Z\./)
    const register = buildRegisterEntry(all, {language: 'en'})
    expect(register.notification_references).toMatch(/to authority for controller acme ref SA-ACME \(LATE: 72 hours from the controller's awareness/)
    expect(register.notification_references).toMatch(/to authority for controller globex ref SA-GLOBEX \(in time: 72 hours/)
    const fr = buildRegisterEntry(all, {language: 'fr'})
    expect(fr.notification_references).toMatch(/pour le responsable de traitement acme réf\. SA-ACME \(EN RETARD : 72 heures/)
  })
})

describe('the case report (S3-1)', () => {
  it('lists every recorded notification, with whether it was late', () => {
    const data = gatherCaseReport(c.db, {now: NOW, toolVersion: 'test', showMarker: (m) => m, markersShown: false})
    expect(data.notifications!.map((n) => n.reference)).toEqual(['ACME-1', 'GLOBEX-1', 'SA-GLOBEX', 'SA-ACME'])
    expect(data.notifications!.find((n) => n.reference === 'SA-ACME')).toMatchObject({late: true, recipient_kind: 'authority', controller: 'acme', phase: 'initial'})
    const html = renderCaseReportHtml(data)
    expect(html).toMatch(/<h3>Notifications<\/h3>/)
    expect(html).toMatch(/SA-GLOBEX<\/td><td>initial notification<\/td><td data-k="notification_late">in time \(72 hours/)
    expect(html).toMatch(/ACME-1<\/td><td>initial notification<\/td><td data-k="notification_late">not known \(no fixed deadline/)
  })
})

describe('a follow-up draft with no initial notification on record (S3-2)', () => {
  it('is refused, as notify record refuses such a follow-up', () => {
    expect(() => buildArticle33(facts('initech'), {language: 'en', onBehalfOf: 'initech', phase: 'follow-up'})).toThrow(InputError)
    expect(() => buildArticle33(facts('initech'), {language: 'en', onBehalfOf: 'initech', phase: 'follow-up'})).toThrow(/no initial notification to the authority made for controller "?initech"? is recorded/)
    // With one on record it is drafted.
    expect(buildArticle33(facts('globex'), {language: 'en', onBehalfOf: 'globex', phase: 'follow-up'}).phase).toBe('follow-up')
  })
})

describe("a controller's draft and the notices to controllers (S3-3)", () => {
  it('says whether that controller was notified, never a count over other customers', () => {
    const acme = buildArticle33(facts('acme'), {language: 'en', onBehalfOf: 'acme'})
    expect(acme.measures_taken).toContain('The processor notified this controller (acme) under Art. 33(2) on 2026-10-23T08:30:00.000Z (reference ACME-1).')
    expect(acme.measures_taken.join('\n')).not.toMatch(/\d+ of \d+/)
    // initech was never notified: its draft states no notification as a measure.
    const initech = buildArticle33(facts('initech'), {language: 'en', onBehalfOf: 'initech'})
    expect(initech.measures_taken.join('\n')).not.toMatch(/notified/)
    const fr = buildArticle33(facts('acme'), {language: 'fr', onBehalfOf: 'acme'})
    expect(fr.measures_taken.join('\n')).not.toMatch(/\d+ sur \d+/)
    expect(fr.measures_taken.join('\n')).toMatch(/Le sous-traitant a informé ce responsable de traitement \(acme\)/)
  })
})
