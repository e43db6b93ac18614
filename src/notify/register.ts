import {quoted} from '../util/sanitize.js'
import {breachWindowContradictions} from './recorded-vs-logs.js'
import {timelineOrderRemedy, timesOutOfOrder} from './timeline-order.js'
import {z} from 'zod'
import {detectionSchema, detectionSummary} from './detection-note.js'
import {finalisation, finalisedWithOpenItemsSchema} from './finalise.js'
import {countMethods} from './article33.js'
import {affectedTenants, droppedSince, withdrawnControllers, factsControllersKnown, factsControllersUnknownBecause, factsExposureKnown, noScopeItem, type CaseFacts} from './facts.js'
import {noneFoundGaps, noneFoundValue} from './none-found.js'
import {CATEGORY_LABELS, categoryLabel, noLeakStatement, PHRASES, rangeText, type Language, type Phrases} from './phrases.js'
import {protectionState} from './protection.js'
import {assertGrounded, joinItems, Lines, openItemSchema, splitList, statementSchema} from './statements.js'
import {withOpenItemLines} from './reader-text.js'
import {noticeController, toAuthority} from './recipients.js'

// GDPR Art. 33(5): document every breach (notified or not) so the authority can verify
// compliance: facts, effects, remedial action, the decision and its reasoning, the
// timestamps and the evidence it rests on. One entry per incident. Remedial action, the
// decision and the notifications are stated only as recorded; a column the case cannot
// answer reads "to be completed: ...", never a default.

export const registerEntrySchema = z.object({
  kind: z.literal('register-entry'),
  draft: z.boolean(),
  language: z.enum(['en', 'fr']),
  generated_at: z.string(),
  reference: z.string().nullable(),
  title: z.string(),
  detection: detectionSchema,
  role: z.string().nullable(),
  detected_at: z.string().nullable(),
  aware_at: z.string().nullable(),
  deadline: z.string().nullable(),
  /** why there is no deadline where the role has none (a processor with no contractual period), else null */
  deadline_note: z.string().nullable(),
  /** null: not known (no fixed deadline; a processor's controllers not known yet past its deadline; no incident), as clock says */
  late: z.boolean().nullable(),
  breach_window: z.string().nullable(),
  facts: z.string(),
  data_subjects: z.string(),
  records: z.string(),
  data_categories: z.string(),
  effects: z.string(),
  cause: z.string(),
  /** measures taken, then measures proposed (each said as proposed: not taken yet) */
  remedial_action: z.string(),
  decision: z.string(),
  rationale: z.string().nullable(),
  decided_by: z.string().nullable(),
  severity: z.string().nullable(),
  notified_authority_at: z.string().nullable(),
  /** set for a processor: notifying the authority is each controller's duty, not this entry's open item */
  authority_note: z.string().nullable(),
  notification_references: z.string(),
  controllers_notified: z.number().int(),
  /** a processor's affected controllers (the customers on either side of the exposure, and those a leaking retry concerns); null for a controller, and for a processor whose case was never scanned (not known) */
  controllers_affected: z.number().int().nullable(),
  awareness_amendments: z.number().int(),
  evidence: z.string(),
  // Added last, so that the CSV's columns before it keep their positions for scripts that read them by place.
  /** how the cause was confirmed (replays of affected requests), null when none is recorded: an investigation, not a remedy */
  investigation: z.string().nullable(),
  /** each recorded change of our role (old role, new role, when, why, by whom), oldest first; null when the role was never changed */
  role_changes: z.string().nullable(),
  /** the reasons recorded for a late notification (Art. 33(1)): the incident's, then each late notification's with its reference; null when none is recorded */
  delay_reasons: z.string().nullable(),
  /** a processor's: false where markers found in answers could not be attributed (no canary registry), so more controllers may be affected; null for a controller, or before a scan */
  controllers_known: z.boolean().nullable(),
  statements: z.array(statementSchema),
  open_items: z.array(openItemSchema),
  /** who accepted finalising it with open items, and when (--final --accept-open-items NAME); null otherwise (last: the CSV's new column comes after the others) */
  finalised_with_open_items: finalisedWithOpenItemsSchema,
  /**
   * a processor's: its customers' end users on either side of the exposure (sessions whose data reached another session, or
   * that were served another session's data; one on both counted once), as the Article 33 drafts prepared for each controller
   * count theirs (summed over the controllers); `data_subjects` counts the first side only, as the whole case's Article 33
   * draft does, and says both. null for a controller, and where the scope is not known (after finalised_with_open_items: the CSV's columns keep their places)
   */
  data_subjects_either_side: z.number().int().nullable(),
  /** a processor's, where controllers_known is false: why (detection incomplete, markers not attributable, responses set aside as boilerplate); null otherwise (after the others: the CSV's columns before it keep their places) */
  controllers_unknown_because: z.enum(['detection', 'markers', 'boilerplate']).nullable(),
})

/** `crosstalk report register --format json` */
export type RegisterEntryResult = z.infer<typeof registerEntrySchema>
/** The CSV's columns: one line per entry (statements and open items stay in the JSON). */
export const REGISTER_COLUMNS = Object.keys(registerEntrySchema.shape).filter((k) => k !== 'statements' && k !== 'open_items')

export interface BuildRegisterOptions {
  language?: Language
  final?: boolean
  /** who accepts finalising it while open items remain (--accept-open-items NAME) */
  acceptOpenItemsBy?: string
}

export function buildRegisterEntry(facts: CaseFacts, options: BuildRegisterOptions = {}): RegisterEntryResult {
  const language = options.language ?? 'en'
  const P = PHRASES[language]
  const s = facts.scope
  const inc = facts.incident
  const a = facts.assessment
  const L = new Lines()
  const todo = (section: string, item: string, ref: string, recordWith: string | null): string => P.toComplete(L.open(section, item, ref, recordWith).item)
  if (!inc) L.open('incident', P.open.noIncident, 'Art. 33(5)', 'crosstalk incident open ...')
  // An exposure of 0 where not everything was examined is of what was (noneFoundGaps); where a retry carried a marker no figure counts, it says so.
  const retryLeaks = s && facts.totals.registry_files > 0 ? (facts.totals.duplicate_leaks ?? []).length : 0
  const partial = s !== null && s.exposure !== null && s.exposure.responses === 0 && factsExposureKnown(facts) && noneFoundGaps(facts, P).some((g) => g.open)
  const qualified = (text: string): string => (!partial ? text : retryLeaks > 0 ? P.notCountingRetries(text, retryLeaks) : P.ofWhatWasExamined(text))
  const range = (r: {low: number; high: number | null; method: string} | undefined): string | null => (r ? `${qualified(rangeText(P, r, factsExposureKnown(facts)))} (${r.method})` : null)

  const exposure = s?.exposure ?? null
  const found = exposure ? (exposure.responses > 0 ? P.exposure(exposure, s!.exposure_first, s!.exposure_last, facts.totals.registry_files > 0, !factsExposureKnown(facts)) : noLeakStatement(P, facts.totals, facts.detection, s)) : null
  const withoutText = facts.totals.responses_without_text ?? 0
  // What the finding cannot speak for, said with it: no registry (markers not looked for), lines that could not be read.
  const limits = [
    ...(facts.totals.registry_files === 0 ? [P.noRegistry] : []),
    // (A no-leak statement names them itself: noLeakStatement.)
    ...(facts.totals.bad_lines > 0 && !(exposure !== null && exposure.responses === 0) ? [P.unreadLines(facts.totals.bad_lines)] : []),
    ...(withoutText > 0 && exposure !== null && exposure.responses > 0 ? [P.noResponseText(withoutText)] : []),
    ...(s && (s.contaminated_without_prompt ?? 0) > 0 ? [P.noPromptLogged(s.contaminated_without_prompt!)] : []),
    ...(s && (s.contaminated_prompt_in_part ?? 0) > 0 ? [P.promptReadInPart(s.contaminated_prompt_in_part!, s.prompt_in_part_members)] : []),
  ]
  const factsText =
    found !== null
      ? limits.length > 0
        ? L.stated('facts', [found, ...limits].join(' '), ['scan.exposure', 'evidence.files'])
        : L.stated('facts', found, ['scan.exposure'])
      : todo('facts', noScopeItem(facts, P.open), 'Art. 33(5)', 'crosstalk scan')
  // Nothing found is a finding only where detection covered the whole case; otherwise it says why it is not known.
  // Nor over what detection did not examine (none-found.ts): its first open exception is to be completed, and a
  // source dismissed unread is named with its reason beside a "none" said of what was searched.
  const gaps = noneFoundGaps(facts, P)
  const noneFound = (section: string): string => {
    if (!exposure) return P.toComplete(noScopeItem(facts, P.open))
    if (!facts.detection.complete) return P.toComplete(P.open.detectionIncomplete(facts.detection.files_not_scanned))
    const answer = noneFoundValue(gaps, P)
    if (answer.gap) return todo(section, answer.gap.item, 'Art. 33(5)', answer.gap.record_with)
    return L.stated(section, answer.value, gaps.length > 0 ? ['scan.exposure', 'evidence.files'] : ['scan.exposure'])
  }
  // Data recorded as unintelligible to its recipients: the effects follow the record, unless the scan read personal data in clear (then open, and said as found).
  const protection = exposure && exposure.responses > 0 ? protectionState(inc?.data_unintelligible, s?.categories) : {state: 'not-intact' as const}
  const contradiction = protection.state === 'contradicted' ? L.open('effects', P.open.protectionContradicted(protection.kinds.map((k) => CATEGORY_LABELS[language][k] ?? k)), 'Art. 33(5), 34(3)(a)', 'crosstalk incident set --data-unintelligible protection-intact|protection-likely-subvertible|no|cannot-assess') : null
  const effects = exposure && exposure.responses > 0
    ? protection.state === 'intact'
      ? L.stated('effects', P.register.effectsProtected, ['scan.exposure', 'incident.data_unintelligible'])
      : `${L.stated('effects', P.register.effects, ['scan.exposure'])}${contradiction ? ` (${P.toComplete(contradiction.item)})` : ''}`
    : noneFound('effects')
  const causeParts = [
    ...(inc?.cause_category ? [L.stated('cause', P.causeCategoryRecorded(P.causeCategory[inc.cause_category] ?? inc.cause_category), ['incident.cause_category'])] : []),
    ...(inc?.cause ? [L.stated('cause', P.causeRecorded(inc.cause), ['incident.cause'])] : []),
  ]
  const cause = causeParts.length > 0 ? joinItems(causeParts, P.join) : todo('cause', P.open.cause, 'Art. 33(5); template 61-62', 'crosstalk incident set --cause TEXT --cause-category ...')
  const remedial = [
    ...splitList(inc?.measures_taken).map((m) => L.stated('measures_taken', m, ['incident.measures_taken'])),
    // Art. 33(5) records the remedial action *taken*: a proposed measure is said as proposed.
    ...splitList(inc?.measures_proposed).map((m) => L.stated('measures_proposed', P.register.proposed(m), ['incident.measures_proposed'])),
  ]
  // Replaying affected requests confirms the mechanism; it remedies nothing, so it is its own row.
  const replays = (facts.replay?.groups ?? []).map((g) => L.stated('investigation', P.replayGroup(g), g.run_ids.map((id) => `replay_run#${id}`)))
  if (splitList(inc?.measures_taken).length === 0) remedial.push(todo('measures_taken', P.open.measuresTaken, 'Art. 33(5)', 'crosstalk incident set --measures-taken "A; B"'))
  const decision = a ? L.stated('decision', P.decisionStated(a), [`assessment#${a.id}`]) : todo('decision', P.open.risk, 'Art. 33(5); EDPB 9/2022', 'crosstalk assess --decide ... --rationale ...')
  // Made before scans that may have changed its figures: the entry documents it as recorded, flagged as the Article 33 draft flags it.
  const since = facts.scans_since_assessment ?? []
  if (a && since.length > 0) L.open('decision', P.open.assessmentStale(a.at, since.length, since[since.length - 1]!.finished_at), 'Art. 33(5); EDPB 9/2022', 'crosstalk assess --decide ... --rationale ...')
  const authority = facts.notifications.find((n) => toAuthority(n) && n.phase === 'initial')
  const firstNotified = facts.notifications.reduce<(typeof facts.notifications)[number] | null>((first, n) => (first === null || Date.parse(n.recorded_at) < Date.parse(first.recorded_at) ? n : first), null)
  // Every controller concerned, one only a leaking retry concerns too (the clock's and the notices' set).
  const affected = new Set(affectedTenants(facts))
  for (const n of facts.notifications) L.stated('notifications', P.notificationStated(n, facts.incident?.delay_reason ?? null), [`notification#${n.id}`])
  if (inc?.role === 'processor') {
    const notified = new Set(facts.notifications.filter((n) => n.phase === 'initial').map(noticeController).filter((t) => t !== null))
    const missing = [...affected].filter((t) => !notified.has(t)).length
    if (!s) L.open('notifications', P.open.controllersUnknown, 'Art. 33(2)', 'crosstalk scan')
    else if (factsControllersUnknownBecause(facts) === 'boilerplate') L.open('notifications', P.open.controllersUnknownBoilerplate(facts.detection.provenance_boilerplate_responses ?? 0), 'Art. 33(2)', 'crosstalk provenance --boilerplate-tenants N')
    if (s && missing > 0) L.open('notifications', P.open.controllerNotices(missing), 'Art. 33(2)', 'crosstalk notify record --recipient TENANT ...')
    for (const w of withdrawnControllers(facts)) if (w.correction_owed) L.open('notifications', P.open.correctionOwed(quoted(w.tenant), w.notice.at, w.notice.reference), 'Art. 33(2), 33(4)', `crosstalk report processor-notice --tenant ${quoted(w.tenant)} --phase follow-up`)
  } else if (!authority && a?.decision !== 'document') L.open('notifications', P.open.notifications, 'Art. 33(1)', 'crosstalk notify record --phase initial ...')
  // The entry's own fields with nothing recorded: each rendered as to be completed, so each is listed.
  if (inc && !inc.internal_reference) L.open('reference', P.open.internalReference, 'Art. 33(5)', 'crosstalk incident set --internal-reference ...')
  if (inc && !inc.detected_at) L.open('timeline', P.open.detectedAt, 'Art. 33(5)', 'crosstalk incident set --detected-at ISO')
  // No recorded start and no affected response in the logs: the window is not known, and asked for.
  if (!inc?.breach_started_at && !facts.scope?.exposure_first) L.open('timeline', P.open.breachStartNoLogs, 'Art. 33(5)', 'crosstalk incident set --breach-started-at ISO')
  // A recorded window the logs contradict is documented as recorded, with the contradiction open beside it.
  // The window row gives each such item beside it, never the recorded window alone.
  const windowFlags: string[] = []
  for (const c of breachWindowContradictions(inc, facts.case_exposure_window ?? null)) {
    const item = c.bound === 'start' ? P.open.breachStartContradicted(c.recorded, c.logs) : P.open.breachEndContradicted(c.recorded, c.logs)
    windowFlags.push(` (${P.toComplete(L.open('timeline', item, 'Art. 33(5)', c.bound === 'start' ? 'crosstalk incident set --breach-started-at ISO' : 'crosstalk incident set --breach-ended-at ISO').item)})`)
  }
  // An awareness or detection before the recorded start, or an awareness or investigation before the first alert: one of
  // them is wrong, documented as recorded with the check open beside it.
  for (const p of timesOutOfOrder(inc)) L.open('timeline', P.open.timeBeforeStart(p.field, p.at, p.referenceAt, p.reference), 'Art. 33(5)', timelineOrderRemedy(p))
  // A role changed after opening changes whose clock runs and who notifies whom: the entry says so, with the recorded reason.
  const roleChanges = facts.role_changes.map((c) => L.stated('role', P.register.roleChange(c), ['incident.role_changes']))
  const late = facts.clock?.late === true
  // A processor is late against its contract, under Art. 33(2): the 72 hours of Art. 33(1) are the controller's.
  if (inc?.role === 'processor') {
    // A processor's reasons go with each late notice (notify record --delay-reason): asked for
    // only where a late notice was recorded without them, or a controller is overdue and no notice
    // of the case was late (the incident's own reason answers for all).
    const lateNotices = facts.notifications.filter((n) => n.late && !toAuthority(n))
    const unexplained = lateNotices.some((n) => !n.delay_reason) || (late && lateNotices.length === 0)
    if (unexplained && !inc.delay_reason) L.open('timeline', P.open.delayReasonProcessor, 'Art. 33(2), 33(5); Art. 28(3)(f)', 'crosstalk incident set --delay-reason TEXT')
  } else if (late && !inc?.delay_reason && !authority?.delay_reason) L.open('timeline', P.open.delayReason, 'Art. 33(1), 33(5)', 'crosstalk incident set --delay-reason TEXT')
  // Art. 33(1) requires reasons for a late notification; Art. 33(5) documents them with the entry.
  const delayReasons = [
    ...(inc?.delay_reason && (late || facts.notifications.some((n) => n.late)) ? [L.stated('timeline', inc.delay_reason, ['incident.delay_reason'])] : []),
    ...facts.notifications
      .filter((n) => n.late && n.delay_reason && n.delay_reason !== inc?.delay_reason)
      .map((n) => L.stated('timeline', P.register.delayReasonOf(n.reference, n.delay_reason!), [`notification#${n.id}`])),
  ]
  for (const problem of facts.notification_problems) L.open('notifications', P.open.notificationProblem(problem), 'Art. 33(5)', null)
  // Each count says what it counts: responses for the content categories, distinct values (by hash) for personal-data kinds.
  const categories = (s?.categories ?? []).map((c) =>
    `${categoryLabel(c.kind, c.label, language, facts.totals.registry_files > 0)}${c.kind === 'free_text' ? '' : ` (${c.kind.startsWith('conversation_content') ? P.register.inResponses(c.responses) : P.register.distinctValues(c.count, c.responses)})`}`,
  )
  // A processor's controllers each count their end users on either side (facts.ts controllerSubjects); the whole case's
  // count is of those whose data reached another session: both are said, never one figure read as the other.
  const eitherSide = inc?.role === 'processor' && s ? eitherSideSessions(facts.tenants) : null
  assertGrounded(L.statements)
  return registerEntrySchema.parse(withOpenItemLines({
    kind: 'register-entry',
    draft: !(options.final ?? false),
    language,
    generated_at: facts.generated_at,
    reference: inc?.internal_reference ?? null,
    title: inc?.title ?? P.toComplete(P.open.noIncident),
    detection: detectionSummary(facts.detection, language),
    role: inc ? P.role[inc.role] : null,
    detected_at: inc?.detected_at ?? null,
    aware_at: inc?.aware_at ?? null,
    deadline: facts.clock?.deadline ?? null,
    deadline_note: facts.clock && facts.clock.deadline === null && facts.clock.basis ? P.clockBasis[facts.clock.basis] ?? null : null,
    late: facts.clock?.late ?? null,
    breach_window: ((w) => (w === null ? null : w + windowFlags.join('')))(breachWindow(inc, s, P)),
    facts: factsText,
    data_subjects: (s ? `${range({...s.data_subjects, method: countMethods(s, language, facts.for_tenant).subjects})}${eitherSide === null ? '' : P.register.subjectsEitherSide(factsExposureKnown(facts) ? String(eitherSide) : `${language === 'fr' ? 'au moins' : 'at least'} ${eitherSide}`, s.data_subjects.low)}` : null) ?? P.toComplete(noScopeItem(facts, P.open)),
    records: (s ? range({...s.records, method: countMethods(s, language, facts.for_tenant).records}) : null) ?? P.toComplete(noScopeItem(facts, P.open)),
    data_categories: joinItems(categories, P.join) || noneFound('data_categories'),
    effects,
    cause,
    remedial_action: joinItems(remedial, P.join),
    investigation: replays.length > 0 ? joinItems(replays, P.join) : null,
    role_changes: roleChanges.length > 0 ? joinItems(roleChanges, P.join) : null,
    delay_reasons: delayReasons.length > 0 ? joinItems(delayReasons, P.join) : null,
    decision,
    rationale: a?.rationale ?? null,
    decided_by: a?.decided_by ?? null,
    severity: a ? P.register.severity(a) : null,
    notified_authority_at: authority?.at ?? null,
    authority_note: inc?.role === 'processor' && !authority ? P.register.authorityProcessor : null,
    notification_references: facts.notifications.map((n) => P.register.notificationLine(n)).join(P.join),
    // A processor counts the affected controllers it notified (out of controllers_affected); before any scan
    // nobody knows which are affected, so every controller notified counts and the affected ones are unknown (null).
    controllers_notified: new Set(
      facts.notifications.map(noticeController).filter((t): t is string => t !== null && (inc?.role !== 'processor' || !s || affected.has(t))),
    ).size,
    controllers_affected: inc?.role === 'processor' && s ? affected.size : null,
    controllers_known: inc?.role === 'processor' && s ? factsControllersKnown(facts) : null,
    awareness_amendments: facts.amendments.length,
    // Files dropped after the first notification: evidence it may have listed, named with the reason the drop recorded.
    evidence: [...facts.evidence.map((e) => `${e.name} sha256 ${e.sha256}`), ...(firstNotified ? droppedSince(facts.evidence_dropped, firstNotified.recorded_at).map((d) => P.register.droppedLine(d, firstNotified.at)) : [])].join(P.join) || P.toComplete(P.open.noScan),
    statements: L.statements,
    open_items: L.open_items,
    finalised_with_open_items: finalisation('report register', L.open_items, options, language, facts.generated_at),
    data_subjects_either_side: eitherSide,
    controllers_unknown_because: inc?.role === 'processor' && s ? factsControllersUnknownBecause(facts) : null,
  }, language, options.final ? 'final' : 'draft'))
}

/**
 * The breach window as recorded with the incident; where a bound is not recorded, the first or
 * last affected response in the logs, labelled as an estimate; null when neither is known.
 */
function breachWindow(inc: CaseFacts['incident'], s: CaseFacts['scope'], P: Phrases): string | null {
  const start = inc?.breach_started_at ?? s?.exposure_first ?? null
  if (!start) return null
  const end = inc?.breach_ended_at ?? s?.exposure_last ?? null
  const estimated = (!inc?.breach_started_at || !inc?.breach_ended_at) && s?.exposure_first
  return `${start} - ${end ?? P.register.endNotConfirmed}${estimated ? P.register.windowEstimated : ''}`
}

/** Distinct sessions (tenant, session) on either side of the exposure: whose data reached another session, or that were served another's. */
function eitherSideSessions(tenants: CaseFacts['tenants']): number {
  const sessions = new Set<string>()
  for (const t of tenants) for (const session of [...t.leaked_sessions, ...t.receiving_sessions]) sessions.add(`${t.tenant_id}\u0000${session}`)
  return sessions.size
}
