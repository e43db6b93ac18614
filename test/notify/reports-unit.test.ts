import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {assumedInputs, buildArticle33} from '../../src/notify/article33.js'
import {buildArticle34} from '../../src/notify/article34.js'
import {computeSeverity, defaultInputs, planAssessment} from '../../src/notify/assess.js'
import type {AssessmentRecord} from '../../src/notify/assessment-store.js'
import {computeCaseClock} from '../../src/notify/clock.js'
import {escapeMd, unescapeMd} from '../../src/notify/escape.js'
import type {CaseFacts, NotificationFact} from '../../src/notify/facts.js'
import type {IncidentRecord} from '../../src/notify/incident.js'
import {notificationLate} from '../../src/notify/notifications.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {renderArticle33Markdown, renderArticle34Markdown, renderProcessorNoticeMarkdown, renderRegisterMarkdown} from '../../src/notify/render-markdown.js'
import {reportJsonSchema, REPORT_SCHEMAS} from '../../src/notify/schemas.js'
import {assertGrounded, UngroundedStatement} from '../../src/notify/statements.js'
import {renderTemplate} from '../../src/notify/template.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

const INCIDENT: IncidentRecord = {
  title: 'Leak', role: 'controller', aware_at: '2026-10-23T08:00:00.000Z', awareness_basis: 'on-call confirmed', awareness_decided_by: 'CISO',
  detected_at: '2026-10-23T07:10:00.000Z', investigation_started_at: '2026-10-23T07:20:00.000Z', breach_started_at: null, breach_ended_at: null,
  discovery: 'customer report', controller_name: 'Acme Ltd', controller_contact: 'legal@acme.example', processor_name: 'ModelHost', dpo_name: 'J. Doe',
  dpo_contact: 'dpo@acme.example', lead_authority: 'DPC (Ireland)', countries: 'IE, FR', systems: null, measures_taken: 'cache disabled; keys rotated',
  measures_proposed: null, internal_reference: 'INC-7', created_at: '2026-10-23T08:00:00.000Z', updated_at: '2026-10-23T08:00:00.000Z',
  cause: null, cause_category: null, reporting_person: null, reporting_person_role: null, sector: null, organisation_size: null, economic_activity: null,
  eea_representative: null, informed_by: null, informed_at: null, measures_before: null, police_report: null, other_authorities: null,
  establishment_countries: null, subjects_per_country: null, authorities_notified: null, delay_reason: null, controller_deadline_hours: null,
  cross_border: null, data_unintelligible: null,
}

const EXPOSURE = {
  responses: 14, by_canary: 12, by_text_only: 2, sessions: 8, source_tenants: 2, recipient_tenants: 3,
  flows: [{source_tenant: 'acme', recipient_tenant: 'acme', responses: 3}, {source_tenant: 'acme', recipient_tenant: 'globex', responses: 11}],
}

/** A hand-built case: no database involved. */
function fixture(now = '2026-10-24T08:00:00.000Z', incident: Partial<IncidentRecord> | null = {}, notifications: NotificationFact[] = []): CaseFacts {
  const inc = incident === null ? null : {...INCIDENT, ...incident}
  return {
    generated_at: now,
    incident: inc,
    amendments: [],
    role_changes: [],
    clock: inc ? computeCaseClock(inc, notifications, new Date(now), ['acme', 'globex']) : null,
    notifications,
    notification_problems: [],
    assessment: null,
    totals: {records: 1000, tenants: 5, sessions: 200, log_files: 2, registry_files: 1, bad_lines: 0},
    detection: {complete: true, files_not_scanned: 0, records_not_scanned: 0, files_unfinished: 0, never_scanned: false, unfinished_scan_started_at: null, registry_changed: false, sighting_rules_changed: false, files_extracted_earlier: 0, provenance: 'current', provenance_parameters: {min_words: 12, boilerplate_tenants: 3}, provenance_boilerplate_responses: 0, last_scan_at: '2026-10-23T09:00:00.000Z'},
    scope: {
      contaminated_responses: 12, cross_tenant_responses: 9, cross_session_responses: 3, exposed_sessions: 7, exposed_tenants: 2, recipient_tenants: 3,
      contaminated_without_prompt: 0,
      contaminated_prompt_in_part: 0,
      prompt_in_part_members: [],
      first_seen: '2026-10-22T10:00:00.000Z', last_seen: '2026-10-22T15:59:00.000Z', at_risk_responses: null, at_risk_unknown_records: null,
      flows: [{source_tenant: 'acme', recipient_tenant: 'globex', responses: 9}, {source_tenant: 'acme', recipient_tenant: 'acme', responses: 3}],
      exposure: EXPOSURE,
      pool_tokens: null, orphan_sightings: 0, provenance_responses: 4, provenance_only_responses: 2, bug_window: null,
      by_hour: [{hour: '2026-10-22T10:00:00.000Z', responses: 4, cross_tenant_responses: 3, provenance_responses: 0, text_only_responses: 0, at_risk_responses: null}],
      by_node: [{node: 'gpu-3', responses: 12, cross_tenant_responses: 9, cross_session_responses: 3, provenance_responses: 0, at_risk_responses: null, first_seen: null, last_seen: null}],
      data_subjects: {low: 8, high: 19, method: 'sessions'},
      records: {low: 14, high: 14, method: 'responses'},
      categories: [{kind: 'email', label: 'contact details (e-mail addresses)', count: 12, responses: 5}, {kind: 'iban', label: 'iban', count: 1, responses: 1}, {kind: 'free_text', label: 'free text', count: 14, responses: 14}],
      exposure_first: '2026-10-22T10:00:00.000Z', exposure_last: '2026-10-22T16:30:00.000Z',
      method: 'exposure',
    },
    tenants: [
      {
        tenant_id: 'acme', leaked_sessions: ['s1', 's2'], responses_carrying_its_data: 14, leaked_by_canary: 12, provenance_only_leaked: 2, recipient_sessions_same_tenant: 3,
        recipient_sessions_other_tenants: 4, recipient_tenants_other: 1, first_leaked: '2026-10-22T10:00:00.000Z', last_leaked: '2026-10-22T16:30:00.000Z', markers_truncated: ['CANARY-a1a1…'],
        pii_in_leaked: [{kind: 'email', label: 'contact details (e-mail addresses)', count: 12, responses: 5}], received_foreign_responses: 0, received_by_canary: 0, received_by_text_only: 0, received_source_not_named: 0,
        receiving_sessions: [], received_from_tenants: 0, received_source_customer_not_named: 0, source_sessions_same_tenant: 0, source_sessions_other_tenants: 0, first_received: null, last_received: null, pii_in_received: [], own_cross_session_responses: 3, pii_within_own_sessions: [], at_risk_responses: null, at_risk_unknown_records: null,
        possible_source_responses: 0, possible_source_sessions: [], possible_sources_among: null, possible_sources_not_recorded: 0, source_unknown_responses: 0,
        counterparts_leaked_to: [{label: 'tenant#1', responses: 9, provenance_responses: 2, exposure_responses: 11, sessions: 4, first_seen: null, last_seen: null}], counterparts_received_from: [],
      },
    ],
    provenance: null,
    replay: null,
    evidence: [{name: 'a.jsonl', sha256: 'f'.repeat(64), size: 10, kind: 'log', records: 1000}],
    excerpts: null,
    for_tenant: null,
  }
}

function assessment(over: Partial<AssessmentRecord> = {}): AssessmentRecord {
  return {id: 3, at: '2026-10-24T07:00:00.000Z', inputs: {}, dpc: 3, ei: 1, cb: 0.5, se: 3.5, band: 'high', suggested: 'notify-subjects', decision: 'notify', rationale: 'business customers only', decided_by: 'DPO', ...over}
}

function notification(over: Partial<NotificationFact>): NotificationFact {
  return {id: 1, phase: 'initial', at: '2026-10-24T10:00:00.000Z', reference: 'REF-1', recipient: 'authority', file_path: null, file_sha256: null, file_size: null, recorded_at: '2026-10-24T10:00:00.000Z', delay_reason: null, late: false, ...over}
}

describe('buildArticle33 from a hand-built CaseFacts', () => {
  it('fills Art. 33(3)(a)-(d) from the exposure and leaves answered items out of the open list', () => {
    const d = buildArticle33(fixture())
    expect(d.contact_point).toEqual({name: 'J. Doe', contact: 'dpo@acme.example'})
    expect(d.data_subjects.approximate).toMatchObject({low: 8, high: 19})
    expect(d.measures_taken).toEqual(['cache disabled', 'keys rotated'])
    // the exposure, canary and text together, each part shown
    expect(d.nature.summary[0]).toMatch(/^14 responses carried data belonging to another session: 12 of them held that session's canary marker and 2 reproduced its text verbatim without a marker\. The data of 8 sessions of 2 customers reached 3 receiving customers/)
    const open = d.open_items.map((o) => o.item).join('\n')
    expect(open).not.toMatch(/controller name/)
    expect(open).not.toMatch(/DPO/)
    expect(open).toMatch(/exact number of data subjects/)
    expect(open).toMatch(/risk assessment/)
    expect(open).not.toMatch(/source is not established/)
    const md = renderArticle33Markdown(d)
    expect(md).toContain('| 48 | Date and time the controller became aware | 2026-10-23T08:00:00.000Z |')
    expect(md).toContain('| 114 | Lead supervisory authority | DPC (Ireland) |')
    // A node's verbatim-text count also holds responses that carried a marker: its column says so.
    expect(md).toContain('| Node | With a marker | Cross-tenant | Verbatim text (with or without a marker) | At risk |')
  })

  it('rests every statement on a recorded fact; measures, notifications, decisions and causes only on theirs', () => {
    const d = buildArticle33(fixture('2026-10-24T12:00:00.000Z', {cause: 'stale KV pages read after an over-pool handoff', cause_category: 'internal-non-malicious'}, [notification({id: 7})]))
    expect(d.statements.length).toBeGreaterThan(5)
    for (const s of d.statements) expect(s.rests_on.length).toBeGreaterThan(0)
    expect(d.statements.filter((s) => s.section === 'measures_taken').map((s) => s.rests_on)).toEqual([['incident.measures_taken'], ['incident.measures_taken']])
    expect(d.statements.find((s) => s.section === 'notifications')).toMatchObject({rests_on: ['notification#7']})
    expect(d.statements.filter((s) => s.section === 'cause').flatMap((s) => s.rests_on)).toEqual(['incident.cause_category', 'incident.cause'])
    expect(() => assertGrounded([{section: 'measures_taken', text: 'The cache was isolated per customer.', rests_on: ['scan.exposure']}])).toThrow(UngroundedStatement)
    expect(() => assertGrounded([{section: 'cause', text: 'A fault in the shared cache.', rests_on: ['rule:Art. 33']}])).toThrow(UngroundedStatement)
  })

  it('an overdue draft lists the reasons for the delay as an open item; only --final refuses without them', () => {
    const late = fixture('2026-10-26T08:00:00.001Z')
    expect(late.clock!.status).toBe('overdue')
    const draft = buildArticle33(late)
    expect(draft.draft).toBe(true)
    expect(draft.open_items.find((o) => o.ref.includes('49'))?.item).toMatch(/reasons for the delay/)
    expect(draft.form_fields.find((f) => f.id === '49')).toMatchObject({open: true, value: expect.stringMatching(/^to be completed: reasons for the delay/)})
    expect(() => buildArticle33(late, {final: true, acceptOpenItemsBy: 'DPO'})).toThrow(/--delay-reason/)
    const d = buildArticle33(late, {delayReason: 'logs restored late', final: true, acceptOpenItemsBy: 'DPO'})
    expect(d.delay_reason).toBe('logs restored late')
    expect(d.form_fields.find((f) => f.id === '49')!.value).toBe('logs restored late')
    expect(renderArticle33Markdown(d)).toContain('# FINAL')
    // recorded with the incident, the reason serves too
    expect(buildArticle33(fixture('2026-10-26T08:00:00.001Z', {delay_reason: 'awaited the processor'}), {final: true, acceptOpenItemsBy: 'DPO'}).delay_reason).toBe('awaited the processor')
  })

  it('a late initial notification is flagged late wherever it appears, and needs its reasons', () => {
    const sent = notification({at: '2026-10-27T00:00:00.000Z', late: true, delay_reason: null})
    const f = fixture('2026-10-28T00:00:00.000Z', {}, [sent])
    expect(f.clock).toMatchObject({status: 'notified', late: true, notified_at: '2026-10-27T00:00:00.000Z'})
    const d = buildArticle33(f)
    expect(d.clock).toMatchObject({status: 'notified', late: true})
    expect(d.notifications[0]).toMatchObject({late: true})
    expect(d.open_items.some((o) => /reasons for the delay/.test(o.item))).toBe(true)
    const md = renderArticle33Markdown(d)
    expect(md).toMatch(/notified \(LATE\)/)
    expect(md).not.toMatch(/not applicable \(within/)
    // no reason recorded anywhere: the draft says so, it never claims reasons were given
    expect(md).not.toMatch(/reasons for the delay given/)
    expect(md).toMatch(/after the deadline; no reasons for the delay are recorded/)
    expect(() => buildArticle33(f, {final: true, acceptOpenItemsBy: 'DPO'})).toThrow(/reasons for the delay/)
    // recorded with the notification, or with the incident: quoted as recorded
    expect(renderArticle33Markdown(buildArticle33(fixture('2026-10-28T00:00:00.000Z', {}, [{...sent, delay_reason: 'logs restored late'}])))).toMatch(/reasons for the delay: logs restored late/)
    expect(renderArticle33Markdown(buildArticle33(fixture('2026-10-28T00:00:00.000Z', {delay_reason: 'awaited the processor'}, [sent])))).toMatch(/reasons for the delay: awaited the processor/)
  })

  it('without --phase, a draft after a recorded initial notification to the authority is a follow-up naming it', () => {
    expect(buildArticle33(fixture()).phase).toBe('initial')
    const d = buildArticle33(fixture('2026-10-25T08:00:00.000Z', {}, [notification({reference: 'DPC-2026-17'})]))
    expect(d.phase).toBe('follow-up')
    expect(d.form_fields.find((f) => f.label.startsWith('Reference') || /previous/i.test(f.label))?.value ?? '').not.toMatch(/not applicable \(initial notification\)/)
    expect(JSON.stringify(d.form_fields)).toContain('DPC-2026-17')
    // asked for, an initial draft is still an initial draft
    expect(buildArticle33(fixture('2026-10-25T08:00:00.000Z', {}, [notification({})]), {phase: 'initial'}).phase).toBe('initial')
  })

  it('only an initial notification can be late: a follow-up after 72 hours is Art. 33(4) information in phases', () => {
    const incident = {role: 'controller' as const, aware_at: '2026-10-23T08:00:00.000Z', controller_deadline_hours: null}
    expect(notificationLate(incident, {phase: 'initial', at: '2026-10-27T00:00:00.000Z', recipient: 'authority'})).toBe(true)
    expect(notificationLate(incident, {phase: 'follow-up', at: '2026-10-27T00:00:00.000Z', recipient: 'authority'})).toBe(false)
    expect(notificationLate(incident, {phase: 'initial', at: '2026-10-24T00:00:00.000Z', recipient: 'authority'})).toBe(false)
  })

  it('the form\'s description and consequences read as sentences, never run on with "; " before a capital', () => {
    const f = fixture('2026-10-24T08:00:00.000Z', {cause: 'stale KV pages read after an over-pool handoff', cause_category: 'internal-non-malicious'})
    for (const language of ['en', 'fr'] as const) {
      const md = renderArticle33Markdown(buildArticle33(f, {language}))
      const rows = md.split('\n').filter((l) => /^\| (62|79-85) \|/.test(l))
      expect(rows).toHaveLength(2)
      for (const row of rows) {
        const answer = row.split(' | ').at(-1)!
        expect(answer).not.toMatch(/; \p{Lu}/u)
        expect(answer).toMatch(/[.!?] \|$/)
      }
    }
  })

  it('a table row\'s label never holds an open item: an unrecorded KV pool size is said in words, the figure left open', () => {
    const noPool = fixture()
    const withPool = fixture()
    withPool.scope = {...withPool.scope!, pool_tokens: 681280, at_risk_responses: 272}
    for (const language of ['en', 'fr'] as const) {
      for (const facts of [noPool, withPool]) {
        const md = renderArticle33Markdown(buildArticle33(facts, {language}))
        const labels = md.split('\n').filter((l) => l.startsWith('| ')).map((l) => l.split(' | ')[0]!)
        expect(labels.filter((l) => /to be completed|à compléter/i.test(l))).toEqual([])
      }
    }
    expect(renderArticle33Markdown(buildArticle33(noPool))).toContain('| Responses at risk (prompt at or over the KV pool, whose size is not recorded) | to be completed')
    expect(renderArticle33Markdown(buildArticle33(withPool))).toContain('| Responses at risk (prompt at or over the KV pool of 681280 tokens) | 272 |')
    expect(renderArticle33Markdown(buildArticle33(noPool, {language: 'fr'}))).toContain('pool KV, dont la taille n\'est pas enregistrée) | à compléter')
  })

  it('says so when detection is incomplete: in its detection key, the Markdown, and as an open item', () => {
    const f = fixture()
    f.detection = {...f.detection, complete: false, files_not_scanned: 2, records_not_scanned: 40}
    const d = buildArticle33(f)
    expect(d.detection).toMatchObject({complete: false, files_not_scanned: 2, note: expect.stringMatching(/2 log files with 40 records ingested since the last scan/)})
    expect(d.open_items.map((o) => o.item).join('\n')).toMatch(/detection is incomplete \(2 log files not scanned/)
    expect(renderArticle33Markdown(d)).toMatch(/> \*\*Detection is incomplete: 2 log files with 40 records/)
    expect(renderArticle33Markdown(buildArticle33(fixture()))).not.toMatch(/Detection is incomplete/)
  })

  it('on an empty case with no incident, states nothing as applicable: everything is to be completed', () => {
    const f = fixture('2026-10-24T08:00:00.000Z', null)
    f.scope = null
    f.evidence = []
    f.tenants = []
    f.totals = {records: 0, tenants: 0, sessions: 0, log_files: 0, registry_files: 0, bad_lines: 0}
    f.detection = {...f.detection, never_scanned: true, last_scan_at: null}
    const d = buildArticle33(f)
    const md = renderArticle33Markdown(d)
    expect(md).not.toMatch(/not applicable \(within/)
    expect(d.form_fields.find((f) => f.id === '49')).toMatchObject({open: true})
    expect(d.open_items.map((o) => o.item)).toEqual(expect.arrayContaining([expect.stringMatching(/incident record/), expect.stringMatching(/the scope/)]))
    expect(d.statements.filter((s) => ['nature', 'consequences', 'measures_taken', 'cause', 'decision'].includes(s.section))).toEqual([])
    const field = (id: string) => d.form_fields.find((x) => x.id === id)!
    // no date known at all: "estimated dates" is not answered "yes (first and last affected response)"
    expect(field('45')).toMatchObject({open: true})
    for (const id of ['55', '56', '70-71']) expect(field(id), id).toMatchObject({open: true, value: expect.stringMatching(/detection has not run/)})
  })

  it('field 44 calls only the start estimated from the logs: a recorded end is named as recorded (en, fr)', () => {
    const field = (d: ReturnType<typeof buildArticle33>, id: string) => d.form_fields.find((x) => x.id === id)!
    const ended = fixture('2026-10-24T08:00:00.000Z', {breach_ended_at: '2026-10-22T18:00:00.000Z'})
    const en = buildArticle33(ended)
    expect(field(en, '44').value).toBe('2026-10-22T10:00:00.000Z – 2026-10-22T18:00:00.000Z (start estimated: first affected response in the logs; end as recorded)')
    expect(field(en, '44').value).not.toMatch(/first and last/)
    expect(field(en, '45').value).toMatch(/^yes for the start .*the end is recorded/)
    const fr = buildArticle33(ended, {language: 'fr'})
    expect(field(fr, '44').value).toMatch(/début estimé : première réponse concernée dans les journaux ; fin telle qu’enregistrée/)
    expect(field(fr, '44').value).not.toMatch(/première et dernière/)
    // neither recorded: one time from the logs and the end not confirmed, not "first and last"
    const none = buildArticle33(fixture())
    expect(field(none, '44').value).toBe('2026-10-22T10:00:00.000Z – end not confirmed (start estimated: first affected response in the logs)')
    // a recorded start: nothing is estimated
    const started = buildArticle33(fixture('2026-10-24T08:00:00.000Z', {breach_started_at: '2026-10-22T09:00:00.000Z', breach_ended_at: '2026-10-22T18:00:00.000Z'}))
    expect(field(started, '44').value).toBe('2026-10-22T09:00:00.000Z – 2026-10-22T18:00:00.000Z')
  })

  it('after a whole scan that found nothing, the form says none was found instead of "detection has not run"', () => {
    const f = fixture()
    const none = {responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []}
    f.scope = {...f.scope!, contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, exposed_sessions: 0, exposed_tenants: 0, recipient_tenants: 0, first_seen: null, last_seen: null, flows: [], exposure: none, provenance_responses: 0, provenance_only_responses: 0, categories: [], exposure_first: null, exposure_last: null}
    f.tenants = []
    const d = buildArticle33(f)
    const field = (id: string) => d.form_fields.find((x) => x.id === id)!
    for (const id of ['55', '56', '70-71']) expect(field(id), id).toMatchObject({open: false, value: expect.stringMatching(/^none: detection over every log found no response/)})
    expect(field('45')).toMatchObject({open: true})
    // a partial scan that found nothing is still an open item
    f.detection = {...f.detection, complete: false, files_not_scanned: 1, records_not_scanned: 10}
    expect(buildArticle33(f).form_fields.find((x) => x.id === '70-71')).toMatchObject({open: true, value: expect.stringMatching(/detection is incomplete/)})
  })
})

describe('Article 34, the processor notice and the register say only what was recorded', () => {
  it('article 34 never claims an authority or a provider was told, nor a cause, until recorded; it carries DRAFT', () => {
    const f = fixture('2026-10-24T08:00:00.000Z', {measures_taken: null})
    const d = buildArticle34(f)
    const md = renderArticle34Markdown(d)
    expect(md.split('\n')[0]).toMatch(/^# DRAFT: /)
    expect(md).not.toMatch(/told the data protection authority|told the AI provider|notified the data protection authority|fault, not an attack/i)
    expect(d.what_we_did).toEqual([])
    expect(d.open_items.map((o) => o.section)).toEqual(expect.arrayContaining(['measures_taken', 'cause', 'decision']))
    const told = buildArticle34(fixture('2026-10-24T12:00:00.000Z', {cause_category: 'internal-non-malicious'}, [notification({id: 4})]))
    expect(told.what_we_did).toContain('We notified the data protection authority on 2026-10-24T10:00:00.000Z.')
    expect(told.statements.find((s) => /notified the data protection authority/.test(s.text))!.rests_on).toEqual(['notification#4'])
    expect(told.what_happened.join(' ')).toMatch(/This was a fault, not an attack\./)
    // The recorded cause follows as a sentence of its own, in either language.
    const withCause = fixture('2026-10-24T12:00:00.000Z', {cause_category: 'internal-non-malicious', cause: 'stale KV pages read after an over-pool handoff'})
    expect(buildArticle34(withCause).what_happened).toContain('This was a fault, not an attack. Stale KV pages read after an over-pool handoff.')
    expect(buildArticle34(withCause, {language: 'fr'}).what_happened).toContain("Il s'agit d'un défaut, non d'une attaque. Stale KV pages read after an over-pool handoff.")
  })

  it('article 34 is written to each affected person: it never says each conversation held every kind of data found, nor only what they wrote', () => {
    const d = buildArticle34(fixture())
    const md = renderArticle34Markdown(d)
    // The fixture's exposure has personal-data kinds besides the conversation itself.
    expect(d.what_data.length).toBeGreaterThan(1)
    expect(d.what_data_note).toBe('Not every conversation held each of these: the personal details listed after the first point were found in some of the affected conversations only.')
    expect(md).toContain(`\n\n${d.what_data_note}\n`)
    // Verbatim-text evidence includes earlier answers, not only prompts.
    expect(d.what_data[0]).toBe('parts of your conversation with the assistant: what you wrote, or the answers it gave you')
    expect(d.what_happened[0]).toContain('Part of your conversation (what you wrote, or the answers you received) may have been shown to someone else')
    // No run of blank lines where a section was left out.
    expect(md).not.toMatch(/\n\n\n/)
    // A value found in the leaked text may be anyone's: a kind is never said to be the reader's own.
    const fr = buildArticle34(fixture(), {language: 'fr'})
    expect(d.what_data).toContain('e-mail addresses')
    expect(fr.what_data).toContain('des adresses électroniques')
    for (const r of [d, fr]) expect([...r.what_data.slice(1), ...r.consequences.slice(1)].filter((l) => /\b(your|vos|votre)\b/i.test(l))).toEqual([])
  })

  it('article 34 drafted without --lang keeps the language as an open item; with it, none', () => {
    const open = (d: ReturnType<typeof buildArticle34>) => d.open_items.filter((o) => o.section === 'language').map((o) => o.item)
    expect(open(buildArticle34(fixture()))).toEqual([expect.stringMatching(/^the language of the communication: none was chosen/)])
    expect(open(buildArticle34(fixture(), {language: 'en'}))).toEqual([])
    expect(open(buildArticle34(fixture(), {language: 'fr'}))).toEqual([])
  })

  it('the Art. 34 status follows the recorded decision, and says when it departs from the suggestion', () => {
    const f = fixture()
    f.assessment = assessment()
    const d = buildArticle33(f)
    expect(d.article34.status).toMatch(/not to be informed under the recorded decision .*although the ENISA method suggested informing them \(SE 3\.5, high\)/)
    expect(d.article34.status).not.toMatch(/did not find a likely high risk/)
    f.assessment = assessment({decision: 'notify-subjects'})
    expect(buildArticle33(f).article34.status).toMatch(/are to be informed/)
    // and an Art. 34 draft notes when the decision does not require it
    f.assessment = assessment()
    expect(buildArticle34(f).notes.join(' ')).toMatch(/not required by it/)
  })

  it('a processor notice states no containment and no cause until recorded, and never names another tenant', () => {
    const f = fixture('2026-10-24T08:00:00.000Z', {role: 'processor', measures_taken: null})
    const n = buildProcessorNotice(f, 'acme')
    const md = renderProcessorNoticeMarkdown(n)
    expect(md.split('\n')[0]).toMatch(/^# DRAFT: /)
    expect(md).not.toMatch(/isolated per customer|has been isolated|A fault in our shared/i)
    expect(n.containment).toEqual([])
    expect(n.open_items.map((o) => o.section)).toEqual(expect.arrayContaining(['containment', 'cause']))
    expect(md).not.toContain('globex')
    // One other customer, in the singular (never "customer(s)").
    expect(md).toMatch(/\b1 other customer(?![s(])/)
    // In French too: one other customer in the singular, more in the plural, never "client(s)".
    const fr = renderProcessorNoticeMarkdown(buildProcessorNotice(f, 'acme', {language: 'fr'}))
    expect(fr).toMatch(/chez 1 autre client\b(?![s(])/)
    expect(fr).not.toContain('(s)')
    expect(n.your_data_reached_others).toMatchObject({responses: 14, by_canary: 12, verbatim_only_responses: 2})
  })

  it('the register lists remedial action, decision and cause as to be completed until recorded', () => {
    const r = buildRegisterEntry(fixture('2026-10-24T08:00:00.000Z', {measures_taken: null}))
    // Reference and detection time are recorded in the fixture: neither is open; unrecorded, each is.
    expect(r.open_items.map((o) => o.item)).not.toContain('our internal reference for the incident')
    const bare = buildRegisterEntry(fixture('2026-10-24T08:00:00.000Z', {internal_reference: null, detected_at: null}))
    expect(bare.open_items.map((o) => [o.item, o.record_with])).toEqual(expect.arrayContaining([
      ['our internal reference for the incident', 'crosstalk incident set --internal-reference ...'],
      ['time of first detection (alert or report)', 'crosstalk incident set --detected-at ISO'],
    ]))
    const md = renderRegisterMarkdown(bare)
    expect(md).toContain('| Reference | to be completed: our internal reference for the incident |')
    expect(md).toContain("- to be completed: our internal reference for the incident (Art. 33(5); crosstalk incident set --internal-reference ...)")
    expect(r.remedial_action).toMatch(/^to be completed: measures taken/)
    expect(r.decision).toMatch(/^to be completed: risk assessment/)
    expect(r.cause).toMatch(/^to be completed: the cause/)
    expect(renderRegisterMarkdown(r).split('\n')[0]).toMatch(/^# DRAFT: /)
    // no breach start or end recorded: the window from the logs is labelled an estimate
    expect(r.breach_window).toBe('2026-10-22T10:00:00.000Z - 2026-10-22T16:30:00.000Z (estimated where not recorded: first and last affected response in the logs)')
    const recorded = buildRegisterEntry(fixture('2026-10-24T08:00:00.000Z', {breach_started_at: '2026-10-22T09:00:00.000Z', breach_ended_at: '2026-10-22T17:00:00.000Z'}))
    expect(recorded.breach_window).toBe('2026-10-22T09:00:00.000Z - 2026-10-22T17:00:00.000Z')
  })

  it('every draft says that lines which could not be read were not examined, and none does when every line was read', () => {
    const f = fixture()
    f.totals = {...f.totals, bad_lines: 3}
    const said = '3 log lines could not be read (malformed, cut short, or over the size limit) and were not examined: the figures cover the lines that could be read; they are kept as evidence for review.'
    const a33 = buildArticle33(f)
    expect(a33.statements.filter((s) => s.text === said).map((s) => [s.section, s.rests_on])).toEqual([['investigation', ['evidence.files']]])
    expect(renderArticle33Markdown(a33)).toContain(said)
    expect(buildRegisterEntry(f).facts).toContain(said)
    expect(buildProcessorNotice({...f, incident: {...f.incident!, role: 'processor'}}, 'acme').investigation).toContain(said)
    expect(buildArticle33(f, {language: 'fr'}).statements.map((s) => s.text)).toContain("3 lignes de journal n'ont pas pu être lues (malformées, tronquées ou trop longues) et n'ont pas été examinées : les chiffres portent sur les lignes lisibles ; elles sont conservées comme preuve pour examen.")
    // Every line read: nothing said.
    expect(buildArticle33(fixture()).statements.some((s) => /could not be read/.test(s.text))).toBe(false)
  })

  it('answers with no text are never covered by a no-leak statement: each draft says how many were not examined, as an open item', () => {
    const noLeak = (withoutText: number): CaseFacts => {
      const f = fixture()
      const none = {...EXPOSURE, responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []}
      f.scope = {...f.scope!, exposure: none}
      f.tenants = f.tenants.map((t) => ({...t, responses_carrying_its_data: 0, leaked_by_canary: 0, provenance_only_leaked: 0, received_foreign_responses: 0}))
      f.totals = {...f.totals, answers: 1000, responses_without_text: withoutText}
      return f
    }
    const allClear = "Detection over the logs found no response carrying another session's data."
    // Every answer had text: the all-clear stands.
    expect(buildArticle33(noLeak(0)).statements.map((s) => s.text)).toContain(allClear)
    const some = noLeak(40)
    const a33 = buildArticle33(some)
    const texts = a33.statements.map((s) => s.text)
    expect(texts).not.toContain(allClear)
    expect(texts).toContain("Detection over the 960 responses that had text found none carrying another session's data; 40 responses had no text and were not examined, so whether they carried another session's data is not known.")
    expect(texts.some((t) => t.startsWith('40 responses had no response text in the logs'))).toBe(true)
    expect(a33.open_items.some((o) => o.item.startsWith('40 responses had no response text and were not examined'))).toBe(true)
    expect(a33.scope?.responses_without_text).toBe(40)
    const md = renderArticle33Markdown(a33)
    expect(md).not.toMatch(/\| 55 \|[^\n]*\| none:/)
    expect(buildRegisterEntry(some).facts).not.toContain(allClear)
    expect(buildRegisterEntry(some).facts).toContain('40 responses had no text and were not examined')
    expect(buildArticle34(some, {language: 'en'}).open_items.some((o) => o.item.startsWith('40 responses had no response text'))).toBe(true)
    const notice = buildProcessorNotice({...some, incident: {...some.incident!, role: 'processor'}}, 'acme')
    expect(JSON.stringify(notice)).toContain('40 responses had no response text in the logs')
    expect(notice.open_items.some((o) => o.item.startsWith('40 responses had no response text'))).toBe(true)
    // No answer had text: nothing could be examined, and no draft says nothing was found.
    const none = buildArticle33(noLeak(1000))
    expect(none.statements.map((s) => s.text)).toContain("No response could be examined: none of the 1000 responses in the logs had response text, so whether any carried another session's data is not known.")
    expect(buildArticle33(noLeak(1000), {language: 'fr'}).statements.map((s) => s.text).some((t) => t.startsWith("Aucune réponse n'a pu être examinée"))).toBe(true)
  })

  it('the register\'s remedial action says a proposed measure is proposed, never as if it were taken', () => {
    const r = buildRegisterEntry(fixture('2026-10-24T08:00:00.000Z', {measures_proposed: 'per-tenant KV isolation'}))
    expect(r.remedial_action).toBe('cache disabled; keys rotated; Proposed, not yet taken: per-tenant KV isolation')
    expect(r.investigation).toBeNull()
    const md = renderRegisterMarkdown(r)
    expect(md).toContain('| Remedial action | cache disabled; keys rotated; Proposed, not yet taken: per-tenant KV isolation |')
    expect(md).toContain('| Investigation (replays) | no replay recorded |')
    const fr = buildRegisterEntry(fixture('2026-10-24T08:00:00.000Z', {measures_proposed: 'isolation du cache KV'}), {language: 'fr'})
    expect(fr.remedial_action).toContain('Proposée, pas encore prise : isolation du cache KV')
  })

  it('the register of a processor: no fixed deadline and no authority notification are said as such, never "to be completed"', () => {
    const processor = buildRegisterEntry(fixture('2026-10-24T08:00:00.000Z', {role: 'processor'}))
    expect(processor).toMatchObject({deadline: null, deadline_note: 'without undue delay to each controller (Art. 33(2)); no contractual period recorded'})
    expect(processor.authority_note).toMatch(/^not applicable: as processor, we notify each controller \(Art\. 33\(2\)\)/)
    const md = renderRegisterMarkdown(processor)
    expect(md).toContain('| Deadline | without undue delay to each controller (Art. 33(2)); no contractual period recorded |')
    expect(md).toMatch(/\| Authority notified \| not applicable: as processor/)
    const fr = renderRegisterMarkdown(buildRegisterEntry(fixture('2026-10-24T08:00:00.000Z', {role: 'processor'}), {language: 'fr'}))
    expect(fr).toMatch(/\| Autorité notifiée \| sans objet : en tant que sous-traitant/)
    // A controller's entry keeps its deadline and says nothing of the kind.
    const controller = buildRegisterEntry(fixture('2026-10-24T08:00:00.000Z'))
    expect(controller).toMatchObject({deadline: '2026-10-26T08:00:00.000Z', deadline_note: null, authority_note: null})
    // No notification recorded: said, never an empty cell; a processor's count is out of the controllers affected.
    expect(processor).toMatchObject({notification_references: '', controllers_notified: 0, controllers_affected: 1})
    expect(md).toContain('| Notifications | none recorded |')
    expect(md).toContain('| Controllers notified | 0 of 1 |')
    expect(fr).toContain('| Notifications | aucune enregistrée |')
    expect(fr).toContain('| Responsables de traitement informés | 0 sur 1 |')
    expect(controller.controllers_affected).toBeNull()
    expect(renderRegisterMarkdown(controller)).toContain('| Controllers notified | not applicable (we are the controller) |')
  })

  it('a processor notice\'s per-customer columns add up: with the marker, and verbatim text only', () => {
    const f = fixture('2026-10-24T08:00:00.000Z', {role: 'processor'})
    // One response carried both acme's marker and its text: it is a marker response, not a verbatim-only one.
    f.tenants[0] = {...f.tenants[0]!, counterparts_leaked_to: [{label: 'tenant#1', responses: 1, provenance_responses: 1, exposure_responses: 1, sessions: 1, first_seen: null, last_seen: null}]}
    for (const language of ['en', 'fr'] as const) {
      const md = renderProcessorNoticeMarkdown(buildProcessorNotice(f, 'acme', {language}))
      expect(md).toMatch(/^\| tenant\\#1 \| 1 \| 1 \| 0 \| 1 \|/m)
    }
  })

  it('a draft generated after the notification gives its margin to the deadline, never time "overdue" since', () => {
    // Aware 2026-10-23T08:00, deadline 2026-10-26T08:00, notified 2026-10-24T10:00; drafted in December.
    const facts = fixture('2026-12-01T00:00:00.000Z', {}, [notification({})])
    const md = renderArticle33Markdown(buildArticle33(facts))
    expect(md).toMatch(/^\| Clock \| notified \(in time\), 46h 00m 00s before the deadline \|$/m)
    expect(md).not.toMatch(/overdue by/)
    const fr = renderArticle33Markdown(buildArticle33(facts, {language: 'fr'}))
    expect(fr).toContain("46 h 00 min 00 s avant l'échéance")
    const late = renderArticle33Markdown(buildArticle33(fixture('2026-12-01T00:00:00.000Z', {delay_reason: 'weekend'}, [notification({at: '2026-10-27T08:00:00.000Z', late: true})])))
    expect(late).toMatch(/^\| Clock \| notified \(LATE\), 24h 00m 00s after the deadline \|$/m)
  })

  it('labels IPv4 and IPv6 addresses apart: one list never names the same category twice', () => {
    const f = fixture()
    f.scope = {...f.scope!, categories: [{kind: 'ipv4', label: 'x', count: 3, responses: 4}, {kind: 'ipv6', label: 'y', count: 1, responses: 1}, {kind: 'conversation_content_cross_tenant', label: 'z', count: 7, responses: 7}]}
    // Each count says what it counts: distinct values for a personal-data kind, responses for content.
    expect(buildRegisterEntry(f).data_categories).toBe("online identifiers (IPv4 addresses) (3 distinct values in 4 responses); online identifiers (IPv6 addresses) (1 distinct value in 1 response); another customer's end-user conversation content (canary-marked prompts) (7 responses)")
    expect(buildRegisterEntry(f, {language: 'fr'}).data_categories).toContain('(3 valeurs distinctes dans 4 réponses)')
  })

  it('a processor notice asks a customer to delete what its users received only where they received something, or detection is incomplete', () => {
    const f = fixture('2026-10-24T08:00:00.000Z', {role: 'processor'})
    const steps = (facts: typeof f) => buildProcessorNotice(facts, 'acme').statements.filter((s) => s.section === 'next').map((s) => s.text)
    // acme's data reached others, but acme's users received nothing
    expect(f.tenants[0]!.received_foreign_responses).toBe(0)
    expect(steps(f).some((t) => /Delete or quarantine/.test(t))).toBe(false)
    f.tenants[0] = {...f.tenants[0]!, received_foreign_responses: 3, received_by_canary: 3}
    expect(steps(f).some((t) => /Delete or quarantine/.test(t))).toBe(true)
    const partial = fixture('2026-10-24T08:00:00.000Z', {role: 'processor'})
    partial.detection = {...partial.detection, complete: false, files_not_scanned: 1, records_not_scanned: 5}
    expect(steps(partial).some((t) => /Delete or quarantine/.test(t))).toBe(true)
  })
})

describe('assess defaults', () => {
  const why = (f: CaseFacts, name: string) => defaultInputs(f).find((i) => i.name === name)!.why
  it('never read "none found" on a case not scanned, or scanned in part', () => {
    const clean = fixture()
    clean.scope = {...clean.scope!, categories: [], cross_tenant_responses: 0, exposure: {responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []}}
    expect(why(clean, 'cb_confidentiality')).toBe("no response carrying another session's data found: 0")
    const never = fixture()
    never.scope = null
    never.detection = {...never.detection, complete: false, never_scanned: true, last_scan_at: null}
    for (const name of ['dpc', 'ei', 'cb_confidentiality', 'cb_integrity', 'individuals']) expect(why(never, name), name).toMatch(/^not known: the case has never been scanned/)
    const partial = {...clean, detection: {...clean.detection, complete: false, files_not_scanned: 1, records_not_scanned: 9}}
    expect(why(partial, 'cb_confidentiality')).toMatch(/^detection is incomplete \(crosstalk scan\), so among the records scanned so far: no response/)
  })
})

describe('French drafts', () => {
  // English words and phrases a French document must not contain (outside values from the case).
  const ENGLISH = [/\bthe\b/i, /\bof\b/, /\band\b/, /\bnot yet known\b/, /\boverdue by\b/, /\bprocessor\b/, /\bcontroller\b/, /\bresponses?\b/, /\bDRAFT\b/, /\bto be completed\b/, /\bENISA 2013 severity\b/, /\bnotified\b/, /\binitial\b/, /\bdecision\b/i, /\bunknown\b/, /\blog\b/, /\.;/]
  it('an overdue CNIL draft is French from end to end: durations, the ENISA line, roles, no ".;"', () => {
    const f = fixture('2026-10-30T12:00:00.000Z', {title: 'Fuite', controller_name: 'Société', measures_taken: 'cache désactivé', dpo_name: 'J. Dupont', dpo_contact: 'dpo@exemple.fr', discovery: 'alerte', awareness_basis: 'confirmé', awareness_decided_by: 'RSSI', lead_authority: 'CNIL', countries: 'FR', controller_contact: 'contact@exemple.fr', processor_name: 'Hébergeur', internal_reference: 'INC-7'})
    f.assessment = assessment({rationale: 'clients professionnels', decided_by: 'DPD'})
    f.tenants = []
    f.scope!.flows = []
    f.scope!.exposure = {...EXPOSURE, flows: []}
    f.scope!.by_node = []
    f.evidence = [{name: 'a.jsonl', sha256: 'f'.repeat(64), size: 10, kind: 'log', records: 1000}]
    f.replay = {groups: [{target: 'http://10.0.0.5:8000/', target_kind: 'external', target_version: '0.6.3', model: 'm', purpose: 'confirmation', run_ids: [1], first_at: '2026-10-24T09:00:00.000Z', last_at: '2026-10-24T09:00:00.000Z', records: 3, confirmed: 2, not_reproduced: 1, rejected: 0, inconclusive: 1, trials: 15, unjudged_trials: 2, reproduced: 8, rate: 8 / 15, wilson_low: 0.3, wilson_high: 0.75, original_prompt: false, interrupted: false}]}
    const d = buildArticle33(f, {authority: 'cnil'})
    expect(d.language).toBe('fr')
    expect(d.language_basis).toBe('authority')
    // command lines (crosstalk ...) are code, not prose
    const md = renderArticle33Markdown(d).replace(/crosstalk [^)|]*/g, '')
    expect(md).toMatch(/délai dépassé de \d+ h \d\d min \d\d s/)
    expect(md).toContain('Gravité ENISA 2013')
    expect(md).toContain('responsable de traitement')
    const hits = ENGLISH.filter((re) => re.test(md)).map((re) => `${re} in: ${md.split("\n").find((l) => re.test(l))}`)
    expect(hits).toEqual([])
    expect(md).toContain('sur la chaîne de service')
  })
})

describe('escaping and templates', () => {
  it('makes Markdown, HTML and terminal escapes inert, reversibly for the PDF', () => {
    const hostile = '# x [a](javascript:alert(1)) <img src=x> | ** \u001b[2J http://evil.example'
    const e = escapeMd(hostile)
    expect(e).not.toMatch(/<|\u001b|(?<!\\)\[|(?<!\\)\||(?<!\\)\*|^#|:\/\//)
    expect(unescapeMd(e)).toBe(hostile.replace('\u001b', '\\x1b'))
    expect(escapeMd('- item')).toBe('\\- item')
    // Quotes are text: no tag or link can open around them.
    expect(escapeMd('or "not applicable"')).toBe('or "not applicable"')
  })

  it('renders values, sections, inverted sections and lists; values are not re-scanned', () => {
    const t = '{{a}}|{{#list}}[{{.}}]{{/list}}|{{#obj}}{{obj.x}}{{/obj}}{{^none}}empty{{/none}}|{{missing}}'
    expect(renderTemplate(t, {a: '{{a}}', list: ['1', '2'], obj: {x: 'X'}, none: []}, '?')).toBe('{{a}}|[1][2]|Xempty|?')
  })
})

describe('ENISA severity', () => {
  it('SE = DPC x EI + CB with the graded CB scale and whole-step DPC adjustments', () => {
    expect(computeSeverity({dpc: 2, ei: 1, cb_confidentiality: 0.5, cb_integrity: 0, cb_availability: 0, malicious: false})).toMatchObject({se: 2.5, band: 'medium'})
    expect(computeSeverity({dpc: 4, ei: 1, cb_confidentiality: 0.5, cb_integrity: 0, cb_availability: 0, malicious: false}).band).toBe('very high')
    expect(computeSeverity({dpc: 1, ei: 0.25, cb_confidentiality: 0.5, cb_integrity: 0, cb_availability: 0, malicious: false}).se).toBe(0.75)
    expect(computeSeverity({dpc: 2, ei: 1, cb_confidentiality: 0, cb_integrity: 0, cb_availability: 0, malicious: false, vulnerable_subjects: true})).toMatchObject({dpc: 3, dpc_base: 2, se: 3})
    expect(computeSeverity({dpc: 4, ei: 1, cb_confidentiality: 0, cb_integrity: 0, cb_availability: 0, malicious: false, vulnerable_subjects: true}).dpc).toBe(4)
    expect(() => computeSeverity({dpc: 5, ei: 1, cb_confidentiality: 0, cb_integrity: 0, cb_availability: 0, malicious: false})).toThrow(/dpc/)
    expect(() => computeSeverity({dpc: 2.5, ei: 1, cb_confidentiality: 0, cb_integrity: 0, cb_availability: 0, malicious: false})).toThrow(/whole number/)
  })
})

describe('published JSON Schemas', () => {
  it('schemas/*.schema.json match the zod schemas (regenerate with writeSchemas)', () => {
    for (const name of Object.keys(REPORT_SCHEMAS) as Array<keyof typeof REPORT_SCHEMAS>) {
      expect(fs.readFileSync(path.join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')).toBe(reportJsonSchema(name))
    }
  })
})

describe('documents over a partial scan (--allow-incomplete)', () => {
  const partial = (role: 'controller' | 'processor' = 'controller'): CaseFacts => ({
    ...fixture('2026-10-24T08:00:00.000Z', {role}),
    detection: {complete: false, files_not_scanned: 1, records_not_scanned: 400, files_unfinished: 0, never_scanned: false, unfinished_scan_started_at: null, registry_changed: false, sighting_rules_changed: false, files_extracted_earlier: 0, provenance: 'current', last_scan_at: '2026-10-23T09:00:00.000Z', provenance_parameters: {min_words: 12, boilerplate_tenants: 3}, provenance_boilerplate_responses: 0},
  })

  it('the Article 33 draft states the scanned responses and files as examined and the rest as not examined', () => {
    const f = partial()
    const scanned = f.totals.records - f.detection.records_not_scanned
    const d = buildArticle33(f)
    expect(d.scope).toMatchObject({records_examined: scanned, log_files: f.totals.log_files - 1, records_not_examined: 400, log_files_not_examined: 1})
    expect(d.investigation[0]).toContain(`Logs of ${scanned} responses from 1 log file were searched`)
    expect(d.investigation[0]).toContain('400 responses in 1 further log file ingested but never scanned were not examined')
    const md = renderArticle33Markdown(d)
    expect(md).toContain(`| Responses scanned | ${scanned} |`)
    expect(md).toContain('| Responses ingested but not scanned: not examined | 400 |')
    expect(md).not.toContain(`| Responses scanned | ${f.totals.records} |`)
    const fr = renderArticle33Markdown(buildArticle33(f, {language: 'fr'}))
    expect(fr).toContain(`| Réponses analysées | ${scanned} |`)
    expect(fr).toContain('| Réponses chargées mais non analysées : non examinées | 400 |')
    // A complete scan shows no such row.
    expect(renderArticle33Markdown(buildArticle33(fixture()))).not.toContain('not examined |')
  })

  it('the processor notice states the scanned responses and files, and the unscanned part as not examined', () => {
    const f = partial('processor')
    const n = buildProcessorNotice(f, 'acme')
    const text = JSON.stringify(n)
    expect(text).toContain(`(${f.totals.records - 400} responses in 1 log file)`)
    expect(text).toContain('400 responses in 1 further log file ingested but never scanned were not examined')
    expect(text).not.toContain(`(${f.totals.records} responses in`)
  })
})

describe('a draft on behalf of a controller', () => {
  it("never gives the processor's DPO as the controller's: it is an open item in the Art. 33 draft and the Art. 34 letter", () => {
    const f = {...fixture('2026-10-24T08:00:00.000Z', {role: 'processor', dpo_name: 'P. Roc (processor DPO)', dpo_contact: 'dpo@llmapi.example'}, [notification({recipient: 'acme', at: '2026-10-23T20:00:00.000Z'})]), for_tenant: 'acme'}
    const d = buildArticle33(f, {onBehalfOf: 'acme'})
    expect(d.contact_point).toEqual({name: null, contact: null})
    expect(d.open_items.map((o) => o.item)).toContain("the DPO or other contact point of the controller (customer acme): none is recorded for it (the DPO recorded in this case is the processor's)")
    for (const id of ['29', '30-36']) expect(d.form_fields.find((x) => x.id === id)).toMatchObject({open: true, value: expect.stringMatching(/^to be completed: the DPO or other contact point of the controller/)})
    const md = renderArticle33Markdown(d)
    expect(md).not.toContain('P. Roc')
    expect(md).not.toContain('dpo@llmapi.example')
    const letter = buildArticle34(f, {onBehalfOf: 'acme', language: 'en'})
    expect(letter.contact).toEqual({name: null, contact: null})
    const lmd = renderArticle34Markdown(letter)
    expect(lmd).not.toContain('P. Roc')
    expect(lmd).not.toContain('dpo@llmapi.example')
    // The letter's open items name no tenant id: the people written to do not know the controller by it.
    expect(lmd).toContain("the DPO or other contact point of the controller: none is recorded for it (the DPO recorded in this case is the processor's)")
  })
})

describe('the DPO and the contact point', () => {
  it("answers 'Is a DPO designated?' yes only from a recorded DPO name; contact details alone are a contact point, with its open items", () => {
    const f = fixture('2026-10-24T08:00:00.000Z', {dpo_name: null, dpo_contact: 'support@acme.example'})
    const d = buildArticle33(f)
    expect(d.form_fields.find((x) => x.id === '29')).toMatchObject({open: true, value: 'to be completed: whether a data protection officer is designated (Art. 37): no DPO name is recorded, only contact details'})
    expect(d.form_fields.find((x) => x.id === '30-36')).toMatchObject({open: false, value: 'support@acme.example'})
    expect(d.open_items.map((o) => o.item)).toContain('the name of the DPO or other contact point (only its contact details are recorded)')
    const fr = buildArticle33(f, {language: 'fr'})
    expect(fr.form_fields.find((x) => x.id === '29')).toMatchObject({open: true})
    // A recorded DPO name answers it.
    expect(buildArticle33(fixture()).form_fields.find((x) => x.id === '29')).toMatchObject({open: false, value: 'yes'})

    const letter = buildArticle34(f, {language: 'en'})
    const md = renderArticle34Markdown(letter)
    expect(md).toContain('You can contact us at: support@acme.example.')
    expect(md).not.toContain('Our data protection officer')
    expect(md).not.toContain('see the open items')
    expect(letter.open_items.map((o) => o.item)).toContain('the name of the DPO or other contact point (only its contact details are recorded)')
    expect(renderArticle34Markdown(buildArticle34(fixture(), {language: 'en'}))).toContain('Our data protection officer: J. Doe, dpo@acme.example.')
    expect(renderArticle34Markdown(buildArticle34(f, {language: 'fr'}))).toContain("Vous pouvez nous contacter à l'adresse suivante : support@acme.example.")
  })
})

describe('cross-border processing (field 113)', () => {
  it('is never answered yes from the lead authority alone: it is an open item, the lead authority shown beside it', () => {
    const f = fixture('2026-10-24T08:00:00.000Z', {lead_authority: 'CNIL', countries: 'FR', establishment_countries: 'FR'})
    const d = buildArticle33(f)
    const field = d.form_fields.find((x) => x.id === '113')!
    expect(field.open).toBe(true)
    expect(field.value).not.toMatch(/^yes/)
    expect(field.value).toContain('lead authority recorded: CNIL')
    expect(d.form_fields.find((x) => x.id === '114')).toMatchObject({open: false, value: 'CNIL'})
    expect(d.open_items.find((o) => o.ref.includes('template 113'))?.item).toMatch(/^whether the processing is cross-border/)
    for (const [authority, id] of [['cnil', 'transfrontalier'], ['dpc', 'cross-border']] as const) {
      expect(buildArticle33(f, {authority}).form_fields.find((x) => x.id === id)).toMatchObject({open: true})
    }
  })
})

describe('cross-border processing recorded (field 113, incident set --cross-border)', () => {
  it('answers field 113 and the authorities\' cross-border fields from the recorded fact, and states it; unrecorded it names the flag', () => {
    for (const [value, answer] of [['yes', 'yes'], ['no', 'no']] as const) {
      const d = buildArticle33(fixture('2026-10-24T08:00:00.000Z', {cross_border: value, lead_authority: 'CNIL'}))
      expect(d.cross_border.processing).toBe(value)
      expect(d.form_fields.find((x) => x.id === '113')).toMatchObject({open: false, value: `${answer} (lead authority: CNIL)`})
      expect(d.open_items.some((o) => o.ref.includes('template 113'))).toBe(false)
      expect(d.statements.find((s) => s.section === 'cross_border')).toMatchObject({text: `Cross-border processing (Art. 4(23)), as recorded: ${answer}.`, rests_on: ['incident.cross_border']})
      expect(renderArticle33Markdown(d)).toContain(`- Cross-border processing (Art. 4(23)), as recorded: ${answer}.`)
      for (const [authority, id] of [['cnil', 'transfrontalier'], ['dpc', 'cross-border']] as const) {
        expect(buildArticle33(fixture('2026-10-24T08:00:00.000Z', {cross_border: value}), {authority}).form_fields.find((x) => x.id === id)).toMatchObject({open: false})
      }
    }
    const fr = buildArticle33(fixture('2026-10-24T08:00:00.000Z', {cross_border: 'no'}), {authority: 'cnil'})
    expect(renderArticle33Markdown(fr)).toContain("- Traitement transfrontalier (art. 4.23), tel qu'enregistré : non.")
    expect(buildArticle33(fixture()).open_items.find((o) => o.ref.includes('template 113'))?.record_with).toBe('crosstalk incident set --cross-border yes|no')
  })
})

describe('data unintelligible to its recipients (field 57, Art. 34(3)(a))', () => {
  it('is never answered from the measures in place before the breach: it is an open item until recorded', () => {
    const d = buildArticle33(fixture('2026-10-24T08:00:00.000Z', {measures_before: 'TLS in transit; AES-256 at rest'}))
    expect(d.form_fields.find((x) => x.id === '57')).toMatchObject({open: true})
    expect(d.form_fields.find((x) => x.id === '57')!.value).not.toContain('AES-256')
    expect(d.open_items.find((o) => o.ref.includes('template 57'))?.record_with).toMatch(/^crosstalk incident set --data-unintelligible /)
    expect(d.data_unintelligible).toBeNull()
  })
  it('answers field 57 from the recorded flag, and states it with what it rests on', () => {
    const d = buildArticle33(fixture('2026-10-24T08:00:00.000Z', {data_unintelligible: 'no'}))
    expect(d.data_unintelligible).toBe('no')
    expect(d.form_fields.find((x) => x.id === '57')).toMatchObject({open: false, value: 'no, it was intelligible'})
    expect(d.open_items.some((o) => o.ref.includes('template 57'))).toBe(false)
    expect(d.statements.find((s) => s.section === 'protection')?.rests_on).toEqual(['incident.data_unintelligible'])
    // Recorded as intact: stated as recorded where the search found no personal data in clear text ...
    const intact = fixture('2026-10-24T08:00:00.000Z', {data_unintelligible: 'protection-intact'})
    const clear = {...intact, scope: {...intact.scope!, categories: intact.scope!.categories.filter((c) => c.kind === 'free_text')}}
    expect(buildArticle33(clear, {language: 'fr'}).form_fields.find((x) => x.id === '57')).toMatchObject({open: false, value: 'oui, leur protection (chiffrement ou pseudonymisation) est intacte'})
    // ... and with the contradiction open beside it where the search read e-mail addresses and an IBAN in the leaked answers (QA sentences S2-1).
    const fr = buildArticle33(intact, {language: 'fr'})
    expect(fr.form_fields.find((x) => x.id === '57')).toMatchObject({open: true})
    expect(fr.form_fields.find((x) => x.id === '57')!.value).toMatch(/^oui, leur protection \(chiffrement ou pseudonymisation\) est intacte \(à compléter : .*enregistrée comme intacte, mais la recherche de données personnelles a trouvé/)
  })
})

describe('a case where detection completed and found nothing', () => {
  const clean = (complete: boolean): CaseFacts => {
    const f = fixture()
    return {
      ...f,
      scope: {...f.scope!, exposure: {...EXPOSURE, responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []}, categories: [], exposure_first: null, exposure_last: null},
      tenants: [],
      detection: complete ? f.detection : {...f.detection, complete: false, files_not_scanned: 1, records_not_scanned: 10},
    }
  }

  it('says what detection found in the register and the Art. 34 letter, never that it has not run', () => {
    const r = buildRegisterEntry(clean(true))
    expect(r.data_categories).toBe("none: detection over every log found no response carrying another session's data")
    expect(r.effects).toBe(r.data_categories)
    const letter = buildArticle34(clean(true), {language: 'en'})
    expect(letter.what_happened[0]).toBe("We searched the logs of the AI service and found no answer that showed text from another person's conversation.")
    for (const text of [JSON.stringify(r), renderArticle34Markdown(letter), renderRegisterMarkdown(r)]) expect(text).not.toContain('detection has not run')
    // Over a partial scan, nothing found is not known yet.
    const partial = buildRegisterEntry(clean(false))
    expect(partial.effects).toMatch(/^to be completed: detection is incomplete/)
    expect(partial.data_categories).toMatch(/^to be completed: detection is incomplete/)
    expect(buildArticle34(clean(false), {language: 'en'}).open_items.find((o) => o.section === 'what_happened')?.item).toMatch(/^detection is incomplete/)
  })
})

describe('a processor whose case was never scanned', () => {
  it('gives the affected controllers as unknown in the register, never as 0 of 0', () => {
    const f: CaseFacts = {
      ...fixture('2026-10-24T08:00:00.000Z', {role: 'processor'}, [notification({recipient: 'acme', at: '2026-10-23T12:00:00.000Z'})]),
      scope: null, tenants: [],
      detection: {complete: false, files_not_scanned: 2, records_not_scanned: 1000, files_unfinished: 0, never_scanned: true, unfinished_scan_started_at: null, registry_changed: false, sighting_rules_changed: false, files_extracted_earlier: 0, provenance: 'never', last_scan_at: null, provenance_parameters: null, provenance_boilerplate_responses: null},
    }
    const r = buildRegisterEntry(f)
    expect(r.controllers_affected).toBeNull()
    expect(r.controllers_notified).toBe(1)
    expect(r.open_items.map((o) => o.item)).toContain('the affected controllers (customers) and the notice each is owed (Art. 33(2)): not known until a scan covers the case (no scan has, or its findings no longer cover it)')
    const md = renderRegisterMarkdown(r)
    expect(md).toContain('| Controllers notified | 1; affected controllers: not known (the case has never been scanned) |')
    expect(md).not.toMatch(/Controllers notified \| 0 of 0/)
    expect(renderRegisterMarkdown(buildRegisterEntry(f, {language: 'fr'}))).toContain("inconnus (le dossier n'a jamais été analysé)")
    // A controller's entry still says it does not apply.
    expect(renderRegisterMarkdown(buildRegisterEntry(fixture()))).toContain('| Controllers notified | not applicable (we are the controller) |')
  })
})

describe('the register and the Art. 34 letter state what was recorded', () => {
  it('the register gives the recorded reasons for a late notification', () => {
    const late = notification({id: 5, at: '2026-10-27T10:00:00.000Z', reference: 'LATE-2', delay_reason: 'awaited log export from the vendor', late: true})
    const r = buildRegisterEntry(fixture('2026-10-28T08:00:00.000Z', {}, [late]))
    expect(r.delay_reasons).toBe('awaited log export from the vendor (with notification LATE-2)')
    expect(r.statements.find((s) => s.section === 'timeline')?.rests_on).toEqual(['notification#5'])
    expect(renderRegisterMarkdown(r)).toContain('| Reasons for the delay | awaited log export from the vendor (with notification LATE-2) |')
    expect(renderRegisterMarkdown(buildRegisterEntry(fixture('2026-10-28T08:00:00.000Z', {}, [late]), {language: 'fr'}))).toContain('| Motifs du retard | awaited log export')
    const onIncident = buildRegisterEntry(fixture('2026-10-28T08:00:00.000Z', {delay_reason: 'vendor export'}, [{...late, delay_reason: 'vendor export'}]))
    expect(onIncident.delay_reasons).toBe('vendor export')
    expect(buildRegisterEntry(fixture()).delay_reasons).toBeNull()
  })

  it('the letter gives the recorded breach period when there is one, and otherwise says the window is the logs\'', () => {
    const recorded = buildArticle34(fixture('2026-10-24T08:00:00.000Z', {breach_started_at: '2026-10-20T00:00:00.000Z', breach_ended_at: '2026-10-22T03:00:00.000Z'}), {language: 'en'})
    expect(recorded.when).toBe('This happened between 2026-10-20 00:00 and 2026-10-22 03:00 (UTC), as established by our investigation.')
    expect(recorded.statements.find((s) => s.section === 'when')?.rests_on).toEqual(['incident.breach_started_at', 'incident.breach_ended_at'])
    expect(buildArticle34(fixture('2026-10-24T08:00:00.000Z', {breach_started_at: '2026-10-20T00:00:00.000Z'}), {language: 'en'}).when).toMatch(/^This started on 2026-10-20 00:00 \(UTC\).*not yet confirmed/)
    const logs = buildArticle34(fixture(), {language: 'en'})
    expect(logs.when).toBe('The affected answers we found in our logs were given between 2026-10-22 10:00 and 2026-10-22 16:30 (UTC).')
  })
})

describe('assess: the default number of individuals', () => {
  it('is the high bound when known; else the low bound, said as such, and the suggestion says "at least"', () => {
    expect(defaultInputs(fixture()).find((i) => i.name === 'individuals')).toMatchObject({value: 19, why: "the scope's high bound of the number of data subjects (8 to 19)"})
    const f = fixture()
    const noHigh: CaseFacts = {...f, scope: {...f.scope!, pool_tokens: null, data_subjects: {low: 150, high: null, method: 'sessions'}}}
    const individuals = defaultInputs(noHigh).find((i) => i.name === 'individuals')!
    expect(individuals.value).toBe(150)
    expect(individuals.why).toBe("the scope's LOW bound (150 sessions), because its high bound is not known (it needs the KV pool size: scan --pool-tokens): at least 150 individuals, maybe more; set --individuals if you know the number")
    const plan = planAssessment(noHigh, {overrides: {dpc: 1, ei: 1, cb_confidentiality: 0.5, cb_integrity: 0, cb_availability: 0}, now: new Date('2026-10-24T08:00:00Z')})
    expect(plan.suggestion_reasons).toContain('at least 150 individuals affected (more than 100): the number of individuals weighs one step towards notification')
    const given = planAssessment(noHigh, {overrides: {dpc: 1, ei: 1, cb_confidentiality: 0.5, cb_integrity: 0, cb_availability: 0, individuals: 150}, now: new Date('2026-10-24T08:00:00Z')})
    expect(given.suggestion_reasons).toContain('150 individuals affected (more than 100): the number of individuals weighs one step towards notification')
  })
})

describe('assess: unintelligible data', () => {
  it('rests "document the breach" on Art. 33(1) and 33(5), not on Art. 34(3)(a), which exempts only the communication to data subjects', () => {
    const plan = planAssessment(fixture(), {overrides: {unintelligible: true, cb_integrity: 0, cb_availability: 0}, now: new Date('2026-10-24T08:00:00Z')})
    const reason = plan.suggestion_reasons.find((r) => r.includes('unintelligible'))!
    expect(reason).toMatch(/unlikely, so the authority need not be notified \(Art\. 33\(1\)\); document the breach \(Art\. 33\(5\)\)/)
    expect(reason).toMatch(/Art\. 34\(3\)\(a\) exempts only the communication to data subjects/)
    expect(reason).not.toMatch(/\(Art\. 34\(3\)\(a\)\) and nothing was lost/)
  })

  it('defaults from the recorded fact (incident set --data-unintelligible), says its source, and reports a flag that contradicts it', () => {
    const now = new Date('2026-10-24T08:00:00Z')
    const input = (f: CaseFacts) => defaultInputs(f).find((i) => i.name === 'unintelligible')!
    // Recorded as intact protection: unintelligible, from the record, and the suggestion weighs it.
    const intact = fixture(undefined, {data_unintelligible: 'protection-intact'})
    expect(input(intact)).toMatchObject({value: true, source: 'case record', why: expect.stringMatching(/^recorded: its protection .* is intact/)})
    expect(planAssessment(intact, {overrides: {cb_integrity: 0, cb_availability: 0}, now}).suggestion_reasons.some((r) => r.includes('unintelligible'))).toBe(true)
    for (const recorded of ['no', 'protection-likely-subvertible'] as const) expect(input(fixture(undefined, {data_unintelligible: recorded}))).toMatchObject({value: false, source: 'case record'})
    // Not recorded, or not assessable: assumed, never a finding ("served in clear"), so the draft lists it as an open item.
    for (const recorded of [null, 'cannot-assess'] as const) {
      const i = input(fixture(undefined, {data_unintelligible: recorded}))
      expect(i).toMatchObject({value: false, source: 'case default'})
      expect(i.why).not.toMatch(/served in clear/)
      expect(assumedInputs({unintelligible: i})).toEqual(['unintelligible=false'])
    }
    expect(input(fixture(undefined, {data_unintelligible: null})).why).toMatch(/not recorded in the case \(crosstalk incident set --data-unintelligible /)
    // A flag against the record: used, and the conflict is said.
    const against = planAssessment(fixture(undefined, {data_unintelligible: 'no'}), {overrides: {unintelligible: true}, now})
    expect(against.inputs.find((i) => i.name === 'unintelligible')).toMatchObject({value: true, source: 'given', why: expect.stringMatching(/contradicting the case record false/)})
    expect(against.conflicts).toEqual([expect.stringMatching(/^unintelligible: given as true, but the case records false \(recorded: it was intelligible/)])
    expect(planAssessment(fixture(undefined, {data_unintelligible: 'no'}), {overrides: {unintelligible: false}, now}).conflicts).toEqual([])
    expect(planAssessment(fixture(undefined, {data_unintelligible: null}), {overrides: {unintelligible: true}, now}).conflicts).toEqual([])
  })
})

describe('verbatim text whose source provenance does not name', () => {
  it('is an open item of the Article 33 draft, in English and French, with its count', () => {
    const f = fixture()
    f.scope = {...f.scope!, exposure: {...EXPOSURE, source_not_named: 2}}
    const open = buildArticle33(f).open_items.map((o) => o.item).join('\n')
    expect(open).toMatch(/2 responses carried verbatim text whose source is not established \(the same text in several customers' prompts/)
    const fr = buildArticle33(f, {language: 'fr'}).open_items.map((o) => o.item).join('\n')
    expect(fr).toMatch(/2 réponses contenaient un texte mot pour mot dont la source n'est pas établie/)
  })
})
