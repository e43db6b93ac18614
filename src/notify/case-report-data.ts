import {noneFoundGaps} from './none-found.js'
import {EN} from './phrases-en.js'
import type {Sighting} from '../detect/list.js'
import {listSightingsWithNode} from '../detect/list.js'
import type {SightingClass} from '../extract/markers.js'
import {buildTimeline, type TimelineHour} from '../scope/build-timeline.js'
import {computeScope, type Exposure, type ScopeDataCategory, type ScopeEstimate, type ScopeFlow, type ScopeNodeRow} from '../scope/compute-scope.js'
import {exposureKnown, registrylessCategories, registrylessEstimates, scopeFiguresKnown, staleFindings, staleFindingsReason} from '../scope/unscanned.js'
import type {RetryLeak} from '../scope/retry-leaks.js'
import {basename} from 'node:path'
import {unreadableFiles} from '../detect/gate.js'
import {openUnreadSources} from '../store/unread-sources.js'
import {listAudit} from '../store/audit.js'
import type {CaseDb} from '../store/open-case.js'
import {buildArticle33} from './article33.js'
import type {AssessmentRecord} from './assessment-store.js'
import type {ClockResult} from './clock.js'
import {buildFacts, loadFactsInputs, type CaseFacts, type ReplayFacts} from './facts.js'
import type {IncidentRecord} from './incident.js'
import {affectedTenants, buildProcessorNotice} from './processor-notice.js'
import {buildRegisterEntry} from './register.js'
import type {OpenItem} from './statements.js'
import {nothingSearched} from '../detect/coverage.js'
import {recipientKind} from './recipients.js'

// Everything `crosstalk report case` shows, read once from the case by functions that
// already exist (scope, timeline, sightings, the facts the Article 33 draft is built
// from). The HTML renderer (src/cli/html/) takes this object and nothing else; under
// --json it is printed as is. Strings are as stored: the renderer escapes them.

/** A sighting row of the report (markers as the report shows them: shortened unless asked). */
export interface CaseReportSighting extends Sighting {
  /** decode node of the response the sighting was found in, of every class (null where the log gives none) */
  decode_node: string | null
}

/** `crosstalk report case --json` (without --out): the input of the HTML report. */
export interface CaseReportData {
  kind: 'case_report'
  generated_at: string
  tool_version: string
  /** false when some ingested records were never scanned, or the registry changed since */
  detection: {
    complete: boolean
    /** no scan has finished (a scan that found no record to read is a scan: nothing_searched says so) */
    never_scanned: boolean
    /** the case holds no log record for detection to search: with a scan, it searched nothing (absent: data written by hand, false) */
    no_log_records?: boolean
    /** when the last scan finished; null: none did (absent: data written by hand) */
    last_scan_at?: string | null
    files_not_scanned: number; records_not_scanned: number; registry_changed: boolean
    /** a scan ran, but its findings do not cover the case (a registry changed, provenance skipped or dropped since: staleFindings), so the drafts give no figure of them */
    findings_stale?: boolean
    /** of those findings, the canary markers' (the registry changed since the scan): every figure the markers count is unknown */
    markers_stale?: boolean
    /** of those findings, canary-less provenance's (skipped, or evidence dropped, since it ran): every figure verbatim text counts is unknown */
    provenance_stale?: boolean
    /** why, in a few words (staleFindingsReason); null where nothing is stale */
    stale_reason?: string | null
  }
  /** files: log files only (a canary registry is evidence, not a log) */
  /** responses_without_text: answers that decoded to no text, never examined (detection speaks for the others only) */
  totals: {records: number; files: number; registry_files: number; tenants: number; sessions: number; bad_lines: number; responses_without_text?: number}
  /**
   * log files no verdict speaks for in whole (not read whole, e.g. a truncated gzip; an ingest that
   * did not finish; answers that decoded to no text), and log sources an ingest reached and could
   * not read, still open (`status`'s NOT READ), by file name, each with why (`status`'s NOT JUDGEABLE)
   */
  unjudgeable_files: Array<{name: string; why: string}>
  /**
   * what else a "no leak found" does not cover (none-found.ts), one sentence each: responses set
   * aside as boilerplate, retries carrying a marker that no figure counts, sources dismissed unread
   * (with the reason recorded); the unread and unjudgeable files are in unjudgeable_files
   */
  not_covered: string[]
  /**
   * responses holding personal data another session sent first (matched by value), with no canary
   * marker or verbatim text of another session (none-found.ts), and the sentence that says so; 0 and
   * null where there are none. Optional: data built by hand.
   */
  pii_attributed_only_responses?: number
  pii_attributed_only_note?: string | null
  incident: IncidentRecord | null
  clock: ClockResult | null
  /** scope's contract numbers and the estimates with their method (`crosstalk scope --json`) */
  scope: {
    contaminated_responses: number
    cross_tenant_responses: number
    cross_session_responses: number
    exposed_sessions: number
    exposed_tenants: number
    /** at least this many sessions and tenants exposed, where a cut-short marker names none of several (scope --json's keys; absent: the counts are exact) */
    exposed_sessions_low?: number
    exposed_tenants_low?: number
    recipient_tenants: number
    first_seen: string | null
    last_seen: string | null
    at_risk_responses: number | null
    /** records whose missing status or prompt size leaves open whether they were at risk (scope --json's key); null without a pool size */
    at_risk_unknown_records: number | null
    pool_tokens: number | null
    /** the advertised context window (--advertised-tokens, or the one the scan recorded); null: none given */
    advertised_tokens: number | null
    /** at-risk responses whose prompt was at or over the advertised window (scope --json's key); null without a window or where at-risk is unknown */
    over_advertised_responses: number | null
    provenance_responses: number
    provenance_only_responses: number
    orphan_sightings: number
    data_subjects: ScopeEstimate
    records_concerned: ScopeEstimate
    bug_window: {start: string; end: string; basis: string} | null
    /** every response that disclosed another session's data, by canary marker or verbatim text (scope --json's `exposure`) */
    exposure: Exposure
    /** the first and last of those responses (first_seen/last_seen are of the canary sightings only) */
    exposure_first: string | null
    exposure_last: string | null
    /** how the contract numbers were counted */
    method: string
  }
  /**
   * Retries logged under the request id of a response already counted whose answer carried
   * another session's marker (scope --json's duplicate_leaks_not_counted; the gate fails on
   * them): responses served that no figure of this report counts, in time order, each with the
   * tenant it was served to and the tenants whose markers it carried. Empty where there are none.
   */
  retry_leaks_not_counted: RetryLeak[]
  /** lines repeating a request id with a different answer that could not be read again (scope --json's key): whether they leaked is not known */
  duplicate_lines_not_examined: number
  flows: ScopeFlow[]
  flow_matrix: {tenants: string[]; responses: number[][]}
  provenance_flows: ScopeFlow[]
  nodes: ScopeNodeRow[]
  data_categories: ScopeDataCategory[]
  /** hourly, UTC; at_risk_responses null without a pool size */
  hours: TimelineHour[]
  sightings: {
    /** how markers appear: shortened as the CLI shortens them, or in full (--show-markers) */
    markers: 'shortened' | 'full'
    by_class: Record<SightingClass, number>
    /** every class but `own`, in time order, at most `limit` */
    rows: CaseReportSighting[]
    limit: number
    omitted: number
  }
  /** the case's open items: the Article 33 draft's (a controller), or the register's and the customers' notices' (a processor), each once */
  open_items: OpenItem[]
  assessment: AssessmentRecord | null
  /** replay results per target and purpose (never pooled) */
  replay: ReplayFacts | null
  evidence: Array<{name: string; sha256: string; size: number; records: number}>
  /**
   * every notification recorded (notify record), in the order sent: to the authority, the data subjects or (a
   * processor's) a controller; `late` null: not known (no fixed deadline, or a controller's awareness not
   * recorded), never false for that; a follow-up is never late (Art. 33(4): the deadline is the initial one's);
   * absent: data written by hand (none listed)
   */
  notifications?: CaseReportNotification[]
}

/** A recorded notification as the case report lists it (strings as stored, made safe to one line). */
export interface CaseReportNotification {
  id: number
  phase: 'initial' | 'follow-up'
  at: string
  recipient: string
  recipient_kind: 'authority' | 'data-subjects' | 'controller'
  /** a processor's notification to the authority: the controller it was made for; null: none named */
  controller: string | null
  reference: string
  file_sha256: string | null
  late: boolean | null
  /** a processor's notification to the authority: the controller's awareness its Art. 33(1) 72 hours count from; null: not known; absent: not such a notification */
  controller_aware_at?: string | null
  delay_reason: string | null
  recorded_at: string
}

export interface GatherCaseReportOptions {
  now: Date
  toolVersion: string
  poolTokens?: number
  advertisedTokens?: number
  /** how a marker is shown; the CLI passes its own shortening unless --show-markers */
  showMarker: (marker: string) => string
  markersShown: boolean
  /** most sighting rows listed (the rest are counted) */
  maxSightings?: number
}

export function gatherCaseReport(db: CaseDb, options: GatherCaseReportOptions): CaseReportData {
  // Read once: the scope, the timeline and the draft's facts are computed from the same inputs
  // (the pool size the scan recorded, unless given), so the report agrees with them.
  const inputs = loadFactsInputs(db, {poolTokens: options.poolTokens, advertisedTokens: options.advertisedTokens})
  const facts = buildFacts(inputs, options.now)
  const scope = computeScope(inputs.scope)
  const timeline = buildTimeline(inputs.scope, listAudit(db))
  const coverage = inputs.scope.detection
  const all = listSightingsWithNode(db)
  const listed = all.filter((s) => s.class !== 'own')
  const limit = options.maxSightings ?? 10_000
  const byClass = {own: 0, echo: 0, cross_session: 0, cross_tenant: 0, orphan: 0} as Record<SightingClass, number>
  for (const s of all) byClass[s.class]++
  // The drafts' open items are the report's: a controller's Article 33 draft (which lists the
  // reasons for a delay as an open item when they are missing), or for a processor the
  // register entry (which lists the controllers not yet notified) and each customer's notice
  // (what it still owes that customer: its containment, the processor's and the contact's
  // details, a possible source not yet established), each item once.
  const openItems = facts.incident?.role === 'processor' ? processorOpenItems(facts) : buildArticle33(facts).open_items
  const replay = facts.replay
  return {
    kind: 'case_report',
    generated_at: options.now.toISOString(),
    tool_version: options.toolVersion,
    detection: {
      complete: coverage.complete,
      never_scanned: coverage.never_scanned,
      no_log_records: coverage.no_log_records ?? false,
      last_scan_at: coverage.last_scan_at,
      files_not_scanned: coverage.files_not_scanned,
      records_not_scanned: coverage.records_not_scanned,
      registry_changed: coverage.registry_changed,
      findings_stale: !nothingSearched(coverage) && !scopeFiguresKnown(coverage),
      markers_stale: staleFindings(coverage).markers,
      provenance_stale: staleFindings(coverage).provenance,
      stale_reason: staleFindingsReason(staleFindings(coverage)),
    },
    totals: {records: facts.totals.records, files: facts.totals.log_files, registry_files: facts.totals.registry_files, tenants: facts.totals.tenants, sessions: facts.totals.sessions, bad_lines: facts.totals.bad_lines, responses_without_text: facts.totals.responses_without_text ?? 0},
    // The sources an ingest reached and could not read are not judged at all: listed with them.
    unjudgeable_files: [
      ...unreadableFiles(db).map((f) => ({name: basename(f.path), why: f.why})),
      ...openUnreadSources(db).map((u) => ({name: u.name, why: u.reason.startsWith('not ingested') ? u.reason : `not read: ${u.reason}`})),
    ],
    not_covered: noneFoundGaps(facts, EN).filter((g) => g.kind === 'boilerplate' || g.kind === 'duplicate_leaks' || g.kind === 'dismissed_sources' || g.kind === 'no_request_text' || g.kind === 'not_comparable').map((g) => g.statement),
    pii_attributed_only_responses: facts.scope?.pii_attributed_only_responses ?? 0,
    pii_attributed_only_note: (facts.scope?.pii_attributed_only_responses ?? 0) > 0 ? EN.piiAttributedOnly(facts.scope!.pii_attributed_only_responses!) : null,
    incident: facts.incident,
    clock: facts.clock,
    scope: {
      contaminated_responses: scope.contaminated_responses,
      cross_tenant_responses: scope.cross_tenant_responses,
      cross_session_responses: scope.cross_session_responses,
      exposed_sessions: scope.exposed_sessions,
      exposed_tenants: scope.exposed_tenants,
      ...(scope.exposed_sessions_low !== undefined ? {exposed_sessions_low: scope.exposed_sessions_low, exposed_tenants_low: scope.exposed_tenants_low} : {}),
      recipient_tenants: scope.recipient_tenants,
      first_seen: scope.first_seen,
      last_seen: scope.last_seen,
      at_risk_responses: scope.at_risk_responses,
      at_risk_unknown_records: scope.at_risk_unknown_records,
      pool_tokens: scope.pool_tokens,
      advertised_tokens: scope.advertised_tokens,
      over_advertised_responses: scope.over_advertised_responses,
      provenance_responses: scope.provenance_responses,
      provenance_only_responses: scope.provenance_only_responses,
      orphan_sightings: scope.orphan_sightings,
      data_subjects: scope.data_subjects,
      records_concerned: scope.records_concerned,
      bug_window: scope.bug_window,
      exposure: scope.exposure,
      exposure_first: facts.scope?.exposure_first ?? null,
      exposure_last: facts.scope?.exposure_last ?? null,
      method: facts.scope?.method ?? '',
    },
    retry_leaks_not_counted: timeline.retry_leaks_not_counted,
    duplicate_lines_not_examined: timeline.duplicate_lines_not_examined,
    flows: scope.flows,
    flow_matrix: scope.flow_matrix,
    provenance_flows: scope.provenance_flows,
    nodes: scope.by_node,
    // No registry: whether a verbatim-text response held a marker is not known (the drafts' label).
    data_categories: facts.totals.registry_files > 0 ? scope.data_categories : registrylessCategories(scope.data_categories),
    hours: timeline.hours,
    sightings: {
      markers: options.markersShown ? 'full' : 'shortened',
      by_class: byClass,
      rows: listed.slice(0, limit).map((s) => ({...s, marker: options.showMarker(s.marker)})),
      limit,
      omitted: Math.max(0, listed.length - limit),
    },
    open_items: openItems,
    assessment: facts.assessment,
    replay,
    // file names only: the report goes to colleagues, this machine's paths stay here
    evidence: facts.evidence.map((f) => ({name: f.name, sha256: f.sha256, size: f.size, records: f.records})),
    notifications: facts.notifications.map((n) => ({
      id: n.id, phase: n.phase, at: n.at, recipient: n.recipient, recipient_kind: recipientKind(n), controller: n.controller ?? null, reference: n.reference, file_sha256: n.file_sha256, late: n.late,
      ...(n.controller_aware_at !== undefined ? {controller_aware_at: n.controller_aware_at} : {}),
      delay_reason: n.delay_reason, recorded_at: n.recorded_at,
    })),
  }
}

/**
 * `report case --format json` as it is handed on: what detection has not established is null
 * (unknown), never the 0 the page's data holds for it (the page says "unknown" itself). On a
 * case never scanned every count detection makes is null; on a case with no canary registry
 * the markers' figures are (no marker can be attributed to a session), as in `scope --json`.
 */
export function caseReportJson(d: CaseReportData) {
  if (nothingSearched(d.detection)) {
    return {
      ...d,
      scope: {
        ...d.scope,
        contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null, exposed_sessions: null, exposed_tenants: null,
        recipient_tenants: null, first_seen: null, last_seen: null, provenance_responses: null, provenance_only_responses: null, orphan_sightings: null,
        data_subjects: null, records_concerned: null, bug_window: null, exposure: null, exposure_first: null, exposure_last: null,
      },
      flows: null, flow_matrix: null, provenance_flows: null, data_categories: null,
      nodes: d.nodes.map((n) => ({...n, contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null, provenance_responses: null, first_seen: null, last_seen: null})),
      hours: d.hours.map((h) => ({...h, contaminated_responses: null, sightings: null, text_only_responses: null})),
      sightings: {...d.sightings, by_class: null},
    }
  }
  // Findings that no longer cover the case count nothing that can be stated; what rests on the
  // other kind of finding, or on the records alone (the at-risk test), stays (caseReportKnown).
  const k = caseReportKnown(d)
  const registry = d.totals.registry_files > 0
  const m = <T>(v: T): T | null => (k.markers && registry ? v : null)
  const p = <T>(v: T): T | null => (k.provenance ? v : null)
  const both = <T>(v: T): T | null => (k.markers && k.provenance ? v : null)
  // Answers holding markers of no registered session leave the exposure not known (as scope --json's): null, never the verbatim text's part as the whole.
  const known = exposureKnown(registry, d.scope.orphan_sightings)
  const exposure = known ? both(registry ? d.scope.exposure : {...d.scope.exposure, by_canary: null}) : null
  const estimates = registry ? {data_subjects: d.scope.data_subjects, records_concerned: d.scope.records_concerned} : registrylessEstimates(d.scope.data_subjects, d.scope.records_concerned, d.scope.orphan_sightings)
  return {
    ...d,
    scope: {
      ...d.scope,
      contaminated_responses: m(d.scope.contaminated_responses), cross_tenant_responses: m(d.scope.cross_tenant_responses), cross_session_responses: m(d.scope.cross_session_responses),
      exposed_sessions: m(d.scope.exposed_sessions), exposed_tenants: m(d.scope.exposed_tenants), recipient_tenants: m(d.scope.recipient_tenants),
      first_seen: m(d.scope.first_seen), last_seen: m(d.scope.last_seen),
      // Without a registry every marker is an orphan: their count rests on the scan alone.
      orphan_sightings: k.markers ? d.scope.orphan_sightings : null,
      provenance_responses: p(d.scope.provenance_responses), provenance_only_responses: both(d.scope.provenance_only_responses),
      data_subjects: both(estimates.data_subjects), records_concerned: both(estimates.records_concerned), bug_window: both(d.scope.bug_window),
      exposure, exposure_first: known ? both(d.scope.exposure_first) : null, exposure_last: known ? both(d.scope.exposure_last) : null,
    },
    flows: m(d.flows), flow_matrix: m(d.flow_matrix), provenance_flows: p(d.provenance_flows), data_categories: both(d.data_categories),
    nodes: d.nodes.map((n) => ({
      ...n, contaminated_responses: m(n.contaminated_responses), cross_tenant_responses: m(n.cross_tenant_responses), cross_session_responses: m(n.cross_session_responses),
      provenance_responses: p(n.provenance_responses), first_seen: m(n.first_seen), last_seen: m(n.last_seen),
    })),
    hours: d.hours.map((h) => ({...h, contaminated_responses: m(h.contaminated_responses), sightings: m(h.sightings), text_only_responses: both(h.text_only_responses)})),
    // Without a registry only orphans can be found: the other classes are unknown, not none; with a changed registry none is known.
    sightings: {
      ...d.sightings,
      by_class: !k.markers ? null : registry ? d.sightings.by_class : {own: null, echo: null, cross_session: null, cross_tenant: null, orphan: d.sightings.by_class.orphan},
    },
  }
}

/**
 * Which of the case's findings the report can state (staleFindings): the canary markers' (not
 * where the registry changed since the scan), canary-less provenance's (not where a scan skipped
 * it, or evidence was dropped, since it ran), neither on a case never scanned. Every total built
 * on both (the exposure, the estimates, the data categories, the bug window) needs both.
 */
export function caseReportKnown(d: Pick<CaseReportData, 'detection'>): {markers: boolean; provenance: boolean; reason: string | null} {
  const det = d.detection
  if (nothingSearched(det)) return {markers: false, provenance: false, reason: null}
  // A report's data from before the two keys were added: stale findings are taken as both stale.
  const stale = det.findings_stale ?? false
  const markers = !(det.markers_stale ?? (stale || det.registry_changed))
  const provenance = !(det.provenance_stale ?? stale)
  return {markers, provenance, reason: det.stale_reason ?? (stale ? "the scan's findings do not cover the case as it is" : null)}
}
export type CaseReportJson = ReturnType<typeof caseReportJson>

/** A processor's open items: its register entry's, then those of each customer's notice not already listed. */
function processorOpenItems(facts: CaseFacts): OpenItem[] {
  const out = [...buildRegisterEntry(facts).open_items]
  const seen = new Set(out.map((o) => o.item))
  for (const t of affectedTenants(facts)) {
    for (const o of buildProcessorNotice(facts, t).open_items) {
      if (seen.has(o.item)) continue
      seen.add(o.item)
      out.push(o)
    }
  }
  return out
}
