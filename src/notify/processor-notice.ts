import {noneFoundGaps} from './none-found.js'
import {staleFindings, staleFindingsReason} from '../scope/unscanned.js'
import {z} from 'zod'
import {InputError} from '../errors.js'
import {computeCaseClock} from './clock.js'
import {detectionSchema, detectionSummary} from './detection-note.js'
import {finalisation, finalisedWithOpenItemsSchema} from './finalise.js'
import {retryConcerns} from '../scope/retry-leaks.js'
import {affectedTenants, droppedSince, withdrawnControllers, DUPLICATE_LEAKS_REMEDY, factsExposureKnown, examinedTotals, ORIGINALS_REMEDY, type CaseFacts, type Counterpart, type TenantExposure, remediesOf} from './facts.js'
import {categoryLabel, leakedSide, PHRASES, receivedSide, type Language} from './phrases.js'
import {assertGrounded, Lines, openItemSchema, splitList, statementSchema} from './statements.js'
import {withOpenItemLines} from './reader-text.js'
import {count} from '../util/plural.js'
import {safeLine, quoted, safeId} from '../util/sanitize.js'
import {noticeController} from './recipients.js'

// GDPR Art. 33(2): the processor tells each affected controller "without undue delay"; it
// need not assess risk first (EDPB 9/2022). A notice speaks only of that customer's own
// exposure (canary and verbatim text together, the same exposure scope and the drafts use):
// its own sessions, and counts (never names) of who else was involved. Nothing another
// customer wrote, no marker in full, no PII value: only counts and categories. Containment
// and cause are said only as recorded (incident set); until then they are to be completed.

/** Another customer, only as an opaque label (tenant#1, ...): never its id. */
const counterpart = z.object({
  label: z.string().regex(/^tenant#\d+$/),
  /** responses with a canary marker (null: the case holds no canary registry, so not known) */
  responses: z.number().int().nullable(),
  provenance_responses: z.number().int(),
  exposure_responses: z.number().int(),
  sessions: z.number().int(),
  first_seen: z.string().nullable(),
  last_seen: z.string().nullable(),
})

export const processorNoticeSchema = z.object({
  kind: z.literal('processor-notice'),
  draft: z.boolean(),
  final: z.boolean(),
  /** who accepted finalising it with open items, and when (--final --accept-open-items NAME); null otherwise */
  finalised_with_open_items: finalisedWithOpenItemsSchema,
  language: z.enum(['en', 'fr']),
  /** Art. 33(4): initial, or a follow-up adding what was established since (default: follow-up once an initial notice to this controller is recorded) */
  phase: z.enum(['initial', 'follow-up']),
  /** the initial notice this one follows up, as recorded (notify record); null for an initial notice, or where none is recorded (then an open item) */
  previous_notice: z.object({at: z.string(), reference: z.string(), late: z.boolean().nullable()}).nullable(),
  /** the phase in words, and what is still being established and how it will follow */
  phase_text: z.string(),
  /**
   * where an earlier notice to this controller was recorded before the case kept the labels it gives
   * other customers (a case from before migration 022): that this notice's labels may differ from
   * that notice's, so a label names no customer across the two; null otherwise
   */
  labels_note: z.string().nullable(),
  /** the open items phase_text counts (listed under "Still to be completed"): those that follow in phases; the others are our own records, to complete before sending (BEFORE_SENDING) */
  still_being_established: z.number().int(),
  /** when our next update follows (Art. 33(4)), as recorded (incident set --next-update); at null: not set (an open item), never a default */
  next_update: z.object({at: z.string().nullable(), text: z.string().nullable()}),
  generated_at: z.string(),
  tenant_id: z.string(),
  detection: detectionSchema,
  /** whether the case holds a canary registry (without one no marker can be attributed, and none is listed) */
  canary_registry: z.boolean(),
  exposure_known: z
    .literal(false)
    .optional()
    .describe('present (false) only where the exposure is not known: the case holds no canary registry and answers hold marker-shaped tokens no session can be given (orphans); every count is then what verbatim text shows, a lower bound, and one of 0 is null (not known)'),
  exposure_unknown_reason: z.string().optional().describe('why the exposure is not known; present with exposure_known'),
  processor: z.string().nullable(),
  processor_aware_at: z.string().nullable(),
  /** the contractual deadline for this notice (null: without undue delay) and whether it was sent late (null: not known: no fixed deadline, or no clock for this controller) */
  due: z.object({deadline: z.string().nullable(), hours: z.number().int().nullable(), sent_at: z.string().nullable(), late: z.boolean().nullable(), text: z.string().nullable(), sent_text: z.string().nullable()}),
  contact: z.object({name: z.string().nullable(), contact: z.string().nullable()}),
  intro: z.string(),
  what_happened: z.array(z.string()),
  your_data_reached_others: z.object({
    sessions: z.array(z.string()),
    /** responses carrying the customer's data whose source session, one of its own, could not be named (a marker cut short of several of its sessions' markers): in no entry of `sessions` */
    sessions_not_named: z.number().int(),
    responses: z.number().int(),
    /** null: the case holds no canary registry (no marker can be attributed), not none */
    by_canary: z.number().int().nullable(),
    /** null: the case holds no canary registry (no marker was checked, so "no marker" is not known), not none */
    verbatim_only_responses: z.number().int().nullable(),
    other_sessions_of_yours: z.number().int(),
    sessions_of_other_customers: z.number().int(),
    other_customers: z.number().int(),
    first: z.string().nullable(),
    last: z.string().nullable(),
    markers_truncated: z.array(z.string()),
    personal_data_found: z.array(z.object({label: z.string(), count: z.number().int()})),
    /** said instead of an empty personal_data_found: none found (only where detection covered everything), or the open item (to be completed); null where it has rows */
    personal_data_none: z.string().nullable(),
    other_customers_detail: z.array(counterpart),
  }),
  you_received_other_data: z.object({
    responses: z.number().int(),
    /** null: the case holds no canary registry (no marker can be attributed), not none */
    by_canary: z.number().int().nullable(),
    /** null: the case holds no canary registry (no marker was checked, so "no marker" is not known), not none */
    verbatim_only_responses: z.number().int().nullable(),
    /** of `responses`, those whose only evidence is verbatim text whose source is not established (ambiguous or unknown): attributed to no customer, possibly the customer's own */
    source_not_named: z.number().int(),
    /** of `responses`, those with a canary marker cut short, a prefix of the markers of sessions of several other customers: no source customer named, so from_customers and from_sessions_of_other_customers are lower bounds (absent: none) */
    source_customer_not_named: z.number().int().optional(),
    sessions: z.array(z.string()),
    /** a lower bound where source_customer_not_named > 0 */
    from_customers: z.number().int(),
    /** the sessions whose data it was: the customer's own other sessions, and other customers' sessions */
    from_other_sessions_of_yours: z.number().int(),
    from_sessions_of_other_customers: z.number().int(),
    first: z.string().nullable(),
    last: z.string().nullable(),
    personal_data_found: z.array(z.object({label: z.string(), count: z.number().int()})),
    personal_data_none: z.string().nullable(),
    other_customers_detail: z.array(counterpart),
  }),
  /**
   * Verbatim text served to other customers whose source is ambiguous, with this customer's sessions
   * among its recorded possible sources: its data may be the source, not established (an open item).
   * The other possible sources are never named. not_recorded: such responses in the case whose
   * possible sources were not recorded (an earlier scan, imported findings): whether this customer
   * is among them is not known (an open item), never none.
   */
  possible_source: z.object({
    responses: z.number().int(),
    sessions: z.array(z.string()),
    /** of how many customers it is one possible source (fewest, most over those responses); null where responses is 0 */
    possible_sources: z.object({min: z.number().int(), max: z.number().int()}).nullable(),
    not_recorded: z.number().int(),
    /** responses to other customers holding a canary marker cut short of several customers' sessions' markers, this customer's among them (its data may have reached them; not established); absent where none */
    marker_responses: z.number().int().optional(),
    /** its sessions among those markers' possible sources */
    marker_sessions: z.array(z.string()).optional(),
    /** of how many customers' sessions each such marker may come (fewest, most); null where marker_responses is 0 */
    marker_possible_sources: z.object({min: z.number().int(), max: z.number().int()}).nullable().optional(),
  }),
  /** cross-session exposure within the customer's own tenant (one of its sessions served another of its sessions' data), apart from other customers */
  within_your_own_sessions: z.object({
    responses: z.number().int(),
    /** its sessions that received data of its other sessions */
    receiving_sessions: z.number().int(),
    /** its sessions whose data they received */
    source_sessions: z.number().int(),
    personal_data_found: z.array(z.object({label: z.string(), count: z.number().int()})),
    personal_data_none: z.string().nullable(),
  }),
  /**
   * Retries logged under the request id of a response already counted whose answer carried
   * another session's marker, concerning this customer: served to its users (received) or
   * carrying its marker (reached_others; a retry within its own sessions is both). In none of the
   * figures above (a request's first line is its record); an open item while there are any.
   */
  retry_leaks_not_counted: z.object({responses: z.number().int(), received: z.number().int(), reached_others: z.number().int()}),
  /**
   * Retries under a counted request id that could not be read again (the gate fails on them):
   * `responses`, every one in the case (whose marker each carried is not known, so any may carry
   * this customer's data); `of_yours`, those repeating this customer's own requests (what its users
   * were served is not known either). An open item while there are any; counted, never named.
   */
  duplicate_lines_not_examined: z.object({responses: z.number().int(), of_yours: z.number().int()}),
  at_risk_responses: z.number().int().nullable(),
  /** its records whose status or prompt size is not recorded where that leaves open whether they were at risk */
  at_risk_unknown_records: z.number().int().nullable(),
  cause: z.array(z.string()),
  containment: z.array(z.string()),
  investigation: z.array(z.string()),
  your_next_steps: z.array(z.string()),
  statements: z.array(statementSchema),
  open_items: z.array(openItemSchema),
})

/** `crosstalk report processor-notice --format json` */
export type ProcessorNoticeResult = z.infer<typeof processorNoticeSchema>

/**
 * Open items that are our own records (the incident record, our name and contact point, the
 * initial notice sent, the date of the next update): completed before the notice is sent, they
 * are not points "still being established" that follow in a later phase (Art. 33(4)).
 */
export const BEFORE_SENDING_SECTIONS: ReadonlySet<string> = new Set(['records', 'header', 'phase', 'contact'])

/** Whether an open item follows in phases (counted by phase_text), or is one of our records to complete before sending. */
export function followsInPhases(o: {section: string}): boolean {
  return !BEFORE_SENDING_SECTIONS.has(o.section)
}

export {affectedTenants}

/**
 * The retries that could not be read again, as this customer's notice counts them: all of them
 * (any may carry its data), and those repeating its own requests (the facts' count where they
 * were narrowed to it; case-wide facts carry no per-tenant split, so it is read from the line
 * tenants they hold).
 */
function tenantUnexaminedDuplicates(facts: CaseFacts, tenant: string): {responses: number; of_yours: number} {
  const lines = facts.totals.duplicate_lines_not_examined ?? 0
  const own = facts.totals.duplicate_lines_not_examined_of_tenant
  return {responses: lines, of_yours: own ?? (facts.duplicate_lines_not_examined_tenants ?? []).filter((t) => t === tenant).length}
}

/** This customer's share of the leaking retries (facts.retry_leaks, tenants as the facts show them). */
function retryShare(facts: CaseFacts, tenant: string): {responses: number; received: number; reached_others: number} {
  const mine = (facts.retry_leaks ?? []).filter((r) => retryConcerns(r, tenant))
  return {responses: mine.length, received: mine.filter((r) => r.recipient_tenant === tenant).length, reached_others: mine.filter((r) => r.source_tenants.includes(tenant)).length}
}

/**
 * Why the controllers a processor notifies are not known (null: they are): findings that no
 * longer cover the case name none, so an empty list is "not known", never "none affected".
 */
export function affectedTenantsUnknown(facts: CaseFacts): string | null {
  const stale = staleFindings(facts.detection)
  // No registry and markers in answers: whose data they carry, and so which controllers are affected, is not known (exposureKnown).
  if (facts.scope && !factsExposureKnown(facts)) return `the controllers affected are not known: ${count(facts.scope.orphan_sightings, 'marker-shaped token')} found in answers could not be attributed to any session (the case holds no canary registry); notices are written only for the controllers verbatim text names (crosstalk ingest canaries FILE; crosstalk scan)`
  if (facts.scope) return null
  return stale.markers || stale.provenance
    ? `the controllers affected are not known: ${staleFindingsReason(stale)}; no notice written (crosstalk scan)`
    : 'the controllers affected are not known: no scan covers the logs ingested; no notice written (crosstalk scan)'
}

export interface BuildNoticeOptions {
  language?: Language
  final?: boolean
  /** who accepts finalising it while open items remain (--accept-open-items NAME) */
  acceptOpenItemsBy?: string
  phase?: 'initial' | 'follow-up'
}

/**
 * The notice speaks as the processor ("we are informing you, as your processor"): on a case whose
 * incident records us as the controller, every such sentence would contradict the record. A case
 * with no incident yet drafts one, the incident an open item.
 */
export function requireProcessorRole(facts: CaseFacts): void {
  const inc = facts.incident
  if (inc && inc.role !== 'processor') {
    throw new InputError(`this case's incident records our role as ${inc.role}: a processor notice is what a processor sends its controllers (Art. 33(2)). As controller, draft the authority's notification (report article33) and the data subjects' (report article34); if the role was recorded wrong, correct it with \`crosstalk incident set --role processor --reason ...\``, 'E_ROLE')
  }
}

export function buildProcessorNotice(facts: CaseFacts, tenant: string, options: BuildNoticeOptions = {}): ProcessorNoticeResult {
  // The facts hold ids as they are shown (controls, bidi and invisible characters made visible): the id as typed is compared in that form too.
  const shown = safeId(tenant)
  // Findings that do not cover the case give no exposure at all (facts.ts): which controllers it reached, and how, is not known, never "none".
  const stale = staleFindings(facts.detection)
  if (!facts.scope && (stale.markers || stale.provenance)) throw new InputError(`tenant ${quoted(tenant.slice(0, 80))}: its exposure is not known: ${staleFindingsReason(stale)}; run \`crosstalk scan\` first`, 'E_NOT_SCANNED')
  // A customer only a leaking retry concerns is notified too: of the retry alone, its figures as counted (none).
  // A controller notified before whose exposure the case no longer shows gets its correcting follow-up (its figures as now counted: none).
  const candidates = [...facts.tenants, ...(facts.retry_only_tenants ?? []), ...(facts.withdrawn_tenants ?? [])]
  const t: TenantExposure | undefined = candidates.find((x) => x.tenant_id === tenant) ?? candidates.find((x) => x.tenant_id === shown)
  // Where markers in answers could not be attributed (no registry), "no exposure" is not known: said, never a finding.
  if (!t && facts.scope && !factsExposureKnown(facts)) throw new InputError(`tenant ${quoted(tenant.slice(0, 80))}: no exposure found by verbatim text, and ${count(facts.scope.orphan_sightings, 'marker-shaped token')} found in answers could not be attributed to any session (the case holds no canary registry), so whether its data reached others or its users received others' is not known; ingest the canary registry and scan again (crosstalk ingest canaries FILE; crosstalk scan)`, 'E_NOT_KNOWN')
  // Personal data first sent by this tenant's sessions found in another session's answer (matched
  // by value, no marker or verbatim text): its data may have reached others, never "no exposure".
  const piiFlows = (facts.scope?.pii_attributed_only_flows ?? []).filter((f) => f.source_tenant === tenant || f.source_tenant === shown || f.recipient_tenant === tenant || f.recipient_tenant === shown)
  if (!t && piiFlows.length > 0) {
    const theirs = piiFlows.filter((f) => f.source_tenant === tenant || f.source_tenant === shown).reduce((n, f) => n + f.responses, 0)
    const served = piiFlows.filter((f) => f.recipient_tenant === tenant || f.recipient_tenant === shown).reduce((n, f) => n + f.responses, 0)
    const sides = [theirs > 0 ? `${count(theirs, 'response')} of other sessions carried personal data its sessions sent first` : null, served > 0 ? `${count(served, 'response')} to its users carried personal data another session sent first` : null].filter((x) => x !== null).join(', and ')
    throw new InputError(`tenant ${quoted(tenant.slice(0, 80))}: no canary marker or verbatim text of another session was found on its side, but ${sides} (matched by value: crosstalk pii lists them), so whether its data reached others or its users received others' is not established; establish it before drafting its notice`, 'E_NOT_KNOWN')
  }
  if (!t) throw new InputError(`tenant ${quoted(tenant.slice(0, 80))} has no exposure in this case (affected: ${count(affectedTenants(facts).length, 'tenant')}; see --all)`, 'E_NO_EXPOSURE')
  const inc = facts.incident
  requireProcessorRole(facts)
  const language = options.language ?? 'en'
  const P = PHRASES[language]
  const N = P.notice
  const L = new Lines()
  if (!inc) L.open('records', P.open.noIncident, 'Art. 33(2)', 'crosstalk incident open --role processor ...')
  if (!inc?.processor_name) L.open('header', P.open.processor, 'Art. 33(2)', 'crosstalk incident set --processor-name ...')
  const intro = L.stated('intro', N.intro, inc ? ['incident.role', 'scan.exposure'] : ['scan.exposure'])
  const withdrawnFrom = withdrawnControllers(facts).find((w) => w.tenant === t.tenant_id)

  // Due: the contractual period from the processor's awareness, or without undue delay.
  // A customer only a leaking retry concerns is in no case clock (that counts the exposure's controllers): its own is computed as theirs are.
  const controllerClock = facts.clock?.controllers?.find((c) => c.tenant_id === t.tenant_id) ?? (inc?.role === 'processor' && facts.clock ? (computeCaseClock(inc, facts.notifications, new Date(facts.generated_at), [t.tenant_id]).controllers?.[0] ?? null) : null)
  const hours = inc?.controller_deadline_hours ?? null
  const sent = facts.notifications.find((n) => n.phase === 'initial' && noticeController(n) === t.tenant_id)
  // GDPR Art. 33(4): information may be given in phases. As the Article 33 draft: once the initial
  // notice to this controller is recorded, a new draft is a follow-up to it (a second "initial"
  // would say it is the notice already sent).
  const phase = options.phase ?? (sent ? 'follow-up' : 'initial')
  if (phase === 'follow-up' && !sent) L.open('phase', N.open.previousNotice, 'Art. 33(2), 33(4)', `crosstalk notify record --recipient ${t.tenant_id} --phase initial --at ISO --reference REF`)
  // Drafted after the contractual deadline and not yet sent, the notice says it is late; a sent one says when in its own line.
  // A follow-up's deadline and sending were the initial notice's: its phase line says when that one was sent.
  const dueState = sent ? 'sent' : controllerClock?.late === true ? 'late' : 'open'
  const dueLine = inc && phase === 'initial'
    ? L.stated('due', N.due(controllerClock?.deadline ?? null, hours, dueState), hours !== null ? ['incident.aware_at', 'incident.controller_deadline_hours', ...(dueState === 'late' ? (['clock'] as const) : [])] : ['incident.aware_at', 'rule:Art. 33(2)'])
    : null
  const sentLine = sent && phase === 'initial' ? L.stated('notifications', N.sent(sent.at, sent.late), [`notification#${sent.id}`]) : null

  const canaries = facts.totals.registry_files > 0
  const happened: string[] = []
  if (withdrawnFrom) happened.push(L.stated('what_happened', N.withdrawn(withdrawnFrom.notice.at, withdrawnFrom.notice.reference), [`notification#${withdrawnFrom.notice.id}`, 'scan.exposure']))
  // "Nothing found" speaks only for the answers that had text: where none had, nothing was examined.
  const withoutText = facts.totals.responses_without_text ?? 0
  const answers = facts.totals.answers ?? facts.totals.records
  // Nor for what detection set aside or never searched (none-found.ts): named with it (answers without text as above; an unread source under investigation).
  const notCovered = noneFoundGaps(facts, P).filter((g) => g.kind !== 'responses_without_text' && g.kind !== 'unread_sources' && g.kind !== 'duplicate_leaks').map((g) => ` ${g.statement}`).join('')
  // Detection incomplete (records ingested, never scanned): no "none found" over them, the open item instead, as the personal-data sections say it.
  const notScanned = (): string => {
    const item = P.open.detectionIncomplete(facts.detection.files_not_scanned)
    if (!L.open_items.some((o) => o.item === item)) L.open('investigation', item, 'Art. 33(2), 33(4)', 'crosstalk scan')
    return P.toComplete(item)
  }
  const unexamined = (nothing: string): string => (facts.totals.records === 0 ? P.noResponsesInLogs : facts.scope && !facts.detection.complete ? notScanned() : withoutText === 0 ? nothing + notCovered : withoutText >= answers ? P.nothingExamined(withoutText) : `${nothing} ${P.noResponseText(withoutText)}${notCovered}`)
  // A leaking retry is a response served that no figure counts: said beside the side it concerns, never "nothing" on that side.
  const retries = retryShare(facts, t.tenant_id)
  // No registry and markers in answers (exposureKnown false): each count is what verbatim text shows, a lower bound, said "at least".
  const atLeast = facts.scope !== null && !factsExposureKnown(facts)
  if (t.responses_carrying_its_data > 0) happened.push(L.stated('what_happened', N.leaked(leakedSide(t, canaries, atLeast)), ['scan.exposure']))
  else if (retries.reached_others === 0) happened.push(L.stated('what_happened', unexamined(N.nothingLeaked), ['scan.exposure']))
  if (retries.reached_others > 0) happened.push(L.stated('what_happened', N.retriesReachedOthers(retries.reached_others), ['scan.duplicate_leaks']))
  if (t.received_foreign_responses > 0) happened.push(L.stated('what_happened', N.received(receivedSide(t, canaries, atLeast)), ['scan.exposure']))
  else if (retries.received === 0) happened.push(L.stated('what_happened', unexamined(N.nothingReceived), ['scan.exposure']))
  if (retries.received > 0) happened.push(L.stated('what_happened', N.retriesReceived(retries.received), ['scan.duplicate_leaks']))
  if (retries.responses > 0) L.open('investigation', N.open.retries(retries.responses, retries.received, retries.reached_others), 'Art. 33(2), 33(4)', DUPLICATE_LEAKS_REMEDY)
  const unreadRetries = tenantUnexaminedDuplicates(facts, t.tenant_id)
  if (unreadRetries.responses > 0) L.open('investigation', N.open.duplicatesNotExamined(unreadRetries.responses, unreadRetries.of_yours), 'Art. 33(2), 33(4)', remediesOf(facts).duplicates_not_examined)
  // Evidence the last notice to this controller may have rested on, dropped since: named with the reason the drop recorded.
  const lastNotice = facts.notifications.filter((n) => noticeController(n) === t.tenant_id).reduce<(typeof facts.notifications)[number] | null>((last, n) => (last === null || Date.parse(n.recorded_at) > Date.parse(last.recorded_at) ? n : last), null)
  if (lastNotice) for (const d of droppedSince(facts.evidence_dropped, lastNotice.recorded_at)) L.stated('investigation', P.evidenceDropped(d, lastNotice.at, lastNotice.reference), ['evidence.files', `notification#${lastNotice.id}`])
  if (inc?.cause_category) L.stated('cause', P.causeCategoryRecorded(P.causeCategory[inc.cause_category] ?? inc.cause_category), ['incident.cause_category'])
  if (inc?.cause) L.stated('cause', P.causeRecorded(inc.cause), ['incident.cause'])
  if (!inc?.cause && !inc?.cause_category) L.open('cause', P.open.cause, 'Art. 33(3)(a); EDPB 9/2022', 'crosstalk incident set --cause TEXT --cause-category ...')
  for (const m of splitList(inc?.measures_taken)) L.stated('containment', m, ['incident.measures_taken'])
  if (splitList(inc?.measures_taken).length === 0) L.open('containment', P.open.containment, 'Art. 33(3)(d)', 'crosstalk incident set --measures-taken "A; B"')
  const examined = examinedTotals(facts)
  if (facts.scope) L.stated('investigation', N.identified(examined.records, examined.log_files, facts.totals.log_files_by_reference ?? 0, facts.totals.registry_files > 0, examined.not_scanned), ['scan.exposure', 'evidence.files'])
  if (facts.scope && facts.totals.registry_files === 0) L.stated('investigation', P.noRegistry, ['evidence.files', 'scan.exposure'])
  const notIntact = facts.totals.originals_not_intact ?? []
  if (notIntact.length > 0) {
    L.stated('investigation', P.originalsNotIntact(notIntact), ['evidence.files'])
    L.open('investigation', P.open.originalsNotIntact(notIntact), 'Art. 33(2)', ORIGINALS_REMEDY)
  }
  if ((facts.scope?.responses_dated_after_ingest ?? 0) > 0) L.open('investigation', P.open.datedAfterIngest(facts.scope!.responses_dated_after_ingest!), 'Art. 33(2), 33(4)', null)
  if ((facts.scope?.responses_dated_before_marker_issued ?? 0) > 0) L.open('investigation', P.open.datedBeforeIssued(facts.scope!.responses_dated_before_marker_issued!), 'Art. 33(2), 33(4)', null)
  if (facts.scope && facts.totals.bad_lines > 0) L.stated('investigation', P.unreadLines(facts.totals.bad_lines), ['evidence.files'])
  const unreadSources = facts.totals.unread_sources ?? []
  if (unreadSources.length > 0) {
    L.stated('investigation', P.unreadSources(unreadSources), ['evidence.files'])
    L.open('investigation', P.open.unreadSources(unreadSources), 'Art. 33(2)', remediesOf(facts).unread_sources)
  }
  if (facts.scope && withoutText > 0) {
    L.stated('investigation', P.noResponseText(withoutText), ['evidence.files'])
    L.open('investigation', P.open.responsesWithoutText(withoutText), 'Art. 33(2)', remediesOf(facts).responses_without_text)
  }
  // Logs that give no HTTP status (or no prompt size) leave this controller's at-risk responses unknown: an open item, as in the Article 33 draft.
  if (t.at_risk_responses === null && (t.at_risk_unknown_records ?? 0) > 0) L.open('investigation', P.open.atRiskUnknown(t.at_risk_unknown_records!), 'Art. 33(2), 33(4)', null)
  if (facts.scope && (facts.scope.contaminated_without_prompt ?? 0) > 0) L.stated('investigation', P.noPromptLogged(facts.scope.contaminated_without_prompt!), ['scan.sightings'])
  if (facts.scope && (facts.scope.contaminated_prompt_in_part ?? 0) > 0) L.stated('investigation', P.promptReadInPart(facts.scope.contaminated_prompt_in_part!, facts.scope.prompt_in_part_members), ['scan.sightings'])
  // Verbatim text whose source provenance does not name: any controller may have been its source, none is
  // named. Each is told it is possible and not established (an open item), as the Article 33 draft does.
  // Where provenance recorded the possible sources of an ambiguous text, only they are told so: each
  // that it may be the source, of how many, and that it is not established (never who the others are).
  // Where they were not recorded, and where the text is only in answers whose prompts were not logged
  // (unknown), any customer may be one: every notice says so.
  if (t.possible_source_responses > 0 && t.possible_sources_among) {
    happened.push(L.stated('what_happened', N.possibleSource(t.possible_source_responses, t.possible_source_sessions.length, t.possible_sources_among), ['scan.provenance']))
    L.open('investigation', N.open.possibleSourceOf(t.possible_source_responses, t.possible_sources_among), 'Art. 33(2), 33(4)', 'crosstalk provenance')
  }
  // A canary marker cut short of several customers' sessions' markers served to another customer: each possible source is told, never the others.
  const markerAmong = t.possible_marker_sources_among ?? null
  if ((t.possible_marker_source_responses ?? 0) > 0 && markerAmong) {
    happened.push(L.stated('what_happened', N.possibleMarkerSource(t.possible_marker_source_responses!, t.possible_marker_source_sessions?.length ?? 0, markerAmong), ['scan.sightings']))
    L.open('investigation', N.open.possibleMarkerSourceOf(t.possible_marker_source_responses!, markerAmong), 'Art. 33(2), 33(4)', 'crosstalk sightings')
  }
  if (t.possible_sources_not_recorded > 0) L.open('investigation', N.open.possibleSourcesNotRecorded(t.possible_sources_not_recorded), 'Art. 33(2), 33(4)', 'crosstalk scan')
  if (t.source_unknown_responses > 0) L.open('investigation', P.open.possibleSource(t.source_unknown_responses), 'Art. 33(2), 33(4)', 'crosstalk provenance')
  // Deleting what your users received applies where they received something, or where the
  // scan is not complete and nobody can yet say they did not.
  const quarantine = t.received_foreign_responses > 0 || retries.received > 0 ? [L.stated('next', N.quarantine, ['scan.exposure'])] : facts.detection.complete ? [] : [L.stated('next', N.quarantine, ['rule:Art. 5(1)(f)'])]
  // The controller became aware with our initial notice (EDPB 9/2022): a follow-up says its 72 hours ran from
  // that one (and the deadline it gave), never that they start on receiving this.
  const assessStep = phase === 'initial'
    ? L.stated('next', N.assess, ['rule:EDPB 9/2022'])
    : sent
      ? L.stated('next', N.assessFollowUp({at: sent.at, deadline: new Date(Date.parse(sent.at) + 72 * 3600_000).toISOString()}), [`notification#${sent.id}`, 'rule:EDPB 9/2022'])
      : L.stated('next', N.assessFollowUp(null), ['rule:EDPB 9/2022'])
  const steps = [assessStep, ...quarantine, L.stated('next', N.contactWanted, ['rule:Art. 33(4)'])]
  if (!inc?.dpo_name && !inc?.dpo_contact) L.open('contact', P.open.contact, 'Art. 33(3)(b)', 'crosstalk incident set --dpo-name ... --dpo-contact ...')
  // GDPR Art. 33(4): when the next phase follows, only as recorded; unset, an open item (never a default date).
  // An empty personal-data table says why (none-found.ts): none found only where detection covered
  // everything it would be said of; otherwise what is not covered, as the open item it is.
  const gaps = noneFoundGaps(facts, P)
  // What detection did not cover is the case's, not this controller's: every notice of the case carries it as an
  // open item (and so the same --final gate), whether or not one of its tables reads empty. The retries are named
  // above for this controller; a case never scanned, or scanned in part, says so first.
  const coverage = [
    ...(!facts.scope ? [{item: P.open.noScan, record_with: 'crosstalk scan'}] : !facts.detection.complete ? [{item: P.open.detectionIncomplete(facts.detection.files_not_scanned), record_with: 'crosstalk scan'}] : []),
    ...gaps.filter((g) => g.open && g.kind !== 'duplicate_leaks' && g.kind !== 'duplicates_not_examined'),
  ]
  for (const c of coverage) if (!L.open_items.some((o) => o.item === c.item)) L.open('investigation', c.item, 'Art. 33(2), 33(4)', c.record_with)
  const piiNone = (found: readonly unknown[], side: 'leaked' | 'received' | 'own', responses: number): string | null => {
    if (found.length > 0) return null
    const gap = gaps.find((g) => g.open)
    const open = !facts.scope || !facts.detection.complete
      ? {item: facts.scope ? P.open.detectionIncomplete(facts.detection.files_not_scanned) : P.open.noScan, record_with: 'crosstalk scan'}
      : gap ? {item: gap.item, record_with: gap.record_with} : null
    if (open) {
      if (!L.open_items.some((o) => o.item === open.item)) L.open('investigation', open.item, 'Art. 33(2), 33(4)', open.record_with)
      return P.toComplete(open.item)
    }
    const dismissed = gaps.map((g) => ` ${g.statement}`).join('')
    return L.stated('personal_data', `${N.piiNoneFound(side, responses)}${dismissed}`, ['scan.pii_findings', 'scan.exposure'])
  }
  const piiNoneLeaked = piiNone(t.pii_in_leaked, 'leaked', t.responses_carrying_its_data)
  const piiNoneReceived = piiNone(t.pii_in_received, 'received', t.received_foreign_responses)
  const piiNoneOwn = piiNone(t.pii_within_own_sessions, 'own', t.own_cross_session_responses)
  // A recorded time at or before the notice's issue time is no longer a promise: an open item saying it has passed.
  const nextUpdatePassed = inc?.next_update_at != null && Date.parse(inc.next_update_at) <= Date.parse(facts.generated_at)
  const nextUpdate = inc?.next_update_at && !nextUpdatePassed ? L.stated('phase', N.nextUpdate(inc.next_update_at), ['incident.next_update_at']) : null
  if (!inc?.next_update_at) L.open('phase', N.open.nextUpdate, 'Art. 33(4)', 'crosstalk incident set --next-update ISO')
  else if (nextUpdatePassed) L.open('phase', N.open.nextUpdatePassed(inc.next_update_at), 'Art. 33(4)', 'crosstalk incident set --next-update ISO')
  // Last, when every open item is known: what is still being established follows in a later phase
  // (Art. 33(4)); our own records are completed before sending, not sent later.
  // Our own records still open are named too: the notice never says nothing is open while it lists one.
  const still = L.open_items.filter(followsInPhases).length
  const ownRecords = L.open_items.length - still
  const phaseText =
    phase === 'initial'
      ? L.stated('phase', N.phaseInitial(still, ownRecords), ['rule:Art. 33(4)'])
      // What the initial notice rested on, as stored when it was recorded (by scan: the stored figures are the whole case's, not this customer's to read).
      : L.stated('phase', N.phaseFollowUp(sent ? {at: sent.at, reference: sent.reference, late: sent.late} : null, still, ownRecords) + (sent ? P.notifiedScan(sent) : ''), sent ? [`notification#${sent.id}`] : ['rule:Art. 33(4)'])
  // Labels are kept for the case's life only from when they were first stored (migration 022): a
  // notice to this controller recorded before then named other customers by labels this case did
  // not keep, and those given since may differ, so the same label may name another customer.
  const labelsFrom = facts.tenant_labels_first_given?.get(t.tenant_id) ?? null
  const namesOthers = t.counterparts_leaked_to.length > 0 || t.counterparts_received_from.length > 0
  const unkept = namesOthers ? facts.notifications.filter((n) => n.recipient === t.tenant_id && (labelsFrom === null || Date.parse(n.recorded_at) < Date.parse(labelsFrom))) : []
  const labelsNote = unkept.length > 0 ? L.stated('phase', N.labelsMayDiffer(unkept.map((n) => ({at: n.at, reference: n.reference}))), unkept.map((n) => `notification#${n.id}`)) : null
  assertGrounded(L.statements)
  return processorNoticeSchema.parse(withOpenItemLines({
    kind: 'processor-notice',
    draft: !(options.final ?? false),
    final: options.final ?? false,
    finalised_with_open_items: finalisation(`report processor-notice (the notice to ${quoted(t.tenant_id.slice(0, 80))})`, L.open_items, options, language, facts.generated_at),
    language,
    phase,
    previous_notice: phase === 'follow-up' && sent ? {at: sent.at, reference: sent.reference, late: sent.late} : null,
    phase_text: phaseText,
    labels_note: labelsNote,
    still_being_established: still,
    next_update: {at: inc?.next_update_at ?? null, text: nextUpdate},
    generated_at: facts.generated_at,
    tenant_id: t.tenant_id,
    detection: detectionSummary(facts.detection, language),
    canary_registry: facts.totals.registry_files > 0,
    ...(atLeast ? {exposure_known: false as const, exposure_unknown_reason: P.exposureUnknown.notKnown} : {}),
    processor: inc?.processor_name ?? null,
    processor_aware_at: inc?.aware_at ?? null,
    due: {deadline: controllerClock?.deadline ?? null, hours, sent_at: sent?.at ?? null, late: controllerClock?.late ?? null, text: dueLine, sent_text: sentLine},
    contact: {name: inc?.dpo_name ?? null, contact: inc?.dpo_contact ?? null},
    intro,
    what_happened: happened,
    your_data_reached_others: {
      sessions: t.leaked_sessions,
      sessions_not_named: t.leaked_sessions_not_named ?? 0,
      responses: t.responses_carrying_its_data,
      by_canary: canaries ? t.leaked_by_canary : null,
      verbatim_only_responses: canaries ? t.provenance_only_leaked : null,
      other_sessions_of_yours: t.recipient_sessions_same_tenant,
      sessions_of_other_customers: t.recipient_sessions_other_tenants,
      other_customers: t.recipient_tenants_other,
      first: t.first_leaked,
      last: t.last_leaked,
      markers_truncated: t.markers_truncated,
      personal_data_found: t.pii_in_leaked.map((c) => ({label: categoryLabel(c.kind, c.label, language), count: c.count})),
      personal_data_none: piiNoneLeaked,
      other_customers_detail: markerCounts(t.counterparts_leaked_to, canaries),
    },
    you_received_other_data: {
      responses: t.received_foreign_responses,
      by_canary: canaries ? t.received_by_canary : null,
      verbatim_only_responses: canaries ? t.received_by_text_only : null,
      source_not_named: t.received_source_not_named,
      ...((t.received_source_customer_not_named ?? 0) > 0 ? {source_customer_not_named: t.received_source_customer_not_named} : {}),
      sessions: t.receiving_sessions,
      from_customers: t.received_from_tenants,
      from_other_sessions_of_yours: t.source_sessions_same_tenant,
      from_sessions_of_other_customers: t.source_sessions_other_tenants,
      first: t.first_received,
      last: t.last_received,
      personal_data_found: t.pii_in_received.map((c) => ({label: categoryLabel(c.kind, c.label, language), count: c.count})),
      personal_data_none: piiNoneReceived,
      other_customers_detail: markerCounts(t.counterparts_received_from, canaries),
    },
    possible_source: {
      responses: t.possible_source_responses,
      sessions: t.possible_source_sessions,
      possible_sources: t.possible_sources_among,
      not_recorded: t.possible_sources_not_recorded,
      // present only where such a marker is (an extension: the shape is unchanged elsewhere)
      ...((t.possible_marker_source_responses ?? 0) > 0
        ? {marker_responses: t.possible_marker_source_responses!, marker_sessions: t.possible_marker_source_sessions ?? [], marker_possible_sources: t.possible_marker_sources_among ?? null}
        : {}),
    },
    within_your_own_sessions: {
      responses: t.own_cross_session_responses,
      receiving_sessions: t.recipient_sessions_same_tenant,
      source_sessions: t.source_sessions_same_tenant,
      personal_data_found: t.pii_within_own_sessions.map((c) => ({label: categoryLabel(c.kind, c.label, language), count: c.count})),
      personal_data_none: piiNoneOwn,
    },
    retry_leaks_not_counted: retries,
    duplicate_lines_not_examined: unreadRetries,
    at_risk_responses: t.at_risk_responses,
    at_risk_unknown_records: t.at_risk_unknown_records,
    cause: L.texts('cause'),
    containment: L.texts('containment'),
    investigation: L.texts('investigation'),
    your_next_steps: steps,
    statements: L.statements,
    open_items: L.open_items,
  }, language, options.final ? 'final' : 'draft'))
}

/** Another customer's marker count is not known, not none, where the case holds no canary registry. */
function markerCounts(cs: Counterpart[], canaries: boolean): Array<Omit<Counterpart, 'responses'> & {responses: number | null}> {
  return canaries ? cs : cs.map((c) => ({...c, responses: null}))
}

// The notice as its JSON gives it (processorNoticeJson): where the exposure is not known
// (exposure_known false) each count is what verbatim text shows, a lower bound; one of 0 is no
// finding, so it is null there, never 0. A notice whose exposure is known is the notice itself.
const lowBound = z.number().int().nullable()
export const processorNoticeJsonSchema = processorNoticeSchema.extend({
  your_data_reached_others: processorNoticeSchema.shape.your_data_reached_others.extend({
    responses: lowBound, verbatim_only_responses: lowBound, other_sessions_of_yours: lowBound, sessions_of_other_customers: lowBound, other_customers: lowBound,
  }),
  you_received_other_data: processorNoticeSchema.shape.you_received_other_data.extend({
    responses: lowBound, verbatim_only_responses: lowBound, from_customers: lowBound, from_other_sessions_of_yours: lowBound, from_sessions_of_other_customers: lowBound,
  }),
  within_your_own_sessions: processorNoticeSchema.shape.within_your_own_sessions.extend({responses: lowBound, receiving_sessions: lowBound, source_sessions: lowBound}),
})

/** `crosstalk report processor-notice --json` (or `--format json`) */
export type ProcessorNoticeJson = z.infer<typeof processorNoticeJsonSchema>

export function processorNoticeJson(n: ProcessorNoticeResult): ProcessorNoticeJson {
  if (n.exposure_known !== false) return n
  const bounded = <T extends Record<string, unknown>>(side: T, keys: ReadonlyArray<keyof T>): T => ({...side, ...Object.fromEntries(keys.map((k) => [k, side[k] === 0 ? null : side[k]]))})
  return processorNoticeJsonSchema.parse({
    ...n,
    your_data_reached_others: bounded(n.your_data_reached_others, ['responses', 'verbatim_only_responses', 'other_sessions_of_yours', 'sessions_of_other_customers', 'other_customers']),
    you_received_other_data: bounded(n.you_received_other_data, ['responses', 'verbatim_only_responses', 'from_customers', 'from_other_sessions_of_yours', 'from_sessions_of_other_customers']),
    within_your_own_sessions: bounded(n.within_your_own_sessions, ['responses', 'receiving_sessions', 'source_sessions']),
  })
}
