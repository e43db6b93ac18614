import type {AssessmentRecord} from './assessment-store.js'
import type {ReplayTargetFacts} from './facts.js'
import type {Exposure} from '../scope/exposure.js'
import {formatDuration, minuteDown, minuteUp} from './time.js'
import {markersStaleReason, type MarkersStaleCause} from '../scope/unscanned.js'
import {count} from '../util/plural.js'
import {asSentence} from './statements.js'
import type {NotificationScope} from '../store/notifications.js'
import {quoteIfReserved, recipientKind, type RecipientOf} from './recipients.js'

/** Up to five names, then how many more. */
const listed = (names: readonly string[]): string => (names.length > 5 ? `${names.slice(0, 5).join(', ')}, and ${names.length - 5} more` : names.join(', '))

// Every sentence crosstalk writes into a draft, notice or register entry, in English. The
// French table (phrases-fr.ts) has exactly these keys (its type is this one's), so a
// document never falls back to English. Values from the case (numbers, times, tenant ids,
// text the responder recorded) are filled in; nothing here states a measure, a
// notification, a decision or a cause by itself: builders use those sentences only with the
// recorded fact they rest on (statements.ts).

const pct = (x: number): string => `${(x * 100).toFixed(0)} %`

/** 75600 -> "21h 00m 00s"; negative values are rendered as "overdue by ...". */
/** A late initial notification's clause: the reasons as recorded, or that none are (never "given" without a record). */
/** A recorded notification as the scope sentences read it: when it was sent and recorded, and the scope stored with it. */
export interface NotifiedOf {
  at: string
  /** absent: a row built by hand (read as recorded when sent) */
  recorded_at?: string
  scope_at_notification?: NotificationScope | null
}

/**
 * Whether the scan stored with a notification finished after the notification was sent (one
 * recorded late, with --at in the past): the scope kept is the one current when it was recorded,
 * never what the notice rested on.
 */
export function scopeAfterSent(n: NotifiedOf): boolean {
  const scan = n.scope_at_notification?.scan ?? null
  return scan !== null && Date.parse(scan.finished_at) > Date.parse(n.at)
}

/**
 * What a recorded notification was based on, as stored when it was recorded (migration 023): a
 * sentence of its own, or '' for a notification built by hand (no scope given). Never today's figures.
 * `oneController`: a document for one controller, which never states the stored figures (they are
 * the whole case's, other customers' among them, not what a notice to that controller gave).
 */
function notifiedScope(n: NotifiedOf, oneController = false): string {
  const scope = n.scope_at_notification
  if (scope === undefined) return ''
  if (scope === null) return ' The scope it was based on was not recorded (it was recorded before crosstalk kept the scope of each notification): what it stated is not known here, and the figures of this document are those known now, not those notified.'
  if (!scope.known) return ` No scope was known when it was recorded (${scope.scan === null ? 'the case had not been scanned' : "the scan's findings did not cover the case"}).`
  const after = scopeAfterSent(n)
  const scanOf = (s: NonNullable<NotificationScope['scan']>): string => `scan finished ${s.finished_at}, sighting rules ${s.sighting_rules ?? 'before 2'}, extract scheme ${s.extract_scheme}`
  if (oneController) {
    return after
      ? ` It was recorded in this case on ${n.recorded_at ?? 'a later date'}, when the latest scan had finished after it was sent (${scanOf(scope.scan!)}): what it was based on and the figures it gave are not recorded here; the figures of this document are those known now.`
      : ` ${scope.scan ? `It rested on the findings of the ${scanOf(scope.scan)}; the` : 'The'} figures it gave this controller are not recorded in this case: the figures of this document are those known now.`
  }
  const num = (x: number | null): string => (x === null ? 'an unknown number' : scope.detection_complete ? String(x) : `at least ${x}`)
  const range = (r: {low: number; high: number | null} | null): string => (r === null ? 'not known' : r.high === null ? `at least ${r.low}` : r.high === r.low ? String(r.low) : `${r.low} to ${r.high}`)
  const window = scope.first_seen && scope.last_seen ? `, between ${scope.first_seen} and ${scope.last_seen}` : ''
  const sessions = boundedCount(scope.sessions, scope.sessions_low)
  const tenants = boundedCount(scope.source_tenants, scope.source_tenants_low)
  const figures = `${num(scope.responses)} ${scope.responses === 1 ? 'response' : 'responses'} carrying another session's data, from ${sessions.low ? `at least ${sessions.n}` : num(sessions.n)} ${sessions.n === 1 ? 'session' : 'sessions'} of ${tenants.low ? `at least ${tenants.n}` : num(tenants.n)} ${tenants.n === 1 ? 'customer' : 'customers'}, received by ${num(scope.recipient_tenants)}; ${num(scope.controllers)} ${scope.controllers === 1 ? 'customer (controller)' : 'customers (controllers)'} concerned; data subjects: ${range(scope.data_subjects)}; records: ${range(scope.records)}${window}.${scope.detection_complete ? '' : ' Detection did not cover the whole case then: each figure was a lower bound.'}`
  if (after) return ` What it was based on is not recorded: it was recorded in this case on ${n.recorded_at ?? 'a later date'}, with the scope of the scan then current (${scanOf(scope.scan!)}), which finished after it was sent: ${figures}`
  return ` It was based on the scope as found then${scope.scan ? ` (${scanOf(scope.scan)})` : ''}: ${figures}`
}

/** A stored count with the lower bound kept beside it (a marker cut short naming none of several): the bound where it is above the named count, said "at least". */
export function boundedCount(named: number | null, low: number | null | undefined): {n: number | null; low: boolean} {
  return low !== null && low !== undefined && named !== null && low > named ? {n: low, low: true} : {n: named, low: false}
}

/** A follow-up notice to one controller: what the notice it follows rested on, by scan only (the stored figures are the whole case's, never another customer's to read). */
function notifiedScan(n: NotifiedOf): string {
  const scope = n.scope_at_notification
  if (scope === undefined) return ''
  if (scope === null) return ' What that notice was based on was not recorded (it was recorded before crosstalk kept it): the figures below are those known now, not necessarily those it gave.'
  if (scope.scan === null) return ' No scan had finished when that notice was recorded: the figures below are those known now.'
  return scopeAfterSent(n)
    ? ` That notice was recorded here on ${n.recorded_at ?? 'a later date'}, when the latest scan had finished after it was sent (on ${scope.scan.finished_at}): what it rested on is not recorded, and the figures below are those known now, not necessarily those it gave.`
    : ` That notice rested on the findings of the scan finished ${scope.scan.finished_at}: the figures below are those known now, not necessarily those it gave.`
}

/** The short form for a register line: "scope then: 5 responses, 4 sessions, 3 customers concerned" ('' for a row built by hand). */
function notifiedScopeShort(n: NotifiedOf): string {
  const scope = n.scope_at_notification
  if (scope === undefined) return ''
  if (scope === null) return ' (scope then: not recorded)'
  if (!scope.known) return ' (scope then: not known)'
  const num = (x: number | null): string => (x === null ? '?' : scope.detection_complete ? String(x) : `at least ${x}`)
  const plural = (x: number | null, word: string): string => `${num(x)} ${x === 1 ? word : `${word}s`}`
  const sessions = boundedCount(scope.sessions, scope.sessions_low)
  const figures = `${plural(scope.responses, 'response')}, ${sessions.low ? `at least ${sessions.n} ${sessions.n === 1 ? 'session' : 'sessions'}` : plural(sessions.n, 'session')}, ${plural(scope.controllers, 'customer')} concerned${scope.first_seen && scope.last_seen ? `, ${scope.first_seen} to ${scope.last_seen}` : ''}`
  return scopeAfterSent(n) ? ` (scope then: not recorded; recorded on ${n.recorded_at ?? 'a later date'} from a scan finished after it was sent: ${figures})` : ` (scope then: ${figures})`
}

/**
 * Whether a notification was late, with what its deadline counts from where that is not the
 * case's awareness: a processor's notification to the authority made for a controller counts
 * 72 hours from the controller's awareness (Art. 33(1)), never the Art. 33(2) rule.
 */
function controllerDeadline(n: {controller?: string | null; controller_aware_at?: string | null}): string {
  if (n.controller_aware_at === undefined) return ''
  if (n.controller_aware_at === null) {
    return (n.controller ?? null) === null
      ? 'not known: it names no controller, and Art. 33(1) counts its 72 hours from the awareness of the controller it was made for'
      : "not known: Art. 33(1) counts its 72 hours from the controller's awareness, and no notice from the processor to that controller (which made it aware) is recorded"
  }
  return `72 hours from the controller's awareness under Art. 33(1), taken as the processor's initial notice to it on ${n.controller_aware_at}`
}

/** A recorded notification as a document states it. */
export type NotificationStatedOf = RecipientOf & NotifiedOf & {phase: 'initial' | 'follow-up'; reference: string; late: boolean | null; delay_reason: string | null; controller?: string | null; controller_aware_at?: string | null}

function lateReason(reason: string | null): string {
  return reason ? `, after the deadline; reasons for the delay: ${reason}.` : ', after the deadline; no reasons for the delay are recorded.'
}

const duration = formatDuration

function range(r: {low: number; high: number | null} | null, approx = false): string {
  if (!r) return 'not yet known'
  if (r.high === null) return `at least ${r.low} (upper bound not yet known)`
  if (r.low === r.high) return `${r.low}`
  return `${r.low} to ${r.high}${approx ? ' (approximate)' : ''}`
}

/**
 * A replay target as a draft names it: host, port and path, then the scheme apart ("127.0.0.1:8000/
 * (http)"). A URL with its "://" comes out of the Markdown escaping with its slashes backslashed (the escape
 * that breaks autolinks), which a reader of the raw draft cannot use; this form has no autolink to break.
 */
export function replayTargetPlace(target: string): string {
  try {
    const url = new URL(target)
    return `${url.host}${url.pathname}${url.search} (${url.protocol.replace(/:$/, '')})`
  } catch {
    return target
  }
}

/** How the stand-ins were sized, from the scalings the results stored: "same-length" only for those sent as recorded. */
const STAND_IN_SIZES: Record<string, string> = {
  as_recorded: 'same-length stand-ins',
  scaled_to_pool: "stand-ins scaled to the test target's KV pool, keeping the recorded size's ratio to the source stack's pool",
  clamped_to_gap: "stand-ins clamped to a size between the test target's pool and its window, the recorded size being too large for its window",
  clamped_to_window: "stand-ins clamped to the test target's window, the recorded size being too large for it",
  unrecorded_window_max: "stand-ins of the largest size the test target's window takes, the log having recorded no size",
}

function standInSizes(sizes: ReplayTargetFacts['stand_in_sizes']): string {
  if (sizes === undefined || sizes.length === 0) return 'synthetic stand-ins; how their sizes were mapped is not recorded here'
  const label = (scaling: string): string => STAND_IN_SIZES[scaling] ?? `stand-ins sized as the run recorded it: ${scaling}`
  if (sizes.length === 1) return label(sizes[0]!.scaling)
  return sizes.map((s) => `${count(s.records, 'request')}: ${label(s.scaling)}`).join('; ')
}

function replayGroup(g: ReplayTargetFacts): string {
  const where =
    g.target_kind === 'simulator'
      ? `on crosstalk's built-in testbed (version ${g.target_version ?? 'unknown'}), a simulator built to reproduce this fault: it shows the mechanism, not that the production stack has it`
      : g.target_kind === 'external'
        ? `on the serving stack at ${replayTargetPlace(g.target)}, model ${g.model}${g.target_version ? `, version ${g.target_version}` : ''}`
        : `on ${replayTargetPlace(g.target)}, model ${g.model} (whether this was the built-in simulator was not recorded)`
  const purpose = g.purpose === 'negative-control' ? 'As a negative control, ' : g.purpose === 'confirmation' ? 'To confirm the fault, ' : ''
  const when = g.first_at === g.last_at ? `on ${g.first_at}` : `between ${g.first_at} and ${g.last_at}`
  const stats = g.trials > 0 ? `; ${g.reproduced} of ${count(g.trials, 'trial')} reproduced the leak, ${pct(g.rate!)} (95 % Wilson interval ${pct(g.wilson_low)}–${pct(g.wilson_high)})` : ''
  // Per record as sent: --original-prompt re-sends only what the log holds.
  const originals = g.original_prompt_records ?? (g.original_prompt ? g.records : 0)
  const standIns = standInSizes(g.stand_in_sizes)
  const prompts =
    originals === 0
      ? ` The original prompts were not re-sent (${standIns}).`
      : originals >= g.records
        ? ' The original prompts were re-sent (an explicit, audited opt-in).'
        : ` The original prompts of ${originals} of these ${count(g.records, 'request')} were re-sent (an explicit, audited opt-in); the others were not (${standIns}: the log held no prompt text).`
  const primerLeaks = g.primer_leaks === null ? '; whether the answers to the priming requests carried another synthetic tenant\'s marker was not recorded for these runs' : (g.primer_leaks ?? 0) > 0 ? `; ${count(g.primer_leaks!, 'answer')} to the replay's priming requests carried another synthetic tenant's marker: the target leaked during the replay` : ''
  const others = (g.other_markers ?? 0) > 0 ? `; ${count(g.other_markers!, 'answer')} (to triggers or to priming requests) carried a marker the replay gave no synthetic tenant, or one cut short so that whose it is cannot be told (not judged, and no sign that the target is clean)${(g.other_owner_sessions ?? 0) > 0 ? `, the case's canary registry assigns such markers to ${count(g.other_owner_sessions!, 'customer session')}` : ''}` : ''
  const inconclusive = (g.inconclusive ?? 0) > 0 ? `, ${g.inconclusive} could not be judged (no trigger judged)` : ''
  // Answers not judged are in none of the trials counted: said, or said to be not recorded (runs stored before they were).
  const unjudged = g.unjudged_trials === null ? '; whether any trial could not be judged (incomplete answer / no text) was not recorded for these runs' : (g.unjudged_trials ?? 0) > 0 ? `; ${count(g.unjudged_trials!, 'trial')} could not be judged (incomplete answer / no text) and ${g.unjudged_trials === 1 ? 'is' : 'are'} in none of these figures` : ''
  // Triggers that hung or errored tested nothing: said, as the console says them (a rate over 1 judged trial of 5 sent must not read as the whole).
  const failed = (g.hung_or_errored_trials ?? 0) > 0 ? `; ${count(g.hung_or_errored_trials!, 'trial')} hung or errored and could not be judged (${g.hung_or_errored_trials === 1 ? 'it is' : 'they are'} in none of these figures)` : ''
  return `${purpose}${count(g.records, 'distinct affected request')} ${g.records === 1 ? 'was' : 'were'} replayed ${where}, ${when} (run ${g.run_ids.join(', ')}): ${g.confirmed} confirmed (fault reproduced), ${g.not_reproduced} not reproduced, ${g.rejected} rejected by the target${inconclusive}${stats}${primerLeaks}${others}${unjudged}${failed}.${g.interrupted ? ' The run was interrupted; its results are partial.' : ''}${prompts}`
}

/** The other side of an exposure: this customer's own other sessions, then other customers' sessions ("yours", or "its own" in a draft about a controller). */
function sides(ownSessions: number, otherSessions: number, customers: number, own = 'of yours', customersAtLeast = false): string[] {
  const out: string[] = []
  const low = customersAtLeast ? 'at least ' : ''
  if (ownSessions > 0) out.push(`${count(ownSessions, 'other session')} ${own}`)
  if (otherSessions > 0 || ownSessions === 0) out.push(`${low}${count(otherSessions, 'session')} of ${low}${count(customers, 'other customer')}`)
  return out
}

/** One side's exposure, by kind of evidence: without a canary registry no marker could be attributed, so there is no marker count to give. */
function byEvidence(n: ExposureSide, marker: string): string {
  return n.canaries ? `${n.by_canary} with ${marker}, ${n.by_text_only} by verbatim text only` : 'all by verbatim text: no canary registry, markers not checked'
}

/** One side of a controller's exposure, as the processor notice and a draft for that controller state it. */
export interface ExposureSide {
  responses: number
  by_canary: number
  by_text_only: number
  /** this controller's sessions on this side */
  sessions: number
  /** the other side: this controller's own other sessions, other customers' sessions, and how many other customers */
  ownSessions: number
  otherSessions: number
  others: number
  first: string | null
  last: string | null
  /** whether the case holds a canary registry (else the marker counts are not known) */
  canaries: boolean
  /** of `responses` (received side), those whose only evidence is verbatim text whose source provenance does not name: from no known session */
  notNamed?: number
  /** of `responses` (leaked side), those whose source session, one of this customer's, is not named (a marker cut short of several of its sessions' markers): `sessions` is then a lower bound */
  sessionsNotNamed?: number
  /** of `responses` (received side), those with a canary marker cut short, a prefix of the markers of sessions of several other customers: no source customer named, so the other customers' sessions and customers are lower bounds */
  customerNotNamed?: number
  /** the exposure is not known (no registry, markers in answers: exposureKnown false): each count is what verbatim text shows, a lower bound */
  atLeast?: boolean
}

/**
 * What a processor notice still has to establish, and how it follows (Art. 33(4)). `records`: its
 * open items that are our own records (the contact point, ...): still open too, so "nothing is
 * still open" is said only where no open item at all is listed.
 */
function stillOpen(open: number, records = 0): string {
  const own = records > 0 ? `${count(records, 'point')} of our own records ${records === 1 ? 'is' : 'are'} still to be completed (listed under "To record before sending").` : ''
  if (open === 0) return records === 0 ? 'Nothing recorded for this notice is still open.' : own
  const phased = `${count(open, 'point')} ${open === 1 ? 'is' : 'are'} still being established (listed under "Still to be completed"); we will send ${open === 1 ? 'it' : 'each'} in a follow-up notice as soon as it is established.`
  return own ? `${phased} ${own}` : phased
}

/** ", from 3 sessions of 2 other customers": the named sources only; nothing where no response's source is named. */
function fromSides(n: ExposureSide, own: string): string {
  return n.responses - (n.notNamed ?? 0) > 0 ? `, from ${sides(n.ownSessions, n.otherSessions, n.others, own, !n.atLeast && (n.customerNotNamed ?? 0) > 0).map((x) => atLeast(n) + x).join(' and from ')}` : ''
}

/** The received responses whose source customer could not be named (a marker cut short of several other customers' markers), said why. */
function customerNotNamedSentence(n: ExposureSide): string {
  const k = n.customerNotNamed ?? 0
  if (k === 0) return ''
  return ` ${k === 1 ? "1 response's source customer could not be named: it held" : `${k} responses' source customers could not be named: each held`} a canary marker cut short, a prefix of the markers of sessions of several other customers.`
}

/** "at least " before a count where the exposure is not known (ExposureSide.atLeast). */
function atLeast(n: ExposureSide): string {
  return n.atLeast ? 'at least ' : ''
}

/** "at least " before the sessions of a leaked side where a response's source session is not named, or where the exposure is not known. */
function sessionsAtLeast(n: ExposureSide): string {
  return n.atLeast || (n.sessionsNotNamed ?? 0) > 0 ? 'at least ' : ''
}

/** The leaked side's responses whose source session could not be named, said why (a marker cut short), never left as "none". */
function sessionsNotNamedSentence(n: ExposureSide, whose: string): string {
  const k = n.sessionsNotNamed ?? 0
  if (k === 0) return ''
  return ` ${k === 1 ? "1 response's source session could not be named: it held" : `${k} responses' source sessions could not be named: each held`} a canary marker cut short, a prefix of the markers of several of ${whose} sessions.`
}

/** The received responses whose source is not established: possibly another customer's data, possibly the controller's own, attributed to no one. */
function notNamedSentence(n: ExposureSide, ownData: string): string {
  const k = n.notNamed ?? 0
  if (k === 0) return ''
  const one = k === 1
  const who = k === n.responses ? (one ? 'It' : 'All of them') : `${k} of them`
  return ` ${who} carried verbatim text whose source is not established (the same text in several customers' prompts, or only in answers whose prompts were not logged): ${one ? 'it' : 'they'} may hold another customer's data or ${ownData}, and no customer is named as ${one ? 'its' : 'their'} source.`
}

/** Log files ingested that no finished scan covered, and their responses. */
export interface NotScanned {
  records: number
  files: number
}

/** " 1563 responses in 8 log files ... were not examined ...", or nothing when every file was scanned. */
/** Up to three names, then how many more. */
export function namedFew(names: readonly string[]): string {
  return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`
}

function notScannedSentence(n: NotScanned): string {
  if (n.files === 0) return ''
  return ` ${count(n.records, 'response')} in ${count(n.files, 'further log file')} ingested but never scanned ${n.records === 1 ? 'was' : 'were'} not examined: nothing is known yet of what ${n.files === 1 ? 'that file holds' : 'those files hold'}.`
}

export const EN = {
  lang: 'en' as 'en' | 'fr',
  draft: 'DRAFT',
  final: 'FINAL',
  /** Said at the head of a document finalised with open items (--final --accept-open-items). */
  finalisedWithOpenItems: (n: number, by: string, at: string) =>
    `Finalised on ${at} by ${by} with ${count(n, 'point')} still open (each marked "not yet known" below): further information will follow as soon as it is established.`,
  toComplete: (item: string) => `to be completed: ${item}`,
  /** A final document's value not known yet (a draft's "to be completed", without what records it). */
  notYetKnown: (item: string) => `not yet known: ${item}`,
  /** A final document's open item: what is not known yet, and that it will follow (GDPR Art. 33(4): information in phases). */
  toFollow: (item: string) => `not yet known: ${item}; it will be provided as soon as it is established`,
  unknown: 'not yet known',
  none: 'none',
  /** 'none' said of a feminine noun in languages that agree (French: sessions, réponses, catégories, période) */
  noneFeminine: 'none',
  yes: 'yes',
  no: 'no',
  duration,
  range,
  // No canary registry and marker-shaped tokens in answers (exposureKnown false): whose data they carry is not known, so no exposure figure is a total.
  exposureUnknown: {
    notKnown: 'not known: marker-shaped tokens found in answers could not be attributed to any session (the case holds no canary registry)',
    atLeast: (n: number) => (n === 0 ? 'not known: marker-shaped tokens found in answers could not be attributed to any session (the case holds no canary registry)' : `at least ${n} (by verbatim text; what the unattributed markers carry is not known: no canary registry)`),
    time: (at: string) => `${at} by verbatim text; not known for the unattributed markers (no canary registry)`,
    flows: 'Flows by verbatim text only: whose data the marker-shaped tokens found in answers carry, and who received it, is not known (the case holds no canary registry; crosstalk ingest canaries FILE, then crosstalk scan).',
  },
  join: '; ',
  status: {open: 'open', due_soon: 'DUE SOON', overdue: 'OVERDUE', notified: 'notified'} as Record<'open' | 'due_soon' | 'overdue' | 'notified', string>,
  role: {controller: 'controller', processor: 'processor'} as Record<'controller' | 'processor', string>,
  phase: {initial: 'initial notification', 'follow-up': 'follow-up notification'} as Record<'initial' | 'follow-up', string>,
  breachType: {confidentiality: 'confidentiality', integrity: 'integrity', availability: 'availability'} as Record<'confidentiality' | 'integrity' | 'availability', string>,
  causeCategory: {
    'internal-non-malicious': 'internal, non-malicious',
    'internal-malicious': 'internal, malicious',
    'external-non-malicious': 'external, non-malicious',
    'external-malicious': 'external, malicious',
    unknown: 'unknown',
  } as Record<string, string>,
  sector: {private: 'private sector', public: 'public sector'} as Record<string, string>,
  size: {micro: 'micro enterprise', sme: 'small or medium-sized enterprise', large: 'large enterprise', other: 'other'} as Record<string, string>,
  outcome: {document: 'document only (no notification)', notify: 'notify the supervisory authority', 'notify-subjects': 'notify the supervisory authority and inform the data subjects'} as Record<string, string>,
  band: {low: 'low', medium: 'medium', high: 'high', 'very high': 'very high'} as Record<string, string>,
  recipient: (n: RecipientOf) => ({authority: 'the supervisory authority', 'data-subjects': 'the data subjects', controller: `the controller (customer) ${quoteIfReserved(n.recipient)}`})[recipientKind(n)],
  clockBasis: {
    'art33(1)': '72 hours from awareness (Art. 33(1))',
    'art33(2)-contract': "the contractual period to each controller (Art. 33(2), Art. 28(3)(f))",
    'art33(2)-without-undue-delay': 'without undue delay to each controller (Art. 33(2)); no contractual period recorded',
  } as Record<string, string>,

  // ---- shared statements of what the evidence shows (scan.exposure)
  // `canaries` false: the case holds no canary registry, so whether a response held a marker is not known (never "without").
  // `atLeast`: no registry and marker-shaped tokens in answers (exposureKnown false): every count is what verbatim text shows, a lower bound, never the whole.
  exposure: (e: Exposure, first: string | null, last: string | null, canaries = true, atLeast = false) => {
    const n = (x: number, word: string): string => (atLeast ? 'at least ' : '') + count(x, word)
    const lead = `${atLeast ? `At least ${count(e.responses, 'response')}` : count(e.responses, 'response')} carried data belonging to another session${
      !canaries
        ? `, ${e.responses === 1 ? 'reproducing' : 'each reproducing'} its text verbatim (whether ${e.responses === 1 ? 'it' : 'any'} also held a canary marker is not known: the case holds no canary registry).`
        : e.by_canary === 0 ? `, ${e.responses === 1 ? 'reproducing' : 'each reproducing'} its text verbatim without a canary marker.` : `: ${e.by_canary} of them held that session's canary marker and ${e.by_text_only} reproduced its text verbatim without a marker.`
    }`
    const k = e.source_not_named ?? 0
    // Evidence naming no source session is someone's session all the same: the lower bounds, said as such, never "0 sessions".
    const low = (e.session_not_named ?? 0) > 0
    const sessionsText = low ? `at least ${count(e.sessions_low ?? e.sessions, 'session')}` : n(e.sessions, 'session')
    const tenantsText = low && (e.source_tenants_low ?? e.source_tenants) > e.source_tenants ? `at least ${count(e.source_tenants_low!, 'customer')}` : n(e.source_tenants, 'customer')
    const markers = e.marker_session_not_named ?? 0
    const cutShort = markers > 0
      ? ` ${markers === 1 ? "1 response's source session could not be named: it held" : `${markers} responses' source sessions could not be named: each held`} a canary marker cut short, a prefix of the markers of several sessions (the case lists the possible sources).`
      : ''
    if (k === 0) return `${lead} The data of ${sessionsText} of ${tenantsText} reached ${n(e.recipient_tenants, 'receiving customer')}${first ? ` between ${first} and ${last} (UTC)` : ''}${atLeast ? ' by verbatim text; what the marker-shaped tokens found in answers carry, and when, is not known' : ''}.${cutShort}`
    // Responses whose source provenance does not name are in no flow: the named sources reached
    // the customers of the flows only, and the others are said apart, naming no one.
    const namedRecipients = new Set(e.flows.map((f) => f.recipient_tenant)).size
    // The sentence counts every receiving customer, as the table does: one whose responses all name no source is in no flow, and is counted apart.
    const unnamedOnly = Math.max(0, e.recipient_tenants - namedRecipients)
    const they = e.responses === 1 ? 'It' : 'They'
    const named = e.sessions > 0
      ? unnamedOnly > 0
        ? ` ${they} reached ${n(e.recipient_tenants, 'receiving customer')}: the data of ${n(e.sessions, 'session')} of ${n(e.source_tenants, 'customer')} reached ${namedRecipients} of them, and ${unnamedOnly === 1 ? '1 other received' : `${unnamedOnly} others received`} only responses whose source is not named.`
        : ` The data of ${n(e.sessions, 'session')} of ${n(e.source_tenants, 'customer')} reached ${n(namedRecipients, 'receiving customer')}.`
      : e.recipient_tenants > 0 ? ` ${they} reached ${n(e.recipient_tenants, 'receiving customer')}.` : ''
    // A marker cut short of the markers of several customers' sessions names no customer either; it is no verbatim text.
    const byMarker = Math.min(e.marker_source_not_named ?? 0, k)
    const byText = k - byMarker
    const who = (j: number): string => (j === e.responses ? (j === 1 ? 'It' : 'All of them') : `${j} of them`)
    const text = byText > 0 ? ` ${who(byText)} carried verbatim text whose source is not established (the same text in several customers' prompts, or only in answers whose prompts were not logged): no customer is named as ${byText === 1 ? 'its' : 'their'} source.` : ''
    const marker = byMarker > 0 ? ` ${who(byMarker)} held a canary marker cut short, a prefix of the markers of several customers' sessions (the case lists the possible sources): no customer is named as ${byMarker === 1 ? 'its' : 'their'} source.` : ''
    const atLeastSources = low && e.sessions === 0 ? ` The data of ${sessionsText} of ${tenantsText} reached them.` : ''
    // A count of all the receiving customers goes after the sentences on the responses ("N of them" is of the responses).
    const [before, after] = e.sessions > 0 && unnamedOnly === 0 ? [named, ''] : ['', named]
    return `${lead}${before}${text}${marker}${after}${atLeastSources}${
      first ? ` ${e.responses === 1 ? 'It was' : 'They were'} served between ${first} and ${last} (UTC).` : ''
    }`
  },
  // A draft a processor prepares for one controller: that controller's two sides, counted apart
  // (its users' data that reached others; what its users were served), never the whole case's.
  controllerExposure: {
    leaked: (n: ExposureSide) =>
      `${n.atLeast ? 'At least ' : ''}${count(n.responses, 'response')} to other sessions carried data of ${sessionsAtLeast(n)}${count(n.sessions, 'session')} of this controller's end users (${byEvidence(n, 'its canary marker')}), received in ${sides(n.ownSessions, n.otherSessions, n.others, 'of its own').map((x) => atLeast(n) + x).join(' and in ')}${n.first ? ` between ${n.first} and ${n.last} (UTC)` : ''}.${sessionsNotNamedSentence(n, "this controller's")}`,
    received: (n: ExposureSide) =>
      `${n.atLeast ? 'At least ' : ''}${count(n.responses, 'response')} served to this controller's end users carried another session's data (${byEvidence(n, 'a canary marker')}), in ${atLeast(n)}${count(n.sessions, 'session')} of theirs${fromSides(n, 'of its own')}${n.first ? ` between ${n.first} and ${n.last} (UTC)` : ''}.${customerNotNamedSentence(n)}${notNamedSentence(n, "this controller's own")}`,
    nothingLeaked: "No response to another session was found carrying this controller's data.",
    nothingReceived: "No response served to this controller's end users was found carrying another session's data.",
  },
  exposureCrossTenant: (n: number) => `${n} of these responses ${n === 1 ? 'was' : 'were'} served to a different customer organisation.`,
  noExposure: 'Detection over the logs found no response carrying another session\'s data.',
  // With no registry only verbatim text could be matched: what was found is said of that alone.
  noVerbatimExposure: 'Detection over the logs found no response repeating another session\'s text verbatim.',
  // Where a personal-data finding is attributed to another session: what markers and text found, never "no response carrying another session's data".
  noMarkerOrTextExposure: 'Detection over the logs found no response carrying another session\'s canary marker or verbatim text.',
  noScan: 'Detection over the logs has not run yet; the scope is not known.',
  noneFound: 'none: detection over every log found no response carrying another session\'s data',
  // Said where something was not examined (a source dismissed unread): "none" of what was, never "every log".
  noneFoundInSearched: 'none found in what was searched: detection found no response carrying another session\'s data there.',
  // A log source settled with `ingest dismiss`: settled, still never searched; its recorded reason is said with it.
  dismissedSources: (sources: ReadonlyArray<{name: string; reason: string}>) =>
    `${count(sources.length, 'log source')} (${sources.slice(0, 3).map((s) => `${s.name}: dismissed unread, “${s.reason}”`).join('; ')}${sources.length > 3 ? `; and ${sources.length - 3} more` : ''}) ${sources.length === 1 ? 'was' : 'were'} not searched: whether ${sources.length === 1 ? 'it held' : 'they held'} another session's data is not known.`,
  integrity: "Receiving users were served responses containing another session's data, so the integrity of their responses was affected too.",
  observedCategory: "Personal data displayed to wrong recipient (responses carrying another session's data)",
  causeRecorded: (text: string) => `Description and root cause, as established: ${text}`,
  unintelligibleRecorded: (answer: string) => `Whether the exposed data was unintelligible to whoever received it, as recorded: ${answer}.`,
  unintelligible: {
    'protection-intact': 'yes, its protection (encryption or pseudonymisation) is intact',
    'protection-likely-subvertible': 'its protection is likely to be subverted',
    no: 'no, it was intelligible',
    'cannot-assess': 'this cannot be assessed',
  } as Record<'protection-intact' | 'protection-likely-subvertible' | 'no' | 'cannot-assess', string>,
  crossBorderRecorded: (yes: boolean): string => `Cross-border processing (Art. 4(23)), as recorded: ${yes ? 'yes' : 'no'}.`,
  causeCategoryRecorded: (label: string) => `Cause: ${label}.`,
  // records and logFiles are what a scan covered; the files ingested and never scanned are said apart (notScannedSentence).
  // versions: the evidence manifest's log rows (a log ingested again once it grew is one file, held in two versions).
  // `affected`: the search found a response carrying another session's data; with none, no sentence speaks of "each affected response".
  // sourcesNotNamed: responses whose source session could not be named (scan.exposure session_not_named): they are identified, their source is not.
  investigation: (records: number, logFiles: number, registryFiles: number, notScanned: NotScanned = {records: 0, files: 0}, versions = logFiles, affected = true, sourcesNotNamed = 0) =>
    `Logs of ${count(records, 'response')} from ${count(logFiles, 'log file')}${versions > logFiles ? ` (${count(versions, 'version')})` : ''} were searched ${registryFiles === 0 ? 'for verbatim text of other sessions (no canary registry: see below)' : `for canary markers (${count(registryFiles, 'canary registry file')}) and for verbatim text of other sessions`}; ${!affected ? 'the logs searched are listed in the evidence annex (SHA-256)' : sourcesNotNamed > 0 ? `each affected response is identified in the case (evidence annex, SHA-256), and so is each session and customer whose data it carried, except the source session of ${count(sourcesNotNamed, 'response')}, which could not be named (the case lists ${sourcesNotNamed === 1 ? 'its' : 'their'} possible sources)` : 'each affected response, session and customer is identified in the case (evidence annex, SHA-256)'}.${notScannedSentence(notScanned)}`,
  // A log source an ingest reached and could not read (a .zst, a broken link, a file refused) was never searched.
  unreadSources: (names: readonly string[]) =>
    `${count(names.length, 'further log source')} (${namedFew(names)}) could not be read and ${names.length === 1 ? 'was' : 'were'} not examined: whether ${names.length === 1 ? 'it holds' : 'they hold'} another session's data is not known.`,
  // Where no affected response is counted and not everything was examined: never "none" (the open items say what).
  notAllExamined: 'not known: not everything was examined (see the open items)',
  ofWhatWasExamined: (figure: string) => `${figure}, in what was examined (not everything was: see the open items)`,
  // A retry's leak is known and counted nowhere: never "none".
  retriesNotCounted: (n: number) => `not counted: ${count(n, 'retry', 'retries')} logged under a request id already counted carried another session's marker (see the open items)`,
  // Everything searched found nothing; a source dismissed unread was not searched (recorded decision).
  noneInSearched: (n: number) => `none found in what was searched (${count(n, 'log source')} dismissed unread ${n === 1 ? 'was' : 'were'} not searched)`,
  notCountingRetries: (figure: string, n: number) => `${figure} (not counting ${count(n, 'retry', 'retries')} logged under a request id already counted that carried another session's marker: see the open items)`,
  // A retry logged under a request id already counted: its line is no record, so its marker is in no figure.
  // A retry's line that differs from its record and could not be read again: the gate could not judge it.
  duplicatesNotExamined: (n: number) =>
    `${count(n, 'further response')} logged under the request id of a response already counted (a retry) ${n === 1 ? 'differs' : 'differ'} from it and could not be read again: whether ${n === 1 ? 'it carries' : 'they carry'} another session's data, and whose, is not known.`,
  duplicateLeaks: (lines: readonly string[]) =>
    `${count(lines.length, 'further response')} (${namedFew(lines)}), logged under the request id of a response already counted (a retry), carried another session's canary marker and ${lines.length === 1 ? 'is' : 'are'} not counted in these figures.`,
  // A log appended to after ingest: the bytes added were never read, so never judged.
  grownOriginals: (names: readonly string[]) =>
    `${count(names.length, 'log file')} (${namedFew(names)}) grew after ${names.length === 1 ? 'it was' : 'they were'} ingested and the bytes added were never examined: whether they hold another session's data is not known.`,
  notReadWhole: (names: readonly string[]) =>
    `${count(names.length, 'log file')} (${namedFew(names)}) ${names.length === 1 ? 'was' : 'were'} not read whole (part of ${names.length === 1 ? 'it' : 'them'} could not be read as a model call's texts) and that part was not examined: whether it holds another session's data is not known.`,
  // Lines that could not be read were never examined: every figure is of the lines that could be.
  /** a log file dropped from the case after a notification was recorded: the evidence that notification may have listed, and why it left */
  evidenceDropped: (d: {at: string; kind?: 'canaries'; name: string; sha256: string; records: number; reason: string}, notifiedAt: string, reference: string) =>
    d.kind === 'canaries'
      ? `Evidence withdrawn since the notification of ${notifiedAt} (reference ${reference}): the canary registry ${d.name} (sha256 ${d.sha256}, ${d.records === 1 ? '1 entry' : `${d.records} entries`}), which told whose markers were whose, was withdrawn from the case on ${d.at}; reason recorded: ${d.reason || 'none given'}. Every response is classified without it, so who received whose data may differ from what was notified then.`
      : `Evidence withdrawn since the notification of ${notifiedAt} (reference ${reference}): the log file ${d.name} (sha256 ${d.sha256}, ${d.records === 1 ? '1 record' : `${d.records} records`}) was dropped from the case on ${d.at}; reason recorded: ${d.reason || 'none given'}. Every figure in this draft is counted without it, so a figure notified then may differ for that reason.`,
  unreadLines: (n: number) =>
    `${count(n, 'log line')} could not be read (malformed, cut short, or over the size limit) and ${n === 1 ? 'was' : 'were'} not examined: the figures cover the lines that could be read; ${n === 1 ? 'it is' : 'they are'} kept as evidence for review.`,
  // Quarantined lines beside a "none found": never judged, so none is said only of the lines that could be read.
  badLines: (n: number) =>
    `${count(n, 'quarantined log line')} could not be read and ${n === 1 ? 'was' : 'were'} never judged (crosstalk status --bad-lines): whether ${n === 1 ? 'it carries' : 'they carry'} another session's data is not known.`,
  // Answers that decoded to no text were never examined: no marker and no copied text can be found in them.
  noResponseText: (n: number) =>
    `${count(n, 'response')} had no response text in the logs (the field read held none, or the answer was not logged) and ${n === 1 ? 'was' : 'were'} not examined for either canary markers or verbatim text: every figure covers only the responses that had text.`,
  // A personal-data finding attributed to another session (matched by value), with no marker or verbatim text: another session's data, in no exposure figure.
  piiAttributedOnly: (n: number) =>
    `${count(n, 'response')} carried personal data (an e-mail address, a phone number or the like) that another session had sent earlier and the recipient's session never sent, matched by value with no canary marker or verbatim text of that session (crosstalk pii): ${n === 1 ? 'it' : 'they'} may have disclosed another session's data, and the figures that count markers and verbatim text are a lower bound.`,
  // Records whose prompt was not logged: no leaked prompt could be looked for in other answers.
  noRequestText: (n: number, records: number) =>
    n >= records
      ? `No prompt was logged (none of the ${count(records, 'record')} has request text): the verbatim-text search had no prompt to compare the answers with, so whether an answer carried another session's prompt could not be looked for.`
      : `${count(n, 'record')} of ${records} had no request text in the logs (the prompt was not logged): whether another session's answer carried ${n === 1 ? 'that prompt' : 'those prompts'} could not be looked for.`,
  // Text the verbatim-text search could not compare: words are split on spaces, and these scripts have none.
  notComparable: (n: number) =>
    `${count(n, 'response')} ${n === 1 ? 'holds' : 'hold'} text in a script written without spaces between words (Chinese, Japanese, Thai and the like), which the verbatim-text search (runs of words split on spaces) cannot compare: whether ${n === 1 ? 'it carried' : 'they carried'} another session's text was not examined.`,
  // No leak found, where some answers could not be examined: said of the responses that were.
  noExposureOfExamined: (examined: number, unexamined: number) =>
    `Detection over the ${count(examined, 'response')} that had text found none carrying another session's data; ${count(unexamined, 'response')} had no text and ${unexamined === 1 ? 'was' : 'were'} not examined, so whether ${unexamined === 1 ? 'it' : 'they'} carried another session's data is not known.`,
  // Provenance sets aside text many customers' sessions hold; a leak that reached that many is among it.
  boilerplateSetAside: (n: number, tenants: number) =>
    `${count(n, 'response')} ${n === 1 ? 'repeats' : 'repeat'} text found in the sessions of ${tenants} or more customers, set aside as boilerplate and not counted above: ${n === 1 ? 'it is' : 'they are'} not known to be free of another session's data.`,
  // The logs gave no response record at all (e.g. spans of a convention not read): nothing was looked at.
  noResponsesInLogs: 'No response could be examined: the logs ingested gave no response record, so whether any carried another session\'s data is not known.',
  // No answer had text: detection could not look at anything.
  nothingExamined: (n: number) =>
    `No response could be examined: none of the ${count(n, 'response')} in the logs had response text, so whether any carried another session's data is not known.`,
  // The at-risk figure counts records that say both status and prompt size; records whose missing field leaves it open are said beside it.
  atRiskWithUndecided: (atRisk: number, undecided: number) =>
    `${atRisk} (and ${count(undecided, 'record')} whose HTTP status or prompt size the logs do not give, so whether ${undecided === 1 ? 'it was' : 'they were'} at risk is not known)`,
  // Where no record gives both fields nothing can be judged at risk: not known, with how many records it leaves open.
  atRiskNotKnown: (undecided: number) =>
    `not known: the logs do not give the HTTP status or the prompt size of ${count(undecided, 'record')}, so whether ${undecided === 1 ? 'it was' : 'they were'} at risk is not known`,
  // The echo check reads the prompt: where the logs hold none, a marker the user sent is not ruled out.
  noPromptLogged: (n: number) =>
    `For ${count(n, 'response')} carrying another session's canary marker the logs hold no prompt text, so it could not be checked whether the user had sent that marker (an echo); ${n === 1 ? 'it is' : 'they are'} counted as received from the other session.`,
  // The echo check read a prompt in part (a request member this release does not read): a marker the user sent there is not ruled out.
  promptReadInPart: (n: number, members: readonly string[]) =>
    `For ${count(n, 'response')} carrying another session's canary marker the request ${n === 1 ? 'body holds' : 'bodies hold'} what this release does not read (${listed(members)}), so the prompt was read only in part and it could not be checked whether the user had sent that marker there (an echo); ${n === 1 ? 'it is' : 'they are'} counted as received from the other session.`,
  // Without a registry a marker in an answer is nobody's: whether it is another session's is not known, never "none found".
  orphansWithoutRegistry: (n: number) =>
    `${count(n, 'marker-shaped token')} found in answers could not be attributed to any session (the case holds no canary registry), so whether ${n === 1 ? 'it carries' : 'they carry'} another session's data is not known.`,
  excerptsMarkersOnly: (textOnly: number | null) =>
    `Excerpts are shown around canary-marker findings only; ${textOnly === null ? 'how many responses were found by verbatim text alone, and so have no excerpt, is not known (detection does not cover the case)' : textOnly === 0 ? 'no response was found by verbatim text alone' : `${count(textOnly, 'response')} found by verbatim text alone ${textOnly === 1 ? 'has' : 'have'} none (crosstalk provenance --show-text gives ${textOnly === 1 ? 'its' : 'their'} text)`}. Personal-data values the detector finds (e-mail addresses, phone numbers, IBANs, card numbers, IP addresses) are replaced by their kind, e.g. [email]: the categories above count them by hash.`,
  // An original kept by reference that verify would not find as ingested: said as it is, never "kept".
  originalsNotIntact: (files: ReadonlyArray<{name: string; state: 'missing' | 'changed'}>) =>
    `${count(files.length, 'log file')} kept by reference ${files.length === 1 ? 'is' : 'are'} no longer as ingested (${files.slice(0, 5).map((f) => `${f.name}: ${f.state === 'missing' ? 'missing' : 'changed'}`).join('; ')}${files.length > 5 ? `; and ${files.length - 5} more` : ''}): the case holds no copy, so what ${files.length === 1 ? 'it held' : 'they held'} cannot be shown again from ${files.length === 1 ? 'it' : 'them'} until the original is put back.`,
  // Canary-less provenance still runs without a registry; what it cannot see is said once, with the numbers.
  noRegistry:
    "The case holds no canary registry: no canary marker could be attributed to a session, so responses were matched only by verbatim text of other sessions' earlier prompts and answers; a response that carried another session's data without repeating it verbatim would not be found.",
  // The exposure table of a draft for one controller mixes its share with the whole case's totals: said under the table.
  controllerShareMethod:
    "; in this draft for one controller, the responses counted are those to or from its end users, and the sessions and customers counted are those responses' sources and recipients, other customers' among them; responses examined, log files and orphans are the whole case's",
  replayGroup,
  measureRecorded: (text: string) => text,
  controllersNotified: (done: number, total: number) => `Affected customers (controllers) notified under Art. 33(2): ${done} of ${total}.`,
  /** A draft for one controller: that controller's own notice from the processor (never a count over other customers). */
  controllerNotified: (tenant: string, at: string, reference: string) => `The processor notified this controller (${quoteIfReserved(tenant)}) under Art. 33(2) on ${at} (reference ${reference}).`,
  notificationStated: (n: NotificationStatedOf, incidentDelayReason: string | null, oneController = false) =>
    `${n.phase === 'initial' ? 'Initial notification' : 'Follow-up notification'} to ${EN.recipient(n)} on ${n.at} (reference ${n.reference})` +
    (n.late === true ? lateReason(n.delay_reason ?? incidentDelayReason) : n.late === null ? `; whether it was late is ${controllerDeadline(n) || EN.lateNotKnown}.` : '.') +
    (n.late !== null && n.phase === 'initial' && n.controller_aware_at ? ` Its deadline: ${controllerDeadline(n)}.` : '') +
    notifiedScope(n, oneController),
  /** A notification's lateness where it has no fixed deadline (clock says the same). */
  lateNotKnown: 'not known: no fixed deadline (without undue delay is judged, not counted)',
  /** What a recorded notification was based on (stored when it was recorded), as a sentence; '' for one built by hand. */
  notifiedScope,
  notifiedScan,
  decisionStated: (a: AssessmentRecord) =>
    `Decision recorded on ${a.at}${a.decided_by ? ` by ${a.decided_by}` : ''}: ${EN.outcome[a.decision] ?? a.decision}. Rationale: ${a.rationale}`,
  enisaMethod: (a: Pick<AssessmentRecord, 'dpc' | 'ei' | 'cb' | 'se' | 'band' | 'suggested'>) =>
    `ENISA 2013 severity SE = DPC x EI + CB = ${a.dpc} x ${a.ei} + ${a.cb} = ${a.se} (${EN.band[a.band] ?? a.band}); suggestion: ${EN.outcome[a.suggested] ?? a.suggested}. Advisory only, weighed against the EDPB 9/2022 risk factors.`,
  article34: {
    informed: (at: string, ref: string) => `The data subjects were informed on ${at} (reference ${ref}).`,
    /** informed, and the case has grown since: the communication covered those known then, never stated as covering those found since */
    informedBefore: (at: string, ref: string, scans: number, scannedAt: string) =>
      `The data subjects known on ${at} were informed then (reference ${ref}). Since that communication was recorded, ${scans === 1 ? 'a scan' : `${scans} scans`} (the last on ${scannedAt}) added records to the case or rescanned them: data subjects found since may not have been informed.`,
    toInform: (a: AssessmentRecord) => `The data subjects are to be informed: the recorded decision (${a.at}) found a likely high risk (Art. 34(1)).`,
    notInformed: (a: AssessmentRecord) =>
      `The data subjects are not to be informed under the recorded decision (${a.at}: ${EN.outcome[a.decision] ?? a.decision})` +
      (a.suggested === 'notify-subjects' ? `, although the ENISA method suggested informing them (SE ${a.se}, ${EN.band[a.band] ?? a.band}); the rationale recorded for departing from it: ${a.rationale}` : `; rationale: ${a.rationale}`) +
      '.',
  },
  consequences: {
    confidentiality: 'Loss of confidentiality: personal data in the prompts and completions of the affected users was shown to other users, including users of other organisations.',
    confidentialitySameCustomer: 'Loss of confidentiality: personal data in the prompts and completions of the affected users was shown to other users of the same organisation.',
    /** `why`: what names no source: verbatim text found in several customers' prompts (or unlogged ones), a canary marker cut short of several customers' markers, or both. */
    confidentialitySourceUnknown: (why: 'text' | 'marker' | 'both') =>
      `Loss of confidentiality: personal data in the prompts and completions of the affected users was shown to other users; whether to users of other organisations is not established (${why === 'text' ? 'the source of the text some responses repeated is not known' : why === 'marker' ? "a canary marker cut short is a prefix of the markers of several customers' sessions, so whose it is is not known" : "the source of the text some responses repeated is not known, and a canary marker cut short is a prefix of the markers of several customers' sessions"}).`,
    // Phishing with disclosed contact details is said only where the personal-data search found some in a leaked response.
    control: 'Loss of control over personal data; depending on content, risk of identity theft or fraud, phishing using the contact details disclosed (the personal-data search found e-mail addresses or phone numbers in the leaked responses), and reputational damage or distress.',
    controlNoContact: 'Loss of control over personal data; depending on content, risk of identity theft or fraud, and reputational damage or distress. The personal-data search found no contact details (e-mail addresses, phone numbers) in the leaked responses: phishing using disclosed contact details is not established.',
    integrity: "Integrity: receiving users got responses built from someone else's data and may have acted on wrong information.",
    financial: 'Financial data (IBAN / payment card numbers) was disclosed: risk of fraud and financial loss.',
    /** the data is recorded as unintelligible to its recipients (protection intact) and the scan found none in clear text: Art. 34(3)(a) */
    protectedIntact: (measures: string | null) =>
      `Confidentiality: responses carrying another session's data were shown to other users, but that data was, as recorded, in a form protected by ${measures ? `the measures in place (${measures.trim().replace(/[.;]+$/, '')})` : 'encryption or pseudonymisation'} whose protection is intact, so it is unintelligible to them: the risk to the individuals is reduced accordingly (Art. 34(3)(a)).`,
  },
  subjectCategories: {
    endUsers: "End users of the affected customers' applications (one conversation session each)",
    endUsersOfController: "End users of this controller's application whose data reached another session, or who were served another session's data (one conversation session each)",
    named: 'People named in the text of the leaked prompts and completions (not counted)',
  },
  notApplicableInTime: (deadline: string) => `not applicable: within the 72 hours (deadline ${deadline})`,
  /** no notification recorded yet, the deadline not passed: whether reasons are needed depends on when it is sent */
  notApplicableIfSentBy: (deadline: string) => `not applicable if this notification is made by ${deadline} (the 72 hours); made later, it must give the reasons for the delay (Art. 33(1))`,
  /** how a controller's own fact in a draft its processor prepares for it is completed (an open item's record_with) */
  onBehalfToComplete: (tenant: string, processorRecorded: boolean) =>
    `for the controller (customer ${tenant}) to complete${processorRecorded ? ": the one recorded in this case is the processor's own, not the controller's" : ''}`,
  /** the risk assessment in a draft a processor prepares for a controller: the case's is the processor's */
  onBehalfRisk: (tenant: string, processorRecorded: boolean) =>
    `for the controller (customer ${tenant}) to assess and decide${processorRecorded ? ": the assessment recorded in this case (crosstalk assess) is the processor's own, over all its customers" : ''}`,
  /** who informed the controller (template 52), in a draft its processor prepares for it */
  theProcessor: (processor: string | null) => (processor ? `${processor} (the processor)` : 'the processor'),
  preparedOnBehalf: (processor: string | null, tenant: string) =>
    `Prepared by the processor${processor ? ` (${processor})` : ''} on behalf of the controller (customer ${tenant}), as a draft for the controller to review: the notification to the authority remains the controller's duty (Art. 33(1); EDPB 9/2022).`,
  statusLine: (word: string, c: {deadline: string | null; status: string; late: boolean | null; remaining_seconds: number | null} | null, onBehalfOf: string | null = null) =>
    c === null
      ? onBehalfOf !== null
        ? `${word}. The controller's deadline is not known yet: its 72 hours run from when our notice reached it, which is not recorded.`
        : `${word}. No incident opened: deadline unknown.`
      : c.deadline === null
        ? `${word}. No fixed deadline: without undue delay (Art. 33(2)).`
        : `${word}. Deadline ${c.deadline} (${EN.status[c.status as keyof typeof EN.status] ?? c.status}${c.status === 'notified' ? (c.late ? ', LATE: after the deadline' : ', in time') : `, ${duration(c.remaining_seconds ?? 0)}`}).`,
  /** The margin between a notification and its deadline (seconds; negative: after it). */
  notifiedMargin: (seconds: number) => (seconds >= 0 ? `${duration(seconds)} before the deadline` : `${duration(-seconds)} after the deadline`),
  evidenceKind: {log: 'log', canaries: 'canary registry'} as Record<string, string>,
  /** An evidence manifest row's file: which version of a log it is, and which of the files of that name (each row says what it is). */
  evidenceName: (e: {name: string; version?: {number: number; of: number}; same_name?: {number: number; of: number}}): string => {
    const parts = [
      ...(e.same_name ? [`file ${e.same_name.number} of ${e.same_name.of} so named`] : []),
      ...(e.version ? [`version ${e.version.number} of ${e.version.of}: ${e.version.number === 1 ? 'as first ingested' : `grown from version ${e.version.number - 1}, whose bytes it begins with`}`] : []),
      ...(e.version && e.version.number < e.version.of ? ['continued by a later version'] : []),
    ]
    return parts.length > 0 ? `${e.name} (${parts.join('; ')})` : e.name
  },
  /** Its records: a version of a grown log stores the records it added; its bytes hold those of the versions before too. */
  evidenceRecords: (e: {records: number; version?: {number: number; records_held: number}}): string =>
    e.version && e.version.number > 1 ? `${e.records} added (${e.version.records_held} held)` : String(e.records),
  unknownNode: '(unknown node)',
  lateFlag: 'LATE',
  /** A notification's lateness in a table cell: not known where it has no fixed deadline. */
  lateCell: (late: boolean | null, n: {controller?: string | null; controller_aware_at?: string | null} = {}): string =>
    n.controller_aware_at === undefined
      ? late === true ? 'LATE' : late === false ? 'no' : 'not known (no fixed deadline: without undue delay)'
      : `${late === true ? 'LATE' : late === false ? 'no' : 'not known'} (${late === null ? controllerDeadline(n).replace(/^not known: /, '') : controllerDeadline(n)})`,
  /** Beside a deadline that has passed while the lateness is not known (a processor's controllers not known yet). */
  lateUnknown: 'late: not known',
  inTime: 'in time',

  // ---- Article 34 (to data subjects, plain language)
  a34: {
    title: 'Important information about your personal data',
    /** A final letter's open item, in plain words (Art. 34(2)): what we do not know yet, and that we will say it. */
    notYetKnown: (item: string) => `Not yet known: ${item}. We will tell you as soon as we know.`,
    nothingFound: "We searched the logs of the AI service and found no answer that showed text from another person's conversation.",
    /** Where the search found nothing: what was involved and what it could mean, said of what was found (never an empty heading). */
    nothingInvolved: "None that we found: no answer we examined showed your conversation to anyone else.",
    nothingConsequence: 'We found no sign that your information reached anyone else. If we learn more, we will tell you.',
    /** Where what was involved is not established yet (detection incomplete, or what it could not examine): open, never an empty heading. */
    whatDataOpen: 'what information was involved: not established yet (see "What happened")',
    consequencesOpen: 'what this could mean for the people written to: it follows from what information was involved, not established yet',
    /** The contact line: a DPO only where a DPO name is recorded; contact details alone are a contact point. */
    dpoLine: (name: string, contact: string | null) => `Our data protection officer: ${contact ? `${name}, ${contact}` : name}.`,
    contactPointLine: (contact: string) => `You can contact us at: ${contact}.`,
    // The count is the data subjects' low bound (as Article 33 states it): a source not named counts as one conversation, never as none.
    whatHappened: (_e: Exposure, low: number) =>
      `Some answers that an AI service gave to other users contained text from conversations of other people. Part of your conversation (what you wrote, or the answers you received) may have been shown to someone else (at least ${low === 1 ? '1 conversation was' : `${low} conversations were`} affected: those the logs show; there may be more).`,
    /**
     * A letter for one controller: its data subjects counted as its Article 33 draft counts them
     * (its end users on either side, one conversation one person), with the two sides apart.
     */
    whatHappenedController: (c: {reached_others: number; served_others: number; total: number}) =>
      `Some answers that an AI service gave to its users contained text from conversations of other people. Part of your conversation (what you wrote, or the answers you received) may have been shown to someone else, or you may have been shown part of someone else's. At least ${c.total === 1 ? '1 conversation of this service\'s users was' : `${c.total} conversations of this service's users were`} affected (one conversation counts as one person; those the logs show, there may be more): ${c.reached_others} whose content reached someone else, ${c.served_others} that ${c.served_others === 1 ? 'was' : 'were'} shown someone else's content${c.reached_others + c.served_others > c.total ? ' (a conversation on both sides is counted once)' : ''}.`,
    // A category "unknown" with a recorded cause: the cause is known, whether it was deliberate is not (never "not yet known" before the cause itself).
    cause: (category: string, text: string | null) =>
      category.includes('non-malicious') || category.includes('malicious') || !text
        ? `${category.includes('non-malicious') ? 'This was a fault, not an attack.' : category.includes('malicious') ? 'Someone caused this deliberately.' : 'The cause is not yet known.'}${text ? ` ${asSentence(text)}` : ''}`
        : `${asSentence(text)} Whether it was a fault or an attack is not yet established.`,
    // The log window is what the logs show, not the breach period: said as such (the recorded period, when there is one, is said instead).
    when: (first: string, last: string) => `The affected answers we found in our logs were given between ${minuteDown(first)} and ${minuteUp(last)} (UTC).`,
    whenRecorded: (start: string, end: string | null) =>
      end
        ? `This happened between ${minuteDown(start)} and ${minuteUp(end)} (UTC), as established by our investigation.`
        : `This started on ${minuteDown(start)} (UTC), as established by our investigation; when it ended is not yet confirmed.`,
    conversation: 'parts of your conversation with the assistant: what you wrote, or the answers it gave you',
    // The kinds are found across all the affected conversations: a letter to each of those people must not say each held every one.
    kindsNote: 'Not every conversation held each of these: the personal details listed after the first point were found in some of the affected conversations only.',
    plain: {email: 'e-mail addresses', phone: 'phone numbers', iban: 'bank account numbers (IBAN)', card: 'payment card numbers', ipv4: 'IP addresses', ipv6: 'IP addresses'} as Record<string, string>,
    seen: 'Someone you do not know may have seen part of your conversation.',
    /** protection recorded as intact, none of the data found in clear text (Art. 34(3)(a)) */
    seenProtected: 'Part of your conversation was shown to someone else, but in a protected (encrypted or pseudonymised) form that they cannot read, so the risk to you is low.',
    // A controller whose users were only shown others' data: what they were shown, and what that means for them (never an empty heading).
    servedOnlyData: "No part of your own conversation was found shown to anyone else; answers you were given contained parts of another person's conversation.",
    servedOnlyConsequence: "Some answers you received may have been built from someone else's conversation and may contain information that is wrong for you: do not act on such an answer, and do not share or keep the other person's information it contained.",
    phishing: 'You may receive fake e-mails or calls that use these details to seem genuine (phishing).',
    financial: 'Someone could try to misuse bank or card details that were in the conversation.',
    /** a note for the sender: a communication to the data subjects is already recorded, so this letter is a further one */
    furtherCommunication: (at: string, ref: string, scans: number) =>
      `The data subjects were already informed on ${at} (reference ${ref}): this letter is a further communication${scans > 0 ? `, for those found since (the case gained records or was rescanned ${scans === 1 ? 'once' : `${scans} times`} after that communication was recorded); who among the people counted here it already reached is not recorded` : ''}. Record it with notify record --recipient data-subjects --phase follow-up.`,
    authorityTold: (at: string) => `We notified the data protection authority on ${at}.`,
    /** a letter prepared for a controller: the measures recorded in the case are its processor's, said as such (never the controller's "we") */
    processorMeasure: (processor: string | null, m: string) => `Our service provider${processor ? ` (${processor})` : ''} reports this measure taken: ${m}`,
    /** Art. 34(2) refers to Art. 33(3)(d): measures proposed are said as proposed, not taken yet */
    proposedMeasure: (m: string) => `Planned, not yet done: ${m}`,
    processorProposedMeasure: (processor: string | null, m: string) => `Planned by our service provider${processor ? ` (${processor})` : ''}, not yet done: ${m}`,
    /** an open item of a letter prepared for a controller: its own measures, none recorded in the processor's case */
    controllerMeasures: "the measures the controller itself has taken or proposes: none is recorded for it in this case (those listed are its processor's)",
    careful: 'Be careful with unexpected e-mails, messages or calls that mention your conversation; do not click links or give passwords.',
    checkBank: 'Check your bank and card statements and tell your bank about anything you do not recognise.',
    secrets: 'If you shared a password or other secret in the conversation, change it now.',
    contactUs: 'Contact us with any question (details below).',
    notRequired: (a: AssessmentRecord) => `Note for the sender: the recorded decision (${a.at}) is "${EN.outcome[a.decision] ?? a.decision}": this communication is not required by it.`,
    /** open items of a letter prepared for a controller: the people written to know the controller by its name, never by the processor's tenant id */
    controllerName: "the controller's name as its data subjects know it, and its contact details: none is recorded for this controller in this case",
    /** `processorRecorded`: a DPO or contact point is recorded in this case (the processor's own, said so only then) */
    controllerContact: (processorRecorded: boolean) => `the DPO or other contact point of the controller: none is recorded for it${processorRecorded ? " (the DPO recorded in this case is the processor's)" : ''}`,
    onBehalf: (tenant: string) => `Prepared by the processor for the controller (customer ${tenant}) to review and send: informing data subjects is the controller's duty (Art. 34).`,
    dedicated: 'This message is only about this incident; it is not a newsletter or an advertisement.',
  },

  // ---- processor to controller (Art. 33(2))
  notice: {
    /** a controller notified before whose exposure the case no longer shows: this notice corrects the earlier one */
    withdrawn: (at: string, ref: string) =>
      `Correction: our notice of ${at} (reference ${ref}) described an exposure of your data that the case no longer shows (the evidence it rested on was withdrawn or read again; see below): as the case now stands, no response found carried your data to another session or another session's data to your users.`,
    intro: 'We are informing you, as your processor, of a personal data breach affecting data we process for you (GDPR Art. 33(2)). This notice describes only your own exposure: no content of any conversation, no full canary marker and no personal data values, only counts and categories.',
    // The other side counted apart: a customer's own other sessions are not "other customers".
    leaked: (n: ExposureSide) =>
      `${n.atLeast ? 'At least ' : ''}${count(n.responses, 'response')} to other sessions carried data of ${sessionsAtLeast(n)}${n.sessions} of your sessions (${byEvidence(n, 'your canary marker')}), received in ${sides(n.ownSessions, n.otherSessions, n.others).map((x) => atLeast(n) + x).join(' and in ')}${n.first ? ` between ${n.first} and ${n.last} (UTC)` : ''}.${sessionsNotNamedSentence(n, 'your')}`,
    received: (n: ExposureSide) =>
      `${n.atLeast ? 'At least ' : ''}${count(n.responses, 'response')} your users received carried another session's data (${byEvidence(n, 'a canary marker')}), in ${atLeast(n)}${n.sessions} of your sessions${fromSides(n, 'of yours')}${n.first ? ` between ${n.first} and ${n.last} (UTC)` : ''}.${customerNotNamedSentence(n)}${notNamedSentence(n, 'your own')}`,
    nothingLeaked: 'No response to another session was found carrying your data.',
    nothingReceived: "No response your users received was found carrying another session's data.",
    // A retry logged under a request id already counted is a duplicate line, not a record: in none of this notice's figures.
    retriesReachedOthers: (n: number) =>
      `In addition, ${count(n, 'retry', 'retries')} of a request (logged under the request id of a response already counted) served to another session carried your data (your canary marker) and ${n === 1 ? 'is' : 'are'} not counted in the figures of this notice.`,
    retriesReceived: (n: number) =>
      `In addition, ${count(n, 'retry', 'retries')} of a request (logged under the request id of a response already counted) served to your users carried another session's data (a canary marker) and ${n === 1 ? 'is' : 'are'} not counted in the figures of this notice.`,
    identified: (responses: number, logFiles: number, byReference = 0, canaries = true, notScanned: NotScanned = {records: 0, files: 0}) =>
      `The affected responses were identified from the serving logs (${count(responses, 'response')} in ${count(logFiles, 'log file')}) by ${canaries ? 'canary markers and verbatim text' : 'verbatim text (no canary registry)'}; ${byReference === 0 ? 'the evidence is preserved with SHA-256 hashes.' : `each log file is identified by its SHA-256 hash (${byReference === logFiles ? (logFiles === 1 ? 'it is' : 'all of them are') : `${byReference} of them ${byReference === 1 ? 'is' : 'are'}`} kept by reference: the case holds no copy).`}${notScannedSentence(notScanned)}`,
    assess: 'As controller, assess the risk to your users and decide on notifying your supervisory authority: in principle your 72 hours start when you receive this notice (EDPB Guidelines 9/2022).',
    /**
     * A follow-up: the controller became aware with our initial notice (EDPB 9/2022), so its 72 hours
     * ran from that one, never from this. `initial`: that notice as recorded (null: none recorded).
     */
    assessFollowUp: (initial: {at: string; deadline: string} | null) =>
      initial
        ? `As controller, assess the risk to your users and decide on notifying your supervisory authority: in principle your 72 hours ran from our initial notice of ${initial.at}, which made you aware of this breach (deadline ${initial.deadline}; Art. 33(1); EDPB Guidelines 9/2022); this follow-up does not start them again.`
        : 'As controller, assess the risk to your users and decide on notifying your supervisory authority: in principle your 72 hours ran from our first notice of this breach to you, which made you aware of it, not from this follow-up (Art. 33(1); EDPB Guidelines 9/2022).',
    quarantine: "Delete or quarantine the responses your users received that carried another party's data; do not process them further.",
    /**
     * Said instead of an empty personal-data table, where detection covered the case: what was looked
     * for (values in a response its receiving session never sent itself) and that none was found; the
     * conversation text itself is not searched this way, so it is never said to hold no personal data.
     */
    piiNoneFound: (side: 'leaked' | 'received' | 'own', responses: number) =>
      responses === 0
        ? `None: no response ${side === 'leaked' ? 'to another session carried your data' : side === 'received' ? 'your users received carried another session\'s data' : 'to one of your sessions carried another of your sessions\' data'}.`
        : `None found: ${side === 'leaked' ? 'the responses that carried your data were' : side === 'received' ? 'the responses your users received were' : 'those responses were'} searched for e-mail addresses, phone numbers, IBANs, payment card numbers and IP addresses that their receiving session had not sent itself, and held none. Other personal data in the conversation text (names, health or other details) is not detected this way.`,
    contactWanted: 'Tell us the contact point you want follow-up information sent to; we will send further information in phases as it is confirmed (Art. 33(4)).',
    /** `state`: not sent and still in time, not sent and past the deadline, or sent (its own line says when). */
    due: (deadline: string | null, hours: number | null, state: 'open' | 'late' | 'sent' = 'open') =>
      deadline
        ? `This notice ${state === 'open' ? 'is' : 'was'} due by ${deadline} (the ${hours} hours our contract sets from our awareness)${state === 'late' ? ': it is late' : ''}.`
        : 'This notice is due without undue delay (Art. 33(2)); no contractual period is recorded.',
    sent: (at: string, late: boolean | null) => `This notice was sent on ${at}${late ? ', after the contractual deadline' : ''}.`,
    /** Art. 33(4): the phase, and what still follows (`open`: the notice's open items). */
    phaseInitial: (open: number, records = 0) =>
      `This is our initial notice (Art. 33(4): information may be provided in phases). ${stillOpen(open, records)}`,
    phaseFollowUp: (previous: {at: string; reference: string; late: boolean | null} | null, open: number, records = 0) =>
      previous
        ? `This notice follows up our initial notice sent on ${previous.at} (reference ${previous.reference})${previous.late ? ', after the contractual deadline' : ''}, with what has been established since (Art. 33(4)). ${stillOpen(open, records)}`
        : // No initial notice is recorded: the draft does not say one was sent (an open item asks for it).
          `This is a follow-up notice, with what has been established since (Art. 33(4)); the initial notice it supplements is not recorded here. ${stillOpen(open, records)}`,
    /** Earlier notices to this controller recorded before the case kept the labels it gives other customers: ours may differ from theirs. */
    labelsMayDiffer: (earlier: ReadonlyArray<{at: string; reference: string}>) =>
      `Other customers are named in this notice only by labels (tenant#1, tenant#2, ...). These labels were given after our earlier ${earlier.length === 1 ? 'notice' : 'notices'} to you ${earlier.map((e) => `of ${e.at} (reference ${e.reference})`).join(', ')} ${earlier.length === 1 ? 'was' : 'were'} recorded, and may differ from the labels ${earlier.length === 1 ? 'that notice' : 'those notices'} used: a label here may name another customer than the same label there, and the same customer may carry another label.`,
    /** Text whose source is ambiguous, and this controller's sessions among its recorded possible sources. Never names the others. */
    possibleSource: (responses: number, sessions: number, among: {min: number; max: number}) =>
      `${count(responses, 'response')} served to another customer's users carried verbatim text that ${count(sessions, 'session')} of yours also held: your data may be the source of that text. You are one of ${among.min === among.max ? among.min : `${among.min} to ${among.max}`} possible sources (customers whose sessions held the same text); which of them it came from is still open.`,
    /** A canary marker cut short (a prefix of the markers of several customers' sessions), served to another customer, one of whose possible sources is this controller's session. Never names the others. */
    possibleMarkerSource: (responses: number, sessions: number, among: {min: number; max: number}) =>
      `${count(responses, 'response')} served to another customer's users held a canary marker cut short, a prefix of the markers of several customers' sessions, ${count(sessions, 'session')} of yours among them: your data may have reached that customer. You are one of ${among.min === among.max ? among.min : `${among.min} to ${among.max}`} possible sources (customers whose sessions' markers begin alike); which of them it came from cannot be told from the marker.`,
    /** GDPR Art. 33(4): when the next update follows, as recorded (incident set --next-update). */
    nextUpdate: (at: string) => `We will send our next update by ${at} (UTC), with what has been established by then (Art. 33(4)).`,
    /** Markdown: the open items that are the processor's own records, apart from those that follow in phases. */
    beforeSending: 'To record before sending (our own records; not among the points that follow in phases)',
  open: {
      previousNotice: 'the initial notice to this controller that this follow-up supplements: when it was sent and its reference (no initial notice to it is recorded)',
      duplicatesNotExamined: (n: number, ofYours: number) =>
        `${count(n, 'response')} in this incident logged under the request id of a response already counted (a retry) could not be read again${ofYours > 0 ? (ofYours === n ? (n === 1 ? ' (under a request of yours)' : ' (all under requests of yours)') : ` (${ofYours} of them under a request of yours)`) : ''}: whether ${n === 1 ? 'it carried' : 'they carried'} your data${ofYours > 0 ? `, or another session's data to your users,` : ''} is not yet established; we will tell you once ${n === 1 ? 'it is' : 'they are'} examined`,
      retries: (n: number, received: number, reachedOthers: number) =>
        `${count(n, 'retry', 'retries')} of a request concerning you (${[...(reachedOthers > 0 ? [`${reachedOthers} carrying your data`] : []), ...(received > 0 ? [`${received} served to your users`] : [])].join(', ')}), logged under the request id of a response already counted, ${n === 1 ? 'is' : 'are'} not yet counted in these figures: they will be completed with ${n === 1 ? 'it' : 'them'} and follow`,
      nextUpdate: 'when our next update to you will follow (Art. 33(4)): no date is set',
      /** the recorded next-update time is at or before the notice's issue time: never promised as still ahead */
      nextUpdatePassed: (at: string) => `when our next update to you will follow (Art. 33(4)): the date recorded, ${at}, has passed`,
      possibleSourceOf: (responses: number, among: {min: number; max: number}) =>
        `whether your data was the source of the verbatim text served to another customer (${count(responses, 'response')}; you are one of ${among.min === among.max ? among.min : `${among.min} to ${among.max}`} possible sources) is not established; we will tell you once it is`,
      possibleMarkerSourceOf: (responses: number, among: {min: number; max: number}) =>
        `whether your data reached another customer in a canary marker cut short (${count(responses, 'response')}; you are one of ${among.min === among.max ? among.min : `${among.min} to ${among.max}`} possible sources) is not established; we will tell you once it is`,
      possibleSourcesNotRecorded: (n: number) =>
        `${count(n, 'response')} in this incident carried verbatim text that several customers' sessions held alike, and ${n === 1 ? 'its' : 'their'} possible sources were not recorded when the case was scanned (a scan by an earlier release, or imported findings): whether your data was among them is not established; we will tell you once it is`,
    },
  },

  // ---- register (Art. 33(5))
  register: {
    /** A processor's register: the whole case's count (first side) beside the per-controller drafts' (either side), so the two never read as one disagreeing number. */
    subjectsEitherSide: (eitherSide: string, low: number) =>
      ` The Article 33 drafts prepared for each controller (and their letters to data subjects) count that controller's end users on either side of the exposure: those whose data reached another session and those served another session's data. Over all controllers that is ${eitherSide} ${eitherSide === '1' ? 'session' : 'sessions'} (a session on both sides counted once), where the ${low} above ${low === 1 ? 'counts' : 'count'}, as the whole case's Article 33 draft does, those whose data reached another session.`,
    endNotConfirmed: 'end not confirmed',
    windowEstimated: ' (estimated where not recorded: first and last affected response in the logs)',
    effects: "Loss of confidentiality of conversation content (and identifiers found in it) to other users; integrity of the receiving users' responses.",
    effectsProtected: "Disclosure of conversation content to other users in a form recorded as protected (encryption or pseudonymisation intact, so unintelligible to them: risk reduced, Art. 34(3)(a)); integrity of the receiving users' responses.",
    droppedLine: (d: {at: string; kind?: 'canaries'; name: string; sha256: string; reason: string}, notifiedAt: string) =>
      `withdrawn after the notification of ${notifiedAt}: ${d.kind === 'canaries' ? 'canary registry ' : ''}${d.name} sha256 ${d.sha256}, dropped on ${d.at} (reason recorded: ${d.reason || 'none given'})`,
    notificationLine: (n: NotificationStatedOf & {file_sha256: string | null}) =>
      `${n.phase === 'initial' ? 'initial' : 'follow-up'} ${n.at} to ${({authority: 'authority', 'data-subjects': 'data subjects', controller: `controller ${quoteIfReserved(n.recipient)}`})[recipientKind(n)]}${n.controller_aware_at !== undefined && n.controller ? ` for controller ${quoteIfReserved(n.controller)}` : ''} ref ${n.reference}${n.file_sha256 ? ` sha256 ${n.file_sha256}` : ''}${
        n.controller_aware_at !== undefined && n.phase === 'initial' ? ` (${n.late === true ? 'LATE: ' : n.late === false ? 'in time: ' : 'late: '}${controllerDeadline(n)})` : n.late === true ? ' LATE' : n.late === null ? ' (late: not known, no fixed deadline)' : ''
      }${notifiedScopeShort(n)}`,
    severity: (a: AssessmentRecord) => `ENISA SE ${a.se} (${EN.band[a.band] ?? a.band}); suggested ${EN.outcome[a.suggested] ?? a.suggested}`,
    authorityProcessor: 'not applicable: as processor, we notify each controller (Art. 33(2)); notifying the authority is the controller\'s duty (Art. 33(1))',
    proposed: (m: string) => `Proposed, not yet taken: ${m}`,
    delayReasonOf: (reference: string, reason: string) => `${reason} (with notification ${reference})`,
    inResponses: (n: number) => count(n, 'response'),
    distinctValues: (n: number, responses: number) => `${count(n, 'distinct value')} in ${count(responses, 'response')}`,
    noInvestigation: 'no replay recorded',
    roleChange: (c: {old_value: string | null; new_value: string | null; reason: string | null; amended_by: string | null; at: string}) =>
      `${c.at}: from ${(c.old_value === 'controller' || c.old_value === 'processor' ? EN.role[c.old_value] : c.old_value)} to ${(c.new_value === 'controller' || c.new_value === 'processor' ? EN.role[c.new_value] : c.new_value)}, because ${c.reason ?? 'no reason recorded'}${c.amended_by ? ` (by ${c.amended_by})` : ''}`,
  },

  // ---- open items (what the case does not hold yet)
  /** The figures of a scan whose findings no longer cover the case, each said with its base: kept where that base is unchanged, unknown where it changed. */
  staleFigures: {
    heading: 'Figures as the case stands (the findings of the last scan do not all cover it)',
    labels: {
      exposure_responses: "Responses carrying another session's data (marker or verbatim text)",
      data_subjects: 'Approximate number of data subjects',
      records_concerned: 'Approximate number of personal data records',
      data_categories: 'Categories of personal data',
      affected_window: 'First and last affected response in the logs',
      contaminated_responses: "Responses with another session's canary marker",
      cross_tenant_responses: 'of which with a marker of another customer (cross-tenant)',
      cross_session_responses: 'of which with a marker of another user of the same customer (cross-session)',
      exposed_sessions: 'Sessions whose canary marker reached another session',
      recipient_tenants: "Customers that received another customer's marker",
      orphan_sightings: 'Marker-shaped strings registered to nobody (orphans)',
      provenance_responses: "Responses repeating another session's text verbatim (with or without a marker)",
      at_risk_responses: 'Responses at risk (prompt at or over the KV pool; of every response ingested)',
    } as Record<string, string>,
    basis: {
      markers: 'the canary registry and the marker scan',
      provenance: 'the canary-less provenance pass',
      both: 'the canary markers and the verbatim text together',
      records: "the records' HTTP status and prompt size, and the KV pool size",
    } as Record<string, string>,
    current: (basis: string) => `as the last scan found it: its base (${basis}) has not changed since`,
    currentAtRisk: (basis: string) => `read from the records as they are (${basis}): no scan finding enters it`,
    stale: (reason: string) => `not known until a scan (crosstalk scan): ${reason}`,
    noRegistry: 'not known: the case holds no canary registry, so no marker can be attributed',
    noPool: 'not known: no KV pool size is recorded (crosstalk scan --pool-tokens N)',
    atRiskUnjudgeable: 'not known: no log record gives both its HTTP status and its prompt size',
    undecided: (n: number) => `; whether ${count(n, 'more record')} ${n === 1 ? 'was' : 'were'} at risk is not known (status or prompt size not recorded)`,
    reason: (markers: MarkersStaleCause | null, provenance: boolean) =>
      [markers ? markersStaleReason(markers) : null, provenance ? 'canary-less provenance does not cover the case as it is (a scan skipped it with --no-provenance, or evidence was dropped, since it ran)' : null].filter((x) => x !== null).join('; '),
  },
  open: {
    noIncident: 'the incident record: awareness time, role and title',
    controller: 'controller name and contact details',
    processor: 'the processor: name and contact details',
    contact: 'name and contact details of the DPO or other contact point',
    reportingPerson: 'the person reporting: name, function and contact',
    sectorSize: 'sector and size of the controller, and its economic activity',
    eeaRepresentative: 'Art. 27 representative (controller not established in the EEA), or "not applicable"',
    awarenessBasis: 'basis for the awareness time (why there was reasonable certainty then) and who decided it',
    controllerAwareness: 'when the controller became aware (when the processor\'s notice reached it)',
    internalReference: 'our internal reference for the incident',
    detectedAt: 'time of first detection (alert or report)',
    discovery: 'how the breach was discovered and by whom',
    informedBy: 'whether another party (processor, data subject, researcher, press) informed the controller, and when',
    breachStart: 'when the breach started (only the first affected response in the logs is known)',
    /** the same where no affected response in the logs gives a first one (none found, or not searched) */
    breachStartNoLogs: 'when the breach started, if one occurred (no affected response found in the logs gives it)',
    breachEnd: 'confirmation that the breach has ended (end time)',
    // A recorded fact the logs contradict (recorded-vs-logs.ts): kept as recorded, shown as open until corrected or explained.
    breachStartContradicted: (recorded: string, logs: string) =>
      `the breach start: the recorded start ${recorded} is after the first affected response in the logs (${logs}), so the breach had started by then; correct the start, or record why those responses are not part of this breach`,
    // Recorded times that cannot all be right (timeline-order.ts): neither is stated as established until corrected.
    timeBeforeStart: (field: 'aware_at' | 'detected_at' | 'investigation_started_at', at: string, start: string, reference: 'breach_started_at' | 'detected_at' = 'breach_started_at') =>
      `the recorded ${field === 'aware_at' ? 'awareness' : field === 'detected_at' ? 'detection (first alert)' : 'start of the investigation'} (${at}) precedes the recorded ${reference === 'detected_at' ? 'detection (first alert)' : 'start of the breach'} (${start}): check both; neither is stated as established until they agree`,
    breachEndContradicted: (recorded: string, logs: string) =>
      `the breach end: the recorded end ${recorded} is before the last affected response in the logs (${logs}), so the breach had not ended then; correct the end, or record why those responses are not part of this breach`,
    perCountryBelow: (recorded: string, total: number, low: number) =>
      `the number of data subjects per country: the figures recorded (${recorded}) add up to ${total}, below the at least ${low} data subjects the logs show; correct them, or say which data subjects they leave out`,
    delayReason: 'reasons for the delay: the 72 hours have passed (Art. 33(1))',
    // A processor's duty is Art. 33(2) (without undue delay after becoming aware); the 72 hours and their reasons for delay are the controller's (Art. 33(1)).
    delayReasonProcessor: "reasons for the delay: a notice to a controller is after the contractual period (Art. 33(2) asks the processor to notify without undue delay; the controller needs the reasons for its own notification)",
    boilerplateResponses: (n: number, tenants: number) =>
      `${count(n, 'response')} ${n === 1 ? 'repeats' : 'repeat'} text found in ${tenants} or more customers' sessions, set aside as boilerplate; review ${n === 1 ? 'it' : 'them'} (crosstalk provenance --boilerplate-tenants N, N above ${tenants}: a what-if that stores nothing) and record the outcome`,
    sourceNotNamed: (n: number) =>
      `${count(n, 'response')} carried verbatim text whose source is not established (the same text in several customers' prompts, or only in answers whose prompts were not logged): ${n === 1 ? 'it counts' : 'they count'} as received, and ${n === 1 ? 'its' : 'their'} possible sources, listed by crosstalk provenance, as possibly exposed, not counted above; establish the source and record the outcome`,
    markerSourceNotNamed: (n: number) =>
      `${count(n, 'response')} carried a canary marker cut short, a prefix of the markers of several customers' sessions, so no customer is named as ${n === 1 ? 'its' : 'their'} source: ${n === 1 ? 'it counts' : 'they count'} as received, and ${n === 1 ? 'its' : 'their'} possible sources, listed by crosstalk sightings, as possibly exposed, not counted above; establish the source and record the outcome`,
    /** A processor notice: whether this controller's data was among those possible sources. */
    possibleSource: (n: number) =>
      `${count(n, 'response')} in this incident carried verbatim text whose source is not established (the same text in several customers' prompts, or only in answers whose prompts were not logged): whether any of it was your data is not yet established, so your data may have been among its possible sources; we will tell you once the source is established`,
    piiAttributedOnly: (n: number) =>
      `${count(n, 'response')} carried personal data first sent by another session (matched by value, no canary marker or verbatim text: crosstalk pii lists them): establish whether ${n === 1 ? 'it disclosed' : 'they disclosed'} that session's data and record the outcome; until then the exposure figures are a lower bound`,
    noRequestText: (n: number, records: number) =>
      n >= records
        ? `no prompt was logged (none of the ${count(records, 'record')} has request text): whether an answer carried another session's prompt could not be looked for; ingest logs that hold the prompts (or the field that holds them: --map request=PATH) and scan again`
        : `${count(n, 'record')} of ${records} had no request text (the prompt was not logged): whether another session's answer carried ${n === 1 ? 'that prompt' : 'those prompts'} could not be looked for; ingest logs that hold the prompts (--map request=PATH) and scan again`,
    notComparable: (n: number) =>
      `${count(n, 'response')} in a script written without spaces between words (Chinese, Japanese, Thai and the like) could not be compared by the verbatim-text search: review ${n === 1 ? 'it' : 'them'} for another session's text and record the outcome`,
    responsesWithoutText: (n: number) =>
      `${count(n, 'response')} had no response text and ${n === 1 ? 'was' : 'were'} not examined for either canary markers or verbatim text: ingest logs that hold the answers (or the field that holds them: --map response=PATH) and scan again`,
    duplicatesNotExamined: (n: number, ofController: number | null) =>
      `${count(n, 'response')} logged under the request id of a response already counted (a retry) could not be read again and ${n === 1 ? 'was' : 'were'} not examined${ofController ? (ofController === n ? (n === 1 ? " (under a request of this controller's)" : " (all under requests of this controller's)") : ` (${ofController} of them under a request of this controller's)`) : ''}: whether ${n === 1 ? 'it carries' : 'they carry'} another session's data, and whose, is not known; read ${n === 1 ? 'it' : 'them'} again (crosstalk status names each line) and scan, before saying what ${n === 1 ? 'it' : 'they'} held`,
    duplicateLeaks: (lines: readonly string[]) =>
      `${count(lines.length, 'response')} (${namedFew(lines)}) logged under the request id of a response already counted (a retry logged under the same id) ${lines.length === 1 ? 'carries' : 'carry'} another session's canary marker and ${lines.length === 1 ? 'is' : 'are'} counted in no figure of this draft (a request's first line is its record): establish whose data ${lines.length === 1 ? 'it carries' : 'they carry'} and who received ${lines.length === 1 ? 'it' : 'them'} (crosstalk status names each line), and add ${lines.length === 1 ? 'it' : 'them'} to the figures`,
    grownOriginals: (names: readonly string[]) =>
      `${count(names.length, 'log file')} (${namedFew(names)}) grew after ${names.length === 1 ? 'it was' : 'they were'} ingested: the bytes added were never examined (crosstalk status says how many); ingest ${names.length === 1 ? 'it' : 'them'} again and scan before saying what ${names.length === 1 ? 'it holds' : 'they hold'}`,
    notReadWhole: (names: readonly string[]) =>
      `${count(names.length, 'log file')} (${namedFew(names)}) not read whole: what ${names.length === 1 ? 'it holds' : 'they hold'} past what was read was not examined (crosstalk status says what); ingest the files that hold the rest with ${names.length === 1 ? 'it' : 'them'} (drop and ingest again), or record why it holds no answer`,
    originalsNotIntact: (files: ReadonlyArray<{name: string; state: 'missing' | 'changed'}>) =>
      `${count(files.length, 'log file')} kept by reference ${files.length === 1 ? 'is' : 'are'} missing or changed since ingest (${files.slice(0, 5).map((f) => f.name).join(', ')}${files.length > 5 ? ` and ${files.length - 5} more` : ''}): put the original back where the case reads it (crosstalk verify checks it), or record where it went (crosstalk relocate)`,
    orphansWithoutRegistry: (n: number) =>
      `${count(n, 'marker-shaped token')} found in answers ${n === 1 ? 'is' : 'are'} attributed to no session because the case holds no canary registry: whether ${n === 1 ? 'it carries' : 'they carry'} another session's data is not known; ingest the canary registry and scan again`,
    /** affected responses dated after their log was ingested: counted, their times in no date this document gives */
    datedAfterIngest: (n: number) =>
      `${count(n, 'affected response')} ${n === 1 ? 'carries' : 'carry'} a time more than 5 minutes after ${n === 1 ? 'its' : 'their'} log file was ingested, which no answer can have been served at: ${n === 1 ? 'it is' : 'they are'} counted, but ${n === 1 ? 'its time is' : 'their times are'} left out of every date and window given here; establish when ${n === 1 ? 'it was' : 'they were'} served (the log's clock or time zone) and correct the window`,
    /** contaminated responses dated before their marker was issued: counted, their times in no date this document gives */
    datedBeforeIssued: (n: number) =>
      `${count(n, 'affected response')} ${n === 1 ? 'is' : 'are'} dated before the canary registry's issued_at of the marker found in ${n === 1 ? 'it' : 'them'}, when no answer could carry that marker: the log's clock, time zone or epoch unit, or the registry, is wrong; ${n === 1 ? 'it is' : 'they are'} counted, but ${n === 1 ? 'its time is' : 'their times are'} left out of every date and window given here; establish which is wrong and correct it (ingest the log again with the right --assume-tz or --map ts=epoch_UNIT:PATH, or the registry)`,
    badLines: (n: number) =>
      `${count(n, 'quarantined log line')} could not be read and ${n === 1 ? 'was' : 'were'} never judged: whether ${n === 1 ? 'it carries' : 'they carry'} another session's data is not known; read ${n === 1 ? 'it' : 'them'} (crosstalk status --bad-lines), ingest ${n === 1 ? 'it' : 'them'} again in a form that can be read and scan, or record why ${n === 1 ? 'it holds' : 'they hold'} no answer`,
    unreadSources: (names: readonly string[]) =>
      `${count(names.length, 'log source')} (${namedFew(names)}) could not be read and ${names.length === 1 ? 'was' : 'were'} not examined: ingest ${names.length === 1 ? 'it' : 'each'} whole (decompressed, or gzip) and scan again, or record why ${names.length === 1 ? 'it holds' : 'they hold'} no log`,
    // Only what the count says: the other gaps (a scan that did not finish, extracts of an earlier version, ...) are named by the detection note and `crosstalk status`.
    detectionIncomplete: (files: number) => `detection is incomplete (${files > 0 ? `${count(files, 'log file')} not scanned; ` : ''}the detection note and crosstalk status say what is missing): what was found counts only the records scanned, so it is at least that; the at-risk counts and upper bounds cover every record ingested`,
    atRiskUnknown: (undecided: number) =>
      `the responses at risk (served from a prompt at or over the KV pool size): the logs do not give the HTTP status or the prompt size of ${count(undecided, 'record')}, so none can be judged (logs that record both would tell)`,
    noScan: 'the scope: responses, sessions and customers affected (detection has not run, or its findings do not cover the case as it is: the detection note says which)',
    /** Findings a scan made that no longer cover the case: every figure built on them is unknown until a scan. */
    findingsStale: (markers: MarkersStaleCause | null, provenance: boolean) =>
      `the scope: responses, sessions and customers affected are not known until a scan (crosstalk scan): ${[markers ? markersStaleReason(markers) : null, provenance ? 'canary-less provenance does not cover the case as it is (a scan skipped it with --no-provenance, or evidence was dropped, since it ran)' : null].filter((x) => x !== null).join('; ')}`,
    noRecords: 'the scope: the logs ingested gave no response record, so nothing could be examined (a log format or convention ingest does not read? crosstalk status names each file and what it read)',
    upperBound: 'upper bound of the number of data subjects and records (the KV pool size is not known)',
    upperBoundOneController: "upper bound of this controller's data subjects and records: the bounds (at-risk responses, sessions a leaking decode node served) are computed for the whole case, not for one controller's share",
    upperBoundUnjudgeable: 'upper bound of the number of data subjects and records: no log record gives both its HTTP status and its prompt size, so no response can be judged at risk (logs that record both would bound it)',
    exactSubjects: 'exact number of data subjects (only a range is known so far)',
    content: 'what the leaked prompts and completions contained beyond the detected identifiers (special categories? children?)',
    cause: 'the cause of the breach: description and root cause, and whether internal or external, malicious or not',
    systems: 'systems, software, services and infrastructure involved, and where they are located',
    measuresBefore: 'measures in place before the breach (encryption, pseudonymisation, access control ...)',
    measuresTaken: 'measures taken to address the breach and mitigate its possible adverse effects',
    measuresProposed: 'measures proposed, including preventive measures',
    containment: 'containment measures taken for this customer\'s data',
    risk: 'risk assessment and the decision taken on it',
    /** the latest assessment was made before scans that may have changed its figures */
    assessmentStale: (at: string, scans: number, scannedAt: string) => `the risk assessment and decision of ${at} were made on an earlier state of the case: ${scans === 1 ? 'a scan' : `${scans} scans`} since (the last on ${scannedAt}) may have changed the findings it rests on (records added or dropped, a rescan, another KV pool size), so the severity, the risk outcome and the decision may no longer follow from the findings; re-assess with the current findings`,
    /** the latest communication to the data subjects was recorded before scans that may have found more of them */
    subjectsFoundSince: (at: string, ref: string, scans: number, scannedAt: string) =>
      `the data subjects found since the communication of ${at} (reference ${ref}): ${scans === 1 ? 'a scan' : `${scans} scans`} since it was recorded (the last on ${scannedAt}) may have changed the findings (records added or dropped, a rescan), so the case may now hold data subjects it did not reach; compare the scope it was sent on with the current one and inform those not yet informed (a further communication)`,
    assumedInputs: (inputs: string) => `the severity rests on inputs assumed by default, not from the case and not confirmed by the assessor: ${inputs}; confirm or correct each`,
    article34: 'whether the data subjects are informed (Art. 34), with the decision it rests on',
    notifications: 'notification of the supervisory authority (when, reference)',
    controllersUnknownBoilerplate: (n: number) =>
      `which controllers (customers) are affected, and how many are owed a notice (Art. 33(2)): not known while ${count(n, 'response')} set aside as boilerplate ${n === 1 ? 'is' : 'are'} not known to be free of another session's data (whose data ${n === 1 ? 'it carries' : 'they carry'} is not established); review ${n === 1 ? 'it' : 'them'} (crosstalk provenance --boilerplate-tenants N) and record the outcome`,
    controllersUnknown: 'the affected controllers (customers) and the notice each is owed (Art. 33(2)): not known until a scan covers the case (no scan has, or its findings no longer cover it)',
    correctionOwed: (tenant: string, at: string, ref: string) =>
      `a correcting follow-up to controller ${tenant}: it was notified on ${at} (reference ${ref}) of an exposure the case no longer shows, and no follow-up to it is recorded since (report processor-notice --tenant ${tenant} --phase follow-up)`,
    controllerNotices: (missing: number) => (missing === 1 ? 'the notice to 1 affected controller, not yet recorded' : `notices to ${missing} affected controllers, not yet recorded`),
    police: 'whether reported to police or judicial authorities',
    otherAuthorities: 'other authorities notified (CSIRT, sector regulators), with case ids',
    leadAuthority: 'lead supervisory authority (one-stop shop) or the authorities of every Member State concerned',
    unintelligible: 'whether the exposed data was unintelligible to whoever received it (encryption or pseudonymisation still effective; the ground of Art. 34(3)(a)): the case does not record it, and the measures in place before the breach do not say they held',
    /** protection recorded as intact, while the personal-data search read these kinds (labels) in the answers the recipients received */
    protectionContradicted: (labels: readonly string[]) =>
      `whether the exposed data was unintelligible to whoever received it: its protection is recorded as intact, but the personal-data search found ${labels.join(', ')} in clear text in the leaked responses; the consequences are stated as found until the record is corrected, or the reason this data was outside the protection is recorded`,
    crossBorderContradicted: (states: readonly string[]) =>
      `whether the processing is cross-border: it is recorded as not cross-border, but establishments in ${states.length} Member States are recorded (${states.join(', ')}), which makes it cross-border under Art. 4(23)(a); correct one of the two`,
    crossBorder: 'whether the processing is cross-border (Art. 4(23): establishments in more than one Member State, or data subjects substantially affected in more than one); the case does not record it, and a lead authority alone does not say it',
    countries: 'countries of the affected data subjects and numbers per country',
    establishment: 'countries where the controller is established',
    authoritiesNotified: 'supervisory authorities notified',
    replay: 'reproduction of the fault on a test system (crosstalk replay) to confirm the root cause',
    notificationProblem: (text: string) => `a recorded notification contradicts the incident: ${text}`,
    onBehalfController: (tenant: string) => `the controller's name and contact details (customer ${tenant})`,
    subjectContact: 'contact details for the data subjects (DPO or contact point)',
    dpoDesignated: 'whether a data protection officer is designated (Art. 37): no DPO name is recorded, only contact details',
    contactName: 'the name of the DPO or other contact point (only its contact details are recorded)',
    contactDetails: 'contact details of the data protection officer (only a name is recorded)',
    unattributedAuthority: (tenant: string, notifications: ReadonlyArray<{phase: 'initial' | 'follow-up'; at: string; reference: string}>) =>
      `whether the notification to the authority recorded in this case without the controller it was made for (${notifications.map((n) => `${n.phase} ${n.at}, ref ${n.reference}`).join('; ')}) was made for this controller (customer ${tenant}): this draft does not take it as its notification until it is recorded for it`,
    onBehalfContact: (tenant: string, processorRecorded: boolean) => `the DPO or other contact point of the controller (customer ${tenant}): none is recorded for it${processorRecorded ? " (the DPO recorded in this case is the processor's)" : ''}`,
    language: 'the language of the communication: none was chosen, so it is drafted in English; confirm the language the data subjects use (--lang)',
  },
}

export type Phrases = typeof EN
