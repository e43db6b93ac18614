import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {loadCaseClock} from '../../src/notify/case-clock.js'
import {getIncident, openIncident} from '../../src/notify/incident.js'
import {listNotifications, recordNotification} from '../../src/notify/notifications.js'
import {registeredTenantIds, tenantRegistered} from '../../src/store/canaries.js'
import {tenantHasRecords, tenantIdsWithRecords} from '../../src/store/records.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// QA tenants #2: `notify record --recipient "acme "` trimmed the id and recorded the notice for
// "acme", another customer, whose notice then followed up one it never received.

const A = 'CANARY-1111111111111111'
const B = 'CANARY-2222222222222222'
let c: TestCase

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A, 'acme', 'a1'], [B, 'beta', 'b1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-11-02T06:00:01Z'), tenant_id: 'acme ', session_id: 'a9', request_text: 'hi', response_text: `x ${B}`},
    {request_id: 'r2', ts_ms: Date.parse('2026-11-02T06:00:02Z'), tenant_id: 'beta', session_id: 'b1', request_text: 'hi', response_text: `y ${A}`},
  ])
  scanCase(c.db, {now: new Date('2026-11-02T11:00:00Z')})
  openIncident(c.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-11-02T12:00:00Z'), now: new Date('2026-11-02T12:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

const record = (recipient: string, reference: string, controller?: string) =>
  recordNotification(c.db, getIncident(c.db)!, {
    phase: 'initial', at: new Date('2026-11-02T13:00:00Z'), reference, recipient, controller, now: new Date('2026-11-02T13:30:00Z'),
    knownTenant: (t) => tenantHasRecords(c.db, t) || tenantRegistered(c.db, t),
    caseTenants: () => [...new Set([...tenantIdsWithRecords(c.db), ...registeredTenantIds(c.db)])],
  })

describe('a notice is recorded for the tenant id exactly as written', () => {
  it('records "acme " as "acme ", and the clock counts that customer notified, not "acme"', () => {
    expect(record('acme ', 'N1').recipient).toBe('acme ')
    const clock = loadCaseClock(c.db, new Date('2026-11-02T14:00:00Z'))
    const status = Object.fromEntries((clock.controllers ?? []).map((x) => [x.tenant_id, x.status]))
    expect(status['acme ']).toBe('notified')
    expect(status['acme']).not.toBe('notified')
  })
  it('refuses an id that matches no tenant exactly, naming the ids that differ from it only by white space', () => {
    expect(() => record(' beta', 'N2')).toThrow(/tenant " beta" is not in this case .*kept exactly as written.*"beta"/)
    expect(() => record('authority', 'N3', 'beta ')).toThrow(/tenant "beta " is not in this case .*"beta"/)
    expect(listNotifications(c.db).map((n) => n.recipient)).toEqual(['acme '])
  })
})
