import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {renderScope, renderTimeline, renderVerdict} from '../../src/cli/render-scope.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {buildArticle33} from '../../src/notify/article33.js'
import {planAssessment} from '../../src/notify/assess.js'
import {buildFacts, loadFactsInputs} from '../../src/notify/facts.js'
import {getIncident, openIncident} from '../../src/notify/incident.js'
import {notificationScopeNow} from '../../src/notify/notification-scope.js'
import {recordNotification} from '../../src/notify/notifications.js'
import {buildProcessorNotice} from '../../src/notify/processor-notice.js'
import {buildRegisterEntry} from '../../src/notify/register.js'
import {gatherCaseReport} from '../../src/notify/case-report-data.js'
import {renderCaseReportHtml} from '../../src/cli/html/case-report.js'
import {renderArticle33Markdown, renderProcessorNoticeMarkdown, renderRegisterMarkdown} from '../../src/notify/render-markdown.js'
import {buildTimeline} from '../../src/scope/build-timeline.js'
import {canaryFigures, computeScope} from '../../src/scope/compute-scope.js'
import {loadScopeInputs} from '../../src/scope/scope-data.js'
import {computeTenantView} from '../../src/scope/tenant-view.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// A response carries a canary marker cut short (18 hex digits) that prefixes the registered markers
// of two sessions: its source session cannot be named (and, where the two are of two tenants, nor
// its tenant). Someone's session reached it all the same: no figure may say "0 sessions" (or "0
// customers") of it, and no sentence may describe it as verbatim text.

const S1 = 'CANARY-0123456789abcdef01aaaaaaaaaa'
const S2 = 'CANARY-0123456789abcdef01bbbbbbbbbb'
const CUT = 'CANARY-0123456789abcdef01'
const OWN = 'CANARY-fedcba9876543210fedcba98'
const NOW = new Date('2026-11-02T12:00:00Z')
const LEASE = 'Please review the lease agreement for the warehouse on Harbour Street and confirm the renewal terms with Margaret before the Thursday board meeting starts'

/** `twoTenants`: S2 belongs to tB (the cut-short marker names no tenant); `alsoText`: tA/s1's prompt is repeated verbatim to tB too. */
async function build(options: {twoTenants?: boolean; alsoText?: boolean; role?: 'controller' | 'processor'; recipientsOwn?: boolean} = {}): Promise<TestCase> {
  const c = makeCase()
  await c.addCanaries([[S1, 'tA', 's1'], [S2, options.recipientsOwn ? 'tC' : options.twoTenants ? 'tB' : 'tA', 's2'], [OWN, 'tC', 's3']])
  await c.addFile([
    {request_id: 'r0', ts_ms: Date.parse('2026-11-01T09:00:00Z'), tenant_id: 'tA', session_id: 's1', request_text: `${S1} ${LEASE}`, response_text: 'Noted, I will help.'},
    {request_id: 'r1', ts_ms: Date.parse('2026-11-01T10:00:00Z'), tenant_id: 'tC', session_id: 's3', request_text: `hello ${OWN}`, response_text: `Sure. ${CUT} was cut`},
    ...(options.alsoText ? [{request_id: 'r2', ts_ms: Date.parse('2026-11-01T10:05:00Z'), tenant_id: 'tC', session_id: 's3', request_text: 'hello again', response_text: `Here: ${LEASE}`}] : []),
  ])
  scanCase(c.db, {now: new Date('2026-11-02T09:00:00.000Z')})
  openIncident(c.db, {title: 'Leak', role: options.role ?? 'controller', awareAt: new Date('2026-11-02T08:00:00Z'), now: new Date('2026-11-02T10:00:00Z')})
  return c
}

describe('a cut-short marker whose source session is not named (two sessions of one tenant)', () => {
  let c: TestCase
  beforeAll(async () => (c = await build()), 60_000)
  afterAll(() => c?.close())

  it('scope counts at least one session, and says the named count is not the whole', () => {
    const s = computeScope(loadScopeInputs(c.db))
    expect(s.contaminated_responses).toBe(1)
    expect(s.exposed_sessions).toBe(0)
    expect(s).toMatchObject({exposed_session_not_named: 1, exposed_sessions_low: 1, exposed_tenants_low: 1})
    expect(s.exposure).toMatchObject({sessions: 0, session_not_named: 1, marker_session_not_named: 1, marker_source_not_named: 0, sessions_low: 1, source_tenants_low: 1})
    expect(s.data_subjects.low).toBe(1)
    const console = renderScope(s)
    expect(console).toMatch(/exposed sessions +at least 1 \(0 named; 1 response's source session could not be named\)/)
    expect(console).toMatch(/sessions whose data reached someone else +at least 1 \(0 named/)
  })

  it('the triage verdict says "at least 1 session" and why, never "0 sessions"', () => {
    const v = renderVerdict({...canaryFigures(loadScopeInputs(c.db).contamination), basis: 'scan', canaries: 3, unreadable_files: [], quarantined_lines: 0})
    expect(v).not.toMatch(/Data of 0 sessions/)
    expect(v).toContain('Data of at least 1 session of 1 tenant reached 1 tenant')
    expect(v).toContain("1 response's source session could not be named: its marker is cut short, a prefix of the markers of several sessions")
  })

  it('the data-subjects evidence counts the sighting apart from provenance, and the method words it as a cut-short marker', () => {
    const ds = computeScope(loadScopeInputs(c.db)).data_subjects
    expect(ds.evidence.provenance_source_not_named_responses).toBe(0)
    expect(ds.evidence.sighting_source_session_not_named_responses).toBe(1)
    expect(ds.method).not.toContain("repeats another session's text")
    expect(ds.method).toContain('One response holds a canary marker cut short, a prefix of the markers of several sessions, so whose session it is cannot be named')
  })

  it('the Article 33 draft and the register say at least 1 session, and that its source session could not be named', () => {
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    const md = renderArticle33Markdown(buildArticle33(facts, {language: 'en'}))
    expect(md).not.toMatch(/data of 0 sessions/i)
    expect(md).toContain('The data of at least 1 session of 1 customer reached 1 receiving customer')
    expect(md).toContain("1 response's source session could not be named: it held a canary marker cut short")
    expect(md).toContain('| Sessions whose data reached someone else | at least 1 (0 named; the source session of 1 response could not be named) |')
    expect(md).not.toContain('each affected response, session and customer is identified in the case')
    const fr = renderArticle33Markdown(buildArticle33(facts, {language: 'fr'}))
    expect(fr).not.toMatch(/Les données de 0 session/)
    expect(fr).toContain("Les données d'au moins 1 session de 1 client ont atteint")
    const register = renderRegisterMarkdown(buildRegisterEntry(facts, {language: 'en'}))
    expect(register).not.toMatch(/data of 0 sessions/i)
    expect(register).toContain('The data of at least 1 session of 1 customer')
  })

  it('a notification recorded then is restated later as it was given, "at least 1 session", in the Article 33 draft and the register (en, fr)', async () => {
    const n = await build()
    try {
      const now = new Date('2026-11-02T11:00:00Z')
      recordNotification(n.db, getIncident(n.db)!, {phase: 'initial', at: new Date('2026-11-02T10:30:00Z'), reference: 'SA-1', now, scope: notificationScopeNow(n.db, now)})
      const facts = buildFacts(loadFactsInputs(n.db), NOW)
      const statement = buildArticle33(facts, {language: 'en'}).notification_statements.join('\n')
      expect(statement).toContain('from at least 1 session of 1 customer')
      expect(statement).not.toMatch(/from 0 sessions/)
      expect(buildRegisterEntry(facts, {language: 'en'}).notification_references).toMatch(/scope then: 1 response, at least 1 session,/)
      expect(buildArticle33(facts, {language: 'fr'}).notification_statements.join('\n')).toContain("issues d'au moins 1 session(s) de 1 client(s)")
    } finally {
      n.close()
    }
  })

  it('the notice to the source customer says at least one of its sessions, never 0 or "none"', async () => {
    const p = await build({role: 'processor'})
    const facts = buildFacts(loadFactsInputs(p.db), NOW)
    p.close()
    const n = buildProcessorNotice(facts, 'tA', {language: 'en'})
    expect(n.your_data_reached_others.sessions).toEqual([])
    expect(n.your_data_reached_others.sessions_not_named).toBe(1)
    const md = renderProcessorNoticeMarkdown(n)
    expect(md).not.toContain('data of 0 of your sessions')
    expect(md).toContain('carried data of at least 1 of your sessions')
    expect(md).not.toMatch(/Your sessions whose data appeared in another session's response: none/)
    expect(md).toContain("Your sessions whose data appeared in another session's response: 1 response whose source session, one of yours, could not be named")
  })
})

describe('a cut-short marker that prefixes markers of two tenants', () => {
  let c: TestCase
  beforeAll(async () => (c = await build({twoTenants: true})), 60_000)
  afterAll(() => c?.close())

  it('counts at least 1 session of at least 1 tenant, and words it as a marker, not verbatim text', () => {
    const s = computeScope(loadScopeInputs(c.db))
    expect(s).toMatchObject({exposed_sessions: 0, exposed_tenants: 0, exposed_sessions_low: 1, exposed_tenants_low: 1})
    expect(s.exposure).toMatchObject({sessions: 0, source_tenants: 0, source_not_named: 1, marker_source_not_named: 1, sessions_low: 1, source_tenants_low: 1})
    const v = renderVerdict({...canaryFigures(loadScopeInputs(c.db).contamination), basis: 'scan', canaries: 3, unreadable_files: [], quarantined_lines: 0})
    expect(v).toContain('Data of at least 1 session of at least 1 tenant reached 1 tenant')
    const md = renderArticle33Markdown(buildArticle33(buildFacts(loadFactsInputs(c.db), NOW), {language: 'en'}))
    expect(md).not.toContain('verbatim text whose source is not established')
    expect(md).toContain("It held a canary marker cut short, a prefix of the markers of several customers' sessions")
    expect(md).toContain('| Customers whose data reached someone else | at least 1 (0 named) |')
  })

  it("the recipient's processor notice counts at least 1 session of at least 1 other customer, never 0 customers, and says why (en, fr, json)", async () => {
    await c.close()
    c = await build({twoTenants: true, role: 'processor'})
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    const n = buildProcessorNotice(facts, 'tC', {language: 'en'})
    expect(n.you_received_other_data).toMatchObject({responses: 1, source_customer_not_named: 1, from_customers: 1, from_sessions_of_other_customers: 1})
    const md = renderProcessorNoticeMarkdown(n)
    expect(md).not.toMatch(/of 0 other customers|at 0 other customers/)
    expect(md).toContain('from at least 1 session of at least 1 other customer')
    expect(md).toContain("1 response's source customer could not be named: it held a canary marker cut short, a prefix of the markers of sessions of several other customers.")
    expect(md).toContain('Sessions of other customers whose data they carried: at least 1, across at least 1 other customer')
    const fr = renderProcessorNoticeMarkdown(buildProcessorNotice(facts, 'tC', {language: 'fr'}))
    expect(fr).toContain("d'au moins 1 session d'au moins 1 autre client")
    expect(fr).toContain("Le client source d'une réponse n'a pu être désigné")
  })

  // QA life 01: the customers whose sessions' markers the cut-short marker prefixes were never told
  // their data may have reached another customer (as a possible source of verbatim text is).
  it("each possible source customer's processor notice says a marker cut short that may be its own reached another customer, naming no other (en, fr, json)", () => {
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    for (const [tenant, session] of [['tA', 's1'], ['tB', 's2']] as const) {
      const n = buildProcessorNotice(facts, tenant, {language: 'en'})
      expect(n.possible_source).toMatchObject({marker_responses: 1, marker_sessions: [session], marker_possible_sources: {min: 2, max: 2}})
      const md = renderProcessorNoticeMarkdown(n)
      expect(md).toContain("1 response served to another customer's users held a canary marker cut short, a prefix of the markers of several customers' sessions, 1 session of yours among them: your data may have reached that customer. You are one of 2 possible sources")
      expect(md).toContain('whether your data reached another customer in a canary marker cut short (1 response; you are one of 2 possible sources) is not established')
      expect(md).not.toContain(tenant === 'tA' ? 'tB' : 'tA')
      const fr = renderProcessorNoticeMarkdown(buildProcessorNotice(facts, tenant, {language: 'fr'}))
      expect(fr).toContain('un marqueur canari tronqué, préfixe des marqueurs de sessions de plusieurs clients, dont 1 session des vôtres')
    }
    // the recipient is no possible source of what it received
    expect(buildProcessorNotice(facts, 'tC', {language: 'en'}).possible_source.marker_responses).toBeUndefined()
  })

  it('the HTML case report counts at least 1 session and 1 tenant, and calls the response a cut-short marker, not verbatim text', () => {
    const html = renderCaseReportHtml(gatherCaseReport(c.db, {now: NOW, toolVersion: 'test', showMarker: (m) => m, markersShown: false}))
    const text = html.replace(/<(style|script)[\s\S]*?<\/\1>/g, '').replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'").replace(/\s+/g, ' ')
    expect(text).not.toContain('text whose source is not established')
    expect(text).not.toContain('verbatim text whose source is ambiguous or unknown')
    expect(text).toContain('data of at least 1 session of at least 1 tenant reached 1 tenant')
    expect(text).toContain("1 response's source tenant could not be named: it held a canary marker cut short")
    expect(text).toMatch(/at least 1 \(0 named\) sessions whose data reached another session/)
    expect(text).toMatch(/at least 1 \(0 named\) tenants exposed by marker/)
  })

  it('the timeline names no empty or "?" source', () => {
    const tl = buildTimeline(loadScopeInputs(c.db), [])
    const text = renderTimeline(tl)
    expect(text).not.toMatch(/: \? →|leak  →|leak → /)
    expect(text).toContain('first leak source not named')
    expect(text).toMatch(/cross_tenant sighting in r1: source not named/)
  })
})

describe("a tenant's view where a cut-short marker's session may be one already named", () => {
  let c: TestCase
  beforeAll(async () => (c = await build({alsoText: true})), 60_000)
  afterAll(() => c?.close())

  it('counts the named session once, not the unnamed one as one more', () => {
    const inputs = loadScopeInputs(c.db)
    const s = computeScope(inputs)
    expect(s.exposure).toMatchObject({sessions: 1, sessions_low: 1})
    const view = computeTenantView(inputs, {tenant: 'tA'})
    expect(view.leaked.exposure.own_sessions).toBe(1)
    expect(view.leaked.own_sessions).toBe(1)
    // tC received data of at least one session (s1; the unnamed one may be s1 too)
    expect(computeTenantView(inputs, {tenant: 'tC'}).received.exposure.other_sessions).toBe(1)
  })
})

describe("a cut-short marker that prefixes a marker of the recipient's own tenant and one of another tenant", () => {
  let c: TestCase
  beforeAll(async () => (c = await build({recipientsOwn: true})), 60_000)
  afterAll(() => c?.close())

  it('assess calls it a canary marker cut short whose tenant is not established, never text whose source is not established', () => {
    const a = planAssessment(buildFacts(loadFactsInputs(c.db), NOW), {overrides: {}, now: NOW})
    const integrity = a.inputs.find((i) => i.name === 'cb_integrity')!
    expect(integrity.value).toBe(0.25)
    expect(integrity.why).toContain('1 response holds a canary marker cut short whose source tenant is not established')
    expect(integrity.why).not.toContain('repeats text')
    const all = a.suggestion_reasons.join('\n')
    expect(all).not.toContain('the source of text some responses repeated')
    if (all.includes('whether personal data reached another organisation is not established')) expect(all).toContain("a canary marker cut short is a prefix of several tenants' markers")
  })

  it("the Article 33 draft's consequences say the marker cut short is why the other organisation is not established, not text (en, fr)", () => {
    const facts = buildFacts(loadFactsInputs(c.db), NOW)
    const md = renderArticle33Markdown(buildArticle33(facts, {language: 'en'}))
    expect(md).toContain("whether to users of other organisations is not established (a canary marker cut short is a prefix of the markers of several customers' sessions")
    expect(md).not.toContain('the source of the text some responses repeated')
    const fr = renderArticle33Markdown(buildArticle33(facts, {language: 'fr'}))
    expect(fr).toContain('un marqueur canari tronqué est le préfixe des marqueurs de sessions de plusieurs clients')
    expect(fr).not.toContain('la source du texte que certaines réponses reproduisaient')
  })
})
