import {randomBytes} from 'node:crypto'
import {examineConflictingDuplicates} from '../detect/conflicting-duplicates.js'
import {describeGap, detectionCoverage} from '../detect/coverage.js'
import {piiRef, referenceKey} from '../detect/pii-ref.js'
import {InputError} from '../errors.js'
import {evidenceReader} from '../evidence/evidence-store.js'
import {readCheckedLine, recordTextLoader} from '../evidence/record-texts.js'
import {shortenMarkerTokens} from '../extract/markers.js'
import {unconventionalMarkers} from '../store/canaries.js'
import {recordFindingRows} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {findRecordsByRequestId, type RecordFields, type StoredRecord} from '../store/records.js'
import {retryLeaks, type RetryLeak} from '../scope/retry-leaks.js'
import {getSettings} from '../store/settings.js'
import {quoted} from '../util/sanitize.js'

/** A stored record as `show --json` prints it: the ingested row, flags as booleans, plus where it came from. */
export interface RecordView extends Omit<RecordFields, 'ts' | 'ts_ms' | 'stream' | 'is_error'> {
  source: string
  /** UTC, toISOString() form (contract). */
  ts: string
  /** The same instant with every fractional digit the log gave (e.g. microseconds). */
  ts_precise: string
  stream: boolean
  is_error: boolean
  /** The texts, only when asked for (showText): they are other people's data. */
  request_text?: string | null
  response_text?: string | null
  /** Length of each text in characters (null: the line has none), so a hidden text is not mistaken for an empty one. */
  request_chars: number | null
  response_chars: number | null
  /** Whether the texts are included, and whether canary markers in them are in full or shortened (CANARY-3f9a…). */
  texts: 'hidden' | 'shown'
  markers: 'shortened' | 'full'
  evidence: {file: string; file_sha256: string; line: number; byte_offset: number; byte_len: number}
  findings: RecordFindings
}

/**
 * What detection found about the record, each part null where it is not known (never as
 * "none"): sightings need the record's file scanned under the registry as it is; provenance,
 * personal data and the copies of this record depend on every other record, so they need
 * detection to cover the whole case.
 */
export interface RecordFindings {
  detection: 'complete' | 'incomplete'
  /** What detection has not covered (null when complete). */
  gap: string | null
  /** Markers found in this response (all classes, own and echo included). */
  sightings: Array<{class: string; marker: string; partial: boolean; source_session: string | null; source_tenant: string | null}> | null
  /** The earlier other-session text this response repeats; null when none was found or when it is not known (provenance_known). */
  provenance: {
    source_request_id: string; source_ts: string; source_session: string; source_tenant: string; matched: 'prompt' | 'response'; overlap_words: number
    /** named: source_session/source_tenant are the source; ambiguous: source_tenants tenants' texts hold the overlap alike, and the record shown is one of them, not the source; unknown: only answers whose own prompts were not logged hold it, so the record shown is where it was seen, not its source */
    source_status: 'named' | 'ambiguous' | 'unknown'
    source_tenants: number
    /** unknown: the source is a prompt logged after this response (whether it was in flight before cannot be established) */
    source_order: 'earlier' | 'unknown'
  } | null
  provenance_known: boolean
  /** Later responses attributed to this record's prompt or answer (the first few named). */
  copied_by: {responses: number; first: Array<{request_id: string; tenant_id: string; session_id: string}>} | null
  /** Values in this response its session never sent (references, as `pii` prints them), and who sent each first. */
  personal_data: Array<{kind: string; value_ref: string; source_request_id: string | null; source_session: string | null; source_tenant: string | null}> | null
  /** Responses of other sessions that carried a marker this record's session registered. */
  session_marker_sightings: number | null
  /**
   * Lines repeating this record's request id (same source: a retry logged under it) whose answer
   * carried another session's marker that this record does not: responses served that no sighting
   * counts (NOT COUNTED, as status, sightings and scope say), each named ("file name:line").
   */
  retry_leaks: RetryLeak[]
  /** Lines repeating this record's request id that differ from it and could not be read again: whose marker their answer carried is not known */
  retry_lines_not_examined: number
  /** Leaking retry lines (of any request) whose answer carried a marker this record's session registered: counted by no sighting */
  session_marker_retry_leaks: number
  /** Retry lines of the whole case that could not be read again: any of them may carry this session's marker (not known) */
  case_retry_lines_not_examined: number
  /** Markers the registry holds for this record's session (0: none to be seen anywhere). */
  session_markers_registered: number
  /** The contract's at-risk test (status 200 and a prompt at or over the KV pool); null when the pool, the status or the prompt size is unknown. */
  at_risk: boolean | null
  at_risk_basis: string
}

export interface ShowOptions {
  /** Include the request and response texts (default: hidden). */
  showText?: boolean
  /** Markers in full in the texts and the error message (default: shortened; they identify sessions). */
  showMarkers?: boolean
}

export function findRecord(db: CaseDb, requestId: string, source?: string): StoredRecord {
  const rows = findRecordsByRequestId(db, requestId, source, 2)
  if (rows.length === 0) throw new InputError(`no record with request_id ${quoted(requestId)}${source ? ` in source ${source}` : ''}`, 'E_NOT_FOUND')
  if (rows.length > 1) {
    // Which sources hold it, so that the error says what --source takes.
    const sources = [...new Set(findRecordsByRequestId(db, requestId, source, 1000).map((r) => r.source))]
    throw new InputError(`request_id ${quoted(requestId)} exists in several sources (${sources.slice(0, 10).map((x) => quoted(x)).join(', ')}${sources.length > 10 ? `, and ${sources.length - 10} more` : ''}); pass --source`, 'E_AMBIGUOUS')
  }
  return rows[0]!
}

/**
 * One record for a person to look at. Its texts are someone's prompt and, in an incident,
 * someone else's leaked answer: they are left out unless asked for, and the canary markers in
 * them (and in an error message, which servers fill with the request) are shortened unless
 * asked for in full. `show --raw` is the explicit way to the original bytes.
 */
export function showRecord(db: CaseDb, requestId: string, source?: string, options: ShowOptions = {}): RecordView {
  const r = findRecord(db, requestId, source)
  const texts = recordTextLoader(db)(r.id)
  const shorten = options.showMarkers ? (t: string) => t : markerShortener(unconventionalMarkers(db))
  const chars = (t: string | null): number | null => (t === null ? null : [...t].length)
  return {
    request_id: r.request_id, source: r.source, ts: new Date(r.ts_ms).toISOString(), ts_precise: r.ts, tenant_id: r.tenant_id, session_id: r.session_id, status: r.status,
    endpoint: r.endpoint, model: r.model, prefill_node: r.prefill_node, decode_node: r.decode_node, prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens, cached_tokens: r.cached_tokens, stream: r.stream === 1, response_kind: r.response_kind,
    is_error: r.is_error === 1, error_message: r.error_message === null ? null : shorten(r.error_message),
    ...(options.showText
      ? {request_text: texts.request_text === null ? null : shorten(texts.request_text), response_text: texts.response_text === null ? null : shorten(texts.response_text)}
      : {}),
    request_chars: chars(texts.request_text), response_chars: chars(texts.response_text),
    texts: options.showText ? 'shown' : 'hidden', markers: options.showMarkers ? 'full' : 'shortened',
    evidence: {file: r.path, file_sha256: r.sha256, line: r.line_no, byte_offset: r.byte_offset, byte_len: r.byte_len},
    findings: recordFindings(db, r, options.showMarkers ? (t: string) => t : shorten),
  }
}

function recordFindings(db: CaseDb, r: StoredRecord, shorten: (text: string) => string): RecordFindings {
  const coverage = detectionCoverage(db)
  const rows = recordFindingRows(db, r)
  const whole = coverage.complete
  // Classes decided against another registry, or under earlier sighting rules, are not this case's now (as staleFindings says for every figure).
  const sightingsKnown = rows.file_scanned && !coverage.registry_changed && !coverage.sighting_rules_changed
  const key = whole && rows.pii.length > 0 ? (referenceKey(db, {create: false}) ?? randomBytes(32)) : null
  const {at_risk, at_risk_basis} = atRisk(r, getSettings(db).pool_tokens)
  const source = rows.provenance
  // Retries are no records, so no sighting counts them: read again here, as the leak gate reads them.
  const duplicates = examineConflictingDuplicates(db)
  const mine = (d: {request_id: string; source: string}): boolean => d.request_id === r.request_id && d.source === r.source
  const registered = (d: {source_sessions: ReadonlyArray<{tenant: string; session: string}>}): boolean => d.source_sessions.some((x) => x.tenant === r.tenant_id && x.session === r.session_id)
  return {
    detection: whole ? 'complete' : 'incomplete',
    gap: whole ? null : describeGap(coverage),
    sightings: sightingsKnown
      ? rows.sightings.map((s) => ({class: s.class, marker: shorten(s.marker), partial: s.partial === 1, source_session: s.source_session, source_tenant: s.source_tenant}))
      : null,
    provenance:
      whole && source
        ? {source_request_id: source.source_request_id, source_ts: new Date(source.source_ts_ms).toISOString(), source_session: source.source_session, source_tenant: source.source_tenant, matched: source.matched, overlap_words: source.overlap_words,
            source_status: source.source_status, source_tenants: source.source_tenants, source_order: source.source_order}
        : null,
    provenance_known: whole,
    copied_by: whole ? rows.copied_by : null,
    personal_data: whole
      ? rows.pii.map((p) => ({kind: p.kind, value_ref: piiRef(key!, p.value_sha256), source_request_id: p.source_request_id, source_session: p.source_session, source_tenant: p.source_tenant}))
      : null,
    session_marker_sightings: whole ? rows.session_marker_sightings : null,
    retry_leaks: retryLeaks(duplicates.leaking.filter(mine)),
    retry_lines_not_examined: duplicates.unexamined.filter(mine).length,
    session_marker_retry_leaks: duplicates.leaking.filter(registered).length,
    case_retry_lines_not_examined: duplicates.unexamined.length,
    session_markers_registered: rows.session_markers_registered,
    at_risk,
    at_risk_basis,
  }
}

/** The contract's test, read literally: status 200 and prompt_tokens >= the pool. */
function atRisk(r: StoredRecord, pool: number | null): {at_risk: boolean | null; at_risk_basis: string} {
  if (pool === null) return {at_risk: null, at_risk_basis: 'not known: no KV pool size is recorded in the case (scan or triage with --pool-tokens N records it)'}
  if (r.status !== null && r.status !== 200) return {at_risk: false, at_risk_basis: `status ${r.status}, not 200`}
  if (r.prompt_tokens === null) return {at_risk: null, at_risk_basis: 'not known: the log gives no prompt size for this record'}
  if (r.prompt_tokens < pool) return {at_risk: false, at_risk_basis: `a prompt of ${r.prompt_tokens} tokens, under the ${pool}-token pool`}
  if (r.status === null) return {at_risk: null, at_risk_basis: `not known: a prompt of ${r.prompt_tokens} tokens, at or over the ${pool}-token pool, but the log gives no status`}
  return {at_risk: true, at_risk_basis: `status 200 and a prompt of ${r.prompt_tokens} tokens, at or over the ${pool}-token pool`}
}

/** CANARY-<hex> cut to its first four hex digits (as the sightings table shows it), registered unconventional markers to their first four characters. */
function markerShortener(unconventional: readonly string[]): (text: string) => string {
  const others = [...unconventional].filter((m) => m.length > 4).sort((a, b) => b.length - a.length)
  return (text) => {
    // Every marker-shaped run as the scan finds it (folded: a look-alike hyphen, an invisible
    // character, full-width forms), not only `CANARY-` as written.
    let out = shortenMarkerTokens(text, 4)
    for (const m of others) if (out.includes(m)) out = out.split(m).join(`${m.slice(0, 4)}…`)
    return out
  }
}

