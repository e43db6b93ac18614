import {noneFoundGaps} from './none-found.js'
import {z} from 'zod'
import {InputError} from '../errors.js'
import {detectionSchema, detectionSummary} from './detection-note.js'
import {finalisation, finalisedWithOpenItemsSchema} from './finalise.js'
import {concernsController, DUPLICATE_LEAKS_REMEDY, DUPLICATES_NOT_EXAMINED_REMEDY, noScopeItem, requireControllerConcerned, type CaseFacts, remediesOf} from './facts.js'
import {CATEGORY_LABELS, PHRASES, type Language} from './phrases.js'
import {PROTECTION_CONTRADICTED, protectionState} from './protection.js'
import {assertGrounded, Lines, openItemSchema, splitList, statementSchema} from './statements.js'
import {withOpenItemLines} from './reader-text.js'
import {breachWindowContradictions} from './recorded-vs-logs.js'
import {timelineOrderRemedy, timesBeforeBreachStart} from './timeline-order.js'
import {toAuthority, toDataSubjects} from './recipients.js'

// GDPR Art. 34(2): the communication to data subjects, "in clear and plain language", with
// the contact point, likely consequences and measures (Art. 33(3)(b)-(d)), plus what people
// can do themselves (Recital 86). Built from the same facts; no jargon, no ids. What we did
// is said only from what was recorded (incident set --measures-taken, notify record): until
// then the draft lists it as to be completed, and never claims an authority was told.

export const article34Schema = z.object({
  kind: z.literal('article34'),
  draft: z.boolean(),
  final: z.boolean(),
  /** initial: no communication to the data subjects is recorded yet; follow-up: one is (notify record --recipient data-subjects), and this letter is a further one */
  phase: z.enum(['initial', 'follow-up']),
  /** who accepted finalising it with open items, and when (--final --accept-open-items NAME); null otherwise */
  finalised_with_open_items: finalisedWithOpenItemsSchema,
  language: z.enum(['en', 'fr']),
  generated_at: z.string(),
  title: z.string(),
  heading: z.string(),
  detection: detectionSchema,
  organisation: z.string().nullable(),
  /** a processor's draft for the controller to send (Art. 34 is the controller's duty) */
  prepared_for: z.string().nullable(),
  contact: z.object({name: z.string().nullable(), contact: z.string().nullable()}),
  /** notes for the sender (the decision recorded does not require it; prepared for a controller): never part of the letter; a final letter's rendering leaves them out (the command prints them on stderr) */
  notes: z.array(z.string()),
  what_happened: z.array(z.string()),
  when: z.string().nullable(),
  what_data: z.array(z.string()),
  /** the search covered the case and found no response carrying another session's data (what_data and consequences then say so; no apology) */
  nothing_found: z.boolean().optional(),
  /** said where personal details are listed: they were found in some of the affected conversations, not in each */
  what_data_note: z.string().nullable(),
  consequences: z.array(z.string()),
  what_we_did: z.array(z.string()),
  what_you_can_do: z.array(z.string()),
  decision: z.string().nullable(),
  /**
   * Retries logged under the request id of a response already counted whose answer carried
   * another session's marker (on behalf of a controller: those carrying its data): responses
   * served that no sentence above counts; each named in an open item while there are any.
   */
  retry_leaks_not_counted: z.number().int(),
  /** retries under a counted request id that could not be read again: whose data they carry (this letter's controller's included) is not known; an open item while there are any */
  duplicate_lines_not_examined: z.number().int(),
  statements: z.array(statementSchema),
  open_items: z.array(openItemSchema),
})

/** `crosstalk report article34 --format json` */
export type Article34Result = z.infer<typeof article34Schema>

export interface BuildArticle34Options {
  language?: Language
  final?: boolean
  /** who accepts finalising it while open items remain (--accept-open-items NAME) */
  acceptOpenItemsBy?: string
  /** A processor preparing the communication for a controller (tenant id); facts narrowed to it. */
  onBehalfOf?: string
}

export function buildArticle34(facts: CaseFacts, options: BuildArticle34Options = {}): Article34Result {
  const language = options.language ?? 'en'
  const P = PHRASES[language]
  const A = P.a34
  const s = facts.scope
  const inc = facts.incident
  const onBehalf = options.onBehalfOf ?? null
  if (inc?.role === 'processor' && onBehalf === null) {
    throw new InputError(
      'informing data subjects is the controller\'s duty (Art. 34): as processor, pass --on-behalf-of-controller TENANT to prepare the communication for that controller to send',
      'E_PROCESSOR_ROLE',
    )
  }
  // As controller the communication is the case's own: nobody prepares it on its behalf (Art. 34).
  if (onBehalf !== null && inc?.role !== 'processor') throw new InputError('--on-behalf-of-controller is for a processor preparing the communication for a controller (incident role processor)')
  // A letter apologising to people the case shows untouched is refused, as its processor notice is.
  if (onBehalf !== null) requireControllerConcerned(facts, 'report article34 --on-behalf-of-controller')
  const L = new Lines()
  // Art. 34(2): clear and plain language, which is the data subjects' own: English by default is a choice nobody made.
  if (options.language === undefined) L.open('language', P.open.language, 'Art. 34(2)', 'crosstalk report article34 --lang en|fr')
  // The case's assessment is its responder's: in a processor's case, the processor's over all its
  // customers. Whether this controller's data subjects are at high risk (Art. 34(1)) is the
  // controller's decision, and the case records none per controller: open for it, never the processor's.
  const a = onBehalf === null ? facts.assessment : null
  if (onBehalf !== null) {
    // A note for the sender (notes: never part of the letter itself, render-markdown.ts).
    L.stated('notes', A.onBehalf(onBehalf), ['incident.role'])
    // The people written to know the controller by its name, never by the processor's tenant id: none is recorded per controller.
    L.open('contact', A.controllerName, 'Art. 34(2)', null)
  }
  // A communication already recorded: this letter is a further one, and whom the first reached is said as recorded (never all counted now).
  const earlier = onBehalf === null ? facts.notifications.find((n) => toDataSubjects(n) && n.phase === 'initial') : undefined
  const sinceInformed = earlier ? (facts.scans_since_subjects_informed ?? []) : []
  // What the earlier communication was based on, as stored when it was recorded: never the figures known now.
  if (earlier) L.stated('notes', A.furtherCommunication(earlier.at, earlier.reference, sinceInformed.length) + P.notifiedScope(earlier), [`notification#${earlier.id}`])
  if (earlier && sinceInformed.length > 0) L.open('recipients', P.open.subjectsFoundSince(earlier.at, earlier.reference, sinceInformed.length, sinceInformed[sinceInformed.length - 1]!.finished_at), 'Art. 34(1)', 'crosstalk notify record --recipient data-subjects --phase follow-up ...')
  if (a && a.decision !== 'notify-subjects') L.stated('notes', A.notRequired(a), [`assessment#${a.id}`])
  if (!a) L.open('decision', P.open.risk, 'Art. 34(1)', onBehalf === null ? 'crosstalk assess --decide ... --rationale ...' : P.onBehalfRisk(onBehalf, facts.assessment !== null))

  const exposure = s?.exposure ?? null
  // A retry logged under a request id already counted is a duplicate line, in no figure: where one
  // carried another session's marker, "nothing found" is untrue and every sentence counts short of it.
  const retries = facts.retry_leaks ?? []
  // Times that are no fact (after the log's ingest, before the marker's issue): kept out of the dates this letter gives, named.
  if ((facts.scope?.responses_dated_after_ingest ?? 0) > 0) L.open('what_happened', P.open.datedAfterIngest(facts.scope!.responses_dated_after_ingest!), 'Art. 34(2)', null)
  if ((facts.scope?.responses_dated_before_marker_issued ?? 0) > 0) L.open('what_happened', P.open.datedBeforeIssued(facts.scope!.responses_dated_before_marker_issued!), 'Art. 34(2)', null)
  if (retries.length > 0) L.open('what_happened', P.open.duplicateLeaks(retries.map((r) => r.line)), 'Art. 34(2)', DUPLICATE_LEAKS_REMEDY)
  // A retry that could not be read again may carry these people's data (whose it carries is not known): an open item, whatever else was found.
  const duplicatesUnexamined = facts.totals.duplicate_lines_not_examined ?? 0
  if (duplicatesUnexamined > 0) L.open('what_happened', P.open.duplicatesNotExamined(duplicatesUnexamined, facts.totals.duplicate_lines_not_examined_of_tenant ?? null), 'Art. 34(2)', remediesOf(facts).duplicates_not_examined)
  // What detection did not examine (none-found.ts), but the retries, named above for this draft's controller.
  const gaps = noneFoundGaps(facts, P).filter((g) => g.kind !== 'duplicate_leaks' && g.kind !== 'duplicates_not_examined')
  // A letter for one controller counts its data subjects as that controller's Article 33 draft does
  // (its end users on either side: facts.ts controllerSubjects), so the two never give two numbers.
  const subjects = onBehalf !== null ? (s?.controller_subjects ?? null) : null
  // A controller whose users were only shown others' data has data subjects all the same: never "nothing found" for it.
  let nothingFound = false
  if (exposure && (exposure.responses > 0 || (subjects?.total ?? 0) > 0)) L.stated('what_happened', subjects ? A.whatHappenedController(subjects) : A.whatHappened(exposure, s!.data_subjects.low), ['scan.exposure'])
  // Nothing found is a finding only where detection covered the whole case; over a partial scan it is not known yet.
  // Never where a retry leaked (the open item above says what was found instead), nor over what it did
  // not examine: each exception is the sender's to settle before saying so.
  else if (exposure && facts.detection.complete) {
    nothingFound = retries.length === 0 && duplicatesUnexamined === 0 && gaps.length === 0
    if (nothingFound) L.stated('what_happened', A.nothingFound, ['scan.exposure'])
    for (const g of gaps) L.open('what_happened', g.item, 'Art. 34(2)', g.record_with)
  }
  else if (exposure) L.open('what_happened', P.open.detectionIncomplete(facts.detection.files_not_scanned), 'Art. 34(2)', 'crosstalk scan')
  // Findings out of date are said for what they are (which, and why), not as a case never scanned.
  else L.open('what_happened', noScopeItem(facts, P.open), 'Art. 34(2)', 'crosstalk scan')
  // Another session's personal data matched by value, beside an exposure found by markers or text: the count above is a lower bound until it is settled.
  if (exposure && (exposure.responses > 0 || (subjects?.total ?? 0) > 0)) for (const g of gaps) if (g.kind === 'pii_attributed') L.open('what_happened', g.item, 'Art. 34(2)', g.record_with)
  // Answers that decoded to no text were never examined: the communication cannot speak for them.
  if (s && (facts.totals.responses_without_text ?? 0) > 0 && !(exposure && exposure.responses === 0 && facts.detection.complete)) L.open('what_happened', P.open.responsesWithoutText(facts.totals.responses_without_text!), 'Art. 34(2)', remediesOf(facts).responses_without_text)
  if (inc?.cause_category) L.stated('cause', A.cause(inc.cause_category, inc.cause ?? null), inc.cause ? ['incident.cause_category', 'incident.cause'] : ['incident.cause_category'])
  else L.open('cause', P.open.cause, 'Art. 34(2)', 'crosstalk incident set --cause TEXT --cause-category ...')
  // The breach period as recorded (as the Art. 33 draft and the register give it); else the window of the affected answers in the logs, said as such.
  // A recorded period the logs contradict is not told to people as established: the logs' window is said, the contradiction is open.
  const contradicted = breachWindowContradictions(inc, facts.case_exposure_window ?? null)
  for (const c of contradicted) {
    if (c.bound === 'start') L.open('when', P.open.breachStartContradicted(c.recorded, c.logs), 'Art. 34(2)', 'crosstalk incident set --breach-started-at ISO')
    else L.open('when', P.open.breachEndContradicted(c.recorded, c.logs), 'Art. 34(2)', 'crosstalk incident set --breach-ended-at ISO')
  }
  // A start the record's own awareness or detection precedes cannot be right either: the letter does not give it, the check is open.
  const beforeStart = timesBeforeBreachStart(inc)
  for (const p of beforeStart) L.open('when', P.open.timeBeforeStart(p.field, p.at, p.referenceAt), 'Art. 34(2)', timelineOrderRemedy(p))
  const when = inc?.breach_started_at && contradicted.length === 0 && beforeStart.length === 0
    ? L.stated('when', A.whenRecorded(inc.breach_started_at, inc.breach_ended_at), inc.breach_ended_at ? ['incident.breach_started_at', 'incident.breach_ended_at'] : ['incident.breach_started_at'])
    // A letter for one controller counts its end users on both sides (controller_subjects): its window is theirs, not the narrowed side's.
    : subjects?.first && subjects.last ? L.stated('when', A.when(subjects.first, subjects.last), ['scan.exposure'])
    : s?.exposure_first && s.exposure_last ? L.stated('when', A.when(s.exposure_first, s.exposure_last), ['scan.exposure']) : null

  const kinds = [...new Set((s?.categories ?? []).filter((c) => c.count > 0 && A.plain[c.kind]).map((c) => A.plain[c.kind]!))]
  const financial = (s?.categories ?? []).some((c) => (c.kind === 'iban' || c.kind === 'card') && c.count > 0)
  const whatData = exposure && exposure.responses > 0 ? [L.stated('what_data', A.conversation, ['scan.exposure']), ...kinds.map((k) => L.stated('what_data', k, ['scan.pii_findings']))] : []
  const whatDataNote = whatData.length > 1 ? L.stated('what_data_note', A.kindsNote, ['scan.pii_findings']) : null
  // Data recorded as unintelligible to whoever received it (Art. 34(3)(a)): the letter says so, unless the scan read personal data in clear (then open, and said as found).
  const protection = exposure && exposure.responses > 0 ? protectionState(inc?.data_unintelligible, s?.categories) : {state: 'not-intact' as const}
  if (protection.state === 'contradicted') L.open('consequences', P.open.protectionContradicted(protection.kinds.map((k) => CATEGORY_LABELS[language][k] ?? k)), PROTECTION_CONTRADICTED, 'crosstalk incident set --data-unintelligible protection-intact|protection-likely-subvertible|no|cannot-assess')
  const consequences = exposure && exposure.responses > 0 ? [protection.state === 'intact' ? L.stated('consequences', A.seenProtected, ['scan.exposure', 'incident.data_unintelligible']) : L.stated('consequences', A.seen, ['scan.exposure'])] : []
  // Phishing "using these details" only where the details are contact details (an e-mail address, a phone number) the search found.
  const contactFound = (s?.categories ?? []).some((c) => (c.kind === 'email' || c.kind === 'phone') && c.count > 0)
  if (contactFound) consequences.push(L.stated('consequences', A.phishing, ['scan.pii_findings']))
  if (financial) consequences.push(L.stated('consequences', A.financial, ['scan.pii_findings']))
  // This controller's users were only shown others' data (none of theirs reached anyone): what they were shown, and what that means for them.
  if (whatData.length === 0 && subjects && subjects.total > 0 && subjects.reached_others === 0) {
    whatData.push(L.stated('what_data', A.servedOnlyData, ['scan.exposure']))
    consequences.push(L.stated('consequences', A.servedOnlyConsequence, ['scan.exposure']))
  }

  // No heading left empty: where nothing was found it says so (as found); where what was involved is not established, it is open.
  if (whatData.length === 0) {
    if (nothingFound) whatData.push(L.stated('what_data', A.nothingInvolved, ['scan.exposure']))
    else L.open('what_data', A.whatDataOpen, 'Art. 34(2)', null)
  }
  if (consequences.length === 0 && protection.state !== 'contradicted') {
    if (nothingFound) consequences.push(L.stated('consequences', A.nothingConsequence, ['scan.exposure']))
    else L.open('consequences', A.consequencesOpen, 'Art. 34(2)', null)
  }

  // What we did: only as recorded. In a letter prepared for a controller the measures recorded are its
  // processor's: attributed to it, never the controller's "we", and the controller's own are left open.
  const processor = inc?.processor_name ?? null
  for (const m of splitList(inc?.measures_taken)) L.stated('measures_taken', onBehalf === null ? m : A.processorMeasure(processor, m), ['incident.measures_taken'])
  if (splitList(inc?.measures_taken).length === 0) L.open('measures_taken', P.open.measuresTaken, 'Art. 34(2), 33(3)(d)', 'crosstalk incident set --measures-taken "A; B"')
  // Art. 34(2) gives the data subjects at least the content of Art. 33(3)(d): measures taken or proposed, each proposed one said as such.
  for (const m of splitList(inc?.measures_proposed)) L.stated('measures_proposed', onBehalf === null ? A.proposedMeasure(m) : A.processorProposedMeasure(processor, m), ['incident.measures_proposed'])
  if (onBehalf !== null) L.open('measures_taken', A.controllerMeasures, 'Art. 34(2), 33(3)(d)', null)
  // On behalf of a controller: only a notification recorded as made for it (never one made for another customer, or for none named).
  const authority = facts.notifications.find((n) => toAuthority(n) && n.phase === 'initial' && (onBehalf === null || concernsController(n, onBehalf)))
  if (authority) L.stated('notifications', A.authorityTold(authority.at), [`notification#${authority.id}`])

  // What people can do (Recital 86): advice, not a claim about the case. Where the search found nothing,
  // advice to change a password or watch for misuse would say something happened: only the contact is given.
  const advice = nothingFound ? [] : [L.stated('advice', A.careful, ['rule:Recital 86'])]
  if (financial) advice.push(L.stated('advice', A.checkBank, ['rule:Recital 86', 'scan.pii_findings']))
  if (!nothingFound) advice.push(L.stated('advice', A.secrets, ['rule:Recital 86']))
  advice.push(L.stated('advice', A.contactUs, ['rule:Art. 34(2)']))
  // A letter for a controller gives that controller's DPO or contact point, never the processor's own (the one recorded in this case).
  const contact = onBehalf !== null ? {name: null, contact: null} : {name: inc?.dpo_name ?? null, contact: inc?.dpo_contact ?? null}
  if (onBehalf !== null) L.open('contact', A.controllerContact(Boolean(inc?.dpo_name || inc?.dpo_contact)), 'Art. 34(2), 33(3)(b)', null)
  else if (!inc?.dpo_name && !inc?.dpo_contact) L.open('contact', P.open.subjectContact, 'Art. 34(2), 33(3)(b)', 'crosstalk incident set --dpo-name ... --dpo-contact ...')
  else if (!inc?.dpo_name) L.open('contact', P.open.contactName, 'Art. 34(2), 33(3)(b)', 'crosstalk incident set --dpo-name ...')
  else if (!inc?.dpo_contact) L.open('contact', P.open.contactDetails, 'Art. 34(2), 33(3)(b)', 'crosstalk incident set --dpo-contact ...')

  let decision: string | null = null
  if (a) decision = L.stated('decision', P.decisionStated(a), [`assessment#${a.id}`])
  assertGrounded(L.statements)
  return article34Schema.parse(withOpenItemLines({
    kind: 'article34',
    draft: !(options.final ?? false),
    final: options.final ?? false,
    phase: earlier ? 'follow-up' : 'initial',
    finalised_with_open_items: finalisation('report article34', L.open_items, options, language, facts.generated_at),
    language,
    generated_at: facts.generated_at,
    title: inc?.title ?? A.title,
    heading: A.title,
    detection: detectionSummary(facts.detection, language),
    organisation: onBehalf === null ? (inc?.controller_name ?? null) : null,
    prepared_for: onBehalf,
    contact,
    notes: L.texts('notes'),
    what_happened: [...L.texts('what_happened'), ...L.texts('cause')],
    when,
    what_data: whatData,
    nothing_found: nothingFound,
    what_data_note: whatDataNote,
    consequences,
    what_we_did: [...L.texts('measures_taken'), ...L.texts('measures_proposed'), ...L.texts('notifications')],
    what_you_can_do: advice,
    decision,
    retry_leaks_not_counted: retries.length,
    duplicate_lines_not_examined: duplicatesUnexamined,
    statements: L.statements,
    open_items: L.open_items,
  }, language, options.final ? 'letter' : 'draft'))
}
