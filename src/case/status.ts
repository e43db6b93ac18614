import {detectionCoverage, type DetectionCoverage, nothingSearched} from '../detect/coverage.js'
import {staleFindings} from '../scope/unscanned.js'
import {examineConflictingDuplicates} from '../detect/conflicting-duplicates.js'
import {unreadableFiles} from '../detect/gate.js'
import type {DuplicateLeak} from '../scope/compute-scope.js'
import {loadCaseClock} from '../notify/case-clock.js'
import type {ClockResult} from '../notify/clock.js'
import {getIncident} from '../notify/incident.js'
import {listAudit} from '../store/audit.js'
import {countCanaries, registeredTenantIds} from '../store/canaries.js'
import {caseLogEvidence, fileTotals, filesWithSameRecordsNote, listFiles, logFilesByFormat} from '../store/files.js'
import {countPiiFindings, countProvenance, sightingCounts} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {countListedBadLines, listBadLines as badLineRows, type BadLineRow} from '../store/quarantine.js'
import {recordsMissingAtRiskFields, recordTotals, tenantIdsWithRecords} from '../store/records.js'
import {schemaVersion} from '../store/session.js'
import {getSettings} from '../store/settings.js'
import {openUnreadSources} from '../store/unread-sources.js'
import {idsAlike, withoutLineExcerpt} from '../util/sanitize.js'

import {grownOriginals, type GrownOriginal} from './grown-originals.js'
export type {BadLineRow} from '../store/quarantine.js'

/** `crosstalk status --json`: contract keys first, then what else the case holds. */
export interface StatusResult {
  /** log files completely ingested (the registry files are counted apart); a log held in two versions (ingested again once it grew) counts once */
  files: number
  /**
   * Of the complete log files stored, those the case also holds in a later, longer version (a log
   * appended to and ingested again: the later version read only the lines after the earlier's):
   * not counted in `files`; their records, duplicates and bad lines are counted, once
   */
  earlier_versions: number
  records: number
  bad_lines: number
  canaries: number
  /** null on a case never scanned: unknown, not zero (`nothingSearched(detection)`) */
  sightings: number | null
  /** duplicate request lines inside the stored files */
  duplicates: number
  /**
   * Of those, lines whose answer carries another session's marker that the request's record does
   * not (a retry logged under the same request id): responses served that no sighting or figure
   * counts (a request's first line is its record), named here
   */
  duplicate_leaks_not_counted: DuplicateLeak[]
  /** duplicate lines that differ from their record and could not be read again: whether they carry a marker is not known */
  duplicate_lines_not_examined: number
  /** each of those lines: where it is, the request id it repeats, and why it could not be read again (the drafts' open item sends the reader here) */
  duplicate_lines_not_examined_list: Array<{path: string; line: number; request_id: string; why: string}>
  /**
   * lines of files ingested again after they were already in the case (same SHA-256): `ingest logs`
   * counts them as duplicates (lines already present) and stores nothing; with `duplicates` they
   * add up to every duplicate the ingests reported
   */
  reingested_duplicates: number
  reingested_files: number
  blank_lines: number
  registry_files: number
  incomplete_files: number
  first_record: string | null
  last_record: string | null
  tenants: number
  /** sessions, each counted within its tenant */
  sessions: number
  /** null on a case never scanned, and where the canary registry changed since the scan (the classes were decided against another registry) */
  sightings_by_class: Record<string, number> | null
  /** responses attributed to an earlier other session's text by canary-less provenance; null when provenance does not cover the case (never run, or stale) or the scan examined no record */
  provenance_attributed: number | null
  /** values in responses their session never sent, and how many of them another session's record sent first; null on a case never scanned */
  personal_data: {findings: number; attributed: number} | null
  /** whether detection covered everything ingested (null: never scanned) */
  detection: DetectionCoverage
  /** the serving stack's KV pool and advertised window as recorded by `scan --pool-tokens` (null: not given) */
  pool_tokens: number | null
  advertised_tokens: number | null
  case_id: string
  schema_version: number
  audit_entries: number
  /** the hash of the newest audit entry: note it outside the case to detect a rewritten log (verify --expect-head) */
  audit_head: string | null
  /**
   * How the case keeps its logs' bytes (null: no log yet): 'copy', every byte in the case;
   * 'reference', read from the originals where they lie (ingest logs --evidence reference, or
   * Spark findings, which keep the findings' lines); lines_held says which lines the case holds
   */
  log_evidence: {kept: 'copy' | 'reference'; lines_held: 'all' | 'findings' | 'none'; files_by_reference: number} | null
  /** complete log files per log format (how each was read is in the audit log and `files.parse_spec`) */
  log_formats: Record<string, number>
  /**
   * Records whose logs do not say a field (a format without it, or a line without it): every
   * count that depends on the field is unknown for them, never zero. at_risk: no status or no
   * prompt token count (the at-risk test cannot be applied).
   */
  unknown_fields: {status: number; prompt_tokens: number; completion_tokens: number; decode_node: number; at_risk: number}
  /** records whose request / response (errors aside) decoded to no text */
  no_request_text: number
  no_response_text: number
  /** log files a gate cannot judge: unfinished, not read whole (damaged gzip), or holding answers that decoded to no text */
  unreadable_files: Array<{path: string; why: string}>
  /** log files whose original on disk now holds bytes beyond what was ingested: bytes nothing judged (ingest it again) */
  originals_grown: GrownOriginal[]
  /**
   * Log files whose records repeat, line for line, records the case already held under another log
   * source when they were read (ingest's warning): stored twice, so every figure counts them twice
   * (drop the copy). `note`: what ingest said, the source and count as they were then.
   */
  same_records_other_source: Array<{path: string; note: string}>
  /**
   * Log sources an ingest reached and did not read (an entry it could not open, a compression it
   * does not read, a file refused), open until the same source is ingested whole or dismissed
   * (`ingest dismiss`): no gate passes and no document says every log was searched while one is.
   * size / sha256 null: not known (it could not be read).
   */
  unread_sources: Array<{id: number; path: string; size: number | null; sha256: string | null; reason: string; recorded_by: string; recorded_at: string}>
  /**
   * Tenant ids of the case (in its records or its canary registry) that differ yet read alike once
   * Unicode-normalised (NFC): two customers a reader could take for one. Each group as written;
   * they are never merged (every figure counts them apart), and every output shows one not in NFC escaped.
   */
  tenant_ids_alike: string[][]
  /** the incident once `crosstalk incident open` ran (title and role as entered, sanitised on display) */
  incident: {title: string; role: 'controller' | 'processor'; aware_at: string} | null
  /** the 72-hour clock of that incident at `now` (as `crosstalk clock --json`) */
  clock: ClockResult | null
}

export function caseStatus(db: CaseDb, now: Date = new Date()): StatusResult {
  const f = fileTotals(db)
  const r = recordTotals(db)
  const s = sightingCounts(db)
  const settings = getSettings(db)
  const audit = listAudit(db)
  const unknown = recordsMissingAtRiskFields(db)
  const detection = detectionCoverage(db)
  return {
    files: f.log_files - f.incomplete_files - f.earlier_versions,
    earlier_versions: f.earlier_versions,
    records: r.records,
    bad_lines: f.bad_lines,
    canaries: countCanaries(db),
    sightings: nothingSearched(detection) ? null : Object.values(s.by_class).reduce((a, b) => a + b, 0),
    duplicates: f.duplicates,
    ...duplicateLeaks(db),
    ...reingested(db, audit),
    blank_lines: f.blank_lines,
    registry_files: f.registry_files,
    incomplete_files: f.incomplete_files,
    first_record: r.first_ms === null ? null : new Date(r.first_ms).toISOString(),
    last_record: r.last_ms === null ? null : new Date(r.last_ms).toISOString(),
    tenants: r.tenants,
    sessions: r.sessions,
    // A registry changed since the scan: each marker's class was decided against another registry, so no class count is known (the total is: tokens found).
    sightings_by_class: nothingSearched(detection) || staleFindings(detection).markers ? null : Object.fromEntries(Object.entries(s.by_class).sort((a, b) => (a[0] < b[0] ? -1 : 1))),
    // A scan over no log record searched nothing: no provenance was looked for, so none is known (as the sightings).
    provenance_attributed: detection.provenance === 'current' && !nothingSearched(detection) ? countProvenance(db) : null,
    personal_data: nothingSearched(detection) ? null : countPiiFindings(db),
    detection,
    pool_tokens: settings.pool_tokens,
    advertised_tokens: settings.advertised_tokens,
    case_id: settings.case_id,
    schema_version: schemaVersion(db),
    audit_entries: audit.length,
    audit_head: audit.at(-1)?.hash ?? null,
    log_evidence: logEvidence(db),
    log_formats: Object.fromEntries(logFilesByFormat(db).map((f) => [f.log_format, f.files])),
    unknown_fields: {
      status: unknown.no_status, prompt_tokens: unknown.no_prompt_tokens, completion_tokens: unknown.no_completion_tokens,
      decode_node: unknown.no_decode_node, at_risk: unknown.no_status_or_prompt_tokens,
    },
    no_request_text: f.no_request_text,
    no_response_text: f.no_response_text,
    unreadable_files: unreadableFiles(db).map((u) => ({path: u.path, why: u.why})),
    originals_grown: grownOriginals(db),
    same_records_other_source: filesWithSameRecordsNote(db),
    unread_sources: openUnreadSources(db).map(({id, path, size, sha256, reason, recorded_by, recorded_at}) => ({id, path, size, sha256, reason, recorded_by, recorded_at})),
    tenant_ids_alike: idsAlike([...tenantIdsWithRecords(db), ...registeredTenantIds(db)]),
    ...incidentStatus(db, now),
  }
}

function logEvidence(db: CaseDb): StatusResult['log_evidence'] {
  const held = caseLogEvidence(db)
  if (!held) return null
  const logs = listFiles(db).filter((f) => f.kind === 'log' && f.state === 'complete')
  // A log held in two versions (ingested again once it grew) is one of the files counted: its latest.
  const continued = new Set(logs.map((f) => f.continues_file_id))
  const byReference = logs.filter((f) => f.evidence === 'reference' && !continued.has(f.id)).length
  return {kept: held.evidence, lines_held: held.lines_held, files_by_reference: byReference}
}

function incidentStatus(db: CaseDb, now: Date): Pick<StatusResult, 'incident' | 'clock'> {
  const incident = getIncident(db)
  if (!incident) return {incident: null, clock: null}
  return {
    incident: {title: incident.title, role: incident.role, aware_at: incident.aware_at},
    clock: loadCaseClock(db, now),
  }
}

/** Re-ingests of files already in the case, from the audit log: each added nothing and reported its lines as duplicates. */
function reingested(db: CaseDb, audit: ReturnType<typeof listAudit>): Pick<StatusResult, 'reingested_duplicates' | 'reingested_files'> {
  const bySha = new Map(listFiles(db).filter((f) => f.kind === 'log' && f.state === 'complete').map((f) => [f.sha256, f.records + f.duplicates]))
  let lines = 0
  let files = 0
  for (const entry of audit) {
    // triage's own ingest counts as ingest logs does (verify-audit.ts reads both the same way).
    if (entry.command !== 'ingest:logs' && !(entry.command === 'triage' && triageStep(entry.args) === 'ingest logs')) continue
    let summary: {files?: Array<{sha256?: string; status?: string}>; per_file?: Array<{sha256?: string; status?: string}>}
    try {
      summary = JSON.parse(entry.summary) as typeof summary
    } catch {
      continue
    }
    for (const f of [...(summary.files ?? []), ...(summary.per_file ?? [])]) {
      if (f.status !== 'already_present' || !f.sha256) continue
      files++
      lines += bySha.get(f.sha256) ?? 0
    }
  }
  return {reingested_duplicates: lines, reingested_files: files}
}

/** The step of a triage audit entry ('ingest logs', 'ingest canaries', ...), from its arguments. */
function triageStep(args: string): unknown {
  try {
    return (JSON.parse(args) as Record<string, unknown> | null)?.step
  } catch {
    return undefined
  }
}

/** The most quarantined lines `status --bad-lines` lists; those past it are counted (not_listed), never left out silently. */
export const BAD_LINES_LISTED = 1000

export function listBadLines(db: CaseDb, limit = BAD_LINES_LISTED): {rows: BadLineRow[]; not_listed: number} {
  // Shown without the excerpt of the line a JSON error quotes: it may be someone's conversation.
  const rows = badLineRows(db, limit).map((b) => ({...b, reason: withoutLineExcerpt(b.reason)}))
  return {rows, not_listed: Math.max(0, countListedBadLines(db) - rows.length)}
}

function duplicateLeaks(db: CaseDb): Pick<StatusResult, 'duplicate_leaks_not_counted' | 'duplicate_lines_not_examined' | 'duplicate_lines_not_examined_list'> {
  const d = examineConflictingDuplicates(db)
  return {
    duplicate_leaks_not_counted: d.leaking.map((x) => ({path: x.path, line: x.line_no, request_id: x.request_id, class: x.class})),
    duplicate_lines_not_examined: d.unexamined.length,
    // Why, without the excerpt of the line a JSON error quotes: it may be someone's conversation.
    duplicate_lines_not_examined_list: d.unexamined.map((x) => ({path: x.path, line: x.line_no, request_id: x.request_id, why: withoutLineExcerpt(x.why)})),
  }
}
