import {noneFoundGaps} from './none-found.js'
import {staleFindings} from '../scope/unscanned.js'
import {InputError} from '../errors.js'
import {quoted} from '../util/sanitize.js'
import {affectedTenants, concernsController, droppedSince, requireControllerConcerned, unattributedAuthorityNotifications, type ControllerSubjects, DUPLICATE_LEAKS_REMEDY, examinedTotals, factsExposureKnown, provenanceMethodFr, ORIGINALS_REMEDY, type CaseFacts, remediesOf} from './facts.js'
import type {ProvenanceParameters} from '../detect/coverage.js'
import {CATEGORY_LABELS, categoryLabel, leakedSide, noLeakStatement, PHRASES, receivedSide, type Language} from './phrases.js'
import {scopeAfterSent} from './phrases-en.js'
import {PROTECTION_CONTRADICTED, protectionState} from './protection.js'
import {CROSS_BORDER_CONTRADICTED, crossBorderContradiction} from './cross-border.js'
import {article33Schema, type Article33Result} from './article33-schema.js'
import type {Authority} from './authorities.js'
import {authorityFields, BREACH_START_REF, ON_BEHALF_CONTACT} from './authority-forms.js'
import {finalisation} from './finalise.js'
import {computeClock, DEADLINE_MS, type ClockResult} from './clock.js'
import {detectionSummary} from './detection-note.js'
import {assertGrounded, Lines, splitList} from './statements.js'
import {withOpenItemLines} from './reader-text.js'
import {timelineOrderRef, timelineOrderRemedy, timesOutOfOrder} from './timeline-order.js'
import {breachWindowContradictions, PER_COUNTRY_BELOW, perCountryShortfall, WINDOW_END_CONTRADICTED, WINDOW_START_CONTRADICTED} from './recorded-vs-logs.js'
import {noticeController, recipientKind, toAuthority, toDataSubjects} from './recipients.js'

// The Article 33 notification as a plain object: built from CaseFacts only, validated by
// this zod schema (published as schemas/article33.schema.json), then rendered to Markdown,
// JSON or PDF at the edge. Every sentence is a statement resting on a recorded fact
// (statements.ts); whatever the case cannot answer becomes an open item for a follow-up
// phase (Art. 33(4)) instead of a refusal or a default that reads like a finding.

export {article33Schema, type Article33Result} from './article33-schema.js'

export interface BuildArticle33Options {
  authority?: Authority
  /** default: fr for the CNIL, en otherwise */
  language?: Language
  languageBasis?: 'given' | 'authority' | 'default'
  phase?: 'initial' | 'follow-up'
  delayReason?: string
  final?: boolean
  /** who accepts finalising it while open items remain (--accept-open-items NAME) */
  acceptOpenItemsBy?: string
  /** A processor drafting for a controller that authorised it: that controller's tenant id (facts narrowed to it). */
  onBehalfOf?: string
}

/** The language a draft is written in, and why (--lang, else the authority's, else English). */
export function resolveLanguage(authority: Authority, given: Language | undefined): {language: Language; basis: 'given' | 'authority' | 'default'} {
  if (given) return {language: given, basis: 'given'}
  if (authority === 'cnil') return {language: 'fr', basis: 'authority'}
  return {language: 'en', basis: 'default'}
}

/**
 * Every scope figure of a draft whose findings no longer cover the case (facts.stale_scope), each
 * with what it rests on: kept where that base is unchanged since the scan (the markers' counts
 * after provenance went stale, the verbatim-text count after the registry changed, the at-risk
 * count always: it reads the records), not known with the reason where it changed. The totals
 * built on both kinds of evidence (the exposure, the estimates, the categories, the window) are
 * never kept then. Null where the draft gives the scope, or no scan ran.
 */
export function staleScopeFigures(facts: CaseFacts, language: Language): Article33Result['scope_as_it_stands'] {
  const f = facts.stale_scope
  if (!f) return null
  const S = PHRASES[language].staleFigures
  const reason = S.reason(f.markers_stale ? (f.markers_stale_cause ?? 'registry') : null, f.provenance_stale)
  const stale = S.stale(reason)
  type Base = 'markers' | 'provenance' | 'both' | 'records'
  const row = (key: string, base: Base, value: number | null, unknownWhy?: string) => {
    const baseStale = base === 'markers' ? f.markers_stale : base === 'provenance' ? f.provenance_stale : base === 'both' ? f.markers_stale || f.provenance_stale : false
    const known = value !== null && !baseStale
    const note = known
      ? base === 'records' ? S.currentAtRisk(S.basis[base]!) + (f.at_risk_unknown_records ? S.undecided(f.at_risk_unknown_records) : '') : S.current(S.basis[base]!)
      : baseStale ? stale : (unknownWhy ?? stale)
    return {key, label: S.labels[key]!, value: known ? value : null, known, basis: S.basis[base]!, note}
  }
  const marker = (key: string, v: number | null) => row(key, 'markers', v, f.registry ? undefined : S.noRegistry)
  return {
    reason,
    figures: [
      row('exposure_responses', 'both', null),
      row('data_subjects', 'both', null),
      row('records_concerned', 'both', null),
      row('data_categories', 'both', null),
      row('affected_window', 'both', null),
      marker('contaminated_responses', f.contaminated_responses),
      marker('cross_tenant_responses', f.cross_tenant_responses),
      marker('cross_session_responses', f.cross_session_responses),
      marker('exposed_sessions', f.exposed_sessions),
      marker('recipient_tenants', f.recipient_tenants),
      row('orphan_sightings', 'markers', f.orphan_sightings),
      row('provenance_responses', 'provenance', f.provenance_responses),
      row('at_risk_responses', 'records', f.at_risk_responses, f.pool_tokens === null ? S.noPool : S.atRiskUnjudgeable),
    ],
  }
}

export function buildArticle33(facts: CaseFacts, options: BuildArticle33Options = {}): Article33Result {
  const authority = options.authority ?? 'edpb'
  const {language, basis: languageBasis} = options.language ? {language: options.language, basis: options.languageBasis ?? 'given'} : resolveLanguage(authority, undefined)
  const P = PHRASES[language]
  const inc = facts.incident
  const scope = facts.scope
  const onBehalf = options.onBehalfOf ?? null
  if (inc?.role === 'processor' && onBehalf === null) {
    throw new InputError(
      'as processor your duty is to notify each controller without undue delay (Art. 33(2)): crosstalk report processor-notice --tenant T; the notification to the authority is the controller\'s. If a controller authorised you to notify for it, pass --on-behalf-of-controller TENANT',
      'E_PROCESSOR_ROLE',
    )
  }
  if (onBehalf !== null && inc?.role !== 'processor') throw new InputError('--on-behalf-of-controller is for a processor drafting for a controller (incident role processor)')
  // A notification for a customer the case shows untouched is refused, as its processor notice is.
  if (onBehalf !== null) requireControllerConcerned(facts, 'report article33 --on-behalf-of-controller')
  const L = new Lines()
  // A draft for one controller takes as its own only the processor's notice to it and the
  // notifications recorded as made for it (concernsController): never another customer's.
  const listed = onBehalf === null ? facts.notifications : facts.notifications.filter((n) => concernsController(n, onBehalf))
  // Without --phase: a follow-up once an initial notification to the authority is recorded (a
  // second "initial" draft would answer "previous notification: not applicable").
  const initialToAuthority = listed.some((n) => toAuthority(n) && n.phase === 'initial')
  // A follow-up (Art. 33(4)) supplements an initial notification: with none on record the draft would answer "Follow-up"
  // to the authority about a notification the case does not hold. Refused, as notify record refuses such a follow-up.
  if (options.phase === 'follow-up' && !initialToAuthority) {
    throw new InputError(
      `report article33: --phase follow-up, but no initial notification to the authority${onBehalf === null ? '' : ` made for controller ${quoted(onBehalf.slice(0, 80))}`} is recorded: record it first (crosstalk notify record --phase initial ...${onBehalf === null ? '' : ` --controller ${quoted(onBehalf.slice(0, 80))}`}), or draft the initial notification (--phase initial); Art. 33(4) phases follow an initial notification`,
    )
  }
  const phase = options.phase ?? (initialToAuthority ? 'follow-up' : 'initial')
  // A draft a processor prepares for a controller: the incident record holds the processor's own
  // handling (its awareness basis, detection, discovery, reference, organisation, reasons for its
  // delay). None of it is the controller's: each is left for the controller to complete.
  // Nor are its cross-border facts: the lead authority, the establishments, the countries of the data
  // subjects and the authorities notified are the controller's (Art. 55-56), and the case records none per controller.
  const own = onBehalf === null || !inc ? inc : {
    ...inc,
    awareness_basis: null, awareness_decided_by: null, detected_at: null, investigation_started_at: null, discovery: null, informed_by: null, informed_at: null,
    internal_reference: null, sector: null, organisation_size: null, economic_activity: null, eea_representative: null, delay_reason: null,
    cross_border: null, lead_authority: null, countries: null, establishment_countries: null, subjects_per_country: null, authorities_notified: null,
  }
  /** The record_with of an open item: the command that records it, or (a draft for a controller) that the controller completes it. */
  const completeWith = (command: string, processorRecorded: unknown): string => (onBehalf === null ? command : P.onBehalfToComplete(onBehalf, Boolean(processorRecorded)))

  // ---- the clock this draft answers to
  const clock = draftClock(facts, onBehalf)
  // The processor's notice that made the controller aware (template 52: informed by another party).
  const noticeToController = onBehalf === null ? undefined : facts.notifications.find((n) => n.phase === 'initial' && noticeController(n) === onBehalf)
  if (!inc) L.open('incident', P.open.noIncident, 'Art. 33(1)', 'crosstalk incident open --title T --aware-at ISO --role controller|processor')
  if (onBehalf !== null && clock === null) L.open('timeline', P.open.controllerAwareness, 'EDPB 9/2022; template 48', `crosstalk notify record --recipient ${onBehalf} --phase initial ...`)
  // The processor's own reasons for a delay (incident set --delay-reason) are never the controller's: a draft for a controller takes those given for it only.
  const recordedDelay = options.delayReason?.trim() || own?.delay_reason || listed.find((n) => toAuthority(n) && n.phase === 'initial')?.delay_reason || null
  const late = clock?.late === true
  // Art. 33(1): "where the notification ... is not made within 72 hours, it shall be
  // accompanied by reasons for the delay". A final draft cannot leave without them; a draft
  // lists them as the first thing still to do.
  if (late && !recordedDelay) {
    if (options.final) {
      throw new InputError(
        // Notified: how late the notification was, as clock says it; else how long overdue now.
        `the deadline passed at ${clock!.deadline} (${clock!.notified_at && clock!.deadline ? `notified ${P.duration(Math.round((Date.parse(clock!.notified_at) - Date.parse(clock!.deadline)) / 1000))} after the deadline` : P.duration(clock!.remaining_seconds ?? 0)}): a final late notification must give the reasons for the delay (GDPR Art. 33(1)); ${onBehalf === null ? 'pass --delay-reason TEXT or record it with incident set --delay-reason' : "pass the controller's reasons with --delay-reason TEXT (those recorded with incident set --delay-reason are the processor's own)"}`,
        'E_DELAY_REASON',
      )
    }
    L.open('timeline', P.open.delayReason, 'Art. 33(1); template 49', onBehalf === null ? 'crosstalk incident set --delay-reason TEXT (or report article33 --delay-reason TEXT)' : `${P.onBehalfToComplete(onBehalf, Boolean(inc?.delay_reason))} (report article33 --delay-reason TEXT)`)
  }
  for (const problem of facts.notification_problems) L.open('notifications', P.open.notificationProblem(problem), 'Art. 33(1), 33(4)', null)
  // An authority notification recorded with no controller named concerns none of them as its own: said, never taken as this one's.
  const unattributed = onBehalf === null ? [] : unattributedAuthorityNotifications(facts.notifications)
  if (unattributed.length > 0) {
    L.open('notifications', P.open.unattributedAuthority(onBehalf!, unattributed), 'Art. 33(1), 33(4)', `crosstalk notify record --recipient authority --controller ${onBehalf} ...`)
  }

  // ---- controller, contact point, reporting person (Art. 33(3)(b); template 12-36)
  if (onBehalf !== null) {
    L.open('controller', P.open.onBehalfController(onBehalf), 'EDPB template 12-13', null)
    L.stated('controller', P.preparedOnBehalf(inc?.processor_name ?? null, onBehalf), ['incident.role'])
  } else if (!inc?.controller_name) L.open('controller', P.open.controller, 'EDPB template 12-13', 'crosstalk incident set --controller-name ... --controller-contact ...')
  // A draft for a controller gives that controller's DPO or contact point: the one recorded in this case is the processor's own, and the case records none per controller.
  const contactPoint = onBehalf !== null ? {name: null, contact: null} : {name: inc?.dpo_name ?? null, contact: inc?.dpo_contact ?? null}
  if (onBehalf !== null) L.open('controller', P.open.onBehalfContact(onBehalf, Boolean(inc?.dpo_name || inc?.dpo_contact)), ON_BEHALF_CONTACT, null)
  else if (!inc?.dpo_name && !inc?.dpo_contact) L.open('controller', P.open.contact, 'Art. 33(3)(b); template 30-31', 'crosstalk incident set --dpo-name ... --dpo-contact ...')
  else if (!inc?.dpo_name) L.open('controller', P.open.contactName, 'Art. 33(3)(b); template 29-30', 'crosstalk incident set --dpo-name ...')
  if (!inc?.reporting_person) L.open('controller', P.open.reportingPerson, 'EDPB template 21-24', 'crosstalk incident set --reporting-person ... --reporting-person-role ...')
  if (!own?.sector || !own?.organisation_size) L.open('controller', P.open.sectorSize, 'EDPB template 14-17', completeWith('crosstalk incident set --sector ... --organisation-size ... --economic-activity ...', inc?.sector || inc?.organisation_size || inc?.economic_activity))
  if (!own?.eea_representative) L.open('controller', P.open.eeaRepresentative, 'Art. 27; template 18-19', completeWith('crosstalk incident set --eea-representative ...', inc?.eea_representative))
  if (inc?.role === 'processor' && !inc.processor_name) L.open('controller', P.open.processor, 'EDPB template 38-41', 'crosstalk incident set --processor-name ...')

  // ---- timeline (template 44-53)
  if (own && !own.awareness_basis) L.open('timeline', P.open.awarenessBasis, 'EDPB 9/2022; template 48', completeWith('crosstalk incident set --awareness-basis ... --awareness-decided-by ...', inc?.awareness_basis))
  if (!own?.detected_at) L.open('timeline', P.open.detectedAt, 'EDPB template 50-53', completeWith('crosstalk incident set --detected-at ISO', inc?.detected_at))
  if (!own?.discovery) L.open('timeline', P.open.discovery, 'EDPB template 50-51', completeWith('crosstalk incident set --discovery ...', inc?.discovery))
  if (!own?.informed_by && !noticeToController) L.open('timeline', P.open.informedBy, 'EDPB template 50-52', completeWith('crosstalk incident set --informed-by ... --informed-at ISO', inc?.informed_by))
  if (!inc?.breach_started_at) L.open('timeline', scope?.exposure_first ? P.open.breachStart : P.open.breachStartNoLogs, BREACH_START_REF, 'crosstalk incident set --breach-started-at ISO')
  if (!inc?.breach_ended_at) L.open('timeline', P.open.breachEnd, 'EDPB template 44-47', 'crosstalk incident set --breach-ended-at ISO')
  // A recorded window the logs contradict stays as recorded, and open (its form fields say so too).
  for (const c of breachWindowContradictions(inc, facts.case_exposure_window ?? null)) {
    if (c.bound === 'start') L.open('timeline', P.open.breachStartContradicted(c.recorded, c.logs), WINDOW_START_CONTRADICTED, 'crosstalk incident set --breach-started-at ISO')
    else L.open('timeline', P.open.breachEndContradicted(c.recorded, c.logs), WINDOW_END_CONTRADICTED, 'crosstalk incident set --breach-ended-at ISO')
  }
  // An awareness, detection or investigation before the recorded start, or an awareness or investigation before the first
  // alert, cannot be right (possible only if a time is wrong): open, and the form gives neither as established
  // (authority-forms.ts flags them). For a controller, its awareness is the processor's notice.
  for (const p of timesOutOfOrder({aware_at: clock?.aware_at ?? null, detected_at: own?.detected_at, investigation_started_at: own?.investigation_started_at, breach_started_at: inc?.breach_started_at})) {
    const remedy = onBehalf !== null && p.field === 'aware_at' ? `crosstalk ${p.reference === 'detected_at' ? 'incident set --detected-at ISO' : 'incident set --breach-started-at ISO'}; crosstalk notify record --recipient ${onBehalf} --phase initial ...` : timelineOrderRemedy(p)
    L.open('timeline', P.open.timeBeforeStart(p.field, p.at, p.referenceAt, p.reference), timelineOrderRef(p), remedy)
  }

  // ---- what the evidence shows (Art. 33(3)(a))
  const exposure = scope?.exposure ?? null
  const stale = staleFindings(facts.detection)
  // Findings that no longer cover the case give no figure (facts.ts): said for what it is, not as a case never scanned.
  if (!scope && (stale.markers || stale.provenance)) L.open('scope', P.open.findingsStale(stale.markers_cause, stale.provenance), 'Art. 33(3)(a), 33(4)', 'crosstalk scan')
  else if (!scope) L.open('scope', P.open.noScan, 'Art. 33(3)(a)', 'crosstalk scan')
  else if (!facts.detection.complete) L.open('scope', P.open.detectionIncomplete(facts.detection.files_not_scanned), 'Art. 33(3)(a), 33(4)', 'crosstalk scan')
  const unreadSources = facts.totals.unread_sources ?? []
  if (unreadSources.length > 0) L.open('scope', P.open.unreadSources(unreadSources), 'Art. 33(3)(a), 33(4)', remediesOf(facts).unread_sources)
  const notReadWhole = facts.totals.files_not_read_whole ?? []
  if (notReadWhole.length > 0) L.open('scope', P.open.notReadWhole(notReadWhole), 'Art. 33(3)(a), 33(4)', remediesOf(facts).not_read_whole)
  // A log appended to after ingest: the bytes added were never judged, and may carry another session's data.
  const grown = facts.totals.files_grown ?? []
  if (grown.length > 0) L.open('scope', P.open.grownOriginals(grown), 'Art. 33(3)(a), 33(4)', remediesOf(facts).grown)
  // Times that are no fact (after the log's ingest, before the marker's issue): counted, kept out of every window, named here.
  if (scope && (scope.responses_dated_after_ingest ?? 0) > 0) L.open('timeline', P.open.datedAfterIngest(scope.responses_dated_after_ingest!), 'Art. 33(3)(a), 33(4)', null)
  if (scope && (scope.responses_dated_before_marker_issued ?? 0) > 0) L.open('timeline', P.open.datedBeforeIssued(scope.responses_dated_before_marker_issued!), 'Art. 33(3)(a), 33(4)', null)
  // Quarantined lines no rule could read were never judged: any one may be an answer carrying another session's data.
  if (scope && facts.totals.bad_lines > 0) L.open('scope', P.open.badLines(facts.totals.bad_lines), 'Art. 33(3)(a), 33(4)', remediesOf(facts).bad_lines)
  // A retry's leak is a response served that no figure below counts: every figure stands beside this item.
  const duplicateLeaks = facts.totals.duplicate_leaks ?? []
  if (duplicateLeaks.length > 0) L.open('scope', P.open.duplicateLeaks(duplicateLeaks), 'Art. 33(3)(a), 33(4)', DUPLICATE_LEAKS_REMEDY)
  // A retry that could not be read again: the gate could not judge it, and whose data it held (this controller's included) is not known.
  const duplicatesUnexamined = facts.totals.duplicate_lines_not_examined ?? 0
  if (duplicatesUnexamined > 0) L.open('scope', P.open.duplicatesNotExamined(duplicatesUnexamined, facts.totals.duplicate_lines_not_examined_of_tenant ?? null), 'Art. 33(3)(a), 33(4)', remediesOf(facts).duplicates_not_examined)
  // No registry: a marker found in an answer is attributed to no session, so whose data it carries is open, never "none".
  if (scope && facts.totals.registry_files === 0 && scope.orphan_sightings > 0) L.open('scope', P.open.orphansWithoutRegistry(scope.orphan_sightings), 'Art. 33(3)(a), 33(4)', remediesOf(facts).no_registry)
  if (scope && exposure) {
    // For one controller: its two sides apart, as its processor notice gives them (the case-wide
    // sentence would count other customers' sessions among its own).
    const own = facts.for_tenant === null ? undefined : facts.tenants.find((x) => x.tenant_id === facts.for_tenant)
    if (own && exposure.responses > 0) {
      const canaries = facts.totals.registry_files > 0
      const C = P.controllerExposure
      // Markers in answers attributed to no session (exposureKnown false): each count a lower bound, "at least".
      const atLeast = !factsExposureKnown(facts)
      L.stated('nature', own.responses_carrying_its_data > 0 ? C.leaked(leakedSide(own, canaries, atLeast)) : C.nothingLeaked, ['scan.exposure'])
      L.stated('nature', own.received_foreign_responses > 0 ? C.received(receivedSide(own, canaries, atLeast)) : C.nothingReceived, ['scan.exposure'])
    } else L.stated('nature', exposure.responses > 0 ? P.exposure(exposure, scope.exposure_first, scope.exposure_last, facts.totals.registry_files > 0, !factsExposureKnown(facts)) : noLeakStatement(P, facts.totals, facts.detection, scope), ['scan.exposure', 'evidence.files', 'scan.provenance'])
    if (exposure.responses > 0) L.stated('nature', P.integrity, ['scan.exposure'])
    if (scope.data_subjects.high === null) {
      // Said for the reason it is missing: no pool size, one controller's share, or logs without status and prompt size.
      if (scope.pool_tokens === null) L.open('scope', P.open.upperBound, 'Art. 33(3)(a), 33(4)', 'crosstalk scan --pool-tokens N')
      else if (facts.for_tenant !== null) L.open('scope', P.open.upperBoundOneController, 'Art. 33(3)(a), 33(4)', 'crosstalk scope (the whole case)')
      else L.open('scope', P.open.upperBoundUnjudgeable, 'Art. 33(3)(a), 33(4)', null)
    }
    else if (scope.data_subjects.low !== scope.data_subjects.high) L.open('scope', P.open.exactSubjects, 'Art. 33(3)(a), 33(4)', null)
  }
  const withoutText = facts.totals.responses_without_text ?? 0
  const setAside = facts.detection.provenance_boilerplate_responses ?? 0
  if (scope && setAside > 0 && facts.detection.provenance_parameters) {
    const t = facts.detection.provenance_parameters.boilerplate_tenants
    L.open('scope', P.open.boilerplateResponses(setAside, t), 'Art. 33(3)(a), 33(4)', `crosstalk provenance --boilerplate-tenants N (N above ${t})`)
  }
  // Another session's personal data matched by value, prompts not logged, texts the search could not
  // compare (none-found.ts): each an open item, whatever markers and verbatim text found.
  if (scope) for (const g of noneFoundGaps(facts, P)) if (g.kind === 'pii_attributed' || g.kind === 'no_request_text' || g.kind === 'not_comparable') L.open('scope', g.item, 'Art. 33(3)(a), 33(4)', g.record_with)
  // A marker cut short of several customers' sessions' markers names no customer either: it is no verbatim text, and said apart.
  const markerNotNamed = Math.min(exposure?.marker_source_not_named ?? 0, exposure?.source_not_named ?? 0)
  const notNamed = (exposure?.source_not_named ?? 0) - markerNotNamed
  if (scope && notNamed > 0) L.open('scope', P.open.sourceNotNamed(notNamed), 'Art. 33(3)(a), 33(4)', 'crosstalk provenance')
  if (scope && markerNotNamed > 0) L.open('scope', P.open.markerSourceNotNamed(markerNotNamed), 'Art. 33(3)(a), 33(4)', 'crosstalk sightings')
  if (scope && withoutText > 0) L.open('scope', P.open.responsesWithoutText(withoutText), 'Art. 33(3)(a), 33(4)', remediesOf(facts).responses_without_text)
  if (!facts.assessment) L.open('scope', P.open.content, 'Art. 33(3)(a); template 70', 'crosstalk assess --dpc N --special-categories')
  const incidentCategory = exposure && exposure.responses > 0 ? L.stated('nature', P.observedCategory, ['scan.exposure']) : null
  // A draft for one controller whose own data the logs show reaching nobody (its users were only
  // served others' data) states no loss of confidentiality of its data: that is the other
  // controllers' breach. Only where nothing leaves it open: text whose source is not named, or a
  // leaking retry carrying its marker, may still be its data.
  const ownShare = facts.for_tenant === null ? undefined : facts.tenants.find((x) => x.tenant_id === facts.for_tenant)
  const ownDataReached =
    ownShare === undefined ||
    ownShare.responses_carrying_its_data > 0 ||
    ownShare.possible_source_responses > 0 ||
    ownShare.possible_sources_not_recorded > 0 ||
    ownShare.source_unknown_responses > 0 ||
    (facts.retry_leaks ?? []).some((r) => r.source_tenants.includes(ownShare.tenant_id))
  const types: Array<'confidentiality' | 'integrity' | 'availability'> = exposure && exposure.responses > 0 ? (ownDataReached ? ['confidentiality', 'integrity'] : ['integrity']) : []

  // ---- cause (template 61-62): only as recorded
  if (inc?.cause_category) L.stated('cause', P.causeCategoryRecorded(P.causeCategory[inc.cause_category] ?? inc.cause_category), ['incident.cause_category'])
  if (inc?.cause) L.stated('cause', P.causeRecorded(inc.cause), ['incident.cause'])
  if (!inc?.cause && !inc?.cause_category) L.open('cause', P.open.cause, 'EDPB template 61-62', 'crosstalk incident set --cause TEXT --cause-category ...')
  if (!inc?.systems) L.open('cause', P.open.systems, 'EDPB template 63', 'crosstalk incident set --systems ...')
  if (!inc?.measures_before) L.open('cause', P.open.measuresBefore, 'EDPB template 75-76', 'crosstalk incident set --measures-before ...')
  // Whether the data was unintelligible to its recipients is a fact of its own (template 57, Art. 34(3)(a)): measures in place do not say they held.
  if (inc?.data_unintelligible) L.stated('protection', P.unintelligibleRecorded(P.unintelligible[inc.data_unintelligible]), ['incident.data_unintelligible'])
  else L.open('cause', P.open.unintelligible, 'Art. 34(3)(a); EDPB template 57', 'crosstalk incident set --data-unintelligible protection-intact|protection-likely-subvertible|no|cannot-assess')

  // ---- data subjects, records, categories
  // A draft for one controller counts that controller's end users (facts.ts): its category says so.
  const endUsers = onBehalf === null ? P.subjectCategories.endUsers : P.subjectCategories.endUsersOfController
  const categories = exposure && exposure.responses > 0 ? [L.stated('subjects', endUsers, ['scan.exposure']), L.stated('subjects', P.subjectCategories.named, ['scan.exposure'])] : []

  // ---- likely consequences (Art. 33(3)(c))
  const consequences: string[] = []
  // Data recorded as unintelligible to its recipients: the consequences follow the record, unless the scan read personal data in clear (then open).
  const protection = exposure && exposure.responses > 0 && ownDataReached ? protectionState(inc?.data_unintelligible, scope?.categories) : {state: 'not-intact' as const}
  if (protection.state === 'contradicted') L.open('consequences', P.open.protectionContradicted(protection.kinds.map((k) => CATEGORY_LABELS[language][k] ?? k)), PROTECTION_CONTRADICTED, 'crosstalk incident set --data-unintelligible protection-intact|protection-likely-subvertible|no|cannot-assess')
  if (protection.state === 'intact') {
    consequences.push(L.stated('consequences', P.consequences.protectedIntact(inc?.measures_before ?? null), inc?.measures_before ? ['scan.exposure', 'incident.data_unintelligible', 'incident.measures_before'] : ['scan.exposure', 'incident.data_unintelligible']))
  } else if (exposure && exposure.responses > 0 && ownDataReached) {
    // For one controller: its data that reached another organisation (flows out of it), never the other customers' data its users were served.
    const crossTenant = exposure.flows.some((f) => (facts.for_tenant === null || f.source_tenant === facts.for_tenant) && f.source_tenant !== f.recipient_tenant)
    // Responses whose source is not named are in no flow: "the same organisation" is said only where every source is named.
    const sourceUnknown = !crossTenant && (exposure.source_not_named ?? 0) > 0
    const markerUnnamed = Math.min(exposure.source_not_named ?? 0, exposure.marker_source_not_named ?? 0)
    const why = markerUnnamed === 0 ? 'text' : markerUnnamed === (exposure.source_not_named ?? 0) ? 'marker' : 'both'
    consequences.push(L.stated('consequences', crossTenant ? P.consequences.confidentiality : sourceUnknown ? P.consequences.confidentialitySourceUnknown(why) : P.consequences.confidentialitySameCustomer, ['scan.exposure']))
    // Phishing with disclosed contact details only where the personal-data search found some (e-mail, phone); else said not established.
    // For one controller, scope.categories are its own data that reached others (facts.ts forController).
    const contact = (scope?.categories ?? []).some((c) => (c.kind === 'email' || c.kind === 'phone') && c.count > 0)
    consequences.push(L.stated('consequences', contact ? P.consequences.control : P.consequences.controlNoContact, ['scan.exposure', 'scan.pii_findings']))
  }
  if (exposure && exposure.responses > 0) {
    consequences.push(L.stated('consequences', P.consequences.integrity, ['scan.exposure']))
    if (ownDataReached && protection.state !== 'intact' && (scope?.categories ?? []).some((c) => (c.kind === 'iban' || c.kind === 'card') && c.count > 0)) consequences.push(L.stated('consequences', P.consequences.financial, ['scan.pii_findings']))
  }

  // ---- investigation and measures (Art. 33(3)(d)): only what was recorded
  const examined = examinedTotals(facts)
  if (scope) L.stated('investigation', P.investigation(examined.records, examined.log_files, facts.totals.registry_files, examined.not_scanned, examined.log_file_versions, (scope.exposure?.responses ?? 0) > 0, scope.exposure.session_not_named ?? 0), ['scan.exposure', 'evidence.files'])
  // What the verbatim-text search could not look at is said beside "searched for verbatim text": prompts not logged, texts it could not compare.
  if (scope) for (const g of noneFoundGaps(facts, P)) if (g.kind === 'no_request_text' || g.kind === 'not_comparable') L.stated('investigation', g.statement, ['scan.provenance', 'evidence.files'])
  if (scope && facts.totals.registry_files === 0) L.stated('investigation', P.noRegistry, ['evidence.files', 'scan.exposure'])
  const notIntact = facts.totals.originals_not_intact ?? []
  if (notIntact.length > 0) {
    L.stated('investigation', P.originalsNotIntact(notIntact), ['evidence.files'])
    L.open('investigation', P.open.originalsNotIntact(notIntact), 'Art. 33(5)', ORIGINALS_REMEDY)
  }
  // Evidence a notification may have listed and the case no longer holds: said with the reason the drop recorded, never silently gone.
  const lastNotified = listed.reduce<(typeof listed)[number] | null>((last, n) => (last === null || Date.parse(n.recorded_at) > Date.parse(last.recorded_at) ? n : last), null)
  if (lastNotified) for (const d of droppedSince(facts.evidence_dropped, lastNotified.recorded_at)) L.stated('investigation', P.evidenceDropped(d, lastNotified.at, lastNotified.reference), ['evidence.files', `notification#${lastNotified.id}`])
  if (scope && facts.totals.bad_lines > 0) L.stated('investigation', P.unreadLines(facts.totals.bad_lines), ['evidence.files'])
  if (scope && withoutText > 0) L.stated('investigation', P.noResponseText(withoutText), ['evidence.files'])
  if (scope && (scope.contaminated_without_prompt ?? 0) > 0) L.stated('investigation', P.noPromptLogged(scope.contaminated_without_prompt!), ['scan.sightings'])
  if (scope && (scope.contaminated_prompt_in_part ?? 0) > 0) L.stated('investigation', P.promptReadInPart(scope.contaminated_prompt_in_part!, scope.prompt_in_part_members), ['scan.sightings'])
  // A replay confirms the mechanism (or rules it out) and remedies nothing: it is investigation, never a measure taken (template 92).
  for (const g of facts.replay?.groups ?? []) L.stated('investigation', P.replayGroup(g), g.run_ids.map((id) => `replay_run#${id}`))
  if (!facts.replay) L.open('investigation', P.open.replay, 'Art. 33(3)(d)', 'crosstalk replay')
  for (const m of splitList(inc?.measures_taken)) L.stated('measures_taken', P.measureRecorded(m), ['incident.measures_taken'])
  if (inc?.role === 'processor') {
    // Notices to the controllers this draft counts (all affected ones, or those involved with the controller it is for).
    const affected = new Set(affectedTenants(facts))
    const notices = facts.notifications.filter((n) => n.phase === 'initial' && affected.has(noticeController(n) ?? ''))
    // A draft for one controller says whether that controller was notified, never a count over other customers.
    if (onBehalf !== null) {
      if (noticeToController) L.stated('measures_taken', P.controllerNotified(onBehalf, noticeToController.at, noticeToController.reference), [`notification#${noticeToController.id}`])
    } else if (notices.length > 0) L.stated('measures_taken', P.controllersNotified(new Set(notices.map((n) => noticeController(n))).size, affected.size), notices.map((n) => `notification#${n.id}`))
  }
  if (splitList(inc?.measures_taken).length === 0) L.open('measures_taken', P.open.measuresTaken, 'Art. 33(3)(d); template 92', 'crosstalk incident set --measures-taken "A; B"')
  for (const m of splitList(inc?.measures_proposed)) L.stated('measures_proposed', P.measureRecorded(m), ['incident.measures_proposed'])
  if (splitList(inc?.measures_proposed).length === 0) L.open('measures_proposed', P.open.measuresProposed, 'Art. 33(3)(d); template 94-95', 'crosstalk incident set --measures-proposed "A; B"')

  // ---- notifications made (as recorded, with the late flag)
  // A draft for one controller lists the processor's notice to it and the notifications made for it (listed): never another customer's.
  // The processor's own delay reason goes with its own notice only, never with a notification made for the controller.
  // The scope stored with each is the whole case's: a draft for one controller never states it (other customers' figures, not what its notice gave).
  const notificationStatements = listed.map((n) => L.stated('notifications', P.notificationStated(n, onBehalf === null || noticeController(n) === onBehalf ? (facts.incident?.delay_reason ?? null) : null, onBehalf !== null), [`notification#${n.id}`]))

  // ---- risk and the decision (template 85-90), Art. 34 (template 97-106)
  // The case's assessment is its responder's: in a processor's case, the processor's over all its
  // customers. A draft for one controller states no decision the controller did not take.
  const a = onBehalf === null ? facts.assessment : null
  let riskStatement: string | null = null
  if (a) {
    L.stated('risk', P.enisaMethod(a), [`assessment#${a.id}`])
    // Inputs the case cannot give, left at their defaults: said as open, never as findings.
    const assumed = assumedInputs(a.inputs)
    if (assumed.length > 0) L.open('decision', P.open.assumedInputs(assumed.join(', ')), 'Art. 33(3)(c); EDPB 9/2022', 'crosstalk assess --vulnerable-subjects / --special-categories / --data-volume ... --reason ... --decide ... --rationale ...')
    riskStatement = L.stated('decision', P.decisionStated(a), [`assessment#${a.id}`])
    // Made before scans that may have changed its figures: stated as recorded, and flagged as open.
    const since = facts.scans_since_assessment ?? []
    if (since.length > 0) L.open('decision', P.open.assessmentStale(a.at, since.length, since[since.length - 1]!.finished_at), 'Art. 33(3)(c), 34(1); EDPB 9/2022', 'crosstalk assess --decide ... --rationale ...')
  } else if (onBehalf !== null) L.open('decision', P.open.risk, 'Art. 33(1), 34(1); template 87-90', P.onBehalfRisk(onBehalf, facts.assessment !== null))
  else L.open('decision', P.open.risk, 'Art. 33(1), 34(1); template 87-90', 'crosstalk assess --decide ... --rationale ...')
  const informed = listed.find((n) => toDataSubjects(n) && n.phase === 'initial')
  let article34: string | null = null
  // A communication recorded before the case grew informed those known then: said so, and those found since are open.
  const sinceInformed = informed ? (facts.scans_since_subjects_informed ?? []) : []
  if (informed && sinceInformed.length > 0) {
    const lastScan = sinceInformed[sinceInformed.length - 1]!.finished_at
    article34 = L.stated('article34', P.article34.informedBefore(informed.at, informed.reference, sinceInformed.length, lastScan), [`notification#${informed.id}`, 'scan.exposure'])
    L.open('article34', P.open.subjectsFoundSince(informed.at, informed.reference, sinceInformed.length, lastScan), 'Art. 34(1); template 97-106', 'crosstalk report article34; crosstalk notify record --recipient data-subjects --phase follow-up ...')
  } else if (informed) article34 = L.stated('article34', P.article34.informed(informed.at, informed.reference), [`notification#${informed.id}`])
  else if (a) article34 = L.stated('article34', a.decision === 'notify-subjects' ? P.article34.toInform(a) : P.article34.notInformed(a), [`assessment#${a.id}`])
  else L.open('article34', P.open.article34, 'Art. 34; template 97-106', onBehalf === null ? 'crosstalk assess --decide ... / notify record --recipient data-subjects' : P.onBehalfRisk(onBehalf, false))

  // ---- other authorities and cross-border (template 109-123)
  if (!inc?.police_report) L.open('authorities', P.open.police, 'EDPB template 109', 'crosstalk incident set --police-report ...')
  if (!inc?.other_authorities) L.open('authorities', P.open.otherAuthorities, 'EDPB template 110-111', 'crosstalk incident set --other-authorities ...')
  // A draft for a controller: each is the controller's to complete (own), never the processor's record.
  if (own?.cross_border) L.stated('cross_border', P.crossBorderRecorded(own.cross_border === 'yes'), ['incident.cross_border'])
  // "Not cross-border" beside establishments in two Member States: stated as recorded, the contradiction open beside it (Art. 4(23)(a)).
  const crossBorderStates = crossBorderContradiction(own)
  if (crossBorderStates) L.open('cross_border', P.open.crossBorderContradicted(crossBorderStates), CROSS_BORDER_CONTRADICTED, 'crosstalk incident set --cross-border yes (or --establishment-countries ...)')
  else if (!own?.cross_border) L.open('cross_border', P.open.crossBorder, 'Art. 4(23), 56; template 113', completeWith('crosstalk incident set --cross-border yes|no', inc?.cross_border))
  if (!own?.lead_authority) L.open('cross_border', P.open.leadAuthority, 'Art. 55-56; template 114', completeWith('crosstalk incident set --lead-authority ...', inc?.lead_authority))
  if (!own?.countries) L.open('cross_border', P.open.countries, 'EDPB template 116-117', completeWith('crosstalk incident set --countries ... --subjects-per-country ...', inc?.countries || inc?.subjects_per_country))
  // Data subjects per country that add up to fewer than the logs show: the figure is flagged, never stated as it is.
  const short = scope ? perCountryShortfall(own?.subjects_per_country, scope.data_subjects.low) : null
  if (short) L.open('cross_border', P.open.perCountryBelow(own!.subjects_per_country!, short.total, short.low), PER_COUNTRY_BELOW, 'crosstalk incident set --subjects-per-country ...')
  if (!own?.establishment_countries) L.open('cross_border', P.open.establishment, 'EDPB template 115', completeWith('crosstalk incident set --establishment-countries ...', inc?.establishment_countries))
  if (!own?.authorities_notified) L.open('cross_border', P.open.authoritiesNotified, 'EDPB template 118', completeWith('crosstalk incident set --authorities-notified ...', inc?.authorities_notified))

  assertGrounded(L.statements)
  const remaining = clock?.remaining_seconds ?? null
  const draft: Omit<Article33Result, 'form_fields' | 'finalised_with_open_items'> = {
    kind: 'article33',
    draft: !(options.final ?? false),
    final: options.final ?? false,
    authority,
    language,
    language_basis: languageBasis,
    phase,
    generated_at: facts.generated_at,
    title: inc?.title ?? (language === 'fr' ? 'Violation de données à caractère personnel (sans intitulé)' : 'Personal data breach (untitled)'),
    detection: detectionSummary(facts.detection, language),
    role: inc?.role ?? null,
    prepared_on_behalf_of: onBehalf,
    clock: clock
      ? {
          aware_at: clock.aware_at,
          deadline: clock.deadline,
          remaining_seconds: remaining,
          status: clock.status,
          // Once notified the clock has stopped: the margin to the deadline, never time "overdue" since.
          remaining_text:
            clock.status === 'notified' && clock.notified_at && clock.deadline
              ? P.notifiedMargin((Date.parse(clock.deadline) - Date.parse(clock.notified_at)) / 1000)
              : remaining === null ? P.unknown : P.duration(remaining),
          late: clock.late,
          basis: P.clockBasis[clock.basis ?? 'art33(1)'] ?? '',
        }
      : null,
    delay_reason: late ? recordedDelay : null,
    controller: {
      name: onBehalf ?? inc?.controller_name ?? null,
      contact: onBehalf ? null : (inc?.controller_contact ?? null),
      processor: inc?.processor_name ?? null,
      internal_reference: own?.internal_reference ?? null,
      sector: own?.sector ? (P.sector[own.sector] ?? own.sector) : null,
      organisation_size: own?.organisation_size ? (P.size[own.organisation_size] ?? own.organisation_size) : null,
      economic_activity: own?.economic_activity ?? null,
      eea_representative: own?.eea_representative ?? null,
    },
    contact_point: contactPoint,
    reporting_person: {name: inc?.reporting_person ?? null, role: inc?.reporting_person_role ?? null},
    timeline: {
      detected_at: own?.detected_at ?? null,
      investigation_started_at: own?.investigation_started_at ?? null,
      aware_at: clock?.aware_at ?? null,
      awareness_basis: own?.awareness_basis ?? null,
      awareness_decided_by: own?.awareness_decided_by ?? null,
      // A controller's awareness time is when the processor's notice reached it: the amendments on record are the processor's own.
      awareness_amendments: onBehalf === null ? facts.amendments.length : 0,
      breach_started_at: inc?.breach_started_at ?? null,
      breach_ended_at: inc?.breach_ended_at ?? null,
      first_seen: scope?.exposure_first ?? null,
      last_seen: scope?.exposure_last ?? null,
      dates_estimated: !inc?.breach_started_at,
      discovery: own?.discovery ?? null,
      // A draft for a controller: the processor informed it, by the notice recorded (its awareness time).
      informed_by: noticeToController ? P.theProcessor(inc?.processor_name ?? null) : (own?.informed_by ?? null),
      informed_at: noticeToController ? noticeToController.at : (own?.informed_at ?? null),
    },
    nature: {
      summary: L.texts('nature').filter((t) => t !== incidentCategory),
      types,
      incident_category: incidentCategory,
      cause: L.texts('cause'),
      systems: inc?.systems ?? null,
      // With no canary registry a node's marker counts are not known (scope --json's by_node: null), never 0.
      nodes: (scope?.by_node ?? []).map((n) => (facts.totals.registry_files > 0 ? n : {...n, responses: null, cross_tenant_responses: null, cross_session_responses: null})),
    },
    data_subjects: {
      categories,
      approximate: scope ? {...scope.data_subjects, method: countMethods(scope, language, facts.for_tenant).subjects} : null,
    },
    records: {approximate: scope ? {...scope.records, method: countMethods(scope, language, facts.for_tenant).records} : null},
    data_categories: (scope?.categories ?? []).map((c) => ({...c, label: categoryLabel(c.kind, c.label, language, facts.totals.registry_files > 0)})),
    scope: scope
      ? {
          exposure: scope.exposure,
          contaminated_responses: scope.contaminated_responses,
          cross_tenant_responses: scope.cross_tenant_responses,
          cross_session_responses: scope.cross_session_responses,
          exposed_sessions: scope.exposed_sessions,
          exposed_tenants: scope.exposed_tenants,
          recipient_tenants: scope.recipient_tenants,
          first_seen: scope.first_seen,
          last_seen: scope.last_seen,
          at_risk_responses: scope.at_risk_responses,
          at_risk_unknown_records: scope.at_risk_unknown_records,
          pool_tokens: scope.pool_tokens,
          provenance_responses: scope.provenance_responses,
          provenance_only_responses: scope.provenance_only_responses,
          orphan_sightings: scope.orphan_sightings,
          bug_window: scope.bug_window,
          records_examined: examined.records,
          responses_without_text: withoutText,
          provenance_boilerplate_responses: facts.detection.provenance_boilerplate_responses ?? null,
          provenance_boilerplate_tenants: facts.detection.provenance_parameters?.boilerplate_tenants ?? null,
          log_files: examined.log_files,
          records_not_examined: examined.not_scanned.records,
          log_files_not_examined: examined.not_scanned.files,
          log_sources_not_read: (facts.totals.unread_sources ?? []).length,
          log_sources_dismissed: facts.totals.dismissed_sources ?? [],
          log_files_not_read_whole: notReadWhole.length,
          retry_leaks_not_counted: duplicateLeaks.length,
          duplicate_lines_not_examined: duplicatesUnexamined,
          registry_files: facts.totals.registry_files,
          method: (language === 'fr' ? scopeMethodFr(facts.detection.provenance_parameters) : scope.method) + (facts.for_tenant !== null ? P.controllerShareMethod : ''),
          flows: scope.flows,
          by_hour: scope.by_hour,
        }
      : null,
    scope_as_it_stands: scope ? null : staleScopeFigures(facts, language),
    measures_before: inc?.measures_before ?? null,
    data_unintelligible: inc?.data_unintelligible ?? null,
    investigation: L.texts('investigation'),
    consequences,
    measures_taken: L.texts('measures_taken'),
    measures_proposed: L.texts('measures_proposed'),
    replay: facts.replay,
    risk: a
      ? {outcome: a.decision, suggested: a.suggested, method: P.enisaMethod(a), se: a.se, band: a.band, rationale: a.rationale, decided_by: a.decided_by, at: a.at, statement: riskStatement!}
      : null,
    article34: {status: article34},
    cross_border: {
      processing: own?.cross_border ?? null,
      lead_authority: own?.lead_authority ?? null,
      countries: own?.countries ?? null,
      establishment_countries: own?.establishment_countries ?? null,
      subjects_per_country: own?.subjects_per_country ?? null,
      authorities_notified: own?.authorities_notified ?? null,
    },
    other_authorities: {police: inc?.police_report ?? null, others: inc?.other_authorities ?? null},
    notifications: listed.map((n) => ({
      id: n.id, phase: n.phase, at: n.at, reference: n.reference, recipient: n.recipient, recipient_kind: recipientKind(n), controller: n.controller ?? null, file_sha256: n.file_sha256, late: n.late, delay_reason: n.delay_reason,
      // A draft for one controller: the stored scope is the whole case's (other customers' figures), withheld.
      scope_at_notification: onBehalf === null ? (n.scope_at_notification ?? null) : null,
      scope_withheld: onBehalf !== null && Boolean(n.scope_at_notification),
      scope_recorded_after_sent: scopeAfterSent(n),
      ...(n.controller_aware_at !== undefined ? {controller_aware_at: n.controller_aware_at} : {}),
    })),
    notification_statements: notificationStatements,
    statements: L.statements,
    open_items: L.open_items,
    evidence: facts.evidence,
    excerpts: facts.excerpts,
    // Excerpts are windows around a marker: a response found by verbatim text alone has none, said rather than left out silently.
    excerpts_note: facts.excerpts === null ? null : P.excerptsMarkersOnly(scope ? scope.exposure.by_text_only : null),
  }
  const formFields = authorityFields(authority, draft, P)
  // A form answer left "to be completed" names an open item of the draft: the fields no other
  // item asks for (the organisation's identifier, the Art. 34(3) ground ...) are added as items of their own.
  const gap = P.toComplete('')
  for (const f of formFields) {
    if (!f.open || !f.value.startsWith(gap)) continue
    const asked = f.value.slice(gap.length)
    if (!L.open_items.some((o) => asked.startsWith(o.item))) L.open('form', asked, formRef(authority, f.id), null)
  }
  // Last, once every open item is known (the form's own included): final only with none, or with them accepted.
  const finalised = finalisation('report article33', L.open_items, options, language, facts.generated_at)
  return article33Schema.parse(withOpenItemLines({...draft, finalised_with_open_items: finalised, form_fields: formFields}, language, options.final ? 'final' : 'draft'))
}

/** Where a form field's number comes from: the EDPB common template's rows, or the authority's own form. */
function formRef(authority: Authority, id: string): string {
  return /^\d/.test(id) ? `EDPB template ${id}` : `${authority.toUpperCase()} form: ${id}`
}

/**
 * The clock the draft answers to. A controller: its own (72 hours to the authority). A
 * processor drafting for a controller: that controller's, which starts when the processor's
 * initial notice reached it (EDPB 9/2022); unknown until that notice is recorded.
 */
function draftClock(facts: CaseFacts, onBehalf: string | null): ClockResult | null {
  if (!facts.incident) return null
  if (onBehalf === null) return facts.clock
  const notice = facts.notifications.find((n) => n.phase === 'initial' && noticeController(n) === onBehalf)
  if (!notice) return null
  // Only a notification to the authority recorded as made for this controller stops its clock (concernsController).
  const byAuthority = facts.notifications.find((n) => n.phase === 'initial' && toAuthority(n) && concernsController(n, onBehalf))
  const now = new Date(facts.generated_at)
  return {...computeClock(new Date(notice.at), now, byAuthority ? new Date(byAuthority.at) : null, DEADLINE_MS), basis: 'art33(1)'}
}

const scopeMethodFr = (p: ProvenanceParameters | null): string =>
  `exposition : réponses contenant un marqueur canari enregistré pour une autre session (observations cross_session, cross_tenant) ou le texte mot pour mot d'une requête ou réponse antérieure d'une autre session (${provenanceMethodFr(p)}), dans des fichiers de journaux entièrement chargés ; chaque part est comptée et indiquée`

/** How the data subjects and records were counted, in the document's language (scope states them in English). */
export function countMethods(scope: NonNullable<CaseFacts['scope']>, language: Language, forTenant: string | null): {subjects: string; records: string} {
  if (language !== 'fr') return {subjects: scope.data_subjects.method, records: scope.records.method}
  const unbounded = unboundedFr(scope.pool_tokens, forTenant)
  const undecided = scope.at_risk_unknown_records ?? 0
  return {subjects: subjectsMethodFr(scope.data_subjects.high, unbounded, forTenant !== null ? (scope.controller_subjects ?? null) : undefined, undecided), records: recordsMethodFr(scope.records.high, unbounded, undecided)}
}

/** Why a French method's upper bound is missing (the same three reasons as computeScope's). */
function unboundedFr(pool: number | null, forTenant: string | null): string {
  if (pool === null) return 'Borne haute : non déterminée (taille du pool KV inconnue, --pool-tokens).'
  if (forTenant !== null) return "Borne haute : non calculée pour la part d'un seul client (crosstalk scope la donne pour l'ensemble du dossier)."
  return "Borne haute : non déterminée : aucun enregistrement ne donne à la fois son statut HTTP et la taille de sa requête, aucune réponse ne peut donc être jugée à risque."
}

/** `controller`: the controller's split (a draft for one controller), null where not known; undefined for the whole case. */
function subjectsMethodFr(high: number | null, unbounded: string, controller: ControllerSubjects | null | undefined, undecided: number): string {
  return (
    "Une session compte pour une personne concernée (l'utilisateur final de la conversation ; les personnes citées dans le texte ne sont pas comptées). " +
    (controller
      ? `Borne basse : sessions distinctes de ce responsable de traitement de part et d'autre de l'exposition : ${controller.reached_others} dont les données (marqueur canari ou texte reproduit) ont atteint une autre session, ${controller.served_others} qui ${controller.served_others <= 1 ? 'a' : 'ont'} reçu les données d'une autre session (une session des deux côtés comptée une fois : ${controller.total}) ; les sessions des autres clients sont à compter par eux. La communication aux personnes concernées de ce responsable de traitement (report article34) donne le même nombre. `
      : controller === null
        ? "Borne basse : sessions distinctes de ce responsable de traitement dont les données (marqueur canari ou texte reproduit) ont atteint une autre session, ou qui ont reçu les données d'une autre session ; les sessions des autres clients sont à compter par eux. "
        : 'Borne basse : sessions distinctes dont le marqueur canari ou le texte (provenance) a atteint une autre session. ') +
    (high === null
      ? unbounded
      : 'Borne haute : sessions distinctes dont les requêtes ont été servies par un nœud de décodage présentant des réponses à risque ou contaminées' +
        (undecided > 0 ? " (ou des enregistrements dont le statut ou la taille de la requête n'est pas enregistré, qui ont pu être à risque)" : '') +
        ", entre la première et la dernière d'entre elles, plus les sessions confirmées.")
  )
}

function recordsMethodFr(high: number | null, unbounded: string, undecided: number): string {
  return (
    "Un enregistrement concerné est une réponse ayant divulgué les données d'une autre session. Borne basse : réponses avec une observation cross_session/cross_tenant ou une attribution de provenance. " +
    (high === null
      ? unbounded
      : 'Borne haute : toutes les réponses de statut 200 dont la requête atteignait le pool (chacune pouvait porter des pages périmées)' +
        (undecided > 0 ? `, tous les enregistrements dont le statut ou la taille de la requête n'est pas enregistré alors que cela laisse ouvert s'ils en étaient (${undecided})` : '') +
        ', plus les fuites confirmées hors de cet ensemble.')
  )
}

/**
 * ENISA inputs the logs cannot decide (whether the people were vulnerable, the data special,
 * public, inaccurate, ...), left at the value assess assumes when not given; and the base
 * score where no financial data was detected (assess asks for a sample to be read). Named with
 * the value assumed.
 */
const ASSUMED_INPUTS = ['special_categories', 'vulnerable_subjects', 'data_volume_high', 'public_data', 'inaccurate_data', 'cb_availability', 'malicious', 'unintelligible'] as const

export function assumedInputs(inputs: Record<string, unknown>): string[] {
  const out: string[] = []
  const at = (name: string): {value?: unknown; source?: unknown} | undefined => {
    const v = inputs[name]
    return v !== null && typeof v === 'object' ? (v as {value?: unknown; source?: unknown}) : undefined
  }
  const dpc = at('dpc')
  if (dpc?.source === 'case default' && dpc.value === 1) out.push('dpc=1')
  for (const name of ASSUMED_INPUTS) {
    const i = at(name)
    if (i?.source === 'case default') out.push(`${name}=${String(i.value)}`)
  }
  return out
}
