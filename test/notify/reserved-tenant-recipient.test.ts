import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {UsageError} from '../../src/errors.js'
import {loadCaseClock} from '../../src/notify/case-clock.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {getIncident, openIncident} from '../../src/notify/incident.js'
import {listNotifications, recordNotification, type RecordNotificationOptions} from '../../src/notify/notifications.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {tenantRegistered} from '../../src/store/canaries.js'
import {tenantHasRecords} from '../../src/store/records.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA tenants #1: customers whose tenant ids are "authority" and "data-subjects". One
// `notify record --recipient authority` was read as two facts: the register said the authority
// was notified, the clock and the customer's notice that the customer "authority" was.

const M = {authority: 'CANARY-00000000000000a0', 'data-subjects': 'CANARY-00000000000000a1', alpha: 'CANARY-00000000000000a2', beta: 'CANARY-00000000000000a3'}
const NOW = new Date('2026-11-02T14:00:00Z')
let c: TestCase

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries(Object.entries(M).map(([t, m], i) => [m, t, `s${i}`] as [string, string, string]))
  const rec = (i: number, t: keyof typeof M, leaked: string) => ({request_id: `r${i}`, ts_ms: Date.parse(`2026-11-02T06:00:0${i}Z`), tenant_id: t, session_id: `s${Object.keys(M).indexOf(t)}`, request_text: `hi ${M[t]}`, response_text: `ok ${M[t]} ${leaked}`})
  await c.addFile([rec(0, 'alpha', M.authority), rec(1, 'beta', M['data-subjects']), rec(2, 'authority', M.alpha)])
  scanCase(c.db, {now: new Date('2026-11-02T11:00:00Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-11-02T12:00:00Z'), now: new Date('2026-11-02T12:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

const record = (o: Partial<RecordNotificationOptions> & {reference: string}) =>
  recordNotification(c.db, getIncident(c.db)!, {phase: 'initial', at: new Date('2026-11-02T13:00:00Z'), now: new Date('2026-11-02T13:30:00Z'), knownTenant: (t) => tenantHasRecords(c.db, t) || tenantRegistered(c.db, t), ...o})

describe('a tenant whose id is a reserved recipient', () => {
  it('--recipient authority is refused as ambiguous (a usage error), naming both readings and how to say each', () => {
    for (const word of ['authority', 'data-subjects']) {
      let error: unknown
      try {
        record({recipient: word, reference: `AMB-${word}`})
      } catch (e) {
        error = e
      }
      expect(error).toBeInstanceOf(UsageError)
      expect((error as UsageError).exit).toBe(2)
      expect((error as Error).message).toMatch(new RegExp(`--recipient ${word} is ambiguous: .*tenant id is "${word}" \\(for that controller pass --controller-recipient ${word}\\)`))
    }
    expect(listNotifications(c.db)).toHaveLength(0)
  })
  it('a notice to the customer "authority" is that customer\'s, never the authority\'s', () => {
    expect(record({controllerRecipient: 'authority', reference: 'REF1'}).recipient_kind).toBe('controller')
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    const entry = buildRegisterEntry(facts, {language: 'en'})
    expect(entry.notified_authority_at).toBeNull()
    expect(entry.controllers_notified).toBe(1)
    expect(entry.notification_references).toMatch(/to controller "authority" ref REF1/)
    const clock = loadCaseClock(c.db, NOW)
    expect(Object.fromEntries(clock.controllers!.map((x) => [x.tenant_id, x.status]))).toMatchObject({authority: 'notified', alpha: 'open'})
    expect(buildProcessorNotice(facts, 'authority', {language: 'en'}).phase).toBe('follow-up')
    expect(buildProcessorNotice(facts, 'alpha', {language: 'en'}).phase).toBe('initial')
  })
  it('a notification to the authority (no --recipient) is the authority\'s, never the customer\'s', () => {
    expect(record({reference: 'REF2'}).recipient_kind).toBe('authority')
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    const entry = buildRegisterEntry(facts, {language: 'en'})
    expect(entry.notified_authority_at).toBe('2026-11-02T13:00:00.000Z')
    expect(entry.controllers_notified).toBe(1)
    // the customer "data-subjects" can be notified too, and only it is
    expect(record({controllerRecipient: 'data-subjects', reference: 'REF3'}).recipient_kind).toBe('controller')
    const clock = loadCaseClock(c.db, NOW)
    expect(clock.controllers!.filter((x) => x.status === 'notified').map((x) => x.tenant_id).sort()).toEqual(['authority', 'data-subjects'])
  })
})
