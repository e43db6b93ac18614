import {resolve} from 'node:path'
import {InputError} from '../errors.js'
import {evidenceReader} from '../evidence/evidence-store.js'
import {decodeRecordAt} from '../evidence/record-texts.js'
import {lineDecoder} from '../extract/line-decoder.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import {claimIngest, releaseIngest} from '../ingest/ingest-lock.js'
import {IS_ERROR, NO_REQUEST_TEXT, NO_RESPONSE_TEXT, recordFlags} from '../ingest/process-unit.js'
import {countLineAsRecord, countMissingFields, deleteFile, fileById, findLogFiles, findRegistryFiles, laterVersionsOf, noMissingFields, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {duplicatesOutside, rehomeRecord, type DuplicateElsewhere} from '../store/quarantine.js'
import {filesReadingFrom} from '../store/records.js'
import {corpusFacts} from '../store/scale.js'
import {markProvenanceStale} from '../store/scan-runs.js'
import {inTransaction} from '../store/session.js'
import {quoted} from '../util/sanitize.js'

// `crosstalk drop FILE`: the way to read a file again under another format or mapping. A file
// read with the wrong --map stays in the case under its SHA-256 (re-ingesting the same bytes adds
// nothing), so it is removed first, with everything derived from it, and the removal is recorded
// (the command audits the file's hash, counts, format and the reason given). The audit chain
// keeps the ingest and the drop; the evidence bytes of a dropped file leave the case (the
// original is wherever it was). Provenance ranked sources among the dropped records, so the next
// scan recomputes it (detection reads as incomplete until then).
//
// A record of a dropped file may also be a duplicate line of a file that stays (the same
// request logged twice, in overlapping files): that line becomes the record, in the same
// transaction, so the case holds what ingesting the remaining files alone would have given.
// The record keeps its id and detection rows, which stand because the line's bytes and the
// way they are read are the same; where they are not, the drop is refused (the other file has
// to be dropped and read again with it).

export interface DroppedFile {
  path: string
  sha256: string
  log_format: string
  parse_spec: string
  state: string
  records: number
  bad_lines: number
}

export interface DropResult {
  dropped: DroppedFile[]
  reason: string
  /** Records of the dropped files kept in the case at their duplicate line in a file that stays. */
  records_kept: number
  /** Per file that stays, how many of those records it now holds (its record count grew by as many). */
  kept_in: Array<{path: string; sha256: string; records: number}>
  /** provenance must be recomputed: run `crosstalk scan` */
  rescan_needed: boolean
}

export function dropFiles(db: CaseDb, refs: readonly string[], reason: string): DropResult {
  if (reason.trim() === '') throw new InputError('--reason: say why the file is dropped (it is recorded in the audit log)', 'E_USAGE')
  // A case of Spark findings holds the job's counts over every shard, and no scan can run again here.
  if (corpusFacts(db)) {
    throw new InputError('this case holds Spark findings by reference, counted over every shard by the job: run the job again without the file, and bring its findings into a new case', 'E_REFERENCE_CASE')
  }
  const files: FileRow[] = []
  for (const ref of refs) {
    const found = findLogFiles(db, ref, resolve(ref))
    if (found.length === 0 && findRegistryFiles(db, ref, resolve(ref)).length > 0) {
      // A registry's markers decided every sighting of the case: there is no withdrawing it here.
      throw new InputError(
        `${ref}: a canary registry of the case, not a log file: drop takes log files only, and a registry cannot be withdrawn from a case (every sighting was classified with its markers). To correct a wrong registry, build a new case from the same logs with the corrected registry (crosstalk ingest logs PATHS --db NEW; crosstalk ingest canaries FILE --db NEW; crosstalk scan --db NEW)`,
        'E_REGISTRY_FILE',
      )
    }
    if (found.length === 0) throw new InputError(`${ref}: no log file of this path or SHA-256 in the case (crosstalk status lists what it holds)`, 'E_NOT_FOUND')
    if (found.length > 1) {
      throw new InputError(`${ref}: ${found.length} files in the case match (${found.map((f) => `sha256 ${f.sha256.slice(0, 12)}`).join(', ')}); name one by its SHA-256 prefix`, 'E_AMBIGUOUS')
    }
    if (!files.some((f) => f.id === found[0]!.id)) files.push(found[0]!)
  }
  // A later version of one of these (a log ingested again once it grew) read only the lines after
  // it: without it, those lines would be held by no file of the case.
  const later = laterVersionsOf(db, files.map((f) => f.id))
  if (later.length > 0) {
    const names = (fs: readonly FileRow[]) => fs.map((f) => `${f.path} (sha256 ${f.sha256.slice(0, 12)})`).join(', ')
    throw new InputError(
      `${names(later)} ${later.length === 1 ? 'is a longer version' : 'are longer versions'} of ${names(files)} (the same log, ingested again once it grew), which read only the lines after it: drop them together (crosstalk drop ${[...files, ...later].map((f) => f.sha256.slice(0, 12)).join(' ')})`,
      'E_DEPENDENT_FILES',
    )
  }
  // Records of other files read with lines of these (a Batch output with its input file) would lose them.
  const dependents = filesReadingFrom(db, files.map((f) => f.id))
  if (dependents.length > 0) {
    throw new InputError(
      `records of ${dependents.map((d) => d.path).join(', ')} were read with lines of ${files.map((f) => f.path).join(', ')}; drop them together (crosstalk drop ${[...files, ...dependents].map((f) => f.path).join(' ')})`,
      'E_DEPENDENT_FILES',
    )
  }
  claimIngest(db)
  let kept: DropResult['kept_in'] = []
  try {
    inTransaction(db, () => {
      kept = keepRecordsAtDuplicates(db, files)
      // The latest first: a version refers to the one it continues.
      for (const f of [...files].sort((a, b) => b.id - a.id)) deleteFile(db, f.id)
      markProvenanceStale(db)
    })
  } finally {
    releaseIngest(db)
  }
  return {
    dropped: files.map((f) => ({path: f.path, sha256: f.sha256, log_format: f.log_format, parse_spec: f.parse_spec, state: f.state, records: f.records, bad_lines: f.bad_lines})),
    reason,
    records_kept: kept.reduce((n, k) => n + k.records, 0),
    kept_in: kept,
    rescan_needed: true,
  }
}

/** Moves each record of `files` that a remaining file holds a duplicate line of to the first such line; returns how many each file got. */
function keepRecordsAtDuplicates(db: CaseDb, files: readonly FileRow[]): DropResult['kept_in'] {
  const first = new Map<number, DuplicateElsewhere>()
  for (const d of duplicatesOutside(db, files.map((f) => f.id))) if (!first.has(d.record_id)) first.set(d.record_id, d)
  const kept = new Map<number, DropResult['kept_in'][number]>()
  const read = evidenceReader(db)
  for (const d of first.values()) {
    const from = files.find((f) => f.id === d.record_file_id)!
    const to = fileById(db, d.file_id)!
    const where = `${to.path} line ${d.line_no}`
    const why = refusal(from, to, d)
    if (why) {
      throw new InputError(
        `${from.path}: its record ${quoted(d.request_id)} is also ${where}, which ${why}; drop ${to.path} with it (crosstalk drop ${from.path} ${to.path}) and ingest what should stay again`,
        'E_DUPLICATE_ELSEWHERE',
      )
    }
    let row
    try {
      row = decodeRecordAt(
        {file_id: to.id, path: to.path, line_no: d.line_no, item: 0, byte_offset: d.byte_offset, byte_len: d.byte_len, raw_crc32: d.raw_crc32, parse_spec: to.parse_spec, companions: []},
        lineDecoder(decodeParseSpec(to.parse_spec)), read,
      )
    } catch (error) {
      throw new InputError(`${from.path}: its record ${quoted(d.request_id)} is also ${where}, which cannot be read as it: ${(error as Error).message}`, 'E_DUPLICATE_ELSEWHERE')
    }
    const flags = recordFlags(row)
    const missing = noMissingFields()
    countMissingFields(missing, row)
    const ts = new Date(row.ts_ms).toISOString()
    countLineAsRecord(db, to.id, {
      ...missing,
      no_request_text: flags & NO_REQUEST_TEXT ? 1 : 0,
      no_response_text: flags & NO_RESPONSE_TEXT ? 1 : 0,
      error_records: flags & IS_ERROR ? 1 : 0,
      first_ts: to.first_ts === null || Date.parse(to.first_ts) > row.ts_ms ? ts : to.first_ts,
      last_ts: to.last_ts === null || Date.parse(to.last_ts) < row.ts_ms ? ts : to.last_ts,
    })
    rehomeRecord(db, d)
    const k = kept.get(to.id) ?? {path: to.path, sha256: to.sha256, records: 0}
    k.records++
    kept.set(to.id, k)
  }
  return [...kept.values()]
}

/** Why the duplicate line cannot simply become the record (null: it can). */
function refusal(from: FileRow, to: FileRow, d: DuplicateElsewhere): string | null {
  if (to.state !== 'complete') return 'is in a file whose ingest did not finish'
  if (d.identical !== 1) return 'differs from it (its fields would be read from other bytes)'
  if (d.item !== 0 || !onePerLine(from) || !onePerLine(to)) return 'is in a format that holds several records a line or reads a record with other lines'
  if (from.parse_spec !== to.parse_spec) return 'was read with another format or mapping'
  if (from.extract_scheme !== to.extract_scheme || from.unconventional_sha256 !== to.unconventional_sha256) return 'was extracted under another detection scheme (run `crosstalk scan` first)'
  return null
}

function onePerLine(file: FileRow): boolean {
  try {
    const format = decodeParseSpec(file.parse_spec).format
    return format === undefined || format === 'native'
  } catch {
    return false
  }
}
