import {createHash} from 'node:crypto'
import {describe, expect, it} from 'vitest'
import {renderCaseReportHtml, verdict} from '../../src/cli/html/case-report.js'
import {caseReportJson, type CaseReportData} from '../../src/notify/case-report-data.js'
import {num} from '../../src/cli/html/escape.js'

// The renderer alone, on hand-built data: no database, no browser. The browser test
// (test/browser/) opens a real report; this one pins what must hold for any input.

const HOSTILE_TENANT = '<script>alert(1)</script>'
const ESC_SESSION = 'sess-\u001b[31mred\u001b]8;;http://evil.example/\u0007'
const BIDI_REQUEST = 'req-\u202egnp.exe'

function reportData(over: Partial<CaseReportData> = {}): CaseReportData {
  const estimate = {low: 3, high: 40, method: 'low: sessions whose marker reached another session; high: sessions served by a leaking node', evidence: {}}
  return {
    kind: 'case_report',
    generated_at: '2026-11-02T09:00:00.000Z',
    tool_version: '0.1.0',
    detection: {complete: true, never_scanned: false, files_not_scanned: 0, records_not_scanned: 0, registry_changed: false},
    totals: {records: 1000, files: 2, registry_files: 1, tenants: 3, sessions: 50, bad_lines: 1},
    unjudgeable_files: [],
    not_covered: [],
    incident: null,
    clock: null,
    scope: {
      contaminated_responses: 4,
      cross_tenant_responses: 3,
      cross_session_responses: 1,
      exposed_sessions: 3,
      exposed_tenants: 2,
      recipient_tenants: 2,
      first_seen: '2026-11-01T06:00:00.123Z',
      last_seen: '2026-11-01T09:15:30.789Z',
      at_risk_responses: 12,
      at_risk_unknown_records: 0,
      pool_tokens: 681280,
      advertised_tokens: null,
      over_advertised_responses: null,
      provenance_responses: 0,
      provenance_only_responses: 0,
      orphan_sightings: 1,
      data_subjects: estimate,
      records_concerned: {...estimate, low: 4, high: 12},
      bug_window: {start: '2026-11-01T05:00:00.000Z', end: '2026-11-01T10:00:00.000Z', basis: 'first to last of: contaminating sightings'},
      exposure: {
        responses: 6, by_canary: 4, by_text_only: 2, sessions: 5, source_tenants: 2, recipient_tenants: 3,
        flows: [
          {source_tenant: 'acme', recipient_tenant: HOSTILE_TENANT, responses: 4},
          {source_tenant: 'acme', recipient_tenant: 'acme', responses: 1},
          {source_tenant: 'beta', recipient_tenant: 'acme', responses: 1},
        ],
      },
      exposure_first: '2026-11-01T05:30:00.000Z',
      exposure_last: '2026-11-01T09:15:30.789Z',
      method: 'canary sightings',
    },
    retry_leaks_not_counted: [],
    duplicate_lines_not_examined: 0,
    flows: [
      {source_tenant: 'acme', recipient_tenant: HOSTILE_TENANT, responses: 3},
      {source_tenant: 'acme', recipient_tenant: 'acme', responses: 1},
    ],
    flow_matrix: {tenants: [HOSTILE_TENANT, 'acme'], responses: [[0, 0], [3, 1]]},
    provenance_flows: [],
    nodes: [{decode_node: 'decode-1', contaminated_responses: 4, cross_tenant_responses: 3, cross_session_responses: 1, provenance_responses: 0, at_risk_responses: 12, first_seen: null, last_seen: null, at_risk_first: null, at_risk_last: null}],
    data_categories: [],
    hours: [
      {hour: '2026-11-01T06:00:00.000Z', contaminated_responses: 2, sightings: 2, text_only_responses: 0, at_risk_responses: 5},
      {hour: '2026-11-01T07:00:00.000Z', contaminated_responses: 0, sightings: 0, text_only_responses: 1, at_risk_responses: 3},
      {hour: '2026-11-01T08:00:00.000Z', contaminated_responses: 0, sightings: 0, text_only_responses: 0, at_risk_responses: 0},
      {hour: '2026-11-01T09:00:00.000Z', contaminated_responses: 2, sightings: 2, text_only_responses: 0, at_risk_responses: 4},
    ],
    sightings: {
      markers: 'shortened',
      by_class: {own: 10, echo: 0, cross_session: 1, cross_tenant: 3, orphan: 1},
      rows: [
        {request_id: BIDI_REQUEST, ts: '2026-11-01T06:00:00.123Z', class: 'cross_tenant', marker: 'CANARY-3f2a…', partial: false, possible_sources: [], log_source: 'gw', recipient_session: ESC_SESSION, recipient_tenant: HOSTILE_TENANT, source_session: 's1', source_tenant: 'acme', decode_node: 'decode-1'},
        {request_id: 'r2', ts: '2026-11-01T05:00:00.000Z', class: 'orphan', marker: 'CANARY-dead…', partial: false, possible_sources: [], log_source: 'gw', recipient_session: 's9', recipient_tenant: 'acme', source_session: null, source_tenant: null, decode_node: null},
      ],
      limit: 10_000,
      omitted: 0,
    },
    open_items: [{section: 'controller', item: 'Controller name and contact details', ref: 'EDPB template 12-13', record_with: null}],
    assessment: null,
    replay: null,
    evidence: [{name: 'gw-a.jsonl', sha256: 'ab'.repeat(32), size: 123, records: 500}],
    ...over,
  }
}

const between = (html: string, open: string, close: string): string[] => {
  const out: string[] = []
  let at = 0
  for (;;) {
    const a = html.indexOf(open, at)
    if (a < 0) return out
    const b = html.indexOf(close, a + open.length)
    out.push(html.slice(a + open.length, b))
    at = b + close.length
  }
}
const sha = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`

describe('renderCaseReportHtml', () => {
  const html = renderCaseReportHtml(reportData())

  it('forbids all network access; the one script and the one style sheet are allowed by their hash, not unsafe-inline', () => {
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1]
    expect(csp).toBeDefined()
    const directives = Object.fromEntries(csp!.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]))
    expect(directives['default-src']).toEqual(["'none'"])
    const scripts = between(html, '<script>', '</script>')
    const styles = between(html, '<style>', '</style>')
    expect(scripts).toHaveLength(1)
    expect(styles).toHaveLength(1)
    expect(directives['script-src']).toEqual([sha(scripts[0]!)])
    expect(directives['style-src']).toEqual([sha(styles[0]!)])
    expect(csp).not.toContain('unsafe')
    // nothing on the page asks for anything: no external URL, no src attribute, no CSS fetch
    expect(html).not.toMatch(/https?:\/\/(?!evil\.example)/)
    expect(html).not.toMatch(/\ssrc=|@import|url\(|<link|<iframe|<img/i)
    // inline style attributes would be blocked by the policy (and are not needed)
    expect(html).not.toMatch(/\sstyle=/)
  })

  it('escapes every string from a log and makes control and bidi characters visible', () => {
    expect(html).not.toContain(HOSTILE_TENANT)
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).toContain('sess-\\x1b[31mred\\x1b]8;;http://evil.example/\\x07')
    expect(html).toContain('req-\\u202egnp.exe')
    expect(html).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
  })

  it('carries the contract numbers where a reader (and the browser test) finds them', () => {
    const value = (k: string) => new RegExp(`data-k="${k}">([^<]*)<`).exec(html)?.[1]
    expect(value('contaminated_responses')).toBe('4')
    expect(value('cross_tenant_responses')).toBe('3')
    expect(value('exposed_sessions')).toBe('3')
    expect(value('at_risk_responses')).toBe('12')
    expect(value('first_seen')).toBe('2026-11-01 06:00:00 UTC')
    // A text-only leak came first: the evidence's window starts before the markers' one, and each is labelled for what it counts.
    expect(value('exposure_first')).toBe('2026-11-01 05:30:00 UTC')
    expect(html).toMatch(/first response carrying another session(&#39;|&#x27;|')s data/)
    expect(html).toMatch(/first response with another session(&#39;|&#x27;|')s marker/)
    expect(html).not.toContain('first contaminated response')
    expect(value('data_subjects')).toBe('3 – 40')
    expect(value('flow_pairs')).toBe('2')
    // The flows by either kind of evidence: beta -> acme was verbatim text only.
    expect(value('exposure_flow_pairs')).toBe('3')
    expect(value('flow_tenants')).toBe('3')
    expect(html).toMatch(/<tr><td>beta<\/td><td>acme<\/td><td class="n">1<\/td><td class="n">0<\/td><\/tr>/)
    expect(html).toContain('Leak confirmed')
  })

  it('draws the timeline and the heat map as SVG, with the bug window and the awareness time marked', () => {
    const withClock = renderCaseReportHtml(
      reportData({clock: {aware_at: '2026-11-01T08:30:00.000Z', deadline: '2026-11-04T08:30:00.000Z', remaining_seconds: 171000, status: 'open', late: false}}),
    )
    const svgs = between(withClock, '<svg', '</svg>')
    expect(svgs.length).toBeGreaterThanOrEqual(3)
    expect(withClock).toContain('class="window"')
    expect(withClock).toContain('class="mark-aware"')
    expect(withClock).toContain('class="mark-deadline"')
    expect((withClock.match(/class="bar-leak"/g) ?? []).length).toBe(2)
    // The hour whose only leak was verbatim text has its own (light) bar, never an empty hour.
    expect((withClock.match(/class="bar-text"/g) ?? []).length).toBe(1)
    expect((withClock.match(/class="bar-risk"/g) ?? []).length).toBe(3)
    // one coloured cell per non-zero entry of the matrix by either kind of evidence
    expect((withClock.match(/<rect class="cell"/g) ?? []).length).toBe(3)
    expect(withClock).toContain('id="clock-now" data-deadline="2026-11-04T08:30:00.000Z"')
  })

  it('fills the clock bar by the period in force: a processor\'s 24-hour contract is half gone after 12 hours, not a sixth', () => {
    const bar = (clock: CaseReportData['clock']) => /<rect x="0" y="0" width="([\d.]+)"/.exec(renderCaseReportHtml(reportData({clock})))?.[1]
    const aware = '2026-11-01T21:00:00.000Z' // 12 hours before generated_at
    expect(bar({aware_at: aware, deadline: '2026-11-02T21:00:00.000Z', remaining_seconds: 43200, status: 'open', basis: 'art33(2)-contract'} as CaseReportData['clock'])).toBe('50.0')
    expect(bar({aware_at: aware, deadline: '2026-11-04T21:00:00.000Z', remaining_seconds: 216000, status: 'open', basis: 'art33(1)'} as CaseReportData['clock'])).toBe('16.7')
  })

  it('names a processor\'s clock by Art. 33(2), draws no 72-hour bar or deadline where none is fixed, and keeps 72 hours for a controller', () => {
    const aware = '2026-11-02T09:00:00.000Z'
    const undue = renderCaseReportHtml(reportData({clock: {aware_at: aware, deadline: null, remaining_seconds: null, status: 'open', basis: 'art33(2)-without-undue-delay'} as CaseReportData['clock']}))
    expect(undue).toContain('<h2>Notice clock (Art. 33(2))</h2>')
    expect(undue).toContain('<a href="#clock">Notice clock (Art. 33(2))</a>')
    expect(undue).not.toContain('72-hour')
    expect(undue).not.toContain('class="clockbar"')
    const contract = renderCaseReportHtml(reportData({clock: {aware_at: aware, deadline: '2026-11-03T09:00:00.000Z', remaining_seconds: 3600, status: 'due_soon', basis: 'art33(2)-contract'} as CaseReportData['clock']}))
    expect(contract).toContain('contractual deadline to each controller</span>')
    expect(contract).not.toContain('72-hour')
    expect(contract).not.toContain('72 h deadline')
    const controller = renderCaseReportHtml(reportData({clock: {aware_at: aware, deadline: '2026-11-05T09:00:00.000Z', remaining_seconds: 3600, status: 'due_soon', basis: 'art33(1)'} as CaseReportData['clock']}))
    expect(controller).toContain('<h2>72-hour clock</h2>')
    expect(controller).toContain('72-hour deadline</span>')
  })

  it('shows a draft\'s facts (already in shown form) escaped once, not twice', () => {
    // facts.ts made these visible with safeLine: a literal backslash-n doubled, U+0085 as \x85.
    const title = 'KV leak C:\\\\new \\x85'
    const html = renderCaseReportHtml(reportData({incident: {title, role: 'controller'} as unknown as CaseReportData['incident']}))
    expect(html).toContain(`<h1>${title}</h1>`)
    expect(html).toContain(`<title>${title} · crosstalk case report</title>`)
  })

  it('shows an evidence file\'s name (already in shown form) in the evidence table escaped once (QA report F)', () => {
    // facts.ts made the name visible with safeLine: ESC in "gw<ESC>[31m.jsonl" as \x1b, once.
    const name = 'gw\\x1b[31m.jsonl'
    const html = renderCaseReportHtml(reportData({evidence: [{name, sha256: 'ab'.repeat(32), size: 123, records: 500}]}))
    expect(html).toContain(`<td class="mono">${name}</td>`)
    expect(html).not.toContain('gw\\\\x1b')
  })

  it('has a print style sheet', () => {
    expect(between(html, '<style>', '</style>')[0]).toContain('@media print')
  })

  it("leads with the exposure: responses that carried another session's data by marker or by verbatim text", () => {
    const v = verdict(reportData())
    expect(v.head).toBe('Leak confirmed')
    expect(v.text).toContain("6 responses among 1,000 records carried another session's data: 4 its canary marker (3 cross-tenant, 1 cross-session) and 2 only its text, repeated verbatim")
    expect(v.text).toContain('data of 5 sessions of 2 tenants reached 3 tenants')
    const value = (k: string) => new RegExp(`data-k="${k}">([^<]*)<`).exec(html)?.[1]
    expect([value('exposure_responses'), value('exposure_sessions'), value('exposure_source_tenants'), value('exposure_recipient_tenants')]).toEqual(['6', '5', '2', '3'])
  })

  it('lists a leaking retry with its tenants escaped, and leads the verdict with it where nothing else is counted', () => {
    const none = {responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []}
    const scope = {...reportData().scope, contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, exposed_sessions: 0, exposed_tenants: 0, recipient_tenants: 0, first_seen: null, last_seen: null, exposure: none}
    const d = reportData({
      scope, flows: [], flow_matrix: {tenants: [], responses: []}, totals: {...reportData().totals, bad_lines: 0},
      retry_leaks_not_counted: [{at: '2026-11-01T06:00:05.000Z', line: 'gw.jsonl:7', request_id: BIDI_REQUEST, class: 'cross_tenant', recipient_tenant: HOSTILE_TENANT, source_tenants: ['acme', ESC_SESSION]}],
    })
    const page = renderCaseReportHtml(d)
    expect(page).not.toContain(HOSTILE_TENANT)
    expect(page).toContain('<td>&lt;script&gt;alert(1)&lt;/script&gt;</td><td>acme, sess-\\x1b[31mred')
    expect(page).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/)
    const v = verdict(d)
    expect(v.cls).toBe('leak')
    expect(v.head).toMatch(/^Leak found in a retry/)
    expect(v.text).toContain('1 further response, logged under the request id of a response already counted (a retry), carried another session\'s canary marker')
    // Without one, the same figures are the all-clear they were.
    expect(verdict({...d, retry_leaks_not_counted: []}).head).toBe('No leak found')
  })

  it('on a case never scanned shows every detection count as unknown and no "nothing found" sentence', () => {
    const none = {responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []}
    const scope = {...reportData().scope, contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, exposed_sessions: 0, exposed_tenants: 0, recipient_tenants: 0, first_seen: null, last_seen: null, orphan_sightings: 0, exposure: none, method: ''}
    const d = reportData({
      scope, flows: [], flow_matrix: {tenants: [], responses: []}, nodes: [], hours: [],
      detection: {complete: false, never_scanned: true, files_not_scanned: 2, records_not_scanned: 1000, registry_changed: false},
      sightings: {markers: 'shortened', by_class: {own: 0, echo: 0, cross_session: 0, cross_tenant: 0, orphan: 0}, rows: [], limit: 10_000, omitted: 0},
    })
    const page = renderCaseReportHtml(d)
    const v = verdict(d)
    expect(v.cls).toBe('partial')
    expect(v.head).toBe('Not scanned: nothing is known yet')
    expect(v.text).not.toMatch(/^No response/)
    for (const k of ['exposure_responses', 'contaminated_responses', 'cross_tenant_responses', 'exposed_sessions', 'recipient_tenants', 'first_seen', 'data_subjects', 'records_concerned']) {
      expect(new RegExp(`data-k="${k}">([^<]*)<`).exec(page)?.[1], k).toBe('unknown')
    }
    expect(page).not.toMatch(/No response carried another session(&#39;|')s (canary marker|data)/)
    expect(page).not.toContain('No node served')
    expect(page).not.toContain('nothing to chart.')
    expect(page).toContain('Not known: the case has never been scanned')
  })

  it('a case with no canary registry: the markers are unknown, never 0, and a clean result is not "No leak found"', () => {
    const base = reportData()
    const totals = {...base.totals, registry_files: 0}
    // No marker-shaped token in any answer (no orphan): the exposure is known, all by verbatim text.
    const textOnly = {...base.scope, contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, exposed_sessions: 0, exposed_tenants: 0, recipient_tenants: 0, first_seen: null, last_seen: null, orphan_sightings: 0,
      exposure: {...base.scope.exposure, responses: 2, by_canary: 0, by_text_only: 2}}
    const page = renderCaseReportHtml(reportData({totals, scope: textOnly, flows: []}))
    for (const k of ['contaminated_responses', 'cross_tenant_responses', 'exposed_sessions', 'recipient_tenants', 'first_seen']) {
      expect(new RegExp(`data-k="${k}">([^<]*)<`).exec(page)?.[1], k).toBe('unknown')
    }
    expect(page).toContain('The case holds no canary registry: no marker can be attributed to a session, so every marker found is an orphan')
    expect(verdict(reportData({totals, scope: textOnly})).text).toContain('repeating its text verbatim (the case holds no canary registry, so no marker could be attributed)')
    const clean = {...textOnly, exposure: {...textOnly.exposure, responses: 0, by_text_only: 0}}
    const v = verdict(reportData({totals, scope: clean}))
    expect(v).toMatchObject({cls: 'partial', head: 'No verbatim-text leak found; canary markers not checked'})
    expect(v.text).toContain('the case holds no canary registry, so no canary marker could be looked for')
    // A marker-shaped token in an answer, attributed to no session: whether anything leaked is not known, never a clean verdict.
    const orphaned = verdict(reportData({totals, scope: {...clean, orphan_sightings: 1}}))
    expect(orphaned).toMatchObject({cls: 'partial', head: 'Not known: marker-shaped tokens in answers, and no canary registry'})
  })

  it('says a leak\'s figures and the sections that count leave out the quarantined lines, files not read whole and repeated lines not read again', () => {
    // The hand-built case: a confirmed leak, 1 quarantined line.
    const leak = verdict(reportData())
    expect(leak.head).toBe('Leak confirmed')
    expect(leak.text).toContain('1 quarantined line could not be read and was not judged (crosstalk status --bad-lines).')
    const sections = (page: string, id: string): string => page.slice(page.indexOf(`<section id="${id}">`), page.indexOf('</section>', page.indexOf(`<section id="${id}">`)))
    const page = renderCaseReportHtml(reportData())
    for (const id of ['sightings', 'timeline']) expect(sections(page, id)).toContain('These counts are of what was read, a lower bound: 1 quarantined line could not be read, and what it holds is in no count')
    const more = renderCaseReportHtml(reportData({totals: {...reportData().totals, bad_lines: 2}, duplicate_lines_not_examined: 1, unjudgeable_files: [{name: 'gw.jsonl.gz', why: 'its gzip stream ends early'}] as CaseReportData['unjudgeable_files']}))
    for (const id of ['sightings', 'timeline']) expect(sections(more, id)).toContain('2 quarantined lines could not be read; 1 log file was not judged whole; 1 repeated line with a different answer could not be read again, and what they hold is in no count')
    // Everything read: no such note.
    const whole = renderCaseReportHtml(reportData({totals: {...reportData().totals, bad_lines: 0}}))
    expect(whole).not.toContain('These counts are of what was read')
  })

  it('says the numbers are partial, never "no leak", when detection is incomplete', () => {
    const clean = {...reportData().scope, contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, provenance_only_responses: 0, exposure: {responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []}}
    expect(verdict(reportData({scope: clean, totals: {...reportData().totals, bad_lines: 0}})).head).toBe('No leak found')
    // Quarantined lines were never judged: the all-clear says it covers the readable lines only.
    const quarantined = verdict(reportData({scope: clean, totals: {...reportData().totals, bad_lines: 3}}))
    expect(quarantined).toMatchObject({cls: 'partial', head: 'No leak found in the lines that could be read'})
    expect(quarantined.text).toContain('3 quarantined lines could not be read and were not judged (crosstalk status --bad-lines).')
    const partial = verdict(reportData({scope: clean, detection: {complete: false, never_scanned: false, files_not_scanned: 1, records_not_scanned: 250, registry_changed: false}}))
    expect(partial.cls).toBe('partial')
    expect(partial.text).toContain('250 records were not scanned (run crosstalk scan)')
    expect(partial.text).toContain('No response among the scanned records carried')
    const flows = renderCaseReportHtml(reportData({scope: clean, flows: [], nodes: [], detection: {complete: false, never_scanned: false, files_not_scanned: 1, records_not_scanned: 250, registry_changed: false}}))
    expect(flows).toMatch(/No response carried another session(&#39;|')s data \(marker or verbatim text\) among the records scanned so far; detection is incomplete/)
  })
})

describe('counts on the page', () => {
  it('agree with their nouns at one (never "1 records", "1 responses", "1 sightings")', () => {
    const base = reportData()
    const one = {responses: 1, by_canary: 1, by_text_only: 0, sessions: 1, source_tenants: 1, recipient_tenants: 1, flows: []}
    const page = renderCaseReportHtml(
      reportData({
        totals: {records: 1, files: 1, registry_files: 1, tenants: 1, sessions: 1, bad_lines: 1},
        scope: {...base.scope, exposure: one, contaminated_responses: 1, cross_tenant_responses: 1, cross_session_responses: 0},
        hours: [{hour: '2026-11-01T06:00:00.000Z', contaminated_responses: 1, sightings: 1, text_only_responses: 1, at_risk_responses: 1}],
      }),
    )
    expect(page).not.toMatch(/\b1 (records|responses|sessions|tenants|log files|canary registry files|unreadable lines|contaminated responses|sightings)\b/)
    expect(page).toContain('1 response among 1 record carried another session')
    expect(page).toContain('data of 1 session of 1 tenant reached 1 tenant.')
    expect(page).toContain('1 record in 1 log file (and 1 canary registry file), 1 tenant, 1 session; 1 unreadable line quarantined.')
    expect(page).toMatch(/1 response with another session(&#39;|')s marker \(1 sighting\), 1 response by verbatim text only, 1 response at risk/)
  })
})

describe('the timeline chart with at-risk counts unknown', () => {
  it('says why: no pool size given, or a pool but no record with both status and prompt size', () => {
    const hours = reportData().hours.map((h) => ({...h, at_risk_responses: null}))
    const noPool = renderCaseReportHtml(reportData({hours, scope: {...reportData().scope, pool_tokens: null, at_risk_responses: null}}))
    expect(noPool).toContain('at-risk responses: unknown without a KV pool size (crosstalk scan --pool-tokens N)')
    const unjudgeable = renderCaseReportHtml(reportData({hours, scope: {...reportData().scope, at_risk_responses: null}}))
    expect(unjudgeable).toContain('at-risk responses: unknown: no record gives both its HTTP status and its prompt size')
    expect(unjudgeable).not.toContain('unknown without a KV pool size')
  })
})


describe('a case with no canary registry', () => {
  it('says the marker counts are not known wherever the JSON has null: sightings classes, node columns, hour tooltips, flows', () => {
    const base = reportData()
    const page = renderCaseReportHtml(
      reportData({
        totals: {...base.totals, registry_files: 0},
        flows: [],
        nodes: [{...base.nodes[0]!, contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, provenance_responses: 2}],
        hours: base.hours.map((h) => ({...h, contaminated_responses: 0, sightings: 0})),
        sightings: {...base.sightings, by_class: {own: 0, echo: 0, cross_session: 0, cross_tenant: 0, orphan: 99}},
      }),
    )
    expect(page).toContain('own, echo, cross_session, cross_tenant: not known (no canary registry); orphan 99.')
    expect(page).not.toMatch(/\bown 0\b|cross_tenant 0/)
    const nodeRow = between(page, '<tr><td class="mono">decode-1</td>', '</tr>')[0]!
    expect(nodeRow.split('</td>').slice(0, 3).every((c) => c.endsWith('not known (no canary registry)'))).toBe(true)
    expect(page).not.toMatch(/0 responses with another session(&#39;|')s marker/)
    expect(page).toMatch(/responses with another session(&#39;|')s marker not known \(no canary registry\)/)
    expect(page).toContain('how many of them with a canary marker is <span data-k="flow_pairs">not known (no canary registry)</span>')
    const flowRows = between(between(page, '<h3>Largest flows</h3>', '</table>')[0]!, '<tbody>', '</tbody>')[0]!
    expect(flowRows).not.toMatch(/<td class="n">0<\/td><\/tr>/)
    expect(flowRows.match(/not known \(no canary registry\)<\/td><\/tr>/g)).toHaveLength(base.scope.exposure.flows.length)
  })
})

describe('a log file not read whole', () => {
  it('is named with why on the page, and the verdict says the leak question is not answered for its unread part', () => {
    const clean = {...reportData().scope, contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, provenance_only_responses: 0, exposure: {responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []}}
    const why = 'not read whole: gzip stream is truncated: it ends inside compressed data after 6558 decompressed bytes (unexpected end of file)'
    const d = reportData({scope: clean, totals: {...reportData().totals, bad_lines: 2}, unjudgeable_files: [{name: 'trunc.jsonl.gz', why}]})
    const v = verdict(d)
    expect(v.cls).toBe('partial')
    expect(v.head).not.toMatch(/^No leak found in the lines that could be read$/)
    expect(v.head).toContain('not every log file was read whole')
    expect(v.text).toContain(`The log file trunc.jsonl.gz was not judged whole (${why}): whether the part not read carried another session's data is not answered.`)
    const page = renderCaseReportHtml(d)
    const table = between(page, '<h3 id="not-judged">Log files not judged whole</h3>', '</table>')[0]!
    expect(table).toContain('<td class="mono">trunc.jsonl.gz</td>')
    expect(table).toContain('gzip stream is truncated')
    // A leak found elsewhere does not hide the unread part either.
    expect(verdict({...reportData(), unjudgeable_files: d.unjudgeable_files}).text).toContain('whether the part not read carried another session')
  })
})

describe('records whose at-risk test is open', () => {
  it('stand beside the at-risk figures; the page never says "no at-risk response" while some are undecided', () => {
    const clean = {...reportData().scope, contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, provenance_only_responses: 0, at_risk_responses: 0, at_risk_unknown_records: 10, exposure: {responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []}}
    const d = reportData({scope: clean, flows: [], nodes: [], hours: [], totals: {...reportData().totals, bad_lines: 0}})
    const page = renderCaseReportHtml(d)
    expect(/data-k="at_risk_unknown_records">([^<]*)</.exec(page)?.[1]).toBe('10')
    expect(page).not.toContain('no at-risk response in this case')
    expect(page).toContain('no at-risk response among the records that could be tested: nothing to chart. 10 records whose status or prompt size is not recorded may have been at risk (not known)')
    expect(page).not.toContain('No node served a contaminated or at-risk response.')
    expect(verdict(d).text).toContain('Whether 10 records were at risk is not known: their status or prompt size is not recorded.')
    // With hours charted the note stands under the chart; with none undecided, no such note.
    const charted = renderCaseReportHtml(reportData({scope: {...reportData().scope, at_risk_unknown_records: 3}}))
    expect(charted).toContain('At-risk responses are charted among the records that could be tested; 3 records whose status or prompt size is not recorded')
    expect(renderCaseReportHtml(reportData())).not.toContain('whose status or prompt size is not recorded')
  })
})

describe('the clock and the counts, in words', () => {
  it('a notification after the deadline is badged late, never as a plain green "notified"', () => {
    const late = renderCaseReportHtml(reportData({clock: {aware_at: '2026-11-02T08:00:00.000Z', deadline: '2026-11-05T08:00:00.000Z', remaining_seconds: null, status: 'notified', late: true, notified_at: '2026-11-06T14:00:00.000Z'} as CaseReportData['clock']}))
    const badge = /<span class="badge ([^"]*)" data-k="clock_status">([^<]*)</.exec(late)
    expect(badge?.[1]).toBe('notified late')
    expect(badge?.[2]).toMatch(/^notified late: after the deadline/)
    const onTime = renderCaseReportHtml(reportData({clock: {aware_at: '2026-11-02T08:00:00.000Z', deadline: '2026-11-05T08:00:00.000Z', remaining_seconds: null, status: 'notified', late: false, notified_at: '2026-11-03T14:00:00.000Z'} as CaseReportData['clock']}))
    expect(/<span class="badge ([^"]*)" data-k="clock_status">([^<]*)</.exec(onTime)?.slice(1)).toEqual(['notified', 'notified'])
  })

  it('agree with their nouns at one: "1 pair among 2 tenants", "1 marker-shaped token"', () => {
    const base = reportData()
    const page = renderCaseReportHtml(reportData({scope: {...base.scope, orphan_sightings: 1, exposure: {...base.scope.exposure, flows: [base.scope.exposure.flows[0]!]}}}))
    expect(page).not.toMatch(/\b1<\/span> pairs\b|\b1 marker-shaped tokens\b/)
    expect(page).toContain('<span data-k="exposure_flow_pairs">1</span> pair among <span data-k="flow_tenants">2</span> tenants')
    expect(page).toContain('1 marker-shaped token registered to nobody (an orphan) is reported, not counted.')
  })
})

describe('a case whose findings are out of date (the case changed after the last scan)', () => {
  const value = (page: string, k: string) => new RegExp(`data-k="${k}">([^<]*)<`).exec(page)?.[1]
  const staleDetection = (markers: boolean, provenance: boolean, reason: string): CaseReportData['detection'] => ({
    complete: false, never_scanned: false, files_not_scanned: 0, records_not_scanned: 0, registry_changed: markers,
    findings_stale: true, markers_stale: markers, provenance_stale: provenance, stale_reason: reason,
  })

  it('a registry changed since the scan: the markers\' figures and every total built on them read unknown, with why; the verbatim-text and at-risk figures stand', () => {
    const d = reportData({detection: staleDetection(true, false, 'the canary registry changed since the last scan')})
    const page = renderCaseReportHtml(d)
    for (const k of ['exposure_responses', 'exposure_sessions', 'contaminated_responses', 'cross_tenant_responses', 'exposed_sessions', 'recipient_tenants', 'first_seen', 'exposure_first', 'data_subjects', 'records_concerned', 'provenance_only_responses']) {
      expect(value(page, k), k).toBe('unknown')
    }
    expect(value(page, 'at_risk_responses')).toBe(num(d.scope.at_risk_responses!))
    expect(value(page, 'provenance_responses')).toBe(num(d.scope.provenance_responses))
    expect(value(page, 'stale_findings')).toMatch(/^Not known until a scan \(crosstalk scan\): the canary registry changed since the last scan\./)
    // no stale count anywhere: not the bug window, not the orphans, not the flows, not the sightings' classes
    expect(page).not.toContain(d.scope.bug_window!.start.slice(0, 10) + ' 05:00')
    expect(page).toContain('Bug window: not known until a scan.')
    expect(page).toContain('An unknown number of marker-shaped tokens')
    expect(page).not.toMatch(/cross_tenant \d/)
    const v = verdict(d)
    expect(v.cls).toBe('partial')
    expect(v.text).toMatch(/^The canary registry changed since the last scan\. .*not known until a scan \(run crosstalk scan\)/)
    expect(v.text).not.toContain(`${d.scope.exposure.responses} responses`)
  })

  it('provenance skipped or dropped since the scan: the verbatim-text figures and the totals read unknown; the markers\' figures stand', () => {
    const d = reportData({detection: staleDetection(false, true, 'canary-less provenance does not cover the case as it is')})
    const page = renderCaseReportHtml(d)
    for (const k of ['exposure_responses', 'exposure_first', 'data_subjects', 'records_concerned', 'provenance_only_responses']) expect(value(page, k), k).toBe('unknown')
    expect(value(page, 'contaminated_responses')).toBe(num(d.scope.contaminated_responses))
    expect(value(page, 'cross_tenant_responses')).toBe(num(d.scope.cross_tenant_responses))
    expect(value(page, 'first_seen')).toBe('2026-11-01 06:00:00 UTC')
    expect(value(page, 'at_risk_responses')).toBe(num(d.scope.at_risk_responses!))
    expect(verdict(d).text).toContain(`${d.scope.contaminated_responses} responses carried another session's canary marker`)
    expect(verdict(d).head).not.toBe('Leak confirmed')
    // the page's JSON says the same, figure by figure
    const json = caseReportJson(d)
    expect(json.scope.contaminated_responses).toBe(d.scope.contaminated_responses)
    expect(json.scope.exposure).toBeNull()
    expect(json.scope.provenance_responses).toBeNull()
    expect(json.scope.data_subjects).toBeNull()
    expect(json.scope.at_risk_responses).toBe(d.scope.at_risk_responses)
    expect(json.hours?.[0]?.text_only_responses).toBeNull()
    expect(json.hours?.[0]?.contaminated_responses).toBe(d.hours[0]!.contaminated_responses)
  })
})
