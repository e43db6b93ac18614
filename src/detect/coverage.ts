import {InputError} from '../errors.js'
import {grownOriginals} from '../evidence/grown-originals.js'
import {EXTRACT_SCHEME} from '../extract/extract.js'
import {SIGHTING_RULES} from '../extract/markers.js'
import type {CaseDb} from '../store/open-case.js'
import {completeLogRecords, countLogFilesExtractedOtherwise, unfinishedLogFileCount} from '../store/files.js'
import {lastFinishedScan, unfinishedScanStart, unscannedFiles} from '../store/scan-runs.js'
import {corpusFacts} from '../store/scale.js'
import {registryVersion} from '../store/settings.js'
import {count} from '../util/plural.js'

// Whether detection has covered everything the case holds, read from the recorded scan runs
// (never inferred from whether a findings table has rows). Findings on a case that was not
// scanned, or not since its last ingest, would read as "nothing found": a draft must never
// say zero where the truth is "not looked at".

export interface DetectionCoverage {
  complete: boolean
  /** complete log files no finished scan has covered, and their records */
  files_not_scanned: number
  records_not_scanned: number
  /**
   * log files whose ingest did not finish (killed, interrupted, failed, or still running): the
   * case holds part of them, which no scan covers, so detection over the logs given is not whole
   */
  files_unfinished: number
  /**
   * complete log files whose original now holds more bytes than were ingested (appended to
   * since): no scan judged the bytes added, which may hold another session's data, so detection
   * over the logs is not whole until the file is ingested again and scanned (absent: facts
   * written by hand, 0)
   */
  files_grown?: number
  /**
   * No scan has finished. A scan over a case that holds no log record is a scan (last_scan_at
   * says when, no_log_records why it searched nothing): nothingSearched() tells what it could judge.
   */
  never_scanned: boolean
  /** the case holds no log record for detection to search, a scan finished or not (absent: facts written by hand, false) */
  no_log_records?: boolean
  /**
   * When a scan began that has not finished since (killed, interrupted, failed, or still
   * running): it may have rewritten part of the findings the last finished scan describes
   * (each phase commits on its own), so they describe no one scan until a scan finishes. Null: none.
   */
  unfinished_scan_started_at: string | null
  /** the canary registry changed since the last scan (its classifications may be stale) */
  registry_changed: boolean
  /**
   * the last scan classified sightings under earlier rules (SIGHTING_RULES: before 2, a marker's
   * hex digits alone in the prompt made an echo; before 3, a token cut short of one marker that
   * extended a shorter one was the shorter's; before 4, a marker inside a longer one, or a prompt
   * holding a longer marker beginning with it, made its sighting or echo), so its classes may be
   * stale until a scan
   */
  sighting_rules_changed: boolean
  /**
   * complete log files extracted under another scheme than this version's (EXTRACT_SCHEME: an
   * earlier version decoded their texts by earlier rules), so the findings made from them may be
   * stale until a scan extracts them again
   */
  files_extracted_earlier: number
  /** canary-less provenance covers every scanned record ('stale': a scan skipped it since records were added) */
  provenance: 'current' | 'stale' | 'never'
  /**
   * The parameters of the last finished scan, which the stored provenance was made with (null:
   * never scanned). Every statement of the method names these, never the defaults.
   */
  provenance_parameters: ProvenanceParameters | null
  /**
   * Responses the stored provenance set aside as boilerplate (they repeat text an earlier prompt
   * of another session holds, found in boilerplate_tenants or more tenants' sessions); null: not
   * known (never scanned, provenance not computed since this was counted, Spark findings).
   */
  provenance_boilerplate_responses: number | null
  /**
   * Answers the verbatim-text search could not compare: fewer words than it needs, in a script
   * written without spaces between words (Chinese, Japanese, Thai, ...); null: not known (never
   * scanned, a scan before this was counted, Spark findings). Optional: coverage built by hand.
   */
  provenance_not_comparable_responses?: number | null
  last_scan_at: string | null
}

export interface ProvenanceParameters {
  min_words: number
  boilerplate_tenants: number
}

export function detectionCoverage(db: CaseDb): DetectionCoverage {
  const last = lastFinishedScan(db)
  const unscanned = unscannedFiles(db)
  const unfinished = unfinishedLogFileCount(db)
  const registryChanged = last !== null && last.registry_version !== registryVersion(db)
  const rulesChanged = last !== null && last.sighting_rules !== SIGHTING_RULES
  const extractedEarlier = countLogFilesExtractedOtherwise(db, EXTRACT_SCHEME)
  const provenance = last === null ? 'never' : last.provenance_state
  const unfinishedScan = unfinishedScanStart(db)
  const noLogRecords = completeLogRecords(db) === 0 && (corpusFacts(db)?.records ?? 0) === 0
  const grown = grownOriginals(db).length
  return {
    complete: last !== null && !noLogRecords && unscanned.files === 0 && unfinished === 0 && grown === 0 && unfinishedScan === null && !registryChanged && !rulesChanged && extractedEarlier === 0 && provenance === 'current',
    files_not_scanned: unscanned.files,
    records_not_scanned: unscanned.records,
    files_unfinished: unfinished,
    files_grown: grown,
    never_scanned: last === null,
    no_log_records: noLogRecords,
    unfinished_scan_started_at: unfinishedScan,
    registry_changed: registryChanged,
    sighting_rules_changed: rulesChanged,
    files_extracted_earlier: extractedEarlier,
    provenance,
    provenance_parameters: last === null ? null : {min_words: last.min_words, boilerplate_tenants: last.boilerplate_tenants},
    provenance_boilerplate_responses: last?.provenance_boilerplate_responses ?? null,
    provenance_not_comparable_responses: last?.provenance_not_comparable_responses ?? null,
    last_scan_at: last?.finished_at ?? null,
  }
}

/**
 * Nothing has been searched: no scan finished, or the case holds no log record (no log file,
 * every one dropped, or none that gave a record). A scan over nothing finds nothing, which is
 * no finding: every figure of detection is unknown, as before a first scan.
 */
export function nothingSearched(c: Pick<DetectionCoverage, 'never_scanned' | 'no_log_records'>): boolean {
  return c.never_scanned || c.no_log_records === true
}

/**
 * Why nothing is known of detection where nothingSearched(c), in a few words: a scan that ran over
 * no log record searched nothing (never "never scanned": it was), else no scan has finished.
 */
export function nothingSearchedReason(c: Pick<DetectionCoverage, 'never_scanned' | 'no_log_records'>): string {
  return !c.never_scanned && c.no_log_records === true ? 'the case holds no log record, so the scan searched nothing' : 'the case has never been scanned'
}

/** What to run so that detection searches something: with no log record in the case, a scan alone searches nothing again. */
export function nothingSearchedStep(c: Pick<DetectionCoverage, 'no_log_records'>): string {
  return c.no_log_records === true ? 'crosstalk ingest logs PATH; crosstalk scan' : 'crosstalk scan'
}

/** Why detection is incomplete, in a few words (for errors and notes). */
export function describeGap(c: DetectionCoverage): string {
  const unfinished = c.files_unfinished > 0 ? `${count(c.files_unfinished, 'log file')} whose ingest did not finish (run the same ingest command again: it resumes)` : null
  const grown = (c.files_grown ?? 0) > 0 ? grownGap(c.files_grown ?? 0) : null
  if (nothingSearched(c)) {
    const never =
      c.files_not_scanned > 0 && !c.no_log_records
        ? `the case was never scanned (${count(c.files_not_scanned, 'log file')}, ${count(c.records_not_scanned, 'record')})`
        : c.no_log_records && c.last_scan_at !== null
          ? 'the case holds no log record, so the scan searched nothing'
          : 'the case holds no scanned logs'
    return unfinished === null ? never : `${never}; ${unfinished}`
  }
  const parts: string[] = []
  if (unfinished !== null) parts.push(unfinished)
  if (grown !== null) parts.push(grown)
  if (c.unfinished_scan_started_at !== null) parts.push(`the scan begun at ${c.unfinished_scan_started_at} did not finish (interrupted, killed or failed, or still running): the findings stored may be partly its own and partly the last finished scan's`)
  if (c.files_not_scanned > 0) parts.push(`${count(c.files_not_scanned, 'log file')} with ${count(c.records_not_scanned, 'record')} ingested since the last scan`)
  if (c.registry_changed) parts.push('the canary registry changed since the last scan')
  if (c.sighting_rules_changed) parts.push("the last scan classified sightings under earlier rules (before rules 2, a marker's hex digits alone in a prompt made an echo; before rules 3, a token cut short of one registered marker that also extended a shorter one was read as the shorter; before rules 4, a registered marker found inside a longer one, or a prompt holding a longer marker that begins with it, was read as that marker's sighting or echo; before rules 5, a token cut short of several registered markers was an orphan even where one session owned them all)")
  if (c.files_extracted_earlier > 0) parts.push(`${count(c.files_extracted_earlier, 'log file')} extracted by an earlier version of crosstalk, whose reading differs from this one's (before x3 it read fewer of a request's parts and joined a streamed answer's text blocks apart; before x4 it read a line that gives a key twice by the key's last value; before x5 it left unread some texts an answer gives: function calls, tool items, error messages; before x6 it left unread a built-in tool's items, a server tool's or MCP server's results, citations and audio transcripts, and some texts a request sends back (thinking, tool items and results, refusals, a predicted output), and passed over an item or block of a type it does not know without a word; before x7 it passed over a chat answer's content part of a type it does not know without a word, left its refusal parts unread, took a computer call's screenshot for a shape not read, counted an embeddings answer as one that decoded to no text, and searched an event cut off part-way only as its raw text, apart from the answer's text before it; before x8 it named unread the streams of Gemini, Bedrock ConverseStream, Cohere and Assistants and LiteLLM's thinking blocks, passed over some parts of GenAI messages and stream data after [DONE] without a word, and read fewer of a request's texts: other providers' request shapes, tool definitions and output schemas, so a marker the model repeated from them was taken for another session's; before x9 it took a registered marker found inside a longer one for a hit of it, joined a request's text parts with nothing between, and read a phone number written in two forms as two values and a lower-case IBAN as none; before x10 it stored an id holding a lone surrogate as another id, read record times outside 2000-2100 or in the wrong epoch unit and a 0 time as 1970, read an answer kept as SSE text in a Langfuse or OTel export as plain text and an empty one as text, joined a chat stream's reasoning and content, searched tool-call arguments only as written, and quarantined a line opened by a byte-order mark; before x11 it read a stream kept as text inside a Langfuse or OTel message, or as an NDJSON string, as plain text, passed over a stream's lines outside any SSE field, stored a node holding a lone surrogate as another node, and did not find a marker written with a look-alike hyphen, invisible characters inside or in full-width forms; before x12 it did not find a marker with other invisible characters inside (bidi marks, variation selectors, tag characters), wrapped inside its hex, or with its hyphen or digits written as JSON escapes, HTML references or percent-encoding, read an OpenAI Batch error line without its request, and kept an id made only of invisible characters as a record; before x13 it refused a record time in RFC 3339's lower-case form, followed by " UTC" or by an RFC 9557 [zone]): a scan extracts ${c.files_extracted_earlier === 1 ? 'it' : 'them'} again`)
  if (c.provenance === 'stale') parts.push('canary-less provenance does not cover the case as it is (a scan skipped it with --no-provenance, or evidence was dropped, since it ran)')
  return parts.join('; ')
}

/** The grown originals' gap, in a few words (status names each file and its bytes). */
function grownGap(files: number): string {
  return `${count(files, 'log file')} whose original now holds bytes beyond those ingested, never judged (appended since; crosstalk status names ${files === 1 ? 'it' : 'them'}: ingest ${files === 1 ? 'it' : 'them'} again)`
}

/**
 * Refuses (exit 1, one line naming `crosstalk scan`) to report findings over an incomplete
 * detection, unless the user accepts it; then the output must say so (the caller carries
 * the coverage into its result).
 */
export function requireCompleteDetection(coverage: DetectionCoverage, what: string, allowIncomplete: boolean): void {
  if (coverage.complete || allowIncomplete) return
  const fix =
    coverage.files_unfinished > 0
      ? 'finish the ingest (run the same command again) and `crosstalk scan`'
      : (coverage.files_grown ?? 0) > 0
        ? 'ingest the grown files again (`crosstalk status` names them) and `crosstalk scan`'
      : nothingSearched(coverage) && (coverage.files_not_scanned === 0 || coverage.no_log_records)
        ? 'run `crosstalk ingest logs` and `crosstalk scan`'
        : 'run `crosstalk scan`'
  throw new InputError(`${what}: detection is incomplete (${describeGap(coverage)}); ${fix} first, or pass --allow-incomplete to report what has been scanned`, 'E_NOT_SCANNED')
}

/** The parameters as the flags that give them (`--min-words 12 --boilerplate-tenants 3`). */
export function parameterFlags(p: ProvenanceParameters): string {
  return `--min-words ${p.min_words} --boilerplate-tenants ${p.boilerplate_tenants}`
}
