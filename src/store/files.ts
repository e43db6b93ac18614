import type {CaseDb} from './open-case.js'
import {withForeignKeyChecks} from './session.js'
import type {RecordFields} from '../util/record-fields.js'

// The files table: every evidence file (logs and canary registries) with its hashes, how it
// was read, and whether its ingest completed. Rows of a file still 'loading' (an ingest in
// progress, or one killed mid-way) are not evidence yet: every query that counts records
// keeps to complete files (completeRecords in records.ts).

export type FileKind = 'log' | 'canaries'
export type FileState = 'loading' | 'complete'
export type Compression = 'none' | 'gzip'

export interface FileRow {
  id: number
  kind: FileKind
  path: string
  name: string
  abs_path: string
  sha256: string
  size: number
  compression: Compression
  log_format: string
  parse_spec: string
  source: string
  state: FileState
  started_at: string
  completed_at: string | null
  content_sha256: string | null
  content_size: number | null
  lines: number
  blank_lines: number
  records: number
  duplicates: number
  bad_lines: number
  first_ts: string | null
  last_ts: string | null
  notes: string | null
  extract_scheme: string | null
  unconventional_sha256: string | null
  format_reason: string | null
  no_request_text: number | null
  no_response_text: number | null
  error_records: number | null
  ignored_items: number
  /** NULL: read whole; else what could not be read */
  unread: string | null
  /** 'copy': every byte is in the case (ingest logs); 'reference': only the findings' lines are (ingest findings, migration 004) */
  evidence: 'copy' | 'reference'
  /** where a referenced original lives (null for copies) */
  uri: string | null
  /** which lines evidence_blocks holds: 'all' (a copy), 'findings' (ingest findings), 'none' (ingest logs --evidence reference: read from abs_path) (migration 005) */
  lines_held: LinesHeld
  /** Records that do not say the field (migration 006); null: not counted when the file was ingested. */
  no_status: number | null
  no_prompt_tokens: number | null
  no_completion_tokens: number | null
  no_decode_node: number | null
  no_status_or_prompt_tokens: number | null
  /**
   * The earlier version of the same file this one continues (a log appended to after it was
   * ingested, stored again whole): its lines before `read_from` are that version's, stored and
   * counted there (migration 018). null: a file of its own.
   */
  continues_file_id: number | null
  /** Offset in the content where this file's own lines begin (0: all of them; else where the version it continues ends in a whole line). */
  read_from: number
  /** SHA-256 of its first HEAD_BYTES bytes as stored (all of it when shorter); null: stored before migration 018. */
  head_sha256: string | null
}

/** The bytes of a file's head whose SHA-256 is kept (files.head_sha256): a longer version begins with the same. */
export const HEAD_BYTES = 4096

export type LinesHeld = 'all' | 'findings' | 'none'

/** How `ingest logs` keeps a file's bytes: a copy in the case, or the original read where it lies. */
export type LogEvidence = 'copy' | 'reference'

export function fileById(db: CaseDb, id: number): FileRow | undefined {
  return db.prepare('SELECT * FROM files WHERE id = ?').get(id) as FileRow | undefined
}

export function fileBySha256(db: CaseDb, sha256: string): FileRow | undefined {
  return db.prepare('SELECT * FROM files WHERE sha256 = ?').get(sha256) as FileRow | undefined
}

/** Log files of exactly this size (only these can have the same SHA-256 as a file of that size). */
export function logFilesOfSize(db: CaseDb, size: number): FileRow[] {
  return db.prepare(`SELECT * FROM files WHERE kind = 'log' AND size = ?`).all(size) as FileRow[]
}

/** Log files ingested from this path (any size: a log that grew since is the same path). */
export function logFilesAtPath(db: CaseDb, absPath: string): FileRow[] {
  return db.prepare(`SELECT * FROM files WHERE kind = 'log' AND abs_path = ?`).all(absPath) as FileRow[]
}

/**
 * Complete log files shorter than `size` that a file of that size may have grown from, the longest
 * first (an empty one is the start of every file: only the one stored from this path is its
 * earlier version): those of this path or this name, and any other whose head_sha256 is among
 * `heads` (the SHA-256 of this file's first HEAD_BYTES bytes, and of its first N bytes for each
 * size N of smallLogFileSizes). Ingest checks each one's SHA-256 against its first bytes.
 */
export function shorterLogFiles(db: CaseDb, f: {absPath: string; name: string; size: number; heads: readonly string[]}): FileRow[] {
  return db
    .prepare(
      `SELECT * FROM files WHERE kind = 'log' AND state = 'complete' AND size < ? AND (size > 0 OR abs_path = ?)
         AND (abs_path = ? OR name = ? OR head_sha256 IN (SELECT value FROM json_each(?)))
       ORDER BY size DESC, id DESC`,
    )
    .all(f.size, f.absPath, f.absPath, f.name, JSON.stringify(f.heads)) as FileRow[]
}

/** The sizes under HEAD_BYTES (and under `below`) of complete log files with a head_sha256: whose head is the whole file. */
export function smallLogFileSizes(db: CaseDb, below: number): number[] {
  return db
    .prepare(`SELECT DISTINCT size FROM files WHERE kind = 'log' AND state = 'complete' AND head_sha256 IS NOT NULL AND size > 0 AND size < ? AND size < ${HEAD_BYTES}`)
    .pluck()
    .all(below) as number[]
}

/**
 * A complete log file `f` that a complete later version continues (the same log, appended to and
 * stored again: migration 018): the case holds one file in both, counted once among its log files.
 */
export const EARLIER_VERSION = `EXISTS (SELECT 1 FROM files n WHERE n.continues_file_id = f.id AND n.kind = 'log' AND n.state = 'complete')`

/** The files that continue any of these (their later versions, every one after): dropped with them, or their lines before read_from are held nowhere. */
export function laterVersionsOf(db: CaseDb, ids: readonly number[]): FileRow[] {
  const out: FileRow[] = []
  const seen = new Set(ids)
  let frontier = [...ids]
  const next = db.prepare(`SELECT * FROM files WHERE continues_file_id = ? ORDER BY id`)
  while (frontier.length > 0) {
    const found = frontier.flatMap((id) => next.all(id) as FileRow[]).filter((f) => !seen.has(f.id))
    for (const f of found) seen.add(f.id)
    out.push(...found)
    frontier = found.map((f) => f.id)
  }
  return out
}

/** Another file already holding this hash (a concurrent ingest of the same bytes). */
export function otherFileWithSha256(db: CaseDb, sha256: string, id: number): FileRow | undefined {
  return db.prepare('SELECT * FROM files WHERE sha256 = ? AND id <> ?').get(sha256, id) as FileRow | undefined
}

/** Removes a file and, by cascade, everything derived from it (records, extracts, findings, blocks). */
export function deleteFile(db: CaseDb, id: number): void {
  // Its records, evidence and extract rows go by ON DELETE CASCADE, also during an ingest's
  // passes that turn the checks off.
  withForeignKeyChecks(db, () => db.prepare('DELETE FROM files WHERE id = ?').run(id))
}

export interface NewLogFile {
  path: string
  name: string
  absPath: string
  /** Unknown until the ingest pass ends: a unique placeholder holds the column meanwhile. */
  sha256: string
  size: number
  compression: Compression
  logFormat: string
  parseSpec: string
  formatReason: string
  source: string
  startedAt: string
  /** 'copy' (default): every byte goes into evidence_blocks; 'reference': none does, the original is read where it lies */
  evidence?: LogEvidence
  /** A longer version of this complete file: its lines before readFrom are that one's (migration 018). */
  continues?: {fileId: number; readFrom: number}
}

export function insertLoadingLogFile(db: CaseDb, f: NewLogFile): number {
  const byReference = f.evidence === 'reference'
  return Number(
    db
      .prepare(
        `INSERT INTO files (kind, evidence, lines_held, path, name, abs_path, sha256, size, compression, log_format, parse_spec, format_reason, source, state, started_at, continues_file_id, read_from)
         VALUES ('log', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'loading', ?, ?, ?)`,
      )
      .run(
        byReference ? 'reference' : 'copy', byReference ? 'none' : 'all', f.path, f.name, f.absPath, f.sha256, f.size, f.compression, f.logFormat, f.parseSpec,
        f.formatReason, f.source, f.startedAt, f.continues?.fileId ?? null, f.continues?.readFrom ?? 0,
      ).lastInsertRowid,
  )
}

/** Where a file's lines are read from (evidence/evidence-store.ts): its blocks, or the original for lines_held 'none'. */
export function fileLinesHeldQuery(db: CaseDb): (id: number) => {id: number; path: string; abs_path: string; size: number; sha256: string; lines_held: LinesHeld} | undefined {
  const get = db.prepare('SELECT id, path, abs_path, size, sha256, lines_held FROM files WHERE id = ?')
  return (id) => get.get(id) as {id: number; path: string; abs_path: string; size: number; sha256: string; lines_held: LinesHeld} | undefined
}

/**
 * How the case keeps its log files (null: it holds none yet): 'reference' as soon as one file is
 * read from its original (ingest logs --evidence reference; a gzip file beside it is a copy), or
 * when it holds Spark findings; lines_held: 'none' where some file holds no line of its own.
 */
export function caseLogEvidence(db: CaseDb): {evidence: LogEvidence; lines_held: LinesHeld} | null {
  const rows = db.prepare(`SELECT DISTINCT lines_held FROM files WHERE kind = 'log'`).pluck().all() as LinesHeld[]
  if (rows.length === 0) return null
  if (rows.includes('findings')) return {evidence: 'reference', lines_held: 'findings'}
  return rows.includes('none') ? {evidence: 'reference', lines_held: 'none'} : {evidence: 'copy', lines_held: 'all'}
}

export interface NewRegistryFile {
  path: string
  name: string
  absPath: string
  sha256: string
  size: number
  format: 'csv' | 'jsonl'
  at: string
  entries: number
}

export function insertRegistryFile(db: CaseDb, f: NewRegistryFile): number {
  return Number(
    db
      .prepare(
        `INSERT INTO files (kind, path, name, abs_path, sha256, size, compression, log_format, source, state, started_at, completed_at,
           content_sha256, content_size, lines, records)
         VALUES ('canaries', ?, ?, ?, ?, ?, 'none', ?, 'registry', 'complete', ?, ?, ?, ?, ?, ?)`,
      )
      .run(f.path, f.name, f.absPath, f.sha256, f.size, f.format, f.at, f.at, f.sha256, f.size, f.entries, f.entries).lastInsertRowid,
  )
}

/** A registry's entry count, known once its last line is read (the row goes in first, in the same transaction). */
export function setRegistryEntries(db: CaseDb, id: number, entries: number): void {
  db.prepare("UPDATE files SET lines = ?, records = ? WHERE id = ? AND kind = 'canaries'").run(entries, entries, id)
}

export interface FileCounts {
  lines: number
  records: number
  duplicates: number
  bad_lines: number
  blank_lines: number
}

export function fileCountsUpdater(db: CaseDb): (id: number, c: FileCounts) => void {
  const update = db.prepare('UPDATE files SET lines = ?, records = ?, duplicates = ?, bad_lines = ?, blank_lines = ? WHERE id = ?')
  return (id, c) => {
    update.run(c.lines, c.records, c.duplicates, c.bad_lines, c.blank_lines, id)
  }
}

export interface CompletedLogFile {
  completedAt: string
  sha256: string
  /** Bytes of the file read (and hashed): a log that grows later is judged on these. */
  size: number
  contentSha256: string
  contentSize: number
  firstTs: string | null
  lastTs: string | null
  notes: string[]
  extractScheme: string
  unconventionalSha256: string
  noRequestText: number
  noResponseText: number
  errorRecords: number
  ignoredItems: number
  unread: string | null
  /** Records that do not say each field the at-risk test and the exposure depend on. */
  missing: MissingFieldCounts
  /** SHA-256 of the first HEAD_BYTES bytes read (all of them when fewer) */
  headSha256: string
}

/** Of a file's records, how many do not say each field (NULL in the records table). */
export interface MissingFieldCounts {
  no_status: number
  no_prompt_tokens: number
  no_completion_tokens: number
  no_decode_node: number
  no_status_or_prompt_tokens: number
}

export const MISSING_FIELDS = ['no_status', 'no_prompt_tokens', 'no_completion_tokens', 'no_decode_node', 'no_status_or_prompt_tokens'] as const

export function noMissingFields(): MissingFieldCounts {
  return {no_status: 0, no_prompt_tokens: 0, no_completion_tokens: 0, no_decode_node: 0, no_status_or_prompt_tokens: 0}
}

/** Counts the fields a record does not give (what the records table holds as NULL): ingest as it writes it, verify as it reads it back. */
export function countMissingFields(m: MissingFieldCounts, w: Pick<RecordFields, 'status' | 'prompt_tokens' | 'completion_tokens' | 'decode_node'>): void {
  if (w.status === null) m.no_status++
  if (w.prompt_tokens === null) m.no_prompt_tokens++
  if (w.completion_tokens === null) m.no_completion_tokens++
  if (w.decode_node === null) m.no_decode_node++
  if (w.status === null || w.prompt_tokens === null) m.no_status_or_prompt_tokens++
}

export function completeLogFile(db: CaseDb, id: number, f: CompletedLogFile): void {
  db.prepare(
    `UPDATE files SET state = 'complete', completed_at = ?, sha256 = ?, size = ?, content_sha256 = ?, content_size = ?, first_ts = ?, last_ts = ?, notes = ?,
       extract_scheme = ?, unconventional_sha256 = ?, no_request_text = ?, no_response_text = ?, error_records = ?, ignored_items = ?, unread = ?,
       no_status = ?, no_prompt_tokens = ?, no_completion_tokens = ?, no_decode_node = ?, no_status_or_prompt_tokens = ?, head_sha256 = ?
     WHERE id = ?`,
  ).run(
    f.completedAt, f.sha256, f.size, f.contentSha256, f.contentSize, f.firstTs, f.lastTs, f.notes.length ? JSON.stringify(f.notes) : null,
    f.extractScheme, f.unconventionalSha256, f.noRequestText, f.noResponseText, f.errorRecords, f.ignoredItems, f.unread,
    f.missing.no_status, f.missing.no_prompt_tokens, f.missing.no_completion_tokens, f.missing.no_decode_node, f.missing.no_status_or_prompt_tokens, f.headSha256, id,
  )
}

/** Adds to what a complete file leaves unread (after what it says already, if anything): it is then not read whole. */
export function addFileUnread(db: CaseDb, id: number, unread: string): void {
  db.prepare(`UPDATE files SET unread = CASE WHEN unread IS NULL THEN ? ELSE unread || '; ' || ? END WHERE id = ?`).run(unread, unread, id)
}

/** Adds a note to a complete file's notes (a JSON array of lines), where it does not hold it already. */
export function addFileNote(db: CaseDb, id: number, note: string): void {
  const notes = JSON.parse((db.prepare('SELECT notes FROM files WHERE id = ?').pluck().get(id) as string | null) ?? '[]') as string[]
  if (!notes.includes(note)) db.prepare('UPDATE files SET notes = ? WHERE id = ?').run(JSON.stringify([...notes, note]), id)
}

/** The ids of the log files one of whose notes holds `text`. */
export function filesWithNote(db: CaseDb, text: string): Set<number> {
  return new Set(db.prepare(`SELECT id FROM files WHERE kind = 'log' AND notes IS NOT NULL AND instr(notes, ?) > 0`).pluck().all(text) as number[])
}

/** Log files whose ingest did not finish (killed, interrupted, failed, or still running): none of their records counts yet. */
/** Log files in the case, in any state (loading, complete, not read whole, recordless). */
export function countLogFiles(db: CaseDb): number {
  return db.prepare(`SELECT COUNT(*) FROM files WHERE kind = 'log'`).pluck().get() as number
}

export function unfinishedLogFileCount(db: CaseDb): number {
  return db.prepare(`SELECT COUNT(*) FROM files WHERE kind = 'log' AND state = 'loading'`).pluck().get() as number
}

/** A log file ingest did not finish (interrupted): its rows stay 'loading' and count for nothing. */
export function loadingLogFiles(db: CaseDb): FileRow[] {
  return db.prepare(`SELECT * FROM files WHERE kind = 'log' AND state = 'loading' ORDER BY id`).all() as FileRow[]
}

/** Log files by the path given, the absolute path, or a SHA-256 (or its first 12+ hex digits). */
export function findLogFiles(db: CaseDb, ref: string, absPath: string): FileRow[] {
  const hex = /^[0-9a-f]{12,64}$/i.test(ref) ? ref.toLowerCase() : null
  return db
    .prepare(`SELECT * FROM files WHERE kind = 'log' AND (path = ? OR abs_path = ? OR (? IS NOT NULL AND substr(sha256, 1, length(?)) = ?)) ORDER BY id`)
    .all(ref, absPath, hex, hex, hex) as FileRow[]
}

/** The canary registry files of the case a reference names (by path or SHA-256 prefix, as findLogFiles). */
export function findRegistryFiles(db: CaseDb, ref: string, absPath: string): FileRow[] {
  const hex = /^[0-9a-f]{12,64}$/i.test(ref) ? ref.toLowerCase() : null
  return db
    .prepare(`SELECT * FROM files WHERE kind = 'canaries' AND (path = ? OR abs_path = ? OR (? IS NOT NULL AND substr(sha256, 1, length(?)) = ?)) ORDER BY id`)
    .all(ref, absPath, hex, hex, hex) as FileRow[]
}

export interface FormatCount {
  log_format: string
  files: number
}

/** Complete log files per format (a file held in several versions counted once, as its latest). */
export function logFilesByFormat(db: CaseDb): FormatCount[] {
  return db.prepare(`SELECT log_format, count(*) AS files FROM files f WHERE kind = 'log' AND state = 'complete' AND NOT ${EARLIER_VERSION} GROUP BY log_format ORDER BY log_format`).all() as FormatCount[]
}

/** Every file, in ingest order. */
export function listFiles(db: CaseDb): FileRow[] {
  return db.prepare('SELECT * FROM files ORDER BY id').all() as FileRow[]
}

/** Complete log files, in ingest order (what detection covers). */
/**
 * Complete log files whose records were extracted under another scheme than `scheme` (Spark
 * findings by reference aside: the job extracted them, and no scan here does it again).
 */
export function countLogFilesExtractedOtherwise(db: CaseDb, scheme: string): number {
  return db.prepare(`SELECT COUNT(*) FROM files WHERE kind = 'log' AND state = 'complete' AND lines_held IS NOT 'findings' AND extract_scheme IS NOT ?`).pluck().get(scheme) as number
}

export function completeLogFiles(db: CaseDb): FileRow[] {
  return db.prepare(`SELECT * FROM files WHERE state = 'complete' AND kind = 'log' ORDER BY id`).all() as FileRow[]
}

/** Unconventional markers were matched again in this file's responses, under this set. */
/** The detection-extract scheme a file's records now hold (after a scan extracted part of it again). */
export function setExtractScheme(db: CaseDb, fileId: number, scheme: string): void {
  db.prepare('UPDATE files SET extract_scheme = ? WHERE id = ?').run(scheme, fileId)
}

/** A file's records without request text, and without response text (errors aside), as counted again from its texts. */
export function setNoTextCounts(db: CaseDb, fileId: number, noRequestText: number, noResponseText: number): void {
  db.prepare('UPDATE files SET no_request_text = ?, no_response_text = ? WHERE id = ?').run(noRequestText, noResponseText, fileId)
}

export function setUnconventionalMatched(db: CaseDb, fileId: number, sha256: string): void {
  db.prepare('UPDATE files SET unconventional_sha256 = ? WHERE id = ?').run(sha256, fileId)
}

export interface FileTotals {
  /** complete log files that were not read whole, or whose every answer decoded to no text */
  files_not_read_whole: number
  no_request_text: number
  no_response_text: number
  /** answers (records less error records) in complete log files */
  answers: number
  files: number
  log_files: number
  /** complete log files a complete later version continues (EARLIER_VERSION): counted in log_files, one file with that version */
  earlier_versions: number
  registry_files: number
  incomplete_files: number
  bad_lines: number
  duplicates: number
  blank_lines: number
}

/**
 * Whether the quarantined line `b` of the complete log file `f` was settled by a file read since:
 * the same bytes read earlier under another name (a rotated, gzipped copy: its content hash),
 * whose line is counted there; or a later, longer version of the same original (a log whose last
 * line was still being written, ingested again once it grew; at another path, the version that
 * continues it), whose line at the same place was
 * read there (a record or a duplicate) or quarantined there again (counted there). A physical
 * line is counted once, and one read later is no longer "could not be read".
 */
export const SETTLED_BAD_LINE = `(
  EXISTS (SELECT 1 FROM files g WHERE g.kind = 'log' AND g.state = 'complete' AND g.id < f.id AND g.content_sha256 = f.content_sha256)
  OR EXISTS (SELECT 1 FROM files n WHERE n.kind = 'log' AND n.state = 'complete' AND n.id > f.id AND n.content_size > f.content_size
    AND ((n.abs_path = f.abs_path AND n.abs_path <> '') OR n.continues_file_id = f.id)
    AND (EXISTS (SELECT 1 FROM records r WHERE r.file_id = n.id AND r.line_no = b.line_no AND r.byte_offset = b.byte_offset)
      OR EXISTS (SELECT 1 FROM duplicate_lines d WHERE d.file_id = n.id AND d.line_no = b.line_no AND d.byte_offset = b.byte_offset)
      OR EXISTS (SELECT 1 FROM bad_lines b2 WHERE b2.file_id = n.id AND b2.line_no = b.line_no AND b2.byte_offset = b.byte_offset))))`

/** The quarantined lines of each complete log file settled since (SETTLED_BAD_LINE), as (file id, line) pairs counted. */
const SETTLED_LINES_OF_FILE = `(SELECT count(DISTINCT b.line_no) FROM bad_lines b WHERE b.file_id = f.id AND ${SETTLED_BAD_LINE})`

export function fileTotals(db: CaseDb): FileTotals {
  const totals = db
    .prepare(
      `SELECT count(*) AS files,
              coalesce(sum(kind = 'log'), 0) AS log_files,
              (SELECT count(*) FROM files f WHERE f.kind = 'log' AND f.state = 'complete' AND ${EARLIER_VERSION}) AS earlier_versions,
              coalesce(sum(kind = 'canaries'), 0) AS registry_files,
              coalesce(sum(state <> 'complete'), 0) AS incomplete_files,
              coalesce(sum(CASE WHEN state = 'complete' THEN bad_lines END), 0)
                - (SELECT coalesce(sum(${SETTLED_LINES_OF_FILE}), 0) FROM files f WHERE f.kind = 'log' AND f.state = 'complete' AND f.bad_lines > 0) AS bad_lines,
              coalesce(sum(CASE WHEN state = 'complete' THEN duplicates END), 0) AS duplicates,
              coalesce(sum(CASE WHEN state = 'complete' THEN blank_lines END), 0) AS blank_lines,
              coalesce(sum(kind = 'log' AND state = 'complete' AND unread IS NOT NULL), 0) AS files_not_read_whole,
              coalesce(sum(CASE WHEN kind = 'log' AND state = 'complete' THEN no_request_text END), 0) AS no_request_text,
              coalesce(sum(CASE WHEN kind = 'log' AND state = 'complete' THEN no_response_text END), 0) AS no_response_text,
              coalesce(sum(CASE WHEN kind = 'log' AND state = 'complete' THEN records - coalesce(error_records, 0) END), 0) AS answers
         FROM files`,
    )
    .get() as FileTotals
  // Not read whole, but settled by a later whole version (supersededNotReadWhole): judged there.
  return totals.files_not_read_whole > 0 ? {...totals, files_not_read_whole: totals.files_not_read_whole - supersededNotReadWhole(db).size} : totals
}

/**
 * The byte offset of a file's last stored line when it was read as a record or a duplicate (not
 * quarantined): the line a longer version must not read again (ownLines). Null: its last stored
 * line was quarantined, or it has none.
 */
export function lastLineRead(db: CaseDb, fileId: number): number | null {
  const last = (table: string) =>
    db.prepare(`SELECT line_no, byte_offset FROM ${table} WHERE file_id = ? ORDER BY line_no DESC, byte_offset DESC LIMIT 1`).get(fileId) as {line_no: number; byte_offset: number} | undefined
  const read = [last('records'), last('duplicate_lines')].filter((r) => r !== undefined).sort((a, b) => b.byte_offset - a.byte_offset)[0]
  const bad = last('bad_lines')
  return read !== undefined && (bad === undefined || bad.byte_offset < read.byte_offset) ? read.byte_offset : null
}

/** Complete files of every kind (logs and registries), in ingest order: the evidence list. */
export function completeFiles(db: CaseDb): FileRow[] {
  return db.prepare(`SELECT * FROM files WHERE state = 'complete' ORDER BY id`).all() as FileRow[]
}

/** A log file that cannot be judged clean: unfinished, not read whole, or answers in it that decoded to no text. */
export interface UnreadableFileRow {
  path: string
  /** to name it in a remedy (crosstalk drop SHA); not part of a gate's output */
  sha256?: string
  state: FileState
  records: number
  /** answers (errors aside) */
  answers: number
  no_response_text: number | null
  unread: string | null
  /** the file's notes (a JSON array of lines), which say why texts were missing where a reader knew */
  notes: string | null
}

/**
 * Log files a gate must not pass on: still loading (an interrupted ingest), not read whole, or
 * holding answers that decoded to no text (a wrong mapping, content capture off): an answer
 * that could not be read cannot be judged free of another tenant's data.
 */
export function unreadableLogFiles(db: CaseDb): UnreadableFileRow[] {
  const settled = supersededNotReadWhole(db)
  const rows = db
    .prepare(
      `SELECT id, path, sha256, state, records, records - coalesce(error_records, 0) AS answers, no_response_text, unread, notes FROM files
        WHERE kind = 'log' AND (state <> 'complete' OR unread IS NOT NULL OR no_response_text > 0)
        ORDER BY id`,
    )
    .all() as Array<UnreadableFileRow & {id: number}>
  // A file not read whole that a later whole version settles is judged there; answers of its own that decoded to no text still count.
  return rows
    .filter((r) => !(settled.has(r.id) && r.state === 'complete' && !(r.no_response_text !== null && r.no_response_text > 0)))
    .map(({id: _, ...r}) => (settled.has(_) ? {...r, unread: null} : r))
}

/** Paths of complete log files kept but not read whole (`unread`: what was not read), and not settled by a later whole version (supersededNotReadWhole): what they did not yield was never judged. */
export function logFilesNotReadWhole(db: CaseDb): string[] {
  const settled = supersededNotReadWhole(db)
  const rows = db.prepare(`SELECT id, path FROM files WHERE kind = 'log' AND state = 'complete' AND unread IS NOT NULL ORDER BY id`).all() as Array<{id: number; path: string}>
  return rows.filter((r) => !settled.has(r.id)).map((r) => r.path)
}

/**
 * Complete log files not read whole (a .gz copied while gzip was still writing it) that a later
 * version read whole settles: ingested after it at the same path under the same source, longer,
 * and holding every line it yielded at the same line number and offset (its records as that
 * version's duplicates or records, its quarantined lines read or quarantined there): what it did
 * not yield lies in that version, read and judged. Derived from the files the case holds now, so
 * dropping that version reopens it.
 */
export function supersededNotReadWhole(db: CaseDb): Set<number> {
  const out = new Set<number>()
  const unread = db.prepare(`SELECT id, abs_path, source, content_size FROM files WHERE kind = 'log' AND state = 'complete' AND unread IS NOT NULL AND abs_path IS NOT NULL AND abs_path <> ''`).all() as Array<{id: number; abs_path: string; source: string; content_size: number | null}>
  if (unread.length === 0) return out
  const later = db.prepare(
    `SELECT id FROM files WHERE kind = 'log' AND state = 'complete' AND unread IS NULL AND id > ? AND abs_path = ? AND source = ? AND coalesce(content_size, 0) > ? ORDER BY id`,
  ).pluck()
  const linesOf = db.prepare(
    `SELECT line_no, byte_offset FROM records WHERE file_id = @id UNION SELECT line_no, byte_offset FROM duplicate_lines WHERE file_id = @id
      UNION SELECT line_no, byte_offset FROM bad_lines WHERE file_id = @id`,
  )
  const held = (id: number): Set<string> => new Set((linesOf.all({id}) as Array<{line_no: number; byte_offset: number}>).map((l) => `${l.line_no}:${l.byte_offset}`))
  for (const f of unread) {
    const own = held(f.id)
    for (const g of later.all(f.id, f.abs_path, f.source, f.content_size ?? 0) as number[]) {
      const there = held(g)
      if (own.size > 0 && [...own].every((l) => there.has(l))) {
        out.add(f.id)
        break
      }
    }
  }
  return out
}

/** A complete log file with quarantined lines: what it held there was never judged. */
export interface QuarantinedFile {
  path: string
  bad_lines: number
}

/** Complete log files with quarantined lines still open (none settled by a file read since: SETTLED_BAD_LINE), each with how many. */
export function logFilesWithBadLines(db: CaseDb): QuarantinedFile[] {
  return db
    .prepare(
      `SELECT path, bad_lines FROM (
         SELECT f.id, f.path, f.bad_lines - ${SETTLED_LINES_OF_FILE} AS bad_lines FROM files f WHERE f.kind = 'log' AND f.state = 'complete' AND f.bad_lines > 0)
        WHERE bad_lines > 0 ORDER BY id`,
    )
    .all() as QuarantinedFile[]
}

/** A file kept by reference now lies elsewhere (`crosstalk relocate`, after its SHA-256 was checked there). */
export function setOriginalPath(db: CaseDb, id: number, absPath: string): void {
  db.prepare(`UPDATE files SET abs_path = ? WHERE id = ? AND lines_held = 'none'`).run(absPath, id)
}

/** What one record adds to its file's counts (each 0 or 1), and the file's time span with it. */
export interface AddedRecordCounts extends MissingFieldCounts {
  no_request_text: number
  no_response_text: number
  error_records: number
  first_ts: string | null
  last_ts: string | null
}

/** A duplicate line of the file became its record (`drop` of the file that held the record): counted as ingest would have. */
export function countLineAsRecord(db: CaseDb, id: number, c: AddedRecordCounts): void {
  // A count left NULL (not counted at ingest) stays NULL.
  db.prepare(
    `UPDATE files SET records = records + 1, duplicates = duplicates - 1, no_request_text = no_request_text + ?, no_response_text = no_response_text + ?,
       error_records = error_records + ?, no_status = no_status + ?, no_prompt_tokens = no_prompt_tokens + ?, no_completion_tokens = no_completion_tokens + ?,
       no_decode_node = no_decode_node + ?, no_status_or_prompt_tokens = no_status_or_prompt_tokens + ?, first_ts = ?, last_ts = ?
     WHERE id = ?`,
  ).run(
    c.no_request_text, c.no_response_text, c.error_records, c.no_status, c.no_prompt_tokens, c.no_completion_tokens, c.no_decode_node,
    c.no_status_or_prompt_tokens, c.first_ts, c.last_ts, id,
  )
}

/** Records held by complete log files: what a verdict on the case speaks for. */
export function completeLogRecords(db: CaseDb): number {
  return db.prepare(`SELECT coalesce(sum(records), 0) FROM files WHERE kind = 'log' AND state = 'complete'`).pluck().get() as number
}

/** A complete log file that gave no record: its size, lines and blank lines (an empty or blank-only file). */
export interface RecordlessFileRow {
  path: string
  content_size: number | null
  lines: number
  blank_lines: number
  bad_lines: number
}

export function recordlessLogFiles(db: CaseDb): RecordlessFileRow[] {
  return db
    .prepare(`SELECT path, content_size, lines, blank_lines, bad_lines FROM files WHERE kind = 'log' AND state = 'complete' AND records = 0 ORDER BY id`)
    .all() as RecordlessFileRow[]
}

/** Complete log files with a path on disk, in ingest order: the originals `grownOriginals` compares with what was ingested. */
export function completeLogOriginals(db: CaseDb): Array<{id: number; path: string; abs_path: string; size: number; head_sha256: string | null}> {
  return db.prepare(`SELECT id, path, abs_path, size, head_sha256 FROM files WHERE kind = 'log' AND state = 'complete' AND abs_path IS NOT NULL AND abs_path <> '' ORDER BY id`).all() as Array<{id: number; path: string; abs_path: string; size: number; head_sha256: string | null}>
}

/**
 * `work` (which may await: a file's bytes streamed into its evidence blocks) in one BEGIN
 * IMMEDIATE transaction, committed when it returns and rolled back when it throws. Call with no
 * other write in progress on the connection.
 */
export async function inImmediateTransaction<T>(db: CaseDb, work: () => Promise<T>): Promise<T> {
  db.exec('BEGIN IMMEDIATE')
  try {
    const result = await work()
    db.exec('COMMIT')
    return result
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw error
  }
}

/** Drops a file's evidence blocks (before its bytes are copied in again). */
export function deleteEvidenceBlocks(db: CaseDb, fileId: number): void {
  db.prepare('DELETE FROM evidence_blocks WHERE file_id = ?').run(fileId)
}

/** Marks a file kept by reference as copied into the case: its lines are now read from the case's blocks. */
export function markEvidenceCopied(db: CaseDb, fileId: number): void {
  db.prepare(`UPDATE files SET evidence = 'copy', lines_held = 'all' WHERE id = ?`).run(fileId)
}

/**
 * Of a file's records, how many repeat, line for line, a record the case holds under another
 * log source: the same request id, tenant, session and time, and the same line (its length and
 * CRC-32) or the same content where only the line's bytes differ (CRLF for LF, another key order
 * or spacing: a shipper's re-delivery re-serialised): the same status, answer kind and token
 * counts, and the same prompt and answer text (their word counts and winnowed fingerprints,
 * written with the record at ingest). A request id is unique only within its source, so such a
 * record is stored again and every figure counts it twice. One indexed lookup per record and
 * other source (sources are few).
 */
export function sameRecordsUnderOtherSources(db: CaseDb, fileId: number, source: string): Array<{source: string; records: number}> {
  const sources = (db.prepare('SELECT DISTINCT source FROM records WHERE source <> ?').pluck().all(source) as string[]).sort()
  const count = db.prepare(
    `SELECT count(*) FROM records a JOIN records b ON b.source = @other AND b.request_id = a.request_id
      WHERE a.file_id = @fileId AND b.ts_ms = a.ts_ms AND b.tenant_id = a.tenant_id AND b.session_id = a.session_id
        AND ((b.byte_len = a.byte_len AND b.raw_crc32 = a.raw_crc32)
          OR (b.status IS a.status AND b.response_kind = a.response_kind AND b.is_error = a.is_error
            AND b.prompt_tokens IS a.prompt_tokens AND b.completion_tokens IS a.completion_tokens AND b.item = a.item
            AND EXISTS (SELECT 1 FROM fingerprints fa JOIN fingerprints fb ON fb.record_id = b.id
              WHERE fa.record_id = a.id AND fb.prompt_words = fa.prompt_words AND fb.response_words = fa.response_words
                AND fb.prompt_fp = fa.prompt_fp AND fb.response_fp = fa.response_fp)))`,
  ).pluck()
  const out: Array<{source: string; records: number}> = []
  for (const other of sources) {
    const n = count.get({other, fileId}) as number
    if (n > 0) out.push({source: other, records: n})
  }
  return out
}

/** What ingest noted for SAME_RECORDS_NOTE: complete log files whose records repeat records of another source, with the note (the source and the count as they were when it was read). */
export function filesWithSameRecordsNote(db: CaseDb): Array<{path: string; note: string}> {
  const rows = db.prepare(`SELECT path, notes FROM files WHERE kind = 'log' AND state = 'complete' AND notes LIKE '%' || ? || '%' ORDER BY id`).all(SAME_RECORDS_NOTE) as Array<{path: string; notes: string}>
  return rows.flatMap((r) => (JSON.parse(r.notes) as string[]).filter((n) => n.startsWith(SAME_RECORDS_NOTE)).map((note) => ({path: r.path, note})))
}

/** How ingest's note on records repeated from another log source begins. */
export const SAME_RECORDS_NOTE = 'SAME RECORDS under another source'
