import fs from 'node:fs'
import path from 'node:path'
import {beforeAll, describe, expect, inject, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {buildNotifyCase} from '../helpers/notify-case.js'

// Notifications are statements the drafts repeat, so `notify record` checks them against the
// incident; the clock says when one was late; a processor's duty (Art. 33(2)) runs per
// controller, never against the controller's 72 hours to the authority.

/** A copy of the small hostile case (acme, globex and a hostile tenant exposed), with an incident opened. */
async function caseWith(role: 'controller' | 'processor', extra: string[] = []): Promise<string> {
  const {db} = await buildNotifyCase()
  const r = await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', role, ...extra])
  expect(r.code, r.stderr).toBe(0)
  return db
}

describe('notify record checks the notification against the incident', () => {
  let db: string
  beforeAll(async () => {
    db = await caseWith('controller')
  })
  const record = (...args: string[]) => run(['notify', 'record', '--db', db, '--reference', 'REF', ...args])

  it('refuses a follow-up with no initial notification before it', async () => {
    const r = await record('--phase', 'follow-up', '--at', '2026-10-24T08:00:00Z')
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/no initial notification to "authority" is recorded/)
  })

  it('refuses a notification dated before awareness, or in the future', async () => {
    const before = await record('--phase', 'initial', '--at', '2026-10-19T08:00:00Z')
    expect(before.code).toBe(1)
    expect(before.stderr).toMatch(/before the awareness time 2026-10-23T08:00:00.000Z/)
    const nextYear = new Date(Date.now() + 365 * 86400_000).toISOString()
    const future = await record('--phase', 'initial', '--at', nextYear)
    expect(future.code).toBe(1)
    expect(future.stderr).toMatch(/is in the future/)
    const clock = await runJson<{status: string}>(['clock', '--db', db, '--now', '2026-10-24T00:00:00Z'])
    expect(clock.status).not.toBe('notified')
  })

  it('a late initial notification needs its reasons; then the clock says notified LATE everywhere', async () => {
    const late = await record('--phase', 'initial', '--at', '2026-10-27T00:00:00Z')
    expect(late.code).toBe(1)
    expect(late.stderr).toMatch(/after the deadline 2026-10-26T08:00:00.000Z.*--delay-reason/)
    const ok = await runJson<{late: boolean; delay_reason: string}>(['notify', 'record', '--db', db, '--reference', 'REF-1', '--phase', 'initial', '--at', '2026-10-27T00:00:00Z', '--delay-reason', 'scope confirmed only after log recovery'])
    expect(ok).toMatchObject({late: true, delay_reason: 'scope confirmed only after log recovery'})
    const clock = await runJson<{status: string; late: boolean; notified_at: string}>(['clock', '--db', db, '--now', '2026-10-28T00:00:00Z'])
    expect(clock).toMatchObject({status: 'notified', late: true, notified_at: '2026-10-27T00:00:00.000Z'})
    const human = await run(['clock', '--db', db, '--now', '2026-10-28T00:00:00Z'])
    expect(human.stdout).toMatch(/Status:\s+NOTIFIED LATE/)
    expect(human.stdout).toMatch(/notified LATE, 16h 00m 00s after the deadline/)
    expect(human.stdout).not.toMatch(/overdue by/)
    const status = await runJson<{clock: {late: boolean}}>(['status', '--db', db])
    expect(status.clock.late).toBe(true)
    // a second initial notification to the same recipient is a follow-up
    const again = await record('--phase', 'initial', '--at', '2026-10-27T01:00:00Z', '--delay-reason', 'x')
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/already recorded .*--phase follow-up/)
    // the draft carries the late flag and the reason recorded with the notification
    const draft = await runJson<{clock: {late: boolean}; notifications: Array<{late: boolean}>; delay_reason: string; form_fields: Array<{id: string; value: string}>}>(['report', 'article33', '--db', db, '--format', 'json', '--now', '2026-10-28T00:00:00Z'])
    expect(draft.clock.late).toBe(true)
    expect(draft.notifications[0]!.late).toBe(true)
    expect(draft.delay_reason).toBe('scope confirmed only after log recovery')
    expect(draft.form_fields.find((f) => f.id === '49')!.value).toBe('scope confirmed only after log recovery')
  })
})

describe('a processor (Art. 33(2))', () => {
  it('gets one clock per controller without undue delay, never the 72 hours to the authority; notified only when all are', async () => {
    const db = await caseWith('processor')
    const clock = await runJson<{deadline: string | null; status: string; basis: string; controllers: Array<{tenant_id: string; status: string; notified_at: string | null}>}>(['clock', '--db', db, '--now', '2026-10-27T00:00:00Z'])
    // The contract's keys read as for every case (awareness + 72 elapsed hours); the processor's own duty is beside them.
    expect(clock).toMatchObject({
      deadline: '2026-10-26T08:00:00.000Z', remaining_seconds: -16 * 3600, status: 'overdue',
      duty_deadline: null, duty_remaining_seconds: null, duty_status: 'open', basis: 'art33(2)-without-undue-delay', late: null,
    })
    // Without a fixed deadline lateness cannot be counted: null, never false; each controller too, and the console says so.
    expect(clock.controllers.every((c) => (c as {late?: unknown}).late === null)).toBe(true)
    expect((await run(['clock', '--db', db, '--now', '2026-10-27T00:00:00Z'])).stdout).toMatch(/Late: +not known: no fixed deadline/)
    expect((await run(['status', '--db', db])).stdout).toMatch(/clock +open \(late: not known\)/)
    const undue = await runJson<{due: {late: boolean | null}}>(['report', 'processor-notice', '--db', db, '--tenant', 'globex', '--format', 'json'])
    expect(undue.due.late).toBeNull()
    expect(clock.controllers.map((c) => c.tenant_id).sort()).toEqual(['acme', 'evil_[x](javascript:alert(1))<b>\u001b[2J', 'globex'].sort())
    const notice = await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T12:00:00Z', '--reference', 'N-1', '--recipient', 'acme'])
    expect(notice.code, notice.stderr).toBe(0)
    const after = await runJson<{duty_status: string; controllers: Array<{tenant_id: string; status: string}>}>(['clock', '--db', db, '--now', '2026-10-27T00:00:00Z'])
    expect(after.duty_status).toBe('open')
    expect(after.controllers.find((c) => c.tenant_id === 'acme')!.status).toBe('notified')
    const human = await run(['clock', '--db', db, '--now', '2026-10-27T00:00:00Z'])
    expect(human.stdout).toMatch(/Controllers \(Art\. 33\(2\)\): 1 of 3 notified/)
    expect(human.stdout).toMatch(/none fixed: notify each controller without undue delay/)
    // a tenant the case does not hold is refused; data subjects are the controller's to inform
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T12:00:00Z', '--reference', 'N-2', '--recipient', 'nobody'])).code).toBe(1)
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T12:00:00Z', '--reference', 'N-3', '--recipient', 'data-subjects'])).code).toBe(1)
    for (const t of ['globex', 'evil_[x](javascript:alert(1))<b>\u001b[2J']) {
      expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T13:00:00Z', '--reference', 'N', '--recipient', t])).code).toBe(0)
    }
    const all = await runJson<{status: string; notified_at: string}>(['clock', '--db', db, '--now', '2026-10-27T00:00:00Z'])
    expect(all).toMatchObject({status: 'notified', notified_at: '2026-10-23T13:00:00.000Z'})
  })

  it('a contractual period sets each controller\'s deadline and late flag', async () => {
    const db = await caseWith('processor', ['--controller-deadline-hours', '24'])
    const refused = await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-25T08:00:00Z', '--reference', 'N-1', '--recipient', 'acme'])
    expect(refused.code).toBe(1)
    // The processor's duty is Art. 33(2), which asks no reasons; the refusal is crosstalk's own rule and says so.
    expect(refused.stderr).toMatch(/notice to the controller .* is after the contractual deadline 2026-10-24T08:00:00.000Z: Art\. 33\(2\) asks no reasons for a delay/)
    expect(refused.stderr).not.toMatch(/must be accompanied by the reasons for the delay \(GDPR Art\. 33\(1\)\)/)
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-25T08:00:00Z', '--reference', 'N-1', '--recipient', 'acme', '--delay-reason', 'contact point unknown'])).code).toBe(0)
    const clock = await runJson<{deadline: string; duty_deadline: string; basis: string; late: boolean; controllers: Array<{tenant_id: string; deadline: string; late: boolean; status: string}>}>(['clock', '--db', db, '--now', '2026-10-25T12:00:00Z'])
    expect(clock).toMatchObject({deadline: '2026-10-26T08:00:00.000Z', duty_deadline: '2026-10-24T08:00:00.000Z', duty_status: 'overdue', basis: 'art33(2)-contract', late: true})
    expect(clock.controllers.find((c) => c.tenant_id === 'acme')).toMatchObject({status: 'notified', late: true, deadline: '2026-10-24T08:00:00.000Z'})
    expect(clock.controllers.find((c) => c.tenant_id === 'globex')).toMatchObject({status: 'overdue', late: true})
    const notice = await runJson<{due: {deadline: string; hours: number; late: boolean; text: string}}>(['report', 'processor-notice', '--db', db, '--tenant', 'globex', '--format', 'json'])
    expect(notice.due).toMatchObject({deadline: '2026-10-24T08:00:00.000Z', hours: 24, late: true, text: expect.stringMatching(/due by 2026-10-24T08:00:00.000Z \(the 24 hours our contract sets/)})
    // Not sent and past its deadline, the notice says it is late; one already sent says so in its own line.
    expect(notice.due.text).toBe('This notice was due by 2026-10-24T08:00:00.000Z (the 24 hours our contract sets from our awareness): it is late.')
    // Once sent, a new draft is the follow-up (Art. 33(4)); the notice as sent is drafted again with --phase initial.
    const followUp = await runJson<{phase: string; phase_text: string; due: {text: string | null; sent_text: string | null}}>(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--format', 'json'])
    expect(followUp).toMatchObject({phase: 'follow-up', due: {text: null, sent_text: null}})
    expect(followUp.phase_text).toMatch(/^This notice follows up our initial notice sent on 2026-10-25T08:00:00.000Z \(reference N-1\), after the contractual deadline, with what has been established since/)
    const sentNotice = await runJson<{due: {text: string; sent_text: string}}>(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--format', 'json', '--phase', 'initial'])
    expect(sentNotice.due.text).toBe('This notice was due by 2026-10-24T08:00:00.000Z (the 24 hours our contract sets from our awareness).')
    expect(sentNotice.due.sent_text).toBe('This notice was sent on 2026-10-25T08:00:00.000Z, after the contractual deadline.')
    // bad contractual periods are usage errors
    expect((await run(['incident', 'set', '--db', db, '--controller-deadline-hours', 'abc'])).code).toBe(2)
  })

  it('gets an authority draft only when asked, labelled as prepared for the controller, with the controller\'s awareness', async () => {
    const db = await caseWith('processor', ['--processor-name', 'ModelHost'])
    const refused = await run(['report', 'article33', '--db', db])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/as processor your duty is to notify each controller without undue delay \(Art\. 33\(2\)\).*--on-behalf-of-controller/)
    expect((await run(['report', 'article34', '--db', db])).code).toBe(1)
    const before = await runJson<{prepared_on_behalf_of: string; timeline: {aware_at: string | null}; clock: null; open_items: Array<{item: string}>; scope: {exposure: {responses: number}}}>(['report', 'article33', '--db', db, '--format', 'json', '--on-behalf-of-controller', 'acme'])
    expect(before.prepared_on_behalf_of).toBe('acme')
    // the processor's own awareness is not the controller's
    expect(before.timeline.aware_at).toBeNull()
    expect(before.clock).toBeNull()
    expect(before.open_items.map((o) => o.item)).toEqual(expect.arrayContaining([expect.stringMatching(/when the controller became aware/)]))
    // narrowed to acme's exposure (3 responses carried acme's data; acme received 1)
    expect(before.scope.exposure.responses).toBe(4)
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T12:00:00Z', '--reference', 'N-1', '--recipient', 'acme'])).code).toBe(0)
    const md = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', 'acme', '--now', '2026-10-24T00:00:00Z'])).stdout
    expect(md).toContain('Prepared by the processor (ModelHost) on behalf of the controller (customer acme)')
    expect(md).toContain('| 48 | Date and time the controller became aware | 2026-10-23T12:00:00.000Z |')
    expect(md).not.toContain('| 48 | Date and time the controller became aware | 2026-10-23T08:00:00.000Z |')
    expect(md).toMatch(/\| Our role \| processor, on behalf of customer acme \|/)
    // Its exposure table counts acme's share beside the whole case's totals: the method under it says which is which.
    expect(md).toMatch(/^Method: .*in this draft for one controller, the responses counted are those to or from its end users.*responses examined, log files and orphans are the whole case's$/m)
    const fr = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', 'acme', '--lang', 'fr', '--now', '2026-10-24T00:00:00Z'])).stdout
    expect(fr).toMatch(/dans ce projet pour un seul responsable du traitement, les réponses comptées sont celles adressées à ses utilisateurs finaux/)
  })
})

describe('a draft prepared for one controller names no other customer', () => {
  it('labels the other customers in its flows as the controller\'s notice does, and lists only the notices that concern it', async () => {
    const db = await caseWith('processor', ['--processor-name', 'ModelHost'])
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T12:00:00Z', '--reference', 'TO-GLOBEX', '--recipient', 'globex'])).code).toBe(0)
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-10-23T13:00:00Z', '--reference', 'TO-ACME', '--recipient', 'acme'])).code).toBe(0)
    const md = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', 'acme', '--now', '2026-10-24T00:00:00Z'])).stdout
    const json = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', 'acme', '--format', 'json', '--now', '2026-10-24T00:00:00Z'])).stdout
    for (const text of [md, json]) {
      expect(text).not.toContain('globex')
      expect(text).not.toContain('TO-GLOBEX')
      expect(text).toContain('TO-ACME')
    }
    const draft = JSON.parse(json) as {scope: {flows: Array<{source_tenant: string; recipient_tenant: string}>; exposure: {flows: Array<{source_tenant: string; recipient_tenant: string}>}}; notifications: Array<{recipient: string}>}
    const names = new Set(draft.scope.exposure.flows.flatMap((f) => [f.source_tenant, f.recipient_tenant]))
    expect([...names].filter((n) => n !== "acme").filter((n) => !/^tenant#\d+$/.test(n))).toEqual([])
    expect(names.size).toBeGreaterThan(1)
    expect(draft.notifications.map((n) => n.recipient)).toEqual(['acme'])
    // The same labels as the notice the processor sends that controller.
    const notice = await runJson<{your_data_reached_others: {other_customers_detail: Array<{label: string; exposure_responses: number}>}}>(['report', 'processor-notice', '--db', db, '--tenant', 'acme', '--format', 'json'])
    for (const c of notice.your_data_reached_others.other_customers_detail) {
      const flow = draft.scope.exposure.flows.find((f) => f.source_tenant === 'acme' && f.recipient_tenant === c.label) as {responses: number} | undefined
      expect(flow?.responses, c.label).toBe(c.exposure_responses)
    }
    // Its data subjects are its own end users on either side: acme-s1 and acme-s2 (their data reached
    // others), acme-s3 and acme-s4 (served another session's data); globex's session is globex's to count.
    const subjects = (JSON.parse(json) as {data_subjects: {approximate: {low: number; method: string}}}).data_subjects.approximate
    expect(subjects.low).toBe(4)
    expect(subjects.method).toContain("low: distinct sessions of this controller on either side of the exposure: 2 whose data (canary marker or verbatim content) reached another session, 2 that were served another session's data (a session on both sides counted once: 4)")
    expect(md).toMatch(/Approximate number of data subjects: \*\*at least 4 /)
    expect(md).toContain("Categories of data subjects: End users of this controller's application whose data reached another session, or who were served another session's data")
    // Drafted by the controller itself (no --on-behalf-of-controller), the case names every customer.
    const whole = await caseWith('controller')
    expect((await run(['report', 'article33', '--db', whole])).stdout).toContain('globex')
  })
})

describe('the nature of the breach in a draft for one controller', () => {
  it('states that controller\'s two sides as its processor notice counts them, never the whole case\'s sessions and customers', async () => {
    const incident = inject('incident')
    const dir = tempDir()
    const db = path.join(dir, 'case.db')
    await runJson(['triage', incident.logs, '--canaries', incident.canaries, '--db', db])
    const whole = path.join(dir, 'whole.db')
    fs.copyFileSync(db, whole)
    expect((await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'processor'])).code).toBe(0)
    const scope = await runJson<{exposure: {flows: Array<{source_tenant: string; recipient_tenant: string; responses: number}>}}>(['scope', '--db', db])
    // A tenant whose data reached others and whose users were served others' data.
    const tenants = [...new Set(scope.exposure.flows.map((f) => f.source_tenant))]
    const tenant = tenants.find((t) => scope.exposure.flows.some((f) => f.recipient_tenant === t && f.source_tenant !== t))!
    type Side = {responses: number; by_canary: number; verbatim_only_responses: number; sessions: string[]; other_sessions_of_yours: number; sessions_of_other_customers: number; to_customers?: number}
    const notice = await runJson<{your_data_reached_others: Side; you_received_other_data: {responses: number; by_canary: number; verbatim_only_responses: number; from_other_sessions_of_yours: number; from_sessions_of_other_customers: number}}>(['report', 'processor-notice', '--db', db, '--tenant', tenant, '--format', 'json'])
    const md = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', tenant])).stdout
    const nature = md.slice(md.indexOf('## 3.'), md.indexOf('### Cause'))
    const leaked = notice.your_data_reached_others
    const received = notice.you_received_other_data
    expect(nature).toContain(`${leaked.responses} responses to other sessions carried data of ${leaked.sessions.length} sessions of this controller's end users (${leaked.by_canary} with its canary marker, ${leaked.verbatim_only_responses} by verbatim text only)`)
    expect(nature).toMatch(new RegExp(`${received.responses} responses? served to this controller's end users carried another session's data \\(${received.by_canary} with a canary marker, ${received.verbatim_only_responses} by verbatim text only\\)`))
    expect(nature).toContain(`${received.from_sessions_of_other_customers} sessions of `)
    // The case-wide sentence counts the other customers' sessions among this controller's.
    expect(nature).not.toMatch(/The data of \d+ sessions? of \d+ customers? reached/)
    const fr = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', tenant, '--lang', 'fr'])).stdout
    expect(fr).toContain(`des utilisateurs finaux de ce responsable de traitement (${leaked.by_canary} avec son marqueur canari`)
    expect(fr).not.toMatch(/Les données de \d+ sessions? de \d+ clients? ont atteint/)
    // Drafted for the whole case (a controller's own draft), the case-wide sentence stays.
    expect((await run(['incident', 'open', '--db', whole, '--title', 'KV leak', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'controller'])).code).toBe(0)
    expect((await run(['report', 'article33', '--db', whole])).stdout).toMatch(/The data of (at least )?\d+ sessions of \d+ customers reached \d+ receiving customers/)
  })
})

describe('drafts of a case with no canary registry', () => {
  it('say that matching was by verbatim text only and what that cannot find, never "0 held a canary marker" or "by canary markers"', async () => {
    const incident = inject('incident')
    const db = path.join(tempDir(), 'case.db')
    await runJson(['triage', incident.logs, '--db', db])
    expect((await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'processor'])).code).toBe(0)
    const limit = "The case holds no canary registry: no canary marker could be attributed to a session, so responses were matched only by verbatim text of other sessions' earlier prompts and answers; a response that carried another session's data without repeating it verbatim would not be found."
    const register = (await run(['report', 'register', '--db', db])).stdout
    // Whether they also held a marker is not known with no registry: never "without a canary marker".
    // The generated logs hold marker-shaped tokens no registry places: each count is a lower bound (exposureKnown), "at least".
    expect(register).toMatch(/\| Facts \| At least \d+ responses carried data belonging to another session, each reproducing its text verbatim \(whether any also held a canary marker is not known: the case holds no canary registry\)\./)
    expect(register).not.toContain('without a canary marker')
    expect(register).toContain(limit)
    expect(register).not.toContain('0 of them held')
    // Answers here hold marker-shaped tokens nobody registered: the exposure total is not known (null); the verbatim-text flows are.
    const scope = await runJson<{exposure: null; orphan_sightings: number; provenance_flows: Array<{source_tenant: string}>}>(['scope', '--db', db])
    expect(scope.orphan_sightings).toBeGreaterThan(0)
    expect(scope.exposure).toBeNull()
    const tenant = scope.provenance_flows[0]!.source_tenant
    const notice = (await run(['report', 'processor-notice', '--db', db, '--tenant', tenant])).stdout
    expect(notice).toContain('by verbatim text (no canary registry); the evidence is preserved')
    // Without a registry no marker count is known: never "0 with your canary marker".
    expect(notice).not.toMatch(/\b0 with (your|a) canary marker/)
    expect(notice).toContain('(all by verbatim text: no canary registry, markers not checked)')
    // Each count is what verbatim text shows, a lower bound where markers in answers are attributed to no one (exposureKnown);
    // with no registry, whether a response by verbatim text held no marker is not known either (the "Verbatim, no marker" column).
    expect(notice).toMatch(/\| tenant\\#1 \| at least \d+ \| not known \| not known \| at least \d+ \|/)
    const noticeJson = await runJson<{your_data_reached_others: {by_canary: number | null; other_customers_detail: Array<{responses: number | null}>}; you_received_other_data: {by_canary: number | null}}>(['report', 'processor-notice', '--db', db, '--tenant', tenant, '--format', 'json'])
    expect(noticeJson.your_data_reached_others.by_canary).toBeNull()
    expect(noticeJson.you_received_other_data.by_canary).toBeNull()
    expect(noticeJson.your_data_reached_others.other_customers_detail.every((c) => c.responses === null)).toBe(true)
    expect(notice).toContain('- Your canary markers seen elsewhere (truncated): not applicable: the case holds no canary registry')
    expect(notice).toContain(limit)
    const draft = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', tenant])).stdout
    expect(draft).toMatch(/were searched for verbatim text of other sessions \(no canary registry: see below\)/)
    expect(draft).toContain(limit)
    expect(draft).not.toMatch(/\b0 with (its|a) canary marker/)
    expect(draft).not.toMatch(/searched for canary markers \(0 canary registry files\)/)
    expect(draft).toContain("| of which with that session's canary marker | not known: the case holds no canary registry |")
    expect(draft).toContain('| Responses with a marker of another customer (cross-tenant) | not known: the case holds no canary registry |')
    expect(draft).toMatch(/\| Marker-shaped strings registered to nobody \(orphans\) \| \d+ \(no registry: every marker found is unregistered\) \|/)
    // The console never states the marker counts of such a case as a finding.
    const scopeJson = await runJson<{contaminated_responses: number | null; flows: unknown; exposure: null; provenance_responses: number}>(['scope', '--db', db])
    expect(scopeJson).toMatchObject({contaminated_responses: null, flows: null})
    // Orphan markers in the answers: whose data they carry is not known, so neither is the exposure total.
    expect(scopeJson.exposure).toBeNull()
    const perNode = (scopeJson as unknown as {by_node: Array<{contaminated_responses: number | null; provenance_responses: number}>; by_hour: Array<{contaminated_responses: number | null}>})
    expect(perNode.by_node.length).toBeGreaterThan(0)
    expect(perNode.by_node.every((n) => n.contaminated_responses === null)).toBe(true)
    expect(perNode.by_hour.every((h) => h.contaminated_responses === null)).toBe(true)
    expect(scopeJson.provenance_responses).toBeGreaterThan(0)
    // The estimates' marker evidence is unknown too; their low bounds rest on the verbatim text.
    const estimates = scopeJson as unknown as {data_subjects: {low: number; evidence: Record<string, unknown>}; records_concerned: {evidence: Record<string, unknown>}}
    expect(estimates.data_subjects.evidence.sighting_source_sessions).toBeNull()
    expect(estimates.records_concerned.evidence.sighting_responses).toBeNull()
    expect(estimates.data_subjects.low).toBeGreaterThan(0)
    const view = await runJson<{leaked: {responses: number | null; first_seen: string | null; exposure: {responses: number; by_canary: number | null} | null; counterparts: Array<{responses: number | null; exposure_responses: number | null}>}}>(['scope', '--db', db, '--tenant', tenant])
    expect(view.leaked).toMatchObject({responses: null, first_seen: null})
    // Orphans: as the case's exposure, each side's is not known (a lower bound never read as a total).
    expect(view.leaked.exposure).toBeNull()
    expect(view.leaked.counterparts.every((c) => c.responses === null && c.exposure_responses === null)).toBe(true)
    const scopeText = (await run(['scope', '--db', db])).stdout
    // The console's marker figures read "unknown" under the note, never 0.
    expect(scopeText).toMatch(/^contaminated responses +unknown$/m)
    expect(scopeText).toMatch(/^ {2}with a canary marker +unknown$/m)
    expect(scopeText).not.toMatch(/^contaminated responses +0$/m)
    const tenantText = (await run(['scope', '--db', db, '--tenant', tenant])).stdout
    expect(tenantText).toMatch(/^responses with a foreign marker +unknown$/m)
    expect(tenantText).toMatch(/^ {2}with a marker +unknown$/m)
    expect(scopeText.split('\n')[0]).toBe('No canary registry in this case: the marker figures below cannot count anything (not known, not none); the exposure is by verbatim text only (crosstalk ingest canaries FILE).')
    const scanText = (await run(['scan', '--db', db])).stdout
    expect(scanText).toContain('Contaminated responses (canary markers): not known: the case holds no canary registry')
    expect(scanText).not.toMatch(/Contaminated responses: 0/)
    // The timeline and the case report's data: the markers' figures null, the verbatim text counted.
    const timeline = await runJson<{exposure: null; pairs: Array<{by_canary: number | null}>; hours: Array<{contaminated_responses: number | null; text_only_responses: number}>}>(['timeline', '--db', db])
    // Orphan markers in the answers: the exposure total is not known (null), as scope --json's.
    expect(timeline.exposure).toBeNull()
    expect(timeline.pairs.length).toBeGreaterThan(0)
    expect(timeline.pairs.every((p) => p.by_canary === null)).toBe(true)
    expect(timeline.hours.every((h) => h.contaminated_responses === null)).toBe(true)
    expect(timeline.hours.reduce((a, h) => a + h.text_only_responses, 0)).toBeGreaterThan(0)
    const timelineText = (await run(['timeline', '--db', db])).stdout
    expect(timelineText.split('\n')[0]).toMatch(/^No canary registry in this case: no marker can be attributed to a session, so the leaks below are by verbatim text only/)
    expect(timelineText).toContain('Responses carrying another session\'s data per hour, by verbatim text ░ (no canary registry: markers not checked)')
    expect(timelineText).not.toMatch(/^\S+Z\s+0\+\d+ /m)
    // The window closes on what opened it (verbatim text here), not on a "contaminated response".
    expect(timelineText).toContain('bug window closes (first to last of: provenance)')
    const page = await runJson<{scope: {contaminated_responses: number | null; exposure: null; provenance_responses: number}; flows: unknown; sightings: {by_class: Record<string, number | null>}}>(['report', 'case', '--db', db, '--format', 'json'])
    expect(page.scope.contaminated_responses).toBeNull()
    // Orphan markers in the answers: the exposure is not known (null), as scope --json's; the verbatim text is counted.
    expect(page.scope.exposure).toBeNull()
    expect((page.scope as unknown as {data_subjects: {evidence: Record<string, unknown>}}).data_subjects.evidence.sighting_source_sessions).toBeNull()
    expect(page.scope.provenance_responses).toBeGreaterThan(0)
    expect(page.flows).toBeNull()
    expect(page.sightings.by_class).toMatchObject({own: null, echo: null, cross_session: null, cross_tenant: null})
    expect(page.sightings.by_class.orphan).toBeGreaterThan(0)
    // The CSV tables: the markers' columns are empty cells (unknown), never 0; the markers' own tables are refused.
    const csvRows = (csv: string) => csv.trim().split('\r\n').map((l) => l.split(','))
    const exposureCsv = csvRows((await run(['scope', '--db', db, '--csv', '--table', 'exposure'])).stdout)
    expect(exposureCsv[0]).toEqual(['source_tenant', 'recipient_tenant', 'responses', 'with_marker'])
    expect(exposureCsv.length).toBeGreaterThan(1)
    expect(exposureCsv.slice(1).every((r) => r[3] === '' && Number(r[2]) > 0)).toBe(true)
    const hoursCsv = csvRows((await run(['scope', '--db', db, '--csv', '--table', 'hours'])).stdout)
    expect(hoursCsv.slice(1).every((r) => r[1] === '' && r[2] === '')).toBe(true)
    const flowsCsv = await run(['scope', '--db', db, '--csv', '--table', 'flows'])
    expect(flowsCsv.code).toBe(1)
    expect(flowsCsv.stderr).toContain('--table flows: the case holds no canary registry')
    const tenantCsv = csvRows((await run(['scope', '--db', db, '--csv', '--tenant', tenant])).stdout)
    expect(tenantCsv[0]![4]).toBe('responses')
    expect(tenantCsv.slice(1).every((r) => r[4] === '')).toBe(true)
    const listing = await run(['sightings', '--db', db, '--class', 'cross_tenant'])
    // The listing's first line; what the case could not read, if anything, is named after it (notReadEvidence).
    const [first, ...rest] = listing.stdout.trim().split('\n')
    expect(first).toBe('No sightings.')
    expect(rest.join(' ')).toMatch(/^(|Not everything was read: .*)$/)
    expect(listing.stderr).toContain('warning: the case holds no canary registry: no marker can be attributed to a session, so own, echo, cross_session and cross_tenant sightings cannot be found')
  })
})

describe('assess in a processor\'s case', () => {
  it('says whose decision notifying the authority and the data subjects is, and the processor\'s own duty', async () => {
    const processor = await caseWith('processor')
    const r = await runJson<{role_note: string | null; suggested: string}>(['assess', '--db', processor])
    expect(r.role_note).toMatch(/^As processor, notifying the authority and the data subjects is each controller's decision \(Art\. 33\(1\), 34\(1\)\)/)
    expect((await run(['assess', '--db', processor])).stdout).toContain("Your own duty is to notify each of them without undue delay (Art. 33(2): crosstalk report processor-notice).")
    const controller = await caseWith('controller')
    expect((await runJson<{role_note: string | null}>(['assess', '--db', controller])).role_note).toBeNull()
  })
})

describe('a letter to one controller\'s data subjects', () => {
  it('counts its data subjects as its Article 33 draft does, each side apart, never what they were shown', async () => {
    const db = await caseWith('processor', ['--processor-name', 'ModelHost'])
    // acme's data reached others from 2 of its sessions (acme-s1, acme-s2); acme-s3 and acme-s4 were shown others' data.
    const letter = (await run(['report', 'article34', '--db', db, '--on-behalf-of-controller', 'acme', '--lang', 'en'])).stdout
    expect(letter).toContain("At least 4 conversations of this service's users were affected (one conversation counts as one person; those the logs show, there may be more): 2 whose content reached someone else, 2 that were shown someone else's content.")
    // globex's: globex-s1's data reached acme, globex-s1 and globex-s2 were shown others' data; acme's sessions that leaked among themselves are not its.
    const globex = (await run(['report', 'article34', '--db', db, '--on-behalf-of-controller', 'globex', '--lang', 'en'])).stdout
    expect(globex).toContain("At least 2 conversations of this service's users were affected (one conversation counts as one person; those the logs show, there may be more): 1 whose content reached someone else, 2 that were shown someone else's content (a conversation on both sides is counted once).")
  })
})

describe('a draft for a controller before its clock and bounds are known', () => {
  it('says whose deadline is unknown and why, states the case\'s pool, and says why the bounds are missing (never "no incident" or "pool not known")', async () => {
    const db = await caseWith('processor', ['--processor-name', 'ModelHost'])
    expect((await run(['scan', '--db', db, '--pool-tokens', '1000'])).code).toBe(0)
    const md = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', 'acme'])).stdout
    expect(md).toContain("**DRAFT. The controller's deadline is not known yet: its 72 hours run from when our notice reached it, which is not recorded.**")
    expect(md).not.toContain('No incident opened')
    expect(md).toContain('| Responses at risk (prompt at or over the KV pool of 1000 tokens) |')
    expect(md).not.toContain('the KV pool size is not known')
    expect(md).not.toContain('give --pool-tokens')
    expect(md).toContain("to be completed: upper bound of this controller's data subjects and records: the bounds (at-risk responses, sessions a leaking decode node served) are computed for the whole case")
    expect(md).toContain("high: not computed for one customer's share of the case (crosstalk scope bounds the whole case by exposure).")
    const fr = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', 'acme', '--lang', 'fr'])).stdout
    expect(fr).toContain("Échéance du responsable de traitement non connue à ce stade")
    expect(fr).not.toMatch(/Aucun incident ouvert|pool KV inconnue/)
    expect(fr).toContain("Borne haute : non calculée pour la part d'un seul client")
    // The whole case, drafted by its controller, still has its bounds.
    // The letter to the people affected: its plain-language subject, never the incident's
    // internal title, and no "From" line with the processor's tenant id.
    const a34 = (await run(['report', 'article34', '--db', db, '--on-behalf-of-controller', 'acme', '--lang', 'en'])).stdout
    expect(a34.split('\n')[0]).toBe('# DRAFT: Important information about your personal data')
    expect(a34).not.toContain('KV leak')
    expect(a34).not.toMatch(/^From: acme$/m)
    expect(a34).toContain("to be completed: the controller's name as its data subjects know it, and its contact details: none is recorded for this controller in this case")
    const scope = await runJson<{data_subjects: {high: number | null}; records_concerned: {high: number | null}}>(['scope', '--db', db])
    expect(scope.data_subjects.high).not.toBeNull()
    expect(scope.records_concerned.high).not.toBeNull()
  })
})

describe('the processor notices go to exactly the tenants of the exposure', () => {
  it('one file per tenant on either side of the exposure', async () => {
    const db = await caseWith('processor')
    const scope = await runJson<{exposure: {flows: Array<{source_tenant: string; recipient_tenant: string}>}}>(['scope', '--db', db])
    const tenants = new Set(scope.exposure.flows.flatMap((f) => [f.source_tenant, f.recipient_tenant]))
    const out = path.join(tempDir(), 'notices')
    const r = await runJson<{notices: Array<{out: string}>}>(['report', 'processor-notice', '--db', db, '--all', '--out', out])
    expect(r.notices).toHaveLength(tenants.size)
    expect(fs.readdirSync(out)).toHaveLength(tenants.size)
  })

  it('counts a customer\'s own other sessions apart from other customers, on both sides (never "received by N other customers" for its own sessions)', async () => {
    const incident = inject('incident')
    const dir = tempDir()
    const db = path.join(dir, 'case.db')
    await runJson(['triage', incident.logs, '--canaries', incident.canaries, '--db', db])
    expect((await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'processor'])).code).toBe(0)
    const out = path.join(dir, 'notices')
    await runJson(['report', 'processor-notice', '--db', db, '--all', '--format', 'json', '--out', out])
    type Side = {other_customers_detail: Array<{sessions: number}>}
    type Notice = {
      what_happened: string[]
      your_data_reached_others: Side & {responses: number; other_sessions_of_yours: number; sessions_of_other_customers: number}
      you_received_other_data: Side & {responses: number; from_other_sessions_of_yours: number; from_sessions_of_other_customers: number}
    }
    const notices = fs.readdirSync(out).map((f) => JSON.parse(fs.readFileSync(path.join(out, f), 'utf8')) as Notice)
    const sum = (s: Side): number => s.other_customers_detail.reduce((a, c) => a + c.sessions, 0)
    let ownSeen = 0
    for (const n of notices) {
      const leaked = n.your_data_reached_others
      const received = n.you_received_other_data
      expect(leaked.sessions_of_other_customers).toBe(sum(leaked))
      expect(received.from_sessions_of_other_customers).toBe(sum(received))
      if (leaked.responses > 0) expect(n.what_happened[0]!.includes('other session of yours') || n.what_happened[0]!.includes('other sessions of yours')).toBe(leaked.other_sessions_of_yours > 0)
      if (received.responses > 0) expect(/other sessions? of yours/.test(n.what_happened[1]!)).toBe(received.from_other_sessions_of_yours > 0)
      ownSeen += received.from_other_sessions_of_yours
    }
    // The generated incident has leaks between sessions of one tenant: the test sees both sides.
    expect(ownSeen).toBeGreaterThan(0)
    // The Markdown notice gives the same split in its list of what the customer's users received.
    const files = fs.readdirSync(out)
    const i = notices.findIndex((n) => n.you_received_other_data.from_other_sessions_of_yours > 0)
    const tenant = (JSON.parse(fs.readFileSync(path.join(out, files[i]!), 'utf8')) as {tenant_id: string}).tenant_id
    const md = (await run(['report', 'processor-notice', '--db', db, '--tenant', tenant])).stdout
    const got = notices[i]!.you_received_other_data
    expect(md).toContain(`- Other sessions of yours whose data they carried: ${got.from_other_sessions_of_yours}\n`)
    expect(md).toMatch(new RegExp(`- Sessions of other customers whose data they carried: ${got.from_sessions_of_other_customers}, across \\d+ other customers?\\n`))
    expect(md).toContain('first and last are responses with that customer\'s marker')
  })
})
