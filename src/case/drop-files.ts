import {createHash} from 'node:crypto'
import {resolve} from 'node:path'
import {crc32} from 'node:zlib'
import {InputError} from '../errors.js'
import {evidenceReader, inflateBlock} from '../evidence/evidence-store.js'
import {markerKey} from '../extract/markers.js'
import {decodeRecordAt} from '../evidence/record-texts.js'
import {lineDecoder} from '../extract/line-decoder.js'
import {decodeParseSpec} from '../extract/parse-spec.js'
import {registryEntries} from '../ingest/ingest-canaries.js'
import {claimIngest, releaseIngest} from '../ingest/ingest-lock.js'
import {IS_ERROR, NO_REQUEST_TEXT, NO_RESPONSE_TEXT, recordFlags} from '../ingest/process-unit.js'
import {keyRegistered, stageRegistry, withdrawRegistryMarkers} from '../store/canaries.js'
import {iterateBlocks} from '../store/evidence-blocks.js'
import {countLineAsRecord, countMissingFields, deleteFile, fileById, findLogFiles, findRegistryFiles, laterVersionsOf, listFiles, noMissingFields, type FileRow} from '../store/files.js'
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

/** A canary registry withdrawn from the case (it was the wrong file, or wrong in itself). */
export interface DroppedRegistry {
  path: string
  sha256: string
  /** entries the file holds */
  entries: number
  /** markers the case held from this file and no longer holds */
  markers_removed: number
  /** markers it registered that another registry file of the case also gives (to the same session): they stay, now held by that file */
  markers_still_registered: number
}

export interface DropResult {
  dropped: DroppedFile[]
  /** Canary registries withdrawn (empty when only log files were named). */
  registries_dropped: DroppedRegistry[]
  /**
   * Registry rows deleted, re-registrations by other files included: the registry's change count
   * (every insert and delete) exceeds its size by twice the sum of these over the case's drops,
   * which is how verify tells a withdrawal from a marker removed outside crosstalk.
   */
  markers_withdrawn: number
  /** Per registry file that stays, the markers of a withdrawn registry it now holds (it gives them too; they were stored as the withdrawn file's at ingest). */
  markers_reregistered: Array<{path: string; sha256: string; markers: number}>
  reason: string
  /** Records of the dropped files kept in the case at their duplicate line in a file that stays. */
  records_kept: number
  /** Per file that stays, how many of those records it now holds (its record count grew by as many). */
  kept_in: Array<{path: string; sha256: string; records: number}>
  /** provenance must be recomputed: run `crosstalk scan` */
  rescan_needed: boolean
}

/**
 * Drops the files `refs` name. `audit` records the result in the same transaction as the drop,
 * so a drop is never in the case without its audit entry (verify reconciles the registry's change
 * count with the withdrawals the audit log records).
 */
export function dropFiles(db: CaseDb, refs: readonly string[], reason: string, audit: (result: DropResult) => void = () => {}): DropResult {
  if (reason.trim() === '') throw new InputError('--reason: say why the file is dropped (it is recorded in the audit log)', 'E_USAGE')
  // A case of Spark findings holds the job's counts over every shard, and no scan can run again here.
  if (corpusFacts(db)) {
    throw new InputError('this case holds Spark findings by reference, counted over every shard by the job: run the job again without the file, and bring its findings into a new case', 'E_REFERENCE_CASE')
  }
  const files: FileRow[] = []
  const registries: FileRow[] = []
  for (const ref of refs) {
    const found = [...findLogFiles(db, ref, resolve(ref)), ...findRegistryFiles(db, ref, resolve(ref))]
    if (found.length === 0) throw new InputError(`${ref}: no log file or canary registry of this path or SHA-256 in the case (crosstalk status lists what it holds)`, 'E_NOT_FOUND')
    if (found.length > 1) {
      throw new InputError(`${ref}: ${found.length} files in the case match (${found.map((f) => `sha256 ${f.sha256.slice(0, 12)}`).join(', ')}); name one by its SHA-256 prefix`, 'E_AMBIGUOUS')
    }
    const file = found[0]!
    const into = file.kind === 'canaries' ? registries : files
    if (!into.some((f) => f.id === file.id)) into.push(file)
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
  // The registries that stay are read from the case's copy before anything changes: one whose
  // copy no longer verifies refuses the drop (its markers could not be registered again).
  const staying = registries.length === 0 ? [] : listFiles(db).filter((f) => f.kind === 'canaries' && !registries.some((r) => r.id === f.id))
  const reRegister = staying.filter((f) => f.state === 'complete' && f.id > Math.min(...registries.map((r) => r.id)))
  const stayingEntries = new Map(reRegister.map((f) => [f.id, registryEntries(f.name, registryCopy(db, f))]))
  claimIngest(db)
  let result: DropResult | undefined
  try {
    inTransaction(db, () => {
      const kept = keepRecordsAtDuplicates(db, files)
      // The latest first: a version refers to the one it continues.
      for (const f of [...files].sort((a, b) => b.id - a.id)) deleteFile(db, f.id)
      if (files.length > 0) markProvenanceStale(db)
      const withdrawn = withdrawRegistries(db, registries, stayingEntries)
      result = {
        dropped: files.map((f) => ({path: f.path, sha256: f.sha256, log_format: f.log_format, parse_spec: f.parse_spec, state: f.state, records: f.records, bad_lines: f.bad_lines})),
        registries_dropped: withdrawn.dropped,
        markers_withdrawn: withdrawn.deleted,
        markers_reregistered: withdrawn.reregistered,
        reason,
        records_kept: kept.reduce((n, k) => n + k.records, 0),
        kept_in: kept,
        rescan_needed: true,
      }
      audit(result)
    })
  } finally {
    releaseIngest(db)
  }
  return result!
}

/**
 * Withdraws canary registries. Every marker the case holds from one leaves the registry; a marker
 * that a registry file ingested after it also gives (the first registration of a marker wins at
 * ingest, so that file's entry was not stored) is registered again from that file's copy, so the
 * registry is what ingesting the remaining files alone, in the same order, would give (which is
 * what verify derives). The change of the registry makes the next scan classify every record
 * again; until then detection reads as incomplete.
 */
function withdrawRegistries(
  db: CaseDb, registries: readonly FileRow[], stayingEntries: ReadonlyMap<number, ReturnType<typeof registryEntries>>,
): {dropped: DroppedRegistry[]; deleted: number; reregistered: DropResult['markers_reregistered']} {
  if (registries.length === 0) return {dropped: [], deleted: 0, reregistered: []}
  const reregistered: DropResult['markers_reregistered'] = []
  const removedKeys = new Map<number, Set<string>>()
  let deleted = 0
  for (const r of registries) {
    const keys = withdrawRegistryMarkers(db, r.id)
    removedKeys.set(r.id, new Set(keys))
    deleted += keys.length
  }
  // In ingest order: a file's first registration of a marker still wins.
  for (const [fileId, entries] of [...stayingEntries].sort((a, b) => a[0] - b[0])) {
    const staging = stageRegistry(db)
    try {
      for (const e of entries) staging.add({...e, marker_key: markerKey(e.marker)})
      const added = staging.commit(fileId)
      const file = fileById(db, fileId)!
      if (added > 0) reregistered.push({path: file.path, sha256: file.sha256, markers: added})
    } finally {
      staging.drop()
    }
  }
  const registered = keyRegistered(db)
  const dropped = registries.map((r) => {
    const keys = removedKeys.get(r.id)!
    let still = 0
    for (const k of keys) if (registered(k)) still++
    return {path: r.path, sha256: r.sha256, entries: r.records, markers_removed: keys.size - still, markers_still_registered: still}
  })
  for (const r of registries) deleteFile(db, r.id)
  return {dropped, deleted, reregistered}
}

/** A registry file's bytes from the case's copy, each block against its CRC and the whole against the file's hash. */
function registryCopy(db: CaseDb, file: FileRow): Buffer {
  const parts: Buffer[] = []
  const refuse = (why: string) =>
    new InputError(`${file.path}: the case's copy of this canary registry ${why}, so its markers cannot be registered again after the drop; run \`crosstalk verify\``, 'E_EVIDENCE')
  for (const row of iterateBlocks(db, file.id)) {
    let bytes: Buffer
    try {
      bytes = inflateBlock(row, file.id)
    } catch (error) {
      throw refuse(`cannot be read (${(error as Error).message})`)
    }
    if (bytes.length !== row.raw_len || crc32(bytes) !== row.crc32) throw refuse(`does not match its CRC-32 (block ${row.seq})`)
    parts.push(bytes)
  }
  const bytes = Buffer.concat(parts)
  if (file.content_sha256 && createHash('sha256').update(bytes).digest('hex') !== file.content_sha256) throw refuse('does not reproduce the SHA-256 recorded at ingest')
  return bytes
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
