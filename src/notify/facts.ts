import {grownOriginals} from '../evidence/grown-originals.js'
import {originalState, readFromOriginal} from '../evidence/original-state.js'
import {basename} from 'node:path'
import {auditEntriesOf} from '../store/audit.js'
import {type DetectionCoverage, type ProvenanceParameters, nothingSearched} from '../detect/coverage.js'
import {recordTextLoader} from '../evidence/record-texts.js'
import {listReplayResults, type StoredReplayResult} from '../replay/replay-store.js'
import {wilsonInterval} from '../replay/wilson.js'
import {computeScope, minMax, SUBJECTS_LOW, type Exposure, type ScopeFlow, type ScopeResult} from '../scope/compute-scope.js'
import {exposureRows, exposureTenants, sourceBounds, type ExposureRow} from '../scope/exposure.js'
import {factTimes, loadScopeInputs, timeIsFact, type ScopeInputs} from '../scope/scope-data.js'
import {concernedTenants, retryConcerns, retryLeaks, tenantUnexaminedDuplicates, type RetryLeak} from '../scope/retry-leaks.js'
import type {LeakingDuplicate} from '../detect/conflicting-duplicates.js'
import {computeTenantView, otherTenantLabels, type TenantCounterpart} from '../scope/tenant-view.js'
import {exposureKnown, knownScope, scopeFiguresKnown, staleFindings, type MarkersStaleCause} from '../scope/unscanned.js'
import {contaminationRows, excerptSightingRows} from '../store/findings.js'
import {finishedScanRuns} from '../store/scan-runs.js'
import {completeFiles, fileTotals, logFilesNotReadWhole, type FileRow, type FileTotals} from '../store/files.js'
import {listUnreadSources, openUnreadSources} from '../store/unread-sources.js'
import type {CaseDb} from '../store/open-case.js'
import {recordTotals, type RecordTotals} from '../store/records.js'
import {corpusFacts} from '../store/scale.js'
import {quoted, safeId, safeLine} from '../util/sanitize.js'
import {count} from '../util/plural.js'
import {InputError} from '../errors.js'
import {findPii} from '../extract/pii.js'
import {shortenMarkerTokens} from '../extract/markers.js'
import {shownTargetText} from '../util/target-url.js'
import {latestAssessment, type AssessmentRecord} from './assessment-store.js'
import {computeCaseClock, type ClockResult, type ControllersUnknownBecause} from './clock.js'
import {getIncident, listAmendments, listRoleChanges, type AwarenessAmendment, type IncidentRecord} from './incident.js'
import {controllerAwareAt, listNotifications, notificationLate, notificationProblems, type NotificationRecord} from './notifications.js'
import {CATEGORY_LABELS} from './labels.js'
import {exposureWindow} from './recorded-vs-logs.js'
import {noticeController, recipientKind, toAuthority, toDataSubjects, type RecipientOf} from './recipients.js'

// Everything a report needs, read once from the case. Reports are built from this plain
// object only, so they can be tested with a hand-built fixture and never reach back into
// the database. Every string that came from a log passes through safeLine here, so no
// report format can receive a raw terminal escape; leaked content itself is never read
// unless the user asked for excerpts. Machine-local paths never enter: evidence files are
// named by their file name and SHA-256.

export type Flow = ScopeFlow

export interface Range {
  low: number
  /** null when nothing bounds it yet (see method) */
  high: number | null
  method: string
}

export interface Category {
  /** a pii_findings kind ('email', 'iban', ...), a conversation-content category from scope, or 'free_text' */
  kind: string
  /** English label; reports translate by kind (phrases) */
  label: string
  /** distinct values (by hash) for personal-data kinds; responses for content categories */
  count: number
  /** responses that carried this category */
  responses: number
}

/** The contract's scope keys, exactly as computeScope returns them (strings made inert). */
type ScopeContractKeys = Pick<
  ScopeResult,
  | 'contaminated_responses' | 'cross_tenant_responses' | 'cross_session_responses' | 'exposed_sessions' | 'exposed_tenants'
  | 'recipient_tenants' | 'first_seen' | 'last_seen' | 'at_risk_responses' | 'at_risk_unknown_records' | 'flows'
>

export interface ScopeFacts extends ScopeContractKeys {
  /** canary and verbatim text together: the numbers every draft and notice states */
  exposure: Exposure
  // extensions used by the reports
  pool_tokens: number | null
  orphan_sightings: number
  /** affected responses dated after their log was ingested (compute-scope.ts): their times in no window; absent: facts built by hand, none */
  responses_dated_after_ingest?: number
  /** contaminated responses dated before their marker was issued (compute-scope.ts): their times in no window; absent: none */
  responses_dated_before_marker_issued?: number
  provenance_responses: number
  provenance_only_responses: number
  /**
   * responses holding personal data another session sent earlier and the recipient's session never
   * sent (an attributed personal-data finding), with no marker or verbatim text of another session:
   * in no exposure figure. Absent: facts built by hand, holding none.
   */
  pii_attributed_only_responses?: number
  /** the same per (source tenant, recipient tenant) */
  pii_attributed_only_flows?: ScopeFlow[]
  /** contaminated responses whose logs hold no prompt text: the echo check had nothing to read */
  contaminated_without_prompt: number | null
  /** contaminated responses whose request was read in part (members this release does not read): the echo check read part of the prompt */
  contaminated_prompt_in_part: number | null
  /** the request members not read, where contaminated_prompt_in_part is above 0 */
  prompt_in_part_members: string[]
  by_hour: Array<{hour: string; responses: number; cross_tenant_responses: number; provenance_responses: number; text_only_responses: number; at_risk_responses: number | null}>
  by_node: Array<{node: string; responses: number; cross_tenant_responses: number; cross_session_responses: number; provenance_responses: number; at_risk_responses: number | null; first_seen: string | null; last_seen: string | null}>
  data_subjects: Range
  records: Range
  /** in a draft for one controller: the categories of its data that reached others only (not what its users were served) */
  categories: Category[]
  /**
   * In a draft for one controller: its end users on either side of the exposure, the one count of
   * its data subjects that its Article 33 draft and its letter to data subjects both state
   * (data_subjects.low is `total`). Absent for the whole case.
   */
  controller_subjects?: ControllerSubjects
  bug_window: {start: string; end: string; basis: string} | null
  /** first and last response of the exposure (canary or text) */
  exposure_first: string | null
  exposure_last: string | null
  /** how the contract numbers were computed */
  method: string
}

/** One controller's data subjects as its drafts count them: one session, one person; a session on both sides counted once in `total`. */
export interface ControllerSubjects {
  /** its sessions whose data (canary marker or verbatim text) reached another session */
  reached_others: number
  /** its sessions that were served another session's data */
  served_others: number
  total: number
  /**
   * first and last response on either side (the responses those sessions are counted from): the
   * window a letter stating this count gives, whichever side its other sentences describe.
   * Absent: facts built by hand, holding none.
   */
  first?: string | null
  last?: string | null
}

/** One controller's own exposure: what a processor may tell that tenant (Art. 33(2)). Canary and verbatim text together. */
export interface TenantExposure {
  tenant_id: string
  /** this tenant's sessions whose data reached another session (marker or verbatim text) */
  leaked_sessions: string[]
  /** responses carrying this tenant's data whose source session is not named (a marker cut short of several of its sessions' markers): a session of it, perhaps one not in leaked_sessions; absent: none */
  leaked_sessions_not_named?: number
  /** responses (to anyone else) that carried this tenant's data */
  responses_carrying_its_data: number
  /** of which with this tenant's canary marker / by verbatim text only */
  leaked_by_canary: number
  provenance_only_leaked: number
  /** other sessions of this same tenant that received it */
  recipient_sessions_same_tenant: number
  /** sessions of other tenants that received it (count only: never their ids) */
  recipient_sessions_other_tenants: number
  /** number of other tenants that received it (count only) */
  recipient_tenants_other: number
  first_leaked: string | null
  last_leaked: string | null
  /** markers of this tenant seen elsewhere, truncated */
  markers_truncated: string[]
  /** PII kinds found in this tenant's leaked content (counts of distinct values) */
  pii_in_leaked: Category[]
  /** responses this tenant received that carried another session's data (marker or text) */
  received_foreign_responses: number
  received_by_canary: number
  received_by_text_only: number
  /** of those, responses whose only evidence is verbatim text whose source provenance does not name (ambiguous or unknown): attributed to no one, possibly its own */
  received_source_not_named: number
  /** of those, responses with a canary marker cut short, a prefix of the markers of sessions of several other customers: the source customer is not named, so the source sessions and customers are lower bounds */
  received_source_customer_not_named: number
  /** its sessions that received foreign data */
  receiving_sessions: string[]
  /** number of other tenants whose data it received (count only) */
  received_from_tenants: number
  /** the sessions whose data it received: its own other sessions, and other tenants' sessions (count only) */
  source_sessions_same_tenant: number
  source_sessions_other_tenants: number
  first_received: string | null
  last_received: string | null
  pii_in_received: Category[]
  /** its data that reached its own other sessions (source and recipient both this tenant): responses, and PII kinds in them */
  own_cross_session_responses: number
  pii_within_own_sessions: Category[]
  /** the other customers on each side, as opaque labels (tenant#1, ...) from computeTenantView */
  counterparts_leaked_to: Counterpart[]
  counterparts_received_from: Counterpart[]
  /**
   * Responses served to other customers' sessions with verbatim text whose source is ambiguous and
   * this tenant among its recorded possible sources: its data may be their source, not established.
   */
  possible_source_responses: number
  /** its sessions among those possible sources */
  possible_source_sessions: string[]
  /** of how many customers' sessions each such text was a possible source (fewest, most); null where it is none */
  possible_sources_among: {min: number; max: number} | null
  /** responses served to another customer holding a canary marker cut short of several customers' sessions' markers, this tenant's among them: its data may have reached that customer, not established */
  possible_marker_source_responses?: number
  /** its sessions among those markers' possible sources */
  possible_marker_source_sessions?: string[]
  /** of how many customers' sessions each such marker may come (fewest, most); null where it is none */
  possible_marker_sources_among?: {min: number; max: number} | null
  /** responses in the case whose source is ambiguous and whose possible sources were not recorded: whether this tenant is among them is not known */
  possible_sources_not_recorded: number
  /** responses in the case whose source is unknown (only in answers whose prompts were not logged): any customer may be it */
  source_unknown_responses: number
  /** its own status-200 responses at or over the pool (null without a pool size) */
  at_risk_responses: number | null
  /** its own records whose status or prompt size is not recorded where that leaves open whether they were at risk */
  at_risk_unknown_records: number | null
}

export interface Counterpart {
  label: string
  /** responses with a canary marker */
  responses: number
  /** responses attributed by verbatim overlap */
  provenance_responses: number
  /** responses by either */
  exposure_responses: number
  /** the other side's sessions (marker or verbatim) */
  sessions: number
  first_seen: string | null
  last_seen: string | null
}

/**
 * Replay results of one target for one purpose: distinct records, never pooled with another
 * target or with a negative control. A record replayed several times on the same target counts once.
 */
export interface ReplayTargetFacts {
  target: string
  /** 'simulator': crosstalk's own testbed, built to leak; 'external': another serving stack */
  target_kind: 'simulator' | 'external' | 'unrecorded'
  target_version: string | null
  model: string
  purpose: 'confirmation' | 'negative-control' | 'unrecorded'
  run_ids: number[]
  first_at: string
  last_at: string
  /** distinct records replayed on this target */
  records: number
  /** of which confirmed at least once / never confirmed but served / only rejected */
  confirmed: number
  not_reproduced: number
  rejected: number
  /** of which never judged (every trigger hung, errored, had no readable text or was not read whole): neither confirmed nor not reproduced */
  inconclusive: number
  /** judged triggers (the rate and the interval are over these) */
  trials: number
  /**
   * triggers answered but not judged: an answer with no readable text, or one not read whole (a
   * stream cut off, no `data: [DONE]`); in none of `trials`. null: a result of these runs was
   * stored before case schema 15, which did not record them (not known, never none)
   */
  unjudged_trials: number | null
  /** triggers that hung or errored: nothing was tested, so they are in none of `trials` (the console's "hung and errored not judged") */
  hung_or_errored_trials?: number
  reproduced: number
  /** reproduced / trials; null where no trial was judged (not known, never 0) */
  rate: number | null
  wilson_low: number
  wilson_high: number
  /** whether any record's original prompt was re-sent */
  original_prompt: boolean
  /** distinct records whose original prompt (logged text) was re-sent; the others were sent synthetic stand-ins (with --original-prompt too, where the log held no request text), sized as `stand_in_sizes` says */
  original_prompt_records?: number
  /**
   * How the stand-ins' sizes were mapped from the recorded ones, as each result stored it
   * (as_recorded, scaled_to_pool, clamped_to_gap, clamped_to_window, unrecorded_window_max), with
   * the distinct records sent each way: a stand-in is same-length only where it was sent as recorded.
   */
  stand_in_sizes?: Array<{scaling: string; records: number}>
  /** answers to the priming requests that carried another synthetic tenant's marker: the target leaked during the replay; null: a result of these runs was stored before case schema 16 (not recorded) */
  primer_leaks?: number | null
  /** answers (triggers', and since this release primers') that carried a marker the replay gave no synthetic tenant, or one cut short so that whose it is cannot be told (not judged); null: not recorded */
  other_markers?: number | null
  /** distinct sessions of the case's canary registry whose markers those answers carried (owner known); null: not recorded */
  other_owner_sessions?: number | null
  interrupted: boolean
}

export interface ReplayFacts {
  groups: ReplayTargetFacts[]
}

export interface EvidenceFile {
  /** the file's name only: documents leave this machine, its paths stay here */
  name: string
  sha256: string
  size: number
  kind: string
  records: number
  /** the case holds no copy of it (ingest logs --evidence reference, Spark findings) */
  by_reference?: boolean
  /** a log the case also holds in a later, longer version (ingested again once it grew): one log file with it */
  earlier_version?: boolean
  /**
   * A log held in several versions (ingested, then again once it grew: each later version begins
   * with the bytes of the one before and stores only the records it added, `records`): which
   * version this is, of how many, and the records this version's bytes hold (its own and those of
   * the versions before it). Absent for a file held in one version.
   */
  version?: {number: number; of: number; records_held: number}
  /** Other files (not versions of each other) under the same name: which of them this one is, in ingest order. Absent where the name is its alone. */
  same_name?: {number: number; of: number}
}

export interface Excerpt {
  request_id: string
  ts: string
  marker_truncated: string
  /** up to 160 characters around the marker, controls made visible */
  text: string
}

/** An excerpt as read, with the tenants on its two sides (never printed): a draft for one controller keeps only its own. */
export interface ExcerptInput extends Excerpt {
  source_tenant: string | null
  recipient_tenant: string
}

/** A recorded notification as the drafts state it: with whether it was late, and what it contradicts. */
export interface NotificationFact extends NotificationRecord {
  /** null: not known (no fixed deadline for it, or no incident recorded), never false for that */
  late: boolean | null
  /**
   * a processor's notification to the authority: the awareness of the controller it was made for, its
   * Art. 33(1) 72 hours counted from it (the processor's first initial notice to that controller); null:
   * not known (no controller named, or no notice to it recorded); absent: not such a notification
   */
  controller_aware_at?: string | null
}

export interface StaleScopeFacts {
  /** the markers' classes are stale (the canary registry, or the sighting rules, changed since the last scan): the markers' figures are unknown */
  markers_stale: boolean
  /** why the markers' figures are stale (staleFindings); null where they are not */
  markers_stale_cause: MarkersStaleCause | null
  /** canary-less provenance does not cover the case (skipped, or evidence dropped, since it ran): the verbatim-text figures are unknown */
  provenance_stale: boolean
  /** false: the case holds no canary registry, so the markers' figures are unknown whatever changed */
  registry: boolean
  contaminated_responses: number | null
  cross_tenant_responses: number | null
  cross_session_responses: number | null
  exposed_sessions: number | null
  exposed_tenants: number | null
  recipient_tenants: number | null
  orphan_sightings: number | null
  provenance_responses: number | null
  /** of provenance_responses, those repeating another tenant's text (null where provenance is stale) */
  provenance_cross_tenant_responses: number | null
  /**
   * the kinds of personal data (email, iban, ...) the personal-data scan attributed to another
   * session (sent first by it), which rest on neither the registry nor the markers; null where
   * provenance is stale (evidence dropped since the scan: who sent a value first may have changed)
   */
  pii_attributed_kinds: string[] | null
  at_risk_responses: number | null
  at_risk_unknown_records: number | null
  pool_tokens: number | null
}

export interface CaseFacts {
  generated_at: string
  /** true: the case holds a Spark job's findings, and its open items name the job's remedies (remediesOf) */
  spark_findings?: boolean
  incident: IncidentRecord | null
  amendments: AwarenessAmendment[]
  /** each change of the incident's role (amendment field `role`), oldest first */
  role_changes: AwarenessAmendment[]
  clock: ClockResult | null
  notifications: NotificationFact[]
  /** tenant (as shown) -> when its first label of another customer was stored; absent: none stored (tenant-labels.ts) */
  tenant_labels_first_given?: ReadonlyMap<string, string>
  /** recorded notifications the incident now contradicts (e.g. after an awareness amendment) */
  notification_problems: string[]
  assessment: AssessmentRecord | null
  /** scans finished after the latest assessment (each may have changed the figures it rests on): the assessment was made on an earlier state of the case */
  scans_since_assessment?: Array<{finished_at: string; records_new: number | null; full_rescan: boolean}>
  /**
   * scans finished after the latest communication to the data subjects was recorded (each may have changed the findings):
   * people found since may not be among those it informed (empty: none recorded, or the case unchanged since)
   */
  scans_since_subjects_informed?: Array<{finished_at: string; records_new: number | null; full_rescan: boolean}>
  /**
   * log_files_by_reference: log files the case holds no copy of (ingest logs --evidence reference), kept outside the case;
   * originals_not_intact: those of them read from their original whose original is missing or no longer what was ingested (names only)
   */
  totals: {
    records: number; tenants: number; sessions: number; log_files: number; log_file_versions?: number; registry_files: number; bad_lines: number; log_files_by_reference?: number
    originals_not_intact?: Array<{name: string; state: 'missing' | 'changed'}>
    /** answers (error records aside) in complete log files, and those of them that decoded to no text: never examined for markers or text */
    answers?: number
    responses_without_text?: number
    /** records (in complete log files) whose request text the logs do not hold: the prompt was not logged, so no answer could be compared with it */
    records_without_request_text?: number
    /** names of the log sources an ingest reached and could not read, still open in the case (ingest dismiss settles one): not examined */
    unread_sources?: string[]
    /** the log sources an ingest could not read, settled with `ingest dismiss`: never searched, with the reason recorded */
    dismissed_sources?: Array<{name: string; reason: string}>
    /** names of the log files kept but not read whole (a damaged gzip's tail, model texts of a convention not read): what was not read was not examined */
    files_not_read_whole?: string[]
    /** names of the log files whose original grew since ingest (appended to): the bytes added were never judged */
    files_grown?: string[]
    /**
     * lines kept as duplicates of a request id (a retry) whose answer carries another session's
     * marker that the request's record does not, as "file name:line": responses served that no
     * figure counts (only a request's first line is a record). Case-wide, as the gate judges them;
     * in facts narrowed to one controller, those concerning it (as retry_leaks)
     */
    duplicate_leaks?: string[]
    /**
     * lines kept as duplicates of a request id that differ from their record and could not be read
     * again: whether their answers carry another session's marker, and whose, is not known, so
     * every draft counts them all, one controller's too (its data may be in any)
     */
    duplicate_lines_not_examined?: number
    /** in facts narrowed to one controller: of those, the lines repeating its own requests; null case-wide */
    duplicate_lines_not_examined_of_tenant?: number | null
  }
  /** whether detection covered everything the case holds */
  detection: DetectionCoverage
  /** null when detection never ran over any log, or its findings do not cover the case (scopeFiguresKnown) */
  scope: ScopeFacts | null
  tenants: TenantExposure[]
  provenance: {attributed_responses: number; max_overlap_words: number} | null
  /** null when no replay is recorded in the case */
  replay: ReplayFacts | null
  evidence: EvidenceFile[]
  /** log files dropped from the case (crosstalk drop), as the audit log records each, oldest first: evidence a notification made before may have listed */
  evidence_dropped?: DroppedEvidence[]
  excerpts: Excerpt[] | null
  /** set when the facts were narrowed to one controller's exposure (a processor notifying on its behalf) */
  for_tenant: string | null
  /**
   * First and last affected response of the whole case (whatever a draft is narrowed to): what a
   * recorded breach window is checked against (recorded-vs-logs.ts). Null where there is none, or
   * where detection's figures are not known.
   */
  case_exposure_window?: {first: string; last: string} | null
  /**
   * The leaking retries (totals.duplicate_leaks) with the tenants each line records; narrowed
   * with the exposure to those that concern that controller (its data in the answer, or, side
   * both, its users served it). Each output that counts for one tenant takes its share from these.
   */
  retry_leaks?: RetryLeak[]
  /**
   * Tenants a leaking retry concerns, or whose request a retry not read again repeats, that have
   * no exposure otherwise (not in `tenants`): a processor notifies them too, of the retry alone.
   * Their figures are zeros as counted. In facts narrowed to one controller: those of the
   * retries concerning it.
   */
  retry_only_tenants?: TenantExposure[]
  /** a processor's controllers notified before (notify record --recipient TENANT) that the exposure no longer holds (after a drop or a rescan): owed a correcting follow-up */
  withdrawn_tenants?: TenantExposure[]
  /**
   * Where a scan ran but its findings no longer cover the case (staleFindings; `scope` is null
   * then): each figure as it can still be said, by its base. The markers' counts rest on the
   * registry and the marker scan, the verbatim-text count on the provenance pass, the at-risk
   * count on the records and the pool size: each is null where its base changed since the scan
   * (as in scope --json), a number where it did not. Null where scope is given or no scan ran.
   */
  stale_scope?: StaleScopeFacts | null
  /**
   * For each retry line that could not be read again (totals.duplicate_lines_not_examined), the
   * tenant of the record it repeats, as the facts show ids (null: none recorded): a notice counts
   * those repeating its customer's own requests. Case-wide facts only; narrowed, []
   */
  duplicate_lines_not_examined_tenants?: Array<string | null>
  /**
   * In facts narrowed to one controller: whether the case-wide exposure concerns it (the customers
   * the processor notices go to, affectedTenants of the whole case), and how many customers it
   * concerns. Null where the scope is not known (no scan, or findings that no longer cover the
   * case); absent for the whole case.
   */
  controller_concerned?: {concerned: boolean; affected_tenants: number} | null
}

export interface GatherFactsOptions {
  now: Date
  includeExcerpts?: boolean
  /** What-if: another pool size than the one recorded in the case by `scan --pool-tokens`. */
  poolTokens?: number
  /** The advertised context window: responses at or over it are counted (scope's over_advertised_responses). */
  advertisedTokens?: number
}

/** Everything a report reads from the case, read once (loadFactsInputs); the rest is pure. */
export interface FactsInputs {
  scope: ScopeInputs
  incident: IncidentRecord | null
  amendments: AwarenessAmendment[]
  roleChanges: AwarenessAmendment[]
  notifications: NotificationRecord[]
  assessment: AssessmentRecord | null
  /** scans finished after the latest assessment (each may have changed the figures it rests on) */
  scansSinceAssessment?: Array<{finished_at: string; records_new: number | null; full_rescan: boolean}>
  /** scans finished after the latest communication to the data subjects was recorded (each may have changed the findings) */
  scansSinceSubjectsInformed?: Array<{finished_at: string; records_new: number | null; full_rescan: boolean}>
  replay: StoredReplayResult[]
  files: EvidenceFile[]
  /** log files dropped from the case, from the audit log */
  dropped?: DroppedEvidence[]
  fileTotals: FileTotals
  /** counts over every record of complete files (a full pass: read for the drafts, not for scope) */
  recordTotals: RecordTotals
  excerpts: ExcerptInput[] | null
  /** the log sources an ingest reached and could not read, still open (their names only) */
  unreadSources?: string[]
  /** the unread log sources settled by `ingest dismiss`, with its reason */
  dismissedSources?: Array<{name: string; reason: string}>
  /** names of complete log files not read whole */
  notReadWhole?: string[]
  /** names of complete log files whose original now holds bytes beyond those ingested */
  grown?: string[]
  /** log files read from their original (kept by reference) whose original is missing or changed since ingest */
  originalsNotIntact?: Array<{name: string; state: 'missing' | 'changed'}>
  /** the case holds a Spark job's findings (ingest findings): logs, canaries and scans cannot join it */
  sparkFindings?: boolean
}

export const PII_LABELS: Record<string, string> = CATEGORY_LABELS.en

/** `CANARY-3f2a…`: enough to recognise a marker, never enough to reproduce it. */
export function truncateMarker(marker: string): string {
  const m = /^(CANARY-)([0-9a-fA-F]{4})/.exec(marker)
  const head = m ? `${m[1]}${m[2]}` : marker.slice(0, 4)
  return `${safeLine(head)}…`
}

export function loadFactsInputs(db: CaseDb, options: Omit<GatherFactsOptions, 'now'> & {tenant?: string; side?: 'both' | 'leaked'} = {}): FactsInputs {
  return {
    scope: loadScopeInputs(db, {poolTokens: options.poolTokens, advertisedTokens: options.advertisedTokens}),
    incident: getIncident(db),
    amendments: listAmendments(db),
    roleChanges: listRoleChanges(db),
    notifications: listNotifications(db),
    assessment: latestAssessment(db),
    scansSinceAssessment: scansAfter(db, latestAssessment(db)?.at ?? null),
    scansSinceSubjectsInformed: scansAfter(db, latestSubjectsCommunication(listNotifications(db))?.recorded_at ?? null),
    replay: listReplayResults(db),
    files: evidenceFiles(completeFiles(db)),
    dropped: droppedEvidence(db),
    fileTotals: fileTotals(db),
    recordTotals: recordTotals(db),
    excerpts: options.includeExcerpts ? gatherExcerpts(db, options.tenant, options.side) : null,
    // Names only: a path of the responder's machine is no place in a document sent to others.
    unreadSources: openUnreadSources(db).map((s) => basename(s.name.replace(/\\/g, '/'))),
    dismissedSources: listUnreadSources(db)
      .filter((u) => u.settled_by === 'dismiss')
      .map((u) => ({name: basename(u.name.replace(/\\/g, '/')), reason: u.settle_note ?? ''})),
    notReadWhole: logFilesNotReadWhole(db).map((path) => basename(path.replace(/\\/g, '/'))),
    grown: grownOriginals(db).map((g) => basename(g.path.replace(/\\/g, '/'))),
    // A document says an original is kept only where it still is what was ingested (checked as verify checks it).
    originalsNotIntact: completeFiles(db)
      .filter((f) => f.kind === 'log' && readFromOriginal(f))
      .map((f) => ({name: basename(f.name.replace(/\\/g, '/')), state: originalState(f)}))
      .filter((o): o is {name: string; state: 'missing' | 'changed'} => o.state !== 'intact'),
    sparkFindings: corpusFacts(db) !== undefined,
  }
}

/** The evidence list: every complete file, a log held in a later version too marked so (counted once among the log files). */
/** A log file dropped from the case: when, its name (never its path), bytes, the records it held, and the reason recorded with the drop. */
export interface DroppedEvidence {
  at: string
  /** 'canaries': a canary registry withdrawn (its markers no longer classify anything); absent: a log file */
  kind?: 'canaries'
  name: string
  sha256: string
  records: number
  reason: string
}

/** Each file the audit log records as dropped (crosstalk drop), oldest first. */
export function droppedEvidence(db: CaseDb): DroppedEvidence[] {
  const out: DroppedEvidence[] = []
  for (const e of auditEntriesOf(db, 'drop')) {
    let summary: {dropped?: Array<{path?: unknown; sha256?: unknown; records?: unknown}>; registries_dropped?: Array<{path?: unknown; sha256?: unknown; entries?: unknown}>; reason?: unknown}
    try {
      summary = JSON.parse(e.summary) as typeof summary
    } catch {
      continue
    }
    for (const f of summary.dropped ?? []) {
      if (typeof f.path !== 'string' || typeof f.sha256 !== 'string') continue
      out.push({at: e.at, name: basename(f.path.replace(/\\/g, '/')), sha256: f.sha256, records: typeof f.records === 'number' ? f.records : 0, reason: typeof summary.reason === 'string' ? summary.reason : ''})
    }
    for (const f of summary.registries_dropped ?? []) {
      if (typeof f.path !== 'string' || typeof f.sha256 !== 'string') continue
      out.push({at: e.at, kind: 'canaries', name: basename(f.path.replace(/\\/g, '/')), sha256: f.sha256, records: typeof f.entries === 'number' ? f.entries : 0, reason: typeof summary.reason === 'string' ? summary.reason : ''})
    }
  }
  return out
}

/** The files dropped after a time (a notification recorded): evidence it may have listed that the case no longer holds. */
export function droppedSince<D extends {at: string}>(dropped: readonly D[] | undefined, since: string): D[] {
  const t = Date.parse(since)
  return (dropped ?? []).filter((d) => Date.parse(d.at) > t)
}

function evidenceFiles(files: readonly FileRow[]): EvidenceFile[] {
  const continued = new Set(files.map((f) => f.continues_file_id).filter((id): id is number => id !== null))
  // Each log's versions, first to last (a later version continues the one before): one log, however many versions.
  const byId = new Map(files.map((f) => [f.id, f]))
  const firstOf = (f: FileRow): FileRow => {
    let at = f
    for (const seen = new Set<number>(); at.continues_file_id !== null && byId.has(at.continues_file_id) && !seen.has(at.id); at = byId.get(at.continues_file_id)!) seen.add(at.id)
    return at
  }
  const chains = new Map<number, FileRow[]>()
  for (const f of files) {
    const first = firstOf(f).id
    const chain = chains.get(first)
    if (chain) chain.push(f)
    else chains.set(first, [f])
  }
  const display = (f: FileRow): string => basename(f.name.replace(/\\/g, '/'))
  // Logs (each counted once, whatever its versions) and registries that share a name: numbered apart.
  const named = new Map<string, number[]>()
  for (const first of chains.keys()) {
    const f = byId.get(first)!
    const key = `${f.kind}\u0000${display(f)}`
    const same = named.get(key)
    if (same) same.push(first)
    else named.set(key, [first])
  }
  return files.map((f) => {
    const first = firstOf(f)
    const chain = chains.get(first.id)!
    const k = chain.indexOf(f)
    const sameName = named.get(`${first.kind}\u0000${display(first)}`)!
    return {
      name: display(f), sha256: f.sha256, size: f.size, kind: f.kind, records: f.records,
      ...(f.evidence === 'reference' ? {by_reference: true} : {}), ...(continued.has(f.id) ? {earlier_version: true} : {}),
      ...(chain.length > 1 ? {version: {number: k + 1, of: chain.length, records_held: chain.slice(0, k + 1).reduce((n, v) => n + v.records, 0)}} : {}),
      ...(sameName.length > 1 ? {same_name: {number: sameName.indexOf(first.id) + 1, of: sameName.length}} : {}),
    }
  })
}

export function gatherFacts(db: CaseDb, options: GatherFactsOptions): CaseFacts {
  return buildFacts(loadFactsInputs(db, options), options.now)
}

export interface BuildFactsOptions {
  /** Narrow the exposure to one controller (tenant): its data that reached others, and what it received. */
  tenant?: string
  /**
   * Which side of that controller's exposure: both (the default: its data that reached others
   * and what its users received), or only its data that reached others (a letter to its own
   * data subjects is about their data, not about what they were shown of other people's).
   */
  side?: 'both' | 'leaked'
}

/** The facts every report is built from, computed from what loadFactsInputs read. Pure. */
export function buildFacts(inputs: FactsInputs, now: Date, options: BuildFactsOptions = {}): CaseFacts {
  const incident = inputs.incident
  const s = options.tenant === undefined ? inputs.scope : narrowTo(inputs.scope, options.tenant, options.side ?? 'both')
  // The figures of findings that do not cover the case (a registry changed since the scan, provenance
  // skipped or dropped since) are unknown, as scope's are (staleFindings decides for both): no draft
  // states them, each says why in its detection note and open items.
  const full = scopeFiguresKnown(s.detection) ? computeScope(s) : null
  const tenants = full ? exposureTenants(exposureRows(s)) : []
  const notifications: NotificationFact[] = inputs.notifications.map((n) => ({
    ...n,
    recipient: safeId(n.recipient),
    recipient_kind: recipientKind(n),
    reference: safeLine(n.reference),
    delay_reason: n.delay_reason === null ? null : safeLine(n.delay_reason),
    controller: n.controller === null || n.controller === undefined ? null : safeId(n.controller),
    late: incident ? notificationLate(incident, n, inputs.notifications) : null,
    ...(incident && controllerAwareAt(incident, n, inputs.notifications) !== undefined ? {controller_aware_at: controllerAwareAt(incident, n, inputs.notifications)} : {}),
  }))
  // The controllers concerned, a leaking retry's too (as `clock` counts them): one set for the clock and the notices.
  // A retry not read again concerns the tenant whose request it repeats (narrowed: this controller's own only).
  const unreadOf = (inputs.scope.duplicates?.unexamined_tenants ?? []).filter((t) => options.tenant === undefined || t === options.tenant)
  const concerned = full ? concernedTenants(tenants, retriesOf(inputs.scope, options.tenant, options.side ?? 'both'), unreadOf) : []
  // Which controllers to notify is known only where detection covers the case and every marker found could be attributed (exposureKnown).
  const markersAttributed = exposureKnown(inputs.files.some((f) => f.kind !== 'log'), inputs.scope.orphans)
  // A processor's controllers notified before that the exposure no longer holds (after a drop, a rescan): kept in its clock,
  // owed a follow-up that corrects the notice. (Narrowed to one controller: that controller only.)
  const withdrawn = full && incident?.role === 'processor'
    ? [...new Set(inputs.notifications.map(noticeController).filter((r): r is string => r !== null && !concerned.includes(r) && (options.tenant === undefined || r === options.tenant)))]
    : []
  // Nor where responses were set aside as boilerplate: each is not known to be free of another session's data (as `clock` says).
  const setAside = inputs.scope.detection.provenance_boilerplate_responses ?? 0
  const clock = incident
    ? computeCaseClock(incident, inputs.notifications, now, concerned, inputs.scope.detection.complete && markersAttributed && setAside === 0, !inputs.scope.detection.complete ? 'detection' : !markersAttributed ? 'markers' : 'boilerplate', setAside, owedOf(correctionsOf(withdrawn, inputs.notifications, inputs.dropped ?? [])))
    : null
  const logFiles = inputs.files.filter((f) => f.kind === 'log')
  const totals = {
    records: inputs.recordTotals.records,
    tenants: inputs.recordTotals.tenants,
    sessions: inputs.recordTotals.sessions,
    // Only log files hold responses: a canary registry is evidence, not a log. A log held in two
    // versions (ingested again once it grew, the later one read from where the earlier ends) is one file.
    log_files: logFiles.filter((f) => !f.earlier_version).length,
    // Every version of them: the rows of the evidence manifest ("2 log files (3 versions)").
    log_file_versions: logFiles.length,
    registry_files: inputs.files.length - logFiles.length,
    bad_lines: inputs.fileTotals.bad_lines,
    log_files_by_reference: logFiles.filter((f) => f.by_reference && !f.earlier_version).length,
    originals_not_intact: (inputs.originalsNotIntact ?? []).map((o) => ({name: safeLine(o.name), state: o.state})),
    answers: inputs.fileTotals.answers,
    responses_without_text: inputs.fileTotals.no_response_text,
    records_without_request_text: inputs.fileTotals.no_request_text,
    unread_sources: (inputs.unreadSources ?? []).map(safeLine),
    files_not_read_whole: (inputs.notReadWhole ?? []).map(safeLine),
    files_grown: (inputs.grown ?? []).map(safeLine),
    dismissed_sources: (inputs.dismissedSources ?? []).map((d) => ({name: safeLine(d.name), reason: safeLine(d.reason)})),
    // Names only: a path of the responder's machine is no place in a document sent to others.
    // A draft for one controller names only those concerning it (its data in the answer, or served to its users), as its exposure is narrowed.
    duplicate_leaks: retriesOf(inputs.scope, options.tenant, options.side ?? 'both').map((d) => safeLine(`${basename(d.path.replace(/\\/g, '/'))}:${d.line_no}`)),
    // Not narrowed: whose marker an unread line carries is not known, so it may be this controller's.
    duplicate_lines_not_examined: inputs.scope.duplicates?.unexamined ?? 0,
    duplicate_lines_not_examined_of_tenant: options.tenant === undefined ? null : tenantUnexaminedDuplicates(inputs.scope.duplicates, options.tenant).of_this_tenant,
  }
  const provenanceIds = new Set(s.provenance.map((p) => p.record_id))
  return {
    generated_at: now.toISOString(),
    ...(inputs.sparkFindings ? {spark_findings: true} : {}),
    incident: incident ? sanitizeRecord(incident) : null,
    amendments: inputs.amendments.map((a) => sanitizeRecord(a)),
    role_changes: inputs.roleChanges.map((a) => sanitizeRecord(a)),
    clock,
    notifications,
    tenant_labels_first_given: new Map([...(inputs.scope.tenantLabelsFirstGiven ?? [])].map(([tenant, at]) => [safeId(tenant), at])),
    // A draft for one controller reports on its own notices (and the authority's and the data subjects'), not on other customers'.
    notification_problems: incident ? notificationProblems(incident, inputs.notifications, now, (n) => options.tenant === undefined || concernsController(n, options.tenant)).map(safeLine) : [],
    assessment: inputs.assessment,
    scans_since_assessment: inputs.scansSinceAssessment ?? [],
    scans_since_subjects_informed: inputs.scansSinceSubjectsInformed ?? [],
    totals,
    detection: s.detection,
    scope: full ? forController(scopeFacts(full, s), s, options.tenant, inputs.scope, options.side ?? 'both') : null,
    tenants: full ? tenantExposures(s, tenants) : [],
    provenance: full ? {attributed_responses: provenanceIds.size, max_overlap_words: s.provenance.reduce((m, p) => Math.max(m, p.overlap_words), 0)} : null,
    replay: replayFacts(inputs.replay),
    evidence_dropped: (inputs.dropped ?? []).map((d) => ({...d, name: safeLine(d.name), reason: safeLine(d.reason)})),
    evidence: inputs.files.map(({by_reference: _, earlier_version: __, ...f}) => ({...f, name: safeLine(f.name)})),
    // A draft for one controller carries the excerpts of its own leaks only (as narrowTo keeps its rows), whatever was read.
    excerpts: inputs.excerpts === null ? null : inputs.excerpts.filter((e) => options.tenant === undefined || e.source_tenant === options.tenant || ((options.side ?? 'both') === 'both' && e.recipient_tenant === options.tenant)).map(({source_tenant: _s, recipient_tenant: _r, ...e}) => e),
    for_tenant: options.tenant === undefined ? null : safeId(options.tenant),
    case_exposure_window: full ? exposureWindow(inputs.scope) : null,
    retry_leaks: retryLeaks(retriesOf(inputs.scope, options.tenant, options.side ?? 'both')),
    duplicate_lines_not_examined_tenants: options.tenant === undefined ? (inputs.scope.duplicates?.unexamined_tenants ?? []).map((t) => (t === null ? null : safeId(t))) : [],
    retry_only_tenants: full ? tenantExposures(s, concerned.filter((t) => !tenants.includes(t))) : [],
    withdrawn_tenants: full ? tenantExposures(s, withdrawn) : [],
    stale_scope: full || nothingSearched(s.detection) ? null : staleScopeFacts(s, totals.registry_files > 0),
    ...(options.tenant === undefined ? {} : {controller_concerned: full ? controllerConcerned(inputs.scope, options.tenant) : null}),
  }
}

/** Whether the whole case's exposure concerns a controller, over the same set the processor notices go to (affectedTenants of case-wide facts). */
function controllerConcerned(all: ScopeInputs, tenant: string): {concerned: boolean; affected_tenants: number} {
  const affected = concernedTenants(exposureTenants(exposureRows(all)), all.duplicates?.leaking ?? [], all.duplicates?.unexamined_tenants ?? [])
  return {concerned: affected.includes(tenant), affected_tenants: affected.length}
}

/**
 * A draft a processor prepares for one controller (Art. 33 or 34 on its behalf) is refused for a
 * customer the case shows no exposure of, as its processor notice is (E_NO_EXPOSURE): it would be a
 * breach notification, or a letter apologising to people, about a breach that did not touch it.
 * Where markers in answers could not be attributed (no registry), whether it is concerned is not
 * known (E_NOT_KNOWN). Nothing is refused where the scope is not known: the draft says so.
 */
export function requireControllerConcerned(facts: Pick<CaseFacts, 'for_tenant' | 'controller_concerned' | 'totals' | 'scope'>, what: string): void {
  const c = facts.controller_concerned
  if (facts.for_tenant === null || !c || c.concerned) return
  const tenant = quoted(facts.for_tenant.slice(0, 80))
  if (facts.scope && !factsExposureKnown(facts)) {
    throw new InputError(
      `${what}: tenant ${tenant}: no exposure found by verbatim text, and ${count(facts.scope.orphan_sightings, 'marker-shaped token')} found in answers could not be attributed to any session (the case holds no canary registry), so whether its data reached others or its users received others' is not known; ingest the canary registry and scan again (crosstalk ingest canaries FILE; crosstalk scan)`,
      'E_NOT_KNOWN',
    )
  }
  throw new InputError(`${what}: tenant ${tenant} has no exposure in this case (affected: ${count(c.affected_tenants, 'tenant')}; see report processor-notice --all)`, 'E_NO_EXPOSURE')
}

/**
 * The open item a draft gives where it states no scope: which findings no longer cover the case,
 * and why, where a scan ran (not "detection has not run"); else the case was never scanned.
 */
export function noScopeItem(facts: Pick<CaseFacts, 'detection'>, open: {noScan: string; findingsStale: (markers: MarkersStaleCause | null, provenance: boolean) => string}): string {
  const stale = staleFindings(facts.detection)
  return stale.markers || stale.provenance ? open.findingsStale(stale.markers_cause, stale.provenance) : open.noScan
}

/** The figures of a scan whose findings do not cover the case, each as scope --json gives it (knownScope): null where its base changed since the scan. */
function staleScopeFacts(s: ScopeInputs, registry: boolean): StaleScopeFacts {
  const stale = staleFindings(s.detection)
  const k = knownScope(computeScope(s), registry)
  return {
    markers_stale: stale.markers, markers_stale_cause: stale.markers_cause, provenance_stale: stale.provenance, registry,
    contaminated_responses: k.contaminated_responses, cross_tenant_responses: k.cross_tenant_responses, cross_session_responses: k.cross_session_responses,
    exposed_sessions: k.exposed_sessions, exposed_tenants: k.exposed_tenants, recipient_tenants: k.recipient_tenants,
    // Without a registry every marker found is registered to nobody: the count rests on the marker scan alone.
    orphan_sightings: stale.markers ? null : k.orphan_sightings,
    provenance_responses: k.provenance_responses, provenance_cross_tenant_responses: k.provenance_cross_tenant_responses,
    pii_attributed_kinds: stale.provenance ? null : [...new Set(s.pii.filter((p) => p.source_session !== null || p.source_tenant !== null).map((p) => safeLine(p.kind)))].sort(),
    at_risk_responses: k.at_risk_responses, at_risk_unknown_records: k.at_risk_unknown_records, pool_tokens: k.pool_tokens,
  }
}

/** The leaking retries of the case, or those concerning one controller (as narrowTo narrows the exposure). */
function retriesOf(inputs: ScopeInputs, tenant: string | undefined, side: 'both' | 'leaked'): LeakingDuplicate[] {
  const all = inputs.duplicates?.leaking ?? []
  return tenant === undefined ? all : all.filter((d) => retryConcerns(d, tenant, side))
}

/**
 * Whether the facts' exposure is known (exposureKnown): not where the case holds no canary
 * registry and answers hold marker-shaped tokens, whose owners (and so the controllers concerned)
 * are then not known. Every figure of the exposure is then the verbatim text's, a lower bound.
 */
export function factsExposureKnown(facts: Pick<CaseFacts, 'totals' | 'scope'>): boolean {
  return facts.scope === null || exposureKnown(facts.totals.registry_files > 0, facts.scope.orphan_sightings)
}

/**
 * Whether the set of controllers a processor notifies is known (as the clock says): only where the
 * facts hold findings, detection covers every ingested log file (a file ingested after the last
 * scan may name another controller), and every marker found could be attributed (factsExposureKnown).
 */
export function factsControllersKnown(facts: Pick<CaseFacts, 'totals' | 'scope' | 'detection'>): boolean {
  return factsControllersUnknownBecause(facts) === null
}

/**
 * Why the set of controllers is not known (null: it is): no findings or detection incomplete,
 * markers not attributable, or responses set aside as boilerplate (each not known to be free of
 * another session's data, so which customers' data it carries is not known).
 */
export function factsControllersUnknownBecause(facts: Pick<CaseFacts, 'totals' | 'scope' | 'detection'>): ControllersUnknownBecause | null {
  if (facts.scope === null || !facts.detection.complete) return 'detection'
  if (!factsExposureKnown(facts)) return 'markers'
  return (facts.detection.provenance_boilerplate_responses ?? 0) > 0 ? 'boilerplate' : null
}

/**
 * The controllers a processor notifies, the set every output that lists or counts them uses (the
 * clock, the notices, the register, the drafts): the tenants on either side of the exposure, then
 * those only a leaking retry concerns (concernedTenants).
 */
/**
 * The controllers notified of an exposure the case no longer shows, with the notice each was sent last,
 * and whether a correction is still owed: none is recorded after the latest drop (or, with no drop, after the initial notice).
 */
export function withdrawnControllers(facts: Pick<CaseFacts, 'withdrawn_tenants' | 'notifications' | 'evidence_dropped'>): Array<{tenant: string; notice: NotificationFact; correction_owed: boolean}> {
  return correctionsOf((facts.withdrawn_tenants ?? []).map((t) => t.tenant_id), facts.notifications, facts.evidence_dropped ?? [])
}

/** The clock's corrections owed: a withdrawn controller no longer among those affected, with when it was notified. */
export function owedOf(corrections: ReadonlyArray<{tenant: string; notice: {at: string}; correction_owed: boolean}>): Array<{tenant_id: string; notified_at: string}> {
  return corrections.filter((c) => c.correction_owed).map((c) => ({tenant_id: c.tenant, notified_at: c.notice.at}))
}

/** withdrawnControllers over plain notifications (the clock's): each withdrawn controller's notice, and whether a correction is still owed. */
export function correctionsOf<N extends RecipientOf & {phase: 'initial' | 'follow-up'; recorded_at: string}>(withdrawn: readonly string[], notifications: readonly N[], dropped: ReadonlyArray<{at: string}>): Array<{tenant: string; notice: N; correction_owed: boolean}> {
  const lastDrop = dropped.reduce<string | null>((last, d) => (last === null || Date.parse(d.at) > Date.parse(last) ? d.at : last), null)
  return withdrawn.flatMap((tenant) => {
    const sent = notifications.filter((n) => noticeController(n) === tenant)
    const initial = sent.find((n) => n.phase === 'initial') ?? sent[0]
    if (!initial) return []
    const corrected = sent.some((n) => n.phase === 'follow-up' && Date.parse(n.recorded_at) > Date.parse(lastDrop ?? initial.recorded_at))
    return [{tenant, notice: initial, correction_owed: !corrected}]
  })
}

export function affectedTenants(facts: Pick<CaseFacts, 'tenants' | 'retry_only_tenants'>): string[] {
  return [...facts.tenants, ...(facts.retry_only_tenants ?? [])].map((t) => t.tenant_id)
}

/**
 * What the scans covered, and what was ingested and never scanned: a document states the
 * responses and log files examined as those a scan covered (--allow-incomplete), never all
 * those the case holds.
 */
export function examinedTotals(facts: Pick<CaseFacts, 'totals' | 'detection'>): {records: number; log_files: number; log_file_versions: number; not_scanned: {records: number; files: number}} {
  const d = facts.detection
  const logFiles = Math.max(0, facts.totals.log_files - d.files_not_scanned)
  return {
    records: Math.max(0, facts.totals.records - d.records_not_scanned),
    log_files: logFiles,
    // A log held in several versions (the evidence manifest's rows) is one log file: never fewer versions than files.
    log_file_versions: Math.max(logFiles, (facts.totals.log_file_versions ?? facts.totals.log_files) - d.files_not_scanned),
    not_scanned: {records: d.records_not_scanned, files: d.files_not_scanned},
  }
}

/** How an unread log source leaves the open items: read whole, or settled with a reason. */
export const UNREAD_SOURCES_REMEDY = 'crosstalk ingest logs PATH; crosstalk scan / crosstalk ingest dismiss PATH --reason "..."'
/** How a log file kept but not read whole is completed (the open item's record_with). */
/** How a retry's uncounted leak leaves the open items (its record_with): each line named, then judged by hand. */
export const ORIGINALS_REMEDY = 'crosstalk verify; crosstalk relocate OLD NEW'
/** A personal-data finding attributed to another session: the findings to review (with their values where the responder asks). */
export const PII_ATTRIBUTED_REMEDY = 'crosstalk pii; crosstalk show RECORD'
/** Records whose prompt was not logged: logs (or the field) that hold the prompts. */
export const NO_REQUEST_TEXT_REMEDY = 'crosstalk ingest logs PATH --map request=PATH; crosstalk scan'
/** Responses the verbatim-text search could not compare (a script written without spaces): reviewed by a person. */
export const NOT_COMPARABLE_REMEDY = 'crosstalk show RECORD --show-text'
export const BAD_LINES_REMEDY = 'crosstalk status --bad-lines; crosstalk ingest logs FILE; crosstalk scan'
export const NO_REGISTRY_REMEDY = 'crosstalk ingest canaries FILE; crosstalk scan'
export const DUPLICATE_LEAKS_REMEDY = 'crosstalk status (names each line and its request_id)'
/** How a log file whose original grew since ingest is completed (the open item's record_with). */
export const GROWN_REMEDY = 'crosstalk status; crosstalk ingest logs FILE; crosstalk scan'
export const NOT_READ_WHOLE_REMEDY = 'crosstalk status; crosstalk drop FILE, then crosstalk ingest logs FILE OTHER-FILES'
/** How a retry's line that could not be read again leaves the open items (its record_with). */
export const DUPLICATES_NOT_EXAMINED_REMEDY = 'crosstalk status (names each line); crosstalk scan'

/** Answers that decoded to no text: logs (or the field) that hold them. */
export const RESPONSES_WITHOUT_TEXT_REMEDY = 'crosstalk ingest logs PATH --map response=PATH; crosstalk scan'

/** The remedies of the open items a case's own commands close: they differ on a case of Spark findings. */
export interface Remedies {
  unread_sources: string
  bad_lines: string
  grown: string
  not_read_whole: string
  duplicates_not_examined: string
  no_registry: string
  no_request_text: string
  responses_without_text: string
}

const LOCAL_REMEDIES: Remedies = {
  unread_sources: UNREAD_SOURCES_REMEDY,
  bad_lines: BAD_LINES_REMEDY,
  grown: GROWN_REMEDY,
  not_read_whole: NOT_READ_WHOLE_REMEDY,
  duplicates_not_examined: DUPLICATES_NOT_EXAMINED_REMEDY,
  no_registry: NO_REGISTRY_REMEDY,
  no_request_text: NO_REQUEST_TEXT_REMEDY,
  responses_without_text: RESPONSES_WITHOUT_TEXT_REMEDY,
}

// A case of Spark findings refuses `ingest logs`, `ingest canaries`, `drop` and `scan`: its counts
// are the job's, over every shard. What it did not examine is examined by running the job again
// over the files named (with the reading flags or registry that read them) and bringing its
// findings into a new case (docs/scale.md).
const SPARK_AGAIN = 'crosstalk ingest findings DIR --db NEW-CASE'
export const SPARK_REMEDIES: Remedies = {
  unread_sources: `crosstalk status; crosstalk-spark SHARDS... again with the --log-format / --map that read the sources named, then ${SPARK_AGAIN} / crosstalk ingest dismiss PATH --reason "..."`,
  bad_lines: `crosstalk status --bad-lines; crosstalk-spark SHARDS... again with the lines corrected or the --map / --log-format that reads them, then ${SPARK_AGAIN}`,
  grown: `crosstalk status; crosstalk-spark SHARDS... again over the files as they are now, then ${SPARK_AGAIN}`,
  not_read_whole: `crosstalk status; crosstalk-spark SHARDS... again with the files named whole (or the flags that read them), then ${SPARK_AGAIN}`,
  duplicates_not_examined: `crosstalk status (names each line); crosstalk verify; crosstalk-spark SHARDS... again over the shards named, then ${SPARK_AGAIN}`,
  no_registry: `crosstalk ingest canaries FILE and crosstalk registry-export --out REGISTRY in a new case; crosstalk-spark SHARDS... --registry REGISTRY, then crosstalk ingest findings DIR --db that case`,
  no_request_text: `crosstalk-spark SHARDS... again with --map request=PATH, then ${SPARK_AGAIN}`,
  responses_without_text: `crosstalk-spark SHARDS... again with --map response=PATH (or the files that hold the answers), then ${SPARK_AGAIN}`,
}

/** The remedies that work on this case: the job's on a case of Spark findings, the case's own commands otherwise. */
export function remediesOf(facts: Pick<CaseFacts, 'spark_findings'>): Remedies {
  return facts.spark_findings ? SPARK_REMEDIES : LOCAL_REMEDIES
}

/** Whether an open item's remedy is one of a part of the logs not examined (any case's, local or Spark). */
export function isNotExaminedRemedy(recordWith: string | null | undefined): boolean {
  return recordWith != null && NOT_EXAMINED_REMEDIES.has(recordWith)
}
// Answers without text are said apart (authority-forms.ts), so their remedy is not among these.
const NOT_EXAMINED_REMEDIES = new Set<string>([
  ...[LOCAL_REMEDIES, SPARK_REMEDIES].flatMap(({responses_without_text: _, ...r}) => Object.values(r)),
  DUPLICATE_LEAKS_REMEDY,
  PII_ATTRIBUTED_REMEDY,
  NOT_COMPARABLE_REMEDY,
])

/**
 * Whether a notification belongs in a draft for this controller: the processor's notice to it, or
 * one to the authority (or the data subjects) recorded as made for it (notify record --controller).
 * One to the authority that names no controller concerns no single controller of a processor's
 * case: taking it as this one's would tell its regulator it notified (in time, under another's
 * reference) when it may never have.
 */
export function concernsController(n: RecipientOf & {controller?: string | null}, tenant: string): boolean {
  if (noticeController(n) === tenant) return true
  return noticeController(n) === null && (n.controller ?? null) === tenant
}

/** Authority notifications of a processor's case recorded without the controller they were made for: a draft for one controller says they exist. */
export function unattributedAuthorityNotifications<N extends RecipientOf & {controller?: string | null}>(notifications: readonly N[]): N[] {
  return notifications.filter((n) => toAuthority(n) && (n.controller ?? null) === null)
}

/** The data-subject method's low bound for one controller's share (the whole case's: SUBJECTS_LOW). */
const subjectsLowController = (c: ControllerSubjects): string =>
  `low: distinct sessions of this controller on either side of the exposure: ${c.reached_others} whose data (canary marker or verbatim content) reached another session, ${c.served_others} that ${c.served_others === 1 ? 'was' : 'were'} served another session's data (a session on both sides counted once: ${c.total}); other customers' sessions are theirs to count. The letter to this controller's data subjects (report article34) states the same count. `

/**
 * One controller's end users on either side of the exposure, counted over every row of the case
 * (not the rows a draft narrowed to one side): its Article 33 draft and its letter to data
 * subjects state this one count, whichever side each describes.
 */
export function controllerSubjects(all: Pick<ScopeInputs, 'contamination' | 'provenance'>, tenant: string): ControllerSubjects {
  const reached = new Set<string>()
  const served = new Set<string>()
  const times: number[] = []
  for (const r of exposureRows(all)) {
    if (r.source_tenant === tenant && r.source_session !== null) reached.add(r.source_session)
    if (r.recipient_tenant === tenant) served.add(r.recipient_session)
    if ((r.source_tenant === tenant || r.recipient_tenant === tenant) && timeIsFact(r)) times.push(r.ts_ms)
  }
  const window = minMax(times)
  return {
    reached_others: reached.size, served_others: served.size, total: new Set([...reached, ...served]).size,
    first: window === null ? null : new Date(window[0]).toISOString(), last: window === null ? null : new Date(window[1]).toISOString(),
  }
}

/**
 * A controller's share (a draft a processor prepares for that controller) counts that
 * controller's data subjects only, and names the other customers only by the labels its
 * processor notice gives them (tenant#1, ...): they are the processor's other customers, and
 * the draft goes to that controller.
 */
function forController(scope: ScopeFacts, s: ScopeInputs, tenant: string | undefined, all: ScopeInputs, side: 'both' | 'leaked'): ScopeFacts {
  if (tenant === undefined) return scope
  const labels = otherTenantLabels(s, tenant)
  // The flows' names are already made inert (safeLine): the labels are looked up the same way.
  const inert = new Map([...labels].map(([name, label]) => [safeId(name), label]))
  const self = safeId(tenant)
  const name = (t: string): string => (t === self ? t : (inert.get(t) ?? 'another customer'))
  const relabel = (f: ScopeFlow): ScopeFlow => ({...f, source_tenant: name(f.source_tenant), recipient_tenant: name(f.recipient_tenant)})
  // Ordered by label, not by the names they replace.
  const order = (a: ScopeFlow, b: ScopeFlow): number =>
    a.source_tenant.localeCompare(b.source_tenant, 'en', {numeric: true}) || a.recipient_tenant.localeCompare(b.recipient_tenant, 'en', {numeric: true})
  // Its end users on either side: those whose data reached someone, and those served someone else's,
  // over the whole case's rows: a draft narrowed to one side (the letter to data subjects) counts them alike.
  const subjects = controllerSubjects(all, tenant)
  // The categories of data breached are this controller's data that reached others (its breach):
  // never the other customers' data its users were served, which is their controllers' breach
  // (its processor notice gives that apart, as received). Counted over its side alone.
  const categories = side === 'leaked' ? scope.categories : scopeFacts(computeScope(narrowTo(all, tenant, 'leaked'))).categories
  return {
    ...scope,
    categories,
    flows: scope.flows.map(relabel).sort(order),
    exposure: {...scope.exposure, flows: scope.exposure.flows.map(relabel).sort(order)},
    data_subjects: {...scope.data_subjects, low: subjects.total, method: scope.data_subjects.method.replace(SUBJECTS_LOW, subjectsLowController(subjects))},
    controller_subjects: subjects,
  }
}

/**
 * One controller's share of the evidence: what of its end users reached others, and what its
 * end users received. Case-wide bounds (at-risk responses, sessions served by a leaking node)
 * are not narrowed: they are left unknown rather than overstated (the pool size stays: it is
 * the case's, and the drafts say why the bounds are missing).
 */
function narrowTo(inputs: ScopeInputs, tenant: string, side: 'both' | 'leaked'): ScopeInputs {
  const involved = (r: {source_tenant: string | null; recipient_tenant: string}): boolean => r.source_tenant === tenant || (side === 'both' && r.recipient_tenant === tenant)
  return {
    ...inputs,
    contamination: inputs.contamination.filter(involved),
    provenance: inputs.provenance.filter(involved),
    pii: inputs.pii.filter(involved),
    atRisk: null,
    atRiskByTenant: null,
    atRiskUndecided: null,
    atRiskUndecidedRule: inputs.atRiskUndecidedRule,
    atRiskUndecidedByTenant: null,
    exposure: null,
    // The pool is the case's, recorded by scan: the draft states it, and says why the bounds built on it are missing.
    narrowed: true,
  }
}

function sanitizeRecord<T extends object>(record: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(record)) out[k] = typeof v === 'string' ? safeLine(v) : v
  return out as T
}

/** computeScope's result reduced to what reports show; every log-derived string made inert. */
export function scopeFacts(s: ScopeResult, inputs?: Pick<ScopeInputs, 'contamination' | 'provenance'>): ScopeFacts {
  const categories: Category[] = s.data_categories.map((c) => ({
    kind: safeLine(c.category),
    label: CATEGORY_LABELS.en[c.category] ?? safeLine(c.label),
    count: c.distinct_values ?? c.responses,
    responses: c.responses,
  }))
  const leaked = s.exposure.responses
  // The conversation text itself is a category only where some response disclosed it.
  if (leaked > 0) categories.push({kind: 'free_text', label: CATEGORY_LABELS.en.free_text!, count: leaked, responses: leaked})
  const times = inputs ? factTimes(exposureRows(inputs)) : []
  const first = times.length > 0 ? new Date(Math.min(...times)).toISOString() : s.first_seen
  const last = times.length > 0 ? new Date(Math.max(...times)).toISOString() : s.last_seen
  const inert = (f: ScopeFlow): ScopeFlow => ({source_tenant: safeId(f.source_tenant), recipient_tenant: safeId(f.recipient_tenant), responses: f.responses})
  return {
    contaminated_responses: s.contaminated_responses,
    cross_tenant_responses: s.cross_tenant_responses,
    cross_session_responses: s.cross_session_responses,
    exposed_sessions: s.exposed_sessions,
    exposed_tenants: s.exposed_tenants,
    recipient_tenants: s.recipient_tenants,
    first_seen: s.first_seen,
    last_seen: s.last_seen,
    at_risk_responses: s.at_risk_responses,
    at_risk_unknown_records: s.at_risk_unknown_records,
    flows: s.flows.map(inert),
    exposure: {...s.exposure, flows: s.exposure.flows.map(inert)},
    pool_tokens: s.pool_tokens,
    orphan_sightings: s.orphan_sightings,
    responses_dated_after_ingest: s.responses_dated_after_ingest,
    responses_dated_before_marker_issued: s.responses_dated_before_marker_issued,
    provenance_responses: s.provenance_responses,
    provenance_only_responses: s.provenance_only_responses,
    pii_attributed_only_responses: s.pii_attributed_only_responses,
    pii_attributed_only_flows: s.pii_attributed_only_flows.map(inert),
    contaminated_without_prompt: s.contaminated_without_prompt,
    contaminated_prompt_in_part: s.contaminated_prompt_in_part,
    prompt_in_part_members: s.prompt_in_part?.members ?? [],
    by_hour: s.by_hour.map((h) => ({
      hour: h.hour,
      responses: h.contaminated_responses,
      cross_tenant_responses: h.cross_tenant_responses,
      provenance_responses: h.provenance_responses,
      text_only_responses: h.text_only_responses,
      at_risk_responses: h.at_risk_responses,
    })),
    by_node: s.by_node
      .filter((n) => n.contaminated_responses > 0 || n.provenance_responses > 0)
      .map((n) => ({
        node: n.decode_node === null ? '(unknown)' : safeLine(n.decode_node),
        responses: n.contaminated_responses,
        cross_tenant_responses: n.cross_tenant_responses,
        cross_session_responses: n.cross_session_responses,
        provenance_responses: n.provenance_responses,
        at_risk_responses: n.at_risk_responses,
        first_seen: n.first_seen,
        last_seen: n.last_seen,
      })),
    data_subjects: {low: s.data_subjects.low, high: s.data_subjects.high, method: s.data_subjects.method},
    records: {low: s.records_concerned.low, high: s.records_concerned.high, method: s.records_concerned.method},
    categories,
    bug_window: s.bug_window,
    exposure_first: first,
    exposure_last: last,
    method:
      `exposure: responses holding a canary marker registered to another session (cross_session, cross_tenant sightings) or verbatim text of another session's earlier prompt or answer (${provenanceMethodEn(s.detection.provenance_parameters)}), in completely loaded log files; each part is counted and shown`,
  }
}

/**
 * The provenance parameters as the method states them: those the stored findings were made
 * with (the last scan's), never the defaults.
 */
export function provenanceMethodEn(p: ProvenanceParameters | null): string {
  return p === null ? 'provenance' : `provenance, ${p.min_words}+ words; text found in ${p.boilerplate_tenants} or more customers' sessions set aside as boilerplate`
}

export function provenanceMethodFr(p: ProvenanceParameters | null): string {
  return p === null ? 'provenance' : `provenance, ${p.min_words} mots ou plus ; texte présent dans les sessions de ${p.boilerplate_tenants} clients ou plus écarté comme texte standard`
}

/** Trials of a stored result that were judged: its trials less those that hung or errored. */
function judgedOf(r: StoredReplayResult): number {
  return Math.max(0, r.trials - r.hung - r.errors)
}

/** The order the drafts name stand-in sizings in: as recorded first, then the further from it. */
const SCALINGS = ['as_recorded', 'scaled_to_pool', 'clamped_to_gap', 'clamped_to_window', 'unrecorded_window_max']
const scalingRank = (scaling: string): number => (SCALINGS.includes(scaling) ? SCALINGS.indexOf(scaling) : SCALINGS.length)

/** Replay results grouped by target and purpose, distinct records per group. */
export function replayFacts(stored: readonly StoredReplayResult[]): ReplayFacts | null {
  // A trigger that hung or errored tested nothing: the figures count judged trials only, and a
  // result none of whose trials was judged stored by an earlier release as a verdict is no
  // finding at all. One stored as inconclusive is counted as such: a record that could not be judged.
  const rows = stored.filter((r) => r.verdict === 'confirmed' || r.verdict === 'inconclusive' || judgedOf(r) > 0)
  if (rows.length === 0) return null
  const groups = new Map<string, StoredReplayResult[]>()
  for (const r of rows) {
    const key = JSON.stringify([r.target, r.target_kind, r.target_version, r.model, r.purpose])
    const g = groups.get(key)
    if (g) g.push(r)
    else groups.set(key, [r])
  }
  return {
    groups: [...groups.values()].map((g) => {
      const byRecord = new Map<string, StoredReplayResult[]>()
      for (const r of g) byRecord.set(r.request_id, [...(byRecord.get(r.request_id) ?? []), r])
      let confirmed = 0
      let notReproduced = 0
      let rejected = 0
      let inconclusive = 0
      for (const results of byRecord.values()) {
        if (results.some((r) => r.verdict === 'confirmed')) confirmed++
        else if (results.some((r) => r.verdict === 'not_reproduced')) notReproduced++
        else if (results.some((r) => r.verdict === 'rejected')) rejected++
        else inconclusive++
      }
      const trials = g.reduce((a, r) => a + (r.verdict === 'inconclusive' ? 0 : judgedOf(r)), 0)
      // Answers not judged, as each run stored them; a row stored before they were recorded makes the sum not known.
      const unjudged = g.some((r) => r.no_text === null || r.no_text === undefined || r.incomplete === null || r.incomplete === undefined) ? null : g.reduce((a, r) => a + r.no_text! + r.incomplete!, 0)
      const reproduced = g.reduce((a, r) => a + r.reproduced, 0)
      const w = wilsonInterval(reproduced, trials)
      // Counted apart by case schema 16; a row stored before then makes each sum not known.
      const sumOf = (key: 'primer_leaks' | 'other_markers'): number | null => (g.some((r) => r[key] === null || r[key] === undefined) ? null : g.reduce((a, r) => a + r[key]!, 0))
      const ownerSessions = g.some((r) => r.other_owners === null || r.other_owners === undefined) ? null : new Set(g.flatMap((r) => r.other_owners!.map((o) => JSON.stringify([o.tenant, o.session])))).size
      // What was sent, per record: a run given --original-prompt sent a stand-in for a record whose log held no request text.
      const originalRecords = new Set(g.filter((r) => r.scaling === 'original_prompt').map((r) => r.request_id)).size
      const standIns = new Map<string, Set<string>>()
      for (const r of g) if (r.scaling !== 'original_prompt') standIns.set(r.scaling, (standIns.get(r.scaling) ?? new Set()).add(r.request_id))
      const starts = g.map((r) => r.started_at).sort()
      const first = g[0]!
      return {
        // Shown as any target is (a case from an earlier release may hold a query's API key as given).
        target: safeLine(shownTargetText(first.target)),
        target_kind: first.target_kind,
        target_version: first.target_version === null ? null : safeLine(first.target_version),
        model: safeLine(first.model),
        purpose: first.purpose,
        run_ids: [...new Set(g.map((r) => r.run_id))],
        first_at: starts[0]!,
        last_at: starts.at(-1)!,
        records: byRecord.size,
        confirmed,
        not_reproduced: notReproduced,
        rejected,
        inconclusive,
        trials,
        unjudged_trials: unjudged,
        hung_or_errored_trials: g.reduce((a, r) => a + r.hung + r.errors, 0),
        reproduced,
        // Not known where no trial was judged: null, never 0 (replay --json gives null too).
        rate: trials > 0 ? reproduced / trials : null,
        wilson_low: w.low,
        wilson_high: w.high,
        original_prompt: originalRecords > 0,
        original_prompt_records: originalRecords,
        stand_in_sizes: [...standIns].map(([scaling, records]) => ({scaling: safeLine(scaling), records: records.size})).sort((a, b) => scalingRank(a.scaling) - scalingRank(b.scaling)),
        primer_leaks: sumOf('primer_leaks'),
        other_markers: sumOf('other_markers'),
        other_owner_sessions: ownerSessions,
        interrupted: g.some((r) => r.interrupted),
      }
    }),
  }
}

/**
 * Every tenant on either side of the exposure (sightings or provenance), counted over both
 * kinds of evidence. Other tenants appear as opaque labels (the tenant view's); the lists a
 * processor may give a customer about itself (its own session ids, truncated markers, PII
 * kinds) come from the same rows.
 */
function tenantExposures(inputs: ScopeInputs, tenants: readonly string[]): TenantExposure[] {
  // Every row indexed once by the tenants on its sides: one tenant's figures read its own rows, not
  // every row of the case (a notice at 500 tenants and 100k sightings copied all of them per tenant).
  const wanted = new Set(tenants)
  const contaminationOf = indexBySide(inputs.contamination, wanted)
  const provenanceOf = indexBySide(inputs.provenance, wanted)
  const piiOf = indexBySide(inputs.pii, wanted)
  const piiBy = (t: string, keep: (p: ScopeInputs['pii'][number]) => boolean): Category[] => {
    const byKind = new Map<string, {values: Set<string>; responses: Set<number>}>()
    for (const p of piiOf.get(t) ?? []) {
      if (!keep(p)) continue
      let k = byKind.get(p.kind)
      if (!k) byKind.set(p.kind, (k = {values: new Set(), responses: new Set()}))
      k.values.add(p.value_sha256)
      k.responses.add(p.record_id)
    }
    return [...byKind]
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([kind, k]) => ({kind: safeLine(kind), label: CATEGORY_LABELS.en[kind] ?? safeLine(kind), count: k.values.size, responses: k.responses.size}))
  }
  const others = (cs: TenantCounterpart[]): Counterpart[] =>
    cs
      .filter((c) => !c.same_tenant)
      .map((c) => ({label: safeLine(c.tenant), responses: c.responses, provenance_responses: c.provenance_responses, exposure_responses: c.exposure_responses, sessions: c.sessions, first_seen: c.first_seen, last_seen: c.last_seen}))
  const sorted = (values: Iterable<string | null>): string[] => [...new Set([...values].filter((v): v is string => v !== null))].sort()
  const rows = exposureRows(inputs)
  const rowsOf = indexBySide(rows, wanted)
  const sources = notNamedSources(rows)
  // A marker cut short of several customers' sessions' markers names none of them: each is a possible source, told so.
  const markerCandidates = new Map<number, {recipients: Set<string>; candidates: Array<{tenant_id: string; session_id: string}>}>()
  for (const c of inputs.contamination) {
    if (c.source_tenant !== null || !c.possible_sources || c.possible_sources.length === 0) continue
    let m = markerCandidates.get(c.record_id)
    if (!m) markerCandidates.set(c.record_id, (m = {recipients: new Set(), candidates: []}))
    m.recipients.add(c.recipient_tenant)
    m.candidates.push(...c.possible_sources)
  }
  return tenants.map((t) => {
    // The tenant view reads only the rows with this tenant on a side: the same figures, from its own rows.
    const view = computeTenantView({...inputs, contamination: contaminationOf.get(t) ?? [], provenance: provenanceOf.get(t) ?? []}, {tenant: t})
    const out = (rowsOf.get(t) ?? []).filter((r) => r.source_tenant === t)
    const inn = (rowsOf.get(t) ?? []).filter((r) => r.recipient_tenant === t)
    const same = new Set(out.filter((r) => r.recipient_tenant === t).map((r) => r.recipient_session))
    const other = new Set(out.filter((r) => r.recipient_tenant !== t).map((r) => JSON.stringify([r.recipient_tenant, r.recipient_session])))
    const fromSame = new Set(inn.filter((r) => r.source_tenant === t).map((r) => r.source_session))
    // Verbatim text whose source provenance does not name is from no known session: neither another customer's nor its own.
    const unnamed = (r: ExposureRow): boolean => r.by === 'text' && r.source_tenant === ''
    // Per other customer, a source session that is not named (a marker cut short of several of its sessions' markers) is one
    // more only where none of that customer's is counted (sourceBounds), as the tenant view's counterparts count them.
    const fromOtherRows = inn.filter((r) => r.source_tenant !== t && !unnamed(r))
    // A marker cut short of several other customers' markers names no customer: at least one, never none.
    const customerNotNamed = new Set(fromOtherRows.filter((r) => r.source_tenant === '').map((r) => r.record_id)).size
    const fromOther = {size: [...new Set(fromOtherRows.map((r) => r.source_tenant))].reduce((k, o) => k + (o === '' ? 1 : sourceBounds(fromOtherRows.filter((r) => r.source_tenant === o)).sessions_low), 0)}
    const namedIn = new Set(inn.filter((r) => !unnamed(r)).map((r) => r.record_id))
    // A personal-data finding the detector could not attribute (source null) is someone else's where
    // the response carried another session's data (as scope's categories count it): the side is the response's.
    const foreignIn = new Set(inn.filter((r) => r.source_tenant !== t).map((r) => r.record_id))
    const ownIn = new Set(inn.filter((r) => r.source_tenant === t).map((r) => r.record_id))
    const markers = (contaminationOf.get(t) ?? []).filter((c) => c.source_tenant === t).map((c) => c.marker)
    // Text served to other customers whose recorded possible sources include this tenant's sessions.
    const possible = [...sources.candidates].filter(([, s]) => s.recipients.some((r) => r !== t) && s.candidates.some((c) => c.tenant_id === t))
    const among = possible.map(([, s]) => new Set(s.candidates.map((c) => c.tenant_id)).size)
    const possibleMarker = [...markerCandidates.values()].filter((m) => [...m.recipients].some((r) => r !== t) && m.candidates.some((c) => c.tenant_id === t))
    const amongMarker = possibleMarker.map((m) => new Set(m.candidates.map((c) => c.tenant_id)).size)
    return {
      tenant_id: safeId(t),
      leaked_sessions: sorted(out.map((r) => r.source_session)).map(safeLine),
      leaked_sessions_not_named: new Set(out.filter((r) => r.source_session === null).map((r) => r.record_id)).size,
      responses_carrying_its_data: view.leaked.exposure.responses,
      leaked_by_canary: view.leaked.exposure.by_canary,
      provenance_only_leaked: view.leaked.exposure.by_text_only,
      recipient_sessions_same_tenant: same.size,
      recipient_sessions_other_tenants: other.size,
      recipient_tenants_other: view.leaked.exposure.other_tenants,
      first_leaked: view.leaked.exposure.first_seen,
      last_leaked: view.leaked.exposure.last_seen,
      markers_truncated: truncatedMarkers(markers),
      pii_in_leaked: piiBy(t, (p) => p.source_tenant === t),
      received_foreign_responses: view.received.exposure.responses,
      received_by_canary: view.received.exposure.by_canary,
      received_by_text_only: view.received.exposure.by_text_only,
      received_source_not_named: new Set(inn.filter((r) => unnamed(r) && !namedIn.has(r.record_id)).map((r) => r.record_id)).size,
      receiving_sessions: sorted(inn.map((r) => r.recipient_session)).map(safeLine),
      received_from_tenants: Math.max(view.received.exposure.other_tenants, customerNotNamed > 0 ? 1 : 0),
      received_source_customer_not_named: customerNotNamed,
      source_sessions_same_tenant: fromSame.size,
      source_sessions_other_tenants: fromOther.size,
      first_received: view.received.exposure.first_seen,
      last_received: view.received.exposure.last_seen,
      pii_in_received: piiBy(t, (p) => p.recipient_tenant === t && (p.source_tenant !== null ? p.source_tenant !== t : foreignIn.has(p.record_id))),
      own_cross_session_responses: new Set(out.filter((r) => r.recipient_tenant === t).map((r) => r.record_id)).size,
      pii_within_own_sessions: piiBy(t, (p) => p.recipient_tenant === t && (p.source_tenant !== null ? p.source_tenant === t : ownIn.has(p.record_id) && !foreignIn.has(p.record_id))),
      counterparts_leaked_to: others(view.leaked.counterparts),
      counterparts_received_from: others(view.received.counterparts),
      possible_source_responses: possible.length,
      possible_source_sessions: sorted(possible.flatMap(([, s]) => s.candidates.filter((c) => c.tenant_id === t).map((c) => c.session_id))).map(safeLine),
      possible_sources_among: among.length > 0 ? {min: Math.min(...among), max: Math.max(...among)} : null,
      possible_sources_not_recorded: sources.notRecorded,
      possible_marker_source_responses: possibleMarker.length,
      possible_marker_source_sessions: sorted(possibleMarker.flatMap((m) => m.candidates.filter((c) => c.tenant_id === t).map((c) => c.session_id))).map(safeLine),
      possible_marker_sources_among: amongMarker.length > 0 ? {min: Math.min(...amongMarker), max: Math.max(...amongMarker)} : null,
      source_unknown_responses: sources.unknown,
      at_risk_responses: view.at_risk_responses,
      at_risk_unknown_records: view.at_risk_unknown_records,
    }
  })
}

/**
 * Each distinct marker truncated, in order; where several truncate alike (their first four hex
 * digits coincide), the form once with how many it stands for ("CANARY-3f9a… (2)"): deduplicating
 * after truncating made distinct markers vanish from the list.
 */
export function truncatedMarkers(markers: Iterable<string>): string[] {
  const counts = new Map<string, number>()
  for (const m of [...new Set(markers)].sort()) counts.set(truncateMarker(m), (counts.get(truncateMarker(m)) ?? 0) + 1)
  return [...counts].map(([t, n]) => (n === 1 ? t : `${t} (${n})`))
}

/** Rows by each wanted tenant on their source or recipient side (a row with the same tenant on both sides listed once), in their order. */
function indexBySide<R extends {source_tenant: string | null; recipient_tenant: string}>(rows: readonly R[], wanted: ReadonlySet<string>): Map<string, R[]> {
  const by = new Map<string, R[]>()
  const add = (t: string, r: R): void => {
    const list = by.get(t)
    if (list) list.push(r)
    else by.set(t, [r])
  }
  for (const r of rows) {
    if (r.source_tenant !== null && wanted.has(r.source_tenant)) add(r.source_tenant, r)
    if (r.recipient_tenant !== r.source_tenant && wanted.has(r.recipient_tenant)) add(r.recipient_tenant, r)
  }
  return by
}

/**
 * The responses whose evidence names no source, by what is known of their possible sources: the
 * recorded candidates of an ambiguous source (with the tenants that received it), the ambiguous
 * ones whose candidates were not recorded (a scan before schema 13, imported findings), and the
 * unknown ones (only in answers whose prompts were not logged).
 */
function notNamedSources(rows: readonly ExposureRow[]): {
  candidates: Map<number, {recipients: string[]; candidates: Array<{tenant_id: string; session_id: string}>}>
  notRecorded: number
  unknown: number
} {
  const named = new Set(rows.filter((r) => !(r.by === 'text' && r.source_tenant === '')).map((r) => r.record_id))
  const byResponse = new Map<number, ExposureRow[]>()
  for (const r of rows) if (!named.has(r.record_id)) byResponse.set(r.record_id, [...(byResponse.get(r.record_id) ?? []), r])
  const candidates = new Map<number, {recipients: string[]; candidates: Array<{tenant_id: string; session_id: string}>}>()
  let notRecorded = 0
  let unknown = 0
  for (const [id, rs] of byResponse) {
    if (rs.some((r) => r.possible_sources === null || r.possible_sources === undefined)) notRecorded++
    else if (rs.some((r) => (r.possible_sources?.length ?? 0) > 0)) candidates.set(id, {recipients: [...new Set(rs.map((r) => r.recipient_tenant))], candidates: rs.flatMap((r) => [...(r.possible_sources ?? [])])})
    else unknown++
  }
  return {candidates, notRecorded, unknown}
}

/**
 * Only with --include-excerpts: short windows around each marker, controls made visible. With
 * `tenant` (a draft for one controller), only the leaks that controller is on a side of, as
 * narrowTo keeps them: another customer's leak is no part of its notification.
 */
function gatherExcerpts(db: CaseDb, tenant?: string, side: 'both' | 'leaked' = 'both'): ExcerptInput[] {
  const rows = excerptSightingRows(db, tenant, side).slice(0, EXCERPTS_MAX)
  const texts = recordTextLoader(db)
  return rows.map((r) => ({
    request_id: safeLine(r.request_id),
    ts: new Date(r.ts_ms).toISOString(),
    marker_truncated: truncateMarker(r.marker),
    text: safeLine(excerptWindow(texts(r.record_id).response_text ?? '', r)),
    source_tenant: r.source_tenant,
    recipient_tenant: r.recipient_tenant,
  }))
}

const EXCERPTS_MAX = 200
const EXCERPT_CONTEXT = 80

/**
 * Every marker in `text` shortened: each marker-shaped token (the scan matches its hex in any
 * case, and a 16+ hex prefix of a registered marker is a sighting of it, partial: true), and the
 * registered marker written in any case (an unconventional one is matched as registered).
 */
export function shortenMarkers(text: string, marker: string): string {
  // First every token the scan finds, look-alikes folded (a U+2011 hyphen, invisible characters
  // inside, full-width forms), then what is left written in any letter case; a run already
  // shortened (its digits followed by the ellipsis, taken whole) is left as it is.
  const shaped = shortenMarkerTokens(text, 4).replace(/CANARY-(?=((?:(?!CANARY-)[0-9a-fA-F])+))\1(?!…)/gi, (t) => truncateMarker(t))
  if (marker === '') return shaped
  const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  return shaped.replace(new RegExp(escaped, 'gi'), (t) => truncateMarker(t))
}

/**
 * Every personal-data value the detector finds (e-mail, phone, IBAN, card, IP address) replaced
 * by its kind, every occurrence of it. An excerpt shows how another session's data reached an
 * answer (the marker, the words around it); the values themselves are not needed for that, and
 * the drafts count them by hash and say they are never reproduced (GDPR Art. 5(1)(c), data
 * minimisation: the draft goes to an authority or a customer).
 */
export function redactPii(text: string): string {
  const spans = findPii(text).map((p) => ({raw: text.slice(p.start, p.end), kind: p.kind}))
  let out = text
  for (const {raw, kind} of spans.sort((a, b) => b.raw.length - a.raw.length)) if (raw !== '') out = out.split(raw).join(`[${kind}]`)
  return out
}

/**
 * The window around one sighting: the token as the response holds it (position and token as the
 * scan recorded them), every marker in the window shortened and every personal-data value
 * replaced by its kind (redactPii). The text is shortened on each side of the token before it is
 * cut, so a window's edge never leaves a marker's tail or part of a value whole.
 */
export function excerptWindow(text: string, r: {marker: string; token: string; position: number}): string {
  const token = r.token !== '' ? r.token : r.marker
  let at = text.startsWith(token, r.position) ? r.position : text.indexOf(token)
  if (at < 0) at = text.toLowerCase().indexOf(token.toLowerCase())
  if (at < 0) return redactPii(shortenMarkers(text, r.marker)).slice(0, 2 * EXCERPT_CONTEXT)
  const before = redactPii(shortenMarkers(text.slice(0, at), r.marker))
  const after = redactPii(shortenMarkers(text.slice(at + token.length), r.marker))
  return `${before.slice(Math.max(0, before.length - EXCERPT_CONTEXT))}${truncateMarker(token)}${after.slice(0, EXCERPT_CONTEXT)}`
}

/** The latest communication to the data subjects recorded (notify record --recipient data-subjects), initial or follow-up; null: none. */
export function latestSubjectsCommunication<N extends RecipientOf & {recorded_at: string; id: number}>(notifications: readonly N[]): N | null {
  return notifications.filter((n) => toDataSubjects(n)).reduce<N | null>((last, n) => (last === null || Date.parse(n.recorded_at) > Date.parse(last.recorded_at) || (n.recorded_at === last.recorded_at && n.id > last.id) ? n : last), null)
}

/**
 * The scans finished after a time (an assessment made, a communication recorded): each may have
 * changed the figures it rests on. Every one counts, not only those that added records or rescanned
 * all: a scan after a drop adds none and lowers the figures, one with another --pool-tokens changes
 * the count of data subjects. None where no time is given.
 */
function scansAfter(db: CaseDb, since: string | null): Array<{finished_at: string; records_new: number | null; full_rescan: boolean}> {
  if (since === null) return []
  const made = Date.parse(since)
  return finishedScanRuns(db)
    .filter((r) => r.finished_at !== null && Date.parse(r.finished_at) > made)
    .map((r) => ({finished_at: r.finished_at!, records_new: r.records_new, full_rescan: r.full_rescan === 1}))
}
