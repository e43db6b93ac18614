import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {getIncident, openIncident} from '../../src/notify/incident.js'
import {notificationScopeNow} from '../../src/notify/notification-scope.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {buildArticle34} from '../../src/notify/article34.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {MIGRATIONS} from '../../src/store/migrations/index.js'
import {LATEST_SCHEMA, openCase} from '../../src/store/open-case.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// The scope at the time of a notification was not stored: after `notify record`, a scan that grew
// the scope made every later document state today's figures as those notified ("1 then, 3 now"
// read "3"). The scope is stored when the notification is recorded (migration 023) and the
// documents that speak of the notification say what it was based on; one recorded before has
// none, said as not recorded, never filled in from today's scope.

const A1 = 'CANARY-b1b1b1b1b1b1b1b1b1b1'
const B1 = 'CANARY-c2c2c2c2c2c2c2c2c2c2'
const NOW = new Date('2026-10-26T12:00:00Z')
let c: TestCase

beforeAll(async () => {
  c = makeCase()
  await c.addCanaries([[A1, 'acme', 'acme-s1'], [B1, 'globex', 'globex-s1']])
  await c.addFile([
    {request_id: 'r1', ts_ms: Date.parse('2026-10-22T08:00:00Z'), tenant_id: 'acme', session_id: 'acme-s1', request_text: `hello ${A1}`, response_text: 'fine'},
    {request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s2', request_text: 'hi', response_text: `Sure ${A1}`},
  ])
  scanCase(c.db, {now: new Date('2026-10-23T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: 'controller', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
}, 60_000)
afterAll(() => c?.close())

const facts = () => buildFacts(loadFactsInputs(c.db), NOW)

describe('the scope a notification was based on', () => {
  it('is stored when it is recorded, and stays what it was after a scan grows the scope', async () => {
    const now = new Date('2026-10-24T10:00:00Z')
    const r = recordNotification(c.db, getIncident(c.db)!, {phase: 'initial', at: new Date('2026-10-24T09:00:00Z'), reference: 'DPA-1', recipient: 'authority', now, scope: notificationScopeNow(c.db, now)})
    expect(r.scope_at_notification).toMatchObject({known: true, responses: 1, sessions: 1, source_tenants: 1, recipient_tenants: 1, first_seen: '2026-10-22T10:15:00.000Z', last_seen: '2026-10-22T10:15:00.000Z'})
    expect(r.scope_at_notification!.scan).toMatchObject({finished_at: expect.any(String), extract_scheme: expect.any(String)})
    // A later log: two more responses carry another session's data.
    await c.addFile([
      {request_id: 'r3', ts_ms: Date.parse('2026-10-22T11:00:00Z'), tenant_id: 'globex', session_id: 'globex-s3', request_text: 'yo', response_text: `Here ${A1}`},
      {request_id: 'r4', ts_ms: Date.parse('2026-10-22T12:00:00Z'), tenant_id: 'acme', session_id: 'acme-s4', request_text: `x ${B1}`, response_text: 'ok'},
      {request_id: 'r5', ts_ms: Date.parse('2026-10-22T12:30:00Z'), tenant_id: 'acme', session_id: 'acme-s5', request_text: 'yo', response_text: `Here ${B1}`},
    ])
    scanCase(c.db, {now: new Date('2026-10-25T09:00:00.000Z')})
    const a33 = buildArticle33(facts(), {language: 'en'})
    expect(a33.scope!.exposure.responses).toBe(3)
    // The notification says what it was based on then (1), never today's 3.
    expect(a33.notifications[0]!.scope_at_notification).toMatchObject({responses: 1, sessions: 1, last_seen: '2026-10-22T10:15:00.000Z'})
    expect(a33.notification_statements[0]).toMatch(/It was based on the scope as found then \(scan finished 2026-10-23T09:00:00.000Z.*\): 1 response carrying another session's data, from 1 session of 1 customer, received by 1; 2 customers \(controllers\) concerned.*between 2026-10-22T10:15:00.000Z and 2026-10-22T10:15:00.000Z\./)
    expect(a33.notification_statements[0]).not.toMatch(/\b3 responses/)
    const fr = buildArticle33(facts(), {language: 'fr'})
    expect(fr.notification_statements[0]).toMatch(/Elle reposait sur le périmètre connu alors .*: 1 réponse\(s\)/)
    const register = buildRegisterEntry(facts(), {language: 'en'})
    expect(register.notification_references).toMatch(/ref DPA-1 \(scope then: 1 response, 1 session, 2 customers concerned, 2026-10-22T10:15:00.000Z to 2026-10-22T10:15:00.000Z\)/)
  })

  it('of a notification recorded before it was stored (no scope row) is said as not recorded, never today\'s', () => {
    recordNotification(c.db, getIncident(c.db)!, {phase: 'follow-up', at: new Date('2026-10-25T10:00:00Z'), reference: 'DPA-2', recipient: 'authority', now: new Date('2026-10-25T11:00:00Z')})
    const a33 = buildArticle33(facts(), {language: 'en'})
    const followUp = a33.notifications.find((n) => n.reference === 'DPA-2')!
    expect(followUp.scope_at_notification).toBeNull()
    expect(a33.notification_statements.find((s) => s.includes('DPA-2'))).toMatch(/The scope it was based on was not recorded .*not those notified\./)
    expect(buildRegisterEntry(facts(), {language: 'en'}).notification_references).toMatch(/ref DPA-2 \(scope then: not recorded\)/)
  })
})

describe('the documents that speak of an earlier communication or notice', () => {
  it('a further Art. 34 letter says (to its sender) what the first communication was based on; a follow-up processor notice, the scan its notice rested on', async () => {
    const d = makeCase()
    try {
      await d.addCanaries([[A1, 'acme', 'acme-s1']])
      await d.addFile([{request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s2', request_text: 'hi', response_text: `Sure ${A1}`}])
      scanCase(d.db, {now: new Date('2026-10-23T09:00:00.000Z')})
      openIncident(d.db, {title: 'Leak', role: 'controller', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
      const now = new Date('2026-10-24T10:00:00Z')
      recordNotification(d.db, getIncident(d.db)!, {phase: 'initial', at: new Date('2026-10-24T09:00:00Z'), reference: 'DS-1', recipient: 'data-subjects', now, scope: notificationScopeNow(d.db, now)})
      const a34 = buildArticle34(buildFacts(loadFactsInputs(d.db), NOW), {language: 'en'})
      expect(a34.notes.join('\n')).toMatch(/already informed on 2026-10-24T09:00:00.000Z .*It was based on the scope as found then .*: 1 response carrying another session's data/)
    } finally {
      d.close()
    }
    const p = makeCase()
    try {
      await p.addCanaries([[A1, 'acme', 'acme-s1']])
      await p.addFile([{request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s2', request_text: 'hi', response_text: `Sure ${A1}`}])
      scanCase(p.db, {now: new Date('2026-10-23T09:00:00.000Z')})
      openIncident(p.db, {title: 'Leak', role: 'processor', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
      const now = new Date('2026-10-23T11:30:00Z')
      recordNotification(p.db, getIncident(p.db)!, {phase: 'initial', at: new Date('2026-10-23T11:00:00Z'), reference: 'N-1', recipient: 'acme', now, scope: notificationScopeNow(p.db, now)})
      const n = buildProcessorNotice(buildFacts(loadFactsInputs(p.db), NOW), 'acme', {language: 'en'})
      expect(n.phase_text).toMatch(/That notice rested on the findings of the scan finished 2026-10-23T09:00:00.000Z: the figures below are those known now/)
      // the stored figures are the whole case's: never another customer's counts in this controller's notice
      expect(n.phase_text).not.toMatch(/based on the scope as found then/)
    } finally {
      p.close()
    }
  }, 60_000)
})

describe('migration 023-notification-scopes', () => {
  it('follows 022; a schema-22 case opens with its notifications\' scopes not recorded', async () => {
    expect(MIGRATIONS[MIGRATIONS.findIndex((m) => m.version === 23) - 1]?.version).toBe(22)
    expect(MIGRATIONS.find((m) => m.version === 23)).toMatchObject({name: 'notification-scopes'})
    expect(LATEST_SCHEMA).toBeGreaterThanOrEqual(23)
    const d = makeCase()
    await d.addCanaries([[A1, 'acme', 'acme-s1']])
    await d.addFile([{request_id: 'r2', ts_ms: Date.parse('2026-10-22T10:15:00Z'), tenant_id: 'globex', session_id: 'globex-s2', request_text: 'hi', response_text: `Sure ${A1}`}])
    scanCase(d.db, {now: new Date('2026-10-23T09:00:00.000Z')})
    openIncident(d.db, {title: 'Leak', role: 'controller', awareAt: new Date('2026-10-23T08:00:00Z'), now: new Date('2026-10-23T10:00:00Z')})
    const now = new Date('2026-10-24T10:00:00Z')
    recordNotification(d.db, getIncident(d.db)!, {phase: 'initial', at: new Date('2026-10-24T09:00:00Z'), reference: 'DPA-1', recipient: 'authority', now, scope: notificationScopeNow(d.db, now)})
    d.close()
    // The same case as schema 22 wrote it: no notification_scopes (nor what later schemas add).
    const old = new Database(d.path)
    old.exec('DROP TABLE notification_scopes; ALTER TABLE notifications DROP COLUMN recipient_kind')
    old.pragma('user_version = 22')
    old.close()
    const db = openCase(d.path)
    try {
      expect(db.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
      expect(db.prepare('SELECT COUNT(*) AS n FROM notification_scopes').get()).toEqual({n: 0})
      const a33 = buildArticle33(buildFacts(loadFactsInputs(db), NOW), {language: 'en'})
      expect(a33.notifications[0]!.scope_at_notification).toBeNull()
      expect(a33.notification_statements[0]).toMatch(/The scope it was based on was not recorded/)
    } finally {
      db.close()
    }
  }, 60_000)
})

describe('notify record', () => {
  it('stores the scope the notification is based on and gives it under --json', async () => {
    const {buildNotifyCase} = await import('../helpers/notify-case.js')
    const {run} = await import('../helpers/commands.js')
    const {db} = await buildNotifyCase()
    expect((await run(['incident', 'open', '--db', db, '--title', 'KV', '--aware-at', '2026-10-23T10:00:00+02:00', '--role', 'controller'])).code).toBe(0)
    const r = await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-24T09:00:00Z', '--reference', 'DPA-9', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as {scope_at_notification: {known: boolean; responses: number; sessions: number; controllers: number} | null}
    expect(out.scope_at_notification).toMatchObject({known: true, responses: 5, sessions: 4})
    const a33 = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json', '--now', '2026-10-25T12:00:00Z'])).stdout) as {notifications: Array<{scope_at_notification: unknown}>}
    expect(a33.notifications[0]!.scope_at_notification).toEqual(out.scope_at_notification)
  }, 60_000)
})
