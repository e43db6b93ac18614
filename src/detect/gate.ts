import {grownOriginals} from '../evidence/grown-originals.js'
import {OTLP_LOGS_NOT_GIVEN} from '../extract/formats/otel.js'
import {unloggedAnswers, type Unlogged} from '../extract/redaction.js'
import type {CaseDb} from '../store/open-case.js'
import {completeLogRecords, logFilesWithBadLines, recordlessLogFiles, unreadableLogFiles, type QuarantinedFile, type RecordlessFileRow, type UnreadableFileRow} from '../store/files.js'
import {openUnreadSources} from '../store/unread-sources.js'
import {ingestHolder, RELEASE_COMMAND} from '../ingest/ingest-lock.js'
import type {TextLeakCounts} from '../store/findings.js'

type IngestHolder = NonNullable<ReturnType<typeof ingestHolder>>
import {count} from '../util/plural.js'

/** An entry a directory walk or a glob reached and did not read (ingest/expand-paths.ts); `unread`: it may hold a log. */
interface SkippedEntry {
  path: string
  reason: string
  unread: boolean
}

// `--fail-on-leak` fails closed: contamination found trips it (exit 3), and so does evidence it
// could not read (exit 1), because "no leak found" in a file whose answers decoded to nothing,
// that was not read whole, or whose quarantined lines were never judged, is not a finding. A
// quarantined line is a line no rule could read: it may be the one that carried another
// tenant's marker (a zone-less time, a field of the wrong type), so the gate does not pass over
// it unless the user accepts that explicitly (--accept-bad-lines, recorded with the command).
// Zero records judged (a case with no log, or only empty and blank files) is no verdict either.

/** A log file no verdict can speak for, and why, as the `--json` outputs give it. */
export interface UnreadableFile extends Omit<UnreadableFileRow, 'notes'> {
  /**
   * answers the logger never wrote (LiteLLM's placeholder in their place, or its row without the
   * body): part of no_response_text; null (unknown) for a file whose ingest did not finish
   */
  unlogged_answers: number | null
  /** why it cannot be judged, and what to do, in one phrase */
  why: string
}

/** The case's log files a gate must not pass on (store/files.ts says which), each with why. */
export function unreadableFiles(db: CaseDb): UnreadableFile[] {
  const rows = unreadableLogFiles(db)
  // A file whose ingest has not finished may be one another process is ingesting now: said so
  // (the process named), never "run it again" while it runs (that is refused as busy).
  const holder = rows.some((f) => f.state !== 'complete') ? ingestHolder(db) : null
  return rows.map(({notes, ...f}) => {
    const lines = notes === null ? [] : (JSON.parse(notes) as string[])
    return withWhy(f, unloggedAnswers(lines), lines.some((n) => n.includes(OTLP_LOGS_NOT_GIVEN)), holder)
  })
}

/** Why a file whose ingest has not finished is not judged: still running in the process that holds the case, or interrupted. */
export function unfinishedIngestWhy(holder: IngestHolder | null): string {
  if (holder === null) return 'its ingest did not finish (run it again)'
  if (holder.state === 'alive') return `its ingest has not finished: process ${holder.pid} is writing to this case (an ingest, scan or drop) and may be ingesting it still; wait for it to finish`
  return `its ingest has not finished: process ${holder.pid} (another host or PID namespace) holds this case and whether it still runs cannot be told from here; wait for it to finish, or, if it was killed, break its claim (${RELEASE_COMMAND}) and run the same ingest again`
}

/**
 * A file's entry with why it cannot be judged. `unlogged`: its records whose answer the logger
 * never wrote (counted from its notes). No --log-format or --map reads such an answer, so the
 * remedy is logs from elsewhere, not a second ingest.
 */
export function withWhy(f: Omit<UnreadableFileRow, 'notes'>, unlogged: Unlogged, otlpContentElsewhere = false, holder: IngestHolder | null = null): UnreadableFile {
  const missing = f.no_response_text ?? 0
  const r = Math.min(unlogged.answers, missing)
  // OTLP spans whose content was in log records of a file not given: that file, not a flag, is the fix.
  const check = otlpContentElsewhere ? 'give the OTLP logs file with the traces, or check --log-format / --map' : 'check --log-format / --map'
  const why = f.state !== 'complete' ? unfinishedIngestWhy(holder)
    : f.unread !== null ? `not read whole: ${f.unread}; ingest a whole copy of it at the same path (that settles it), or, if a whole copy is in the case under another name, drop this one (crosstalk drop ${f.sha256?.slice(0, 12) ?? f.path} --reason "...")`
      : r > 0 && r === missing
        ? `${r} of its ${f.answers} answers were not logged (${unlogged.why}); ingest logs that hold the texts, from a logger or gateway that received them`
        : r > 0
          ? `${missing} of its ${f.answers} answers decoded to no text, ${r} of them not logged (${unlogged.why}); for the other ${missing - r}, ${check} (crosstalk drop it and ingest it again)`
          : `${missing} of its ${f.answers} answers decoded to no text (${check}; crosstalk drop it and ingest it again)`
  // An unfinished file's notes were never written: how many of its answers were logged is not known.
  const {sha256: _, ...row} = f
  return {...row, unlogged_answers: f.state === 'complete' ? r : null, why}
}

export interface GateInput {
  contaminated_responses: number
  cross_tenant_responses: number
  cross_session_responses: number
  unreadable_files: readonly UnreadableFile[]
  /** log files with quarantined lines; read from the case when not given */
  quarantined_files?: readonly QuarantinedFile[]
  /** canaries registered in the case: with none, no marker can be attributed to anyone */
  canaries: number
  /** entries a directory walk or a glob reached and could not read (triage's own paths); each fails the gate */
  skipped_entries?: readonly SkippedEntry[]
  /** log records the verdict speaks for; read from the case (its complete log files) when not given */
  records_judged?: number
  /** log files that gave no record, each with why; read from the case when not given */
  recordless_files?: readonly RecordlessFile[]
  /**
   * responses provenance found carrying another session's text verbatim (no marker needed):
   * they trip the gate as a sighting does. Absent or null: provenance did not run (or is not
   * current), and the gate judges the markers only.
   */
  text_leaks?: TextLeakCounts | null
}

/** The gate's line for responses carrying another session's text verbatim; null where there are none. */
export function textLeakLine(t: TextLeakCounts | null | undefined): string | null {
  if (!t || t.responses === 0) return null
  return `${count(t.responses, 'response')} ${t.responses === 1 ? 'repeats' : 'repeat'} another session's text verbatim (provenance: ${t.cross_tenant} cross-tenant, ${t.same_tenant} same-tenant, ${t.source_not_named} source not named)`
}

/** A log file that gave no record, and why (empty, blank lines only). */
export interface RecordlessFile {
  path: string
  why: string
}

/** Why a stored log file gave no record, in a few words. */
export function recordlessWhy(f: Pick<RecordlessFileRow, 'content_size' | 'lines' | 'blank_lines' | 'bad_lines'>): string {
  if (f.lines === 0) return 'empty'
  if (f.blank_lines === f.lines) return 'blank lines only'
  return `no record in its ${count(f.lines, 'line')}${f.bad_lines > 0 ? ` (${f.bad_lines} quarantined)` : ''}`
}

/** Zero records judged: "no leak found" would be a verdict on nothing. Null where some record was judged. */
function nothingJudged(db: CaseDb, result: GateInput): string | null {
  if ((result.records_judged ?? completeLogRecords(db)) > 0) return null
  const files = result.recordless_files ?? recordlessLogFiles(db).map((f) => ({path: f.path, why: recordlessWhy(f)}))
  const named = files.slice(0, 5).map((f) => `${f.path} (${f.why})`).join('; ')
  return files.length === 0
    ? 'no log record was judged: the case holds no log file (crosstalk ingest logs PATH)'
    : `no log record was judged: the log files read hold none: ${named}${files.length > 5 ? `; and ${files.length - 5} more` : ''}`
}

export interface GateVerdict {
  /** contamination found: exit 3 */
  tripped: string | null
  /** what the gate could not judge, one line; exit 1 unless it tripped already */
  cannotPass: string | null
}

export function judgeGate(db: CaseDb, result: GateInput, options: {acceptBadLines: boolean}): GateVerdict {
  const markers = result.contaminated_responses > 0
    ? `${count(result.contaminated_responses, 'response')} (${result.cross_tenant_responses} cross-tenant, ${result.cross_session_responses} cross-session)`
    : null
  // A response carrying another session's text verbatim is a leak as a marker sighting is: the
  // drafts count it in the exposure, so the gate trips on it (and does so without a registry too).
  const text = textLeakLine(result.text_leaks)
  const tripped = markers !== null || text !== null ? `contamination found: ${[markers, text].filter((x) => x !== null).join('; and ')}` : null
  const quarantined = options.acceptBadLines ? [] : (result.quarantined_files ?? logFilesWithBadLines(db))
  // No registry: every marker is an orphan, so "nothing found" would be a verdict on nothing.
  const noRegistry = result.canaries === 0 ? 'the case holds no canary registry, so no marker can be attributed to a session (crosstalk ingest canaries FILE, or triage --canaries FILE)' : null
  const unjudged = unjudgedMessage(result.unreadable_files, quarantined, result.skipped_entries)
  const unjudgedOrNoRegistry = unjudged && noRegistry ? `${unjudged}; also, ${noRegistry}` : (unjudged ?? (noRegistry && `--fail-on-leak cannot pass: ${noRegistry}`))
  const nothing = nothingJudged(db, result)
  const open = openUnreadMessage(db, result.skipped_entries ?? [])
  const cannotPass = [nothing, open, grownMessage(db)].reduce<string | null>(
    (line, part) => (part === null ? line : line === null ? `--fail-on-leak cannot pass: ${part}` : `${line}; also, ${part}`),
    unjudgedOrNoRegistry,
  )
  return {tripped, cannotPass}
}

/**
 * Log files whose original now holds bytes beyond those ingested (appended to since): no rule
 * judged them, and they may carry another tenant's marker. Null where none grew.
 */
export function grownMessage(db: CaseDb): string | null {
  const grown = grownOriginals(db)
  if (grown.length === 0) return null
  // A log rotated to a longer file at its path is no longer the file ingested: said so, not "grew".
  const named = grown.slice(0, 5).map((g) => g.head === 'changed'
    ? `${g.path} (another file now: its first bytes changed, ${g.bytes_now} bytes where ${g.ingested_bytes} were ingested; rotated?)`
    : `${g.path} (${g.bytes_now - g.ingested_bytes} bytes beyond the ${g.ingested_bytes} ingested)`).join('; ')
  const verb = grown.every((g) => g.head === 'changed') ? 'changed' : grown.some((g) => g.head === 'changed') ? 'grew or changed' : 'grew'
  return `${count(grown.length, 'log file')} ${verb} since ${grown.length === 1 ? 'it was' : 'they were'} ingested and the bytes ${verb === 'grew' ? 'added' : 'there now'} were never judged: ${named}${grown.length > 5 ? `; and ${grown.length - 5} more` : ''} (ingest ${grown.length === 1 ? 'it' : 'each'} again and scan; crosstalk status names them)`
}

/**
 * The sources an earlier ingest into the case reached and did not read, still open (named with
 * the first); those this run reached itself (`skipped`) are named with the files already. Null
 * where none is open.
 */
function openUnreadMessage(db: CaseDb, skipped: readonly SkippedEntry[]): string | null {
  const named = new Set(skipped.filter((s) => s.unread).map((s) => s.path))
  const open = openUnreadSources(db).filter((s) => !named.has(s.path))
  if (open.length === 0) return null
  const first = open[0]!
  return `${count(open.length, 'log source')} an ingest reached and did not read ${open.length === 1 ? 'is' : 'are'} open in the case, the first ${first.path} (${first.reason}): ingest ${open.length === 1 ? 'it' : 'each'} whole, or settle ${open.length === 1 ? 'it' : 'each'} with crosstalk ingest dismiss PATH --reason "..." (crosstalk status lists them)`
}

/** One line naming the files a gate could not judge, or null when it could judge them all. */
export function unjudgedMessage(files: readonly UnreadableFile[], quarantined: readonly QuarantinedFile[] = [], skipped: readonly SkippedEntry[] = []): string | null {
  const listed = new Set(files.map((f) => f.path))
  const parts = [
    ...skipped.filter((s) => s.unread).map((s) => `${s.path} (not read: ${s.reason})`),
    ...files.map((f) => `${f.path} (${f.why})`),
    ...quarantined.filter((q) => !listed.has(q.path)).map((q) => `${q.path} (${q.bad_lines} quarantined line${q.bad_lines === 1 ? '' : 's'} never judged: crosstalk status --bad-lines; --accept-bad-lines to pass over them)`),
  ]
  if (parts.length === 0) return null
  return `--fail-on-leak cannot pass: ${parts.length} log file${parts.length === 1 ? '' : 's'} could not be judged: ${parts.slice(0, 5).join('; ')}${parts.length > 5 ? '; and more' : ''}`
}
