import fs from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {describe, expect, it} from 'vitest'
import {buildArticle33} from '../../src/notify/article33.js'
import {computeSeverity} from '../../src/notify/assess.js'
import {computeClock} from '../../src/notify/clock.js'
import {escapeMd, unescapeMd} from '../../src/notify/escape.js'
import type {CaseFacts} from '../../src/notify/facts.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {renderArticle33Markdown, renderProcessorNoticeMarkdown} from '../../src/notify/render-markdown.js'
import {reportJsonSchema, REPORT_SCHEMAS} from '../../src/notify/schemas.js'
import {renderTemplate} from '../../src/notify/template.js'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** A hand-built case: no database involved. */
function fixture(now = '2026-10-24T08:00:00.000Z'): CaseFacts {
  return {
    generated_at: now,
    incident: {
      title: 'Leak', role: 'controller', aware_at: '2026-10-23T08:00:00.000Z', awareness_basis: 'on-call confirmed', awareness_decided_by: 'CISO',
      detected_at: '2026-10-23T07:10:00.000Z', investigation_started_at: '2026-10-23T07:20:00.000Z', breach_started_at: null, breach_ended_at: null,
      discovery: 'customer report', controller_name: 'Acme Ltd', controller_contact: 'legal@acme.example', processor_name: 'ModelHost', dpo_name: 'J. Doe',
      dpo_contact: 'dpo@acme.example', lead_authority: 'DPC (Ireland)', countries: 'IE, FR', systems: null, measures_taken: 'cache disabled; keys rotated',
      measures_proposed: null, internal_reference: 'INC-7', created_at: now, updated_at: now,
    },
    amendments: [],
    clock: computeClock(new Date('2026-10-23T08:00:00.000Z'), new Date(now)),
    notifications: [],
    assessment: null,
    totals: {records: 1000, tenants: 5, sessions: 200, files: 2, bad_lines: 0},
    detection: {complete: true, files_not_scanned: 0, records_not_scanned: 0, never_scanned: false, registry_changed: false, provenance: 'current', last_scan_at: '2026-10-23T09:00:00.000Z'},
    scope: {
      contaminated_responses: 12, cross_tenant_responses: 9, cross_session_responses: 3, exposed_sessions: 7, exposed_tenants: 2, recipient_tenants: 3,
      first_seen: '2026-10-22T10:00:00.000Z', last_seen: '2026-10-22T15:59:00.000Z', at_risk_responses: null,
      flows: [{source_tenant: 'acme', recipient_tenant: 'globex', responses: 9}, {source_tenant: 'acme', recipient_tenant: 'acme', responses: 3}],
      pool_tokens: null, orphan_sightings: 0, provenance_responses: 0, provenance_only_responses: 0, bug_window: null,
      by_hour: [
        {hour: '2026-10-22T10:00:00.000Z', responses: 4, cross_tenant_responses: 3, provenance_responses: 0, at_risk_responses: null},
        {hour: '2026-10-22T15:00:00.000Z', responses: 8, cross_tenant_responses: 6, provenance_responses: 0, at_risk_responses: null},
      ],
      by_node: [{node: 'gpu-3', responses: 12, cross_tenant_responses: 9, cross_session_responses: 3, provenance_responses: 0, at_risk_responses: null, first_seen: null, last_seen: null}],
      data_subjects: {low: 7, high: 19, method: 'sessions + distinct identifiers'},
      records: {low: 12, high: 12, method: 'responses'},
      categories: [{kind: 'email', label: 'contact details (e-mail addresses)', count: 12, responses: 5}, {kind: 'free_text', label: 'free text', count: 12, responses: 12}],
      method: 'canary sightings',
    },
    tenants: [
      {
        tenant_id: 'acme', leaked_sessions: ['s1', 's2'], responses_carrying_its_data: 12, recipient_sessions_same_tenant: 3, recipient_sessions_other_tenants: 4,
        recipient_tenants_other: 1, first_leaked: '2026-10-22T10:00:00.000Z', last_leaked: '2026-10-22T15:59:00.000Z', markers_truncated: ['CANARY-a1a1…'],
        pii_in_leaked: [{kind: 'email', label: 'contact details (e-mail addresses)', count: 12, responses: 5}], received_foreign_responses: 0, receiving_sessions: [],
        received_from_tenants: 0, pii_in_received: [], provenance_only_leaked: 0, at_risk_responses: null,
        counterparts_leaked_to: [{label: 'tenant#1', responses: 9, provenance_responses: 0, sessions: 4, first_seen: null, last_seen: null}], counterparts_received_from: [],
      },
    ],
    provenance: null,
    replay: {
      runs: 1, results: 4, confirmed: 3, not_reproduced: 1, rejected: 0, trials: 40, reproduced: 27, rate: 0.675, wilson_low: 0.52, wilson_high: 0.8,
      targets: ['http://127.0.0.1:8000'], original_prompt: false, items: [],
    },
    evidence: [{path: 'logs/a.jsonl', sha256: 'f'.repeat(64), size: 10, kind: 'log', records: 1000}],
    excerpts: null,
  }
}

describe('buildArticle33 from a hand-built CaseFacts', () => {
  it('fills Art. 33(3)(a)-(d) and leaves answered items out of the open list', () => {
    const d = buildArticle33(fixture())
    expect(d.contact_point).toEqual({name: 'J. Doe', contact: 'dpo@acme.example'})
    expect(d.data_subjects.approximate).toMatchObject({low: 7, high: 19})
    expect(d.measures_taken).toContain('cache disabled')
    expect(d.measures_taken.some((m) => m.includes('3 confirmed (fault reproduced), 1 not reproduced') && m.includes('27 of 40 trials') && m.includes('95 % Wilson interval 52 %–80 %'))).toBe(true)
    const open = d.open_items.map((o) => o.item).join('\n')
    expect(open).not.toMatch(/Controller name/)
    expect(open).not.toMatch(/DPO/)
    expect(open).toMatch(/Exact number of data subjects/)
    expect(open).toMatch(/Risk assessment/)
    const md = renderArticle33Markdown(d)
    expect(md).toContain('| 48 | Date and time the controller became aware | 2026-10-23T08:00:00.000Z |')
    expect(md).toContain('| 114 | Lead supervisory authority | DPC (Ireland) |')
  })

  it('an overdue draft needs reasons for the delay (Art. 33(1))', () => {
    const late = fixture('2026-10-26T08:00:00.001Z')
    expect(late.clock!.status).toBe('overdue')
    expect(() => buildArticle33(late)).toThrow(/--delay-reason/)
    const d = buildArticle33(late, {delayReason: 'logs restored late', final: true})
    expect(d.delay_reason).toBe('logs restored late')
    expect(d.form_fields.find((f) => f.id === '49')!.value).toBe('logs restored late')
    expect(renderArticle33Markdown(d)).toContain('# FINAL')
  })

  it('a processor notice never names another tenant', () => {
    const n = buildProcessorNotice(fixture(), 'acme')
    const md = renderProcessorNoticeMarkdown(n)
    expect(md).not.toContain('globex')
    expect(md).toContain('at 1 other customer(s)')
  })
})

describe('a draft over an incomplete detection', () => {
  it('says so in its detection key, in the Markdown, and as an open item', () => {
    const f = fixture()
    f.detection = {...f.detection, complete: false, files_not_scanned: 2, records_not_scanned: 40}
    const d = buildArticle33(f)
    expect(d.detection).toMatchObject({complete: false, files_not_scanned: 2, note: expect.stringMatching(/2 log file\(s\) with 40 records ingested since the last scan/)})
    expect(d.open_items.map((o) => o.item).join('\n')).toMatch(/Detection is incomplete \(2 log file\(s\) not scanned\)/)
    expect(renderArticle33Markdown(d)).toMatch(/> \*\*Detection is incomplete: 2 log file\(s\) with 40 records/)
    expect(renderArticle33Markdown(buildArticle33(fixture()))).not.toMatch(/Detection is incomplete/)
  })
})

describe('escaping and templates', () => {
  it('makes Markdown, HTML and terminal escapes inert, reversibly for the PDF', () => {
    const hostile = '# x [a](javascript:alert(1)) <img src=x> | ** \u001b[2J http://evil.example'
    const e = escapeMd(hostile)
    expect(e).not.toMatch(/<|\u001b|(?<!\\)\[|(?<!\\)\||(?<!\\)\*|^#|:\/\//)
    expect(unescapeMd(e)).toBe(hostile.replace('\u001b', '\\x1b'))
    expect(escapeMd('- item')).toBe('\\- item')
  })

  it('renders values, sections, inverted sections and lists; values are not re-scanned', () => {
    const t = '{{a}}|{{#list}}[{{.}}]{{/list}}|{{#obj}}{{obj.x}}{{/obj}}{{^none}}empty{{/none}}|{{missing}}'
    expect(renderTemplate(t, {a: '{{a}}', list: ['1', '2'], obj: {x: 'X'}, none: []}, '?')).toBe('{{a}}|[1][2]|Xempty|?')
  })
})

describe('ENISA severity', () => {
  it('SE = DPC x EI + CB with the graded CB scale', () => {
    expect(computeSeverity({dpc: 2, ei: 1, cb_confidentiality: 0.5, cb_integrity: 0, cb_availability: 0, malicious: false})).toMatchObject({se: 2.5, band: 'medium'})
    expect(computeSeverity({dpc: 4, ei: 1, cb_confidentiality: 0.5, cb_integrity: 0, cb_availability: 0, malicious: false}).band).toBe('very high')
    expect(computeSeverity({dpc: 1, ei: 0.25, cb_confidentiality: 0.5, cb_integrity: 0, cb_availability: 0, malicious: false}).se).toBe(0.75)
    expect(() => computeSeverity({dpc: 5, ei: 1, cb_confidentiality: 0, cb_integrity: 0, cb_availability: 0, malicious: false})).toThrow(/dpc/)
  })
})

describe('published JSON Schemas', () => {
  it('schemas/*.schema.json match the zod schemas (regenerate with writeSchemas)', () => {
    for (const name of Object.keys(REPORT_SCHEMAS) as Array<keyof typeof REPORT_SCHEMAS>) {
      expect(fs.readFileSync(path.join(ROOT, 'schemas', `${name}.schema.json`), 'utf8')).toBe(reportJsonSchema(name))
    }
  })
})
