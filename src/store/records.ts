import {InputError} from '../errors.js'
import type {RecordFields} from '../util/record-fields.js'
import type {CaseDb} from './open-case.js'
import {corpusFacts, type CorpusFacts} from './scale.js'
import {RowBatch} from './row-batch.js'
import {withSortCache} from './session.js'

// The records table: one row per request/response line, pointing at its bytes in the
// evidence. The rule that only records of completely ingested files are evidence lives
// here, once (completeRecords), and every query in the store that counts or lists records
// goes through it.

/**
 * SQL condition keeping only records of complete files (a file still 'loading' is an ingest
 * in progress or one that was killed). Empty when every file is complete, so that the common
 * case costs nothing and covering indexes stay covering. File ids are integers from the case.
 */
export function completeRecords(db: CaseDb, alias = 'r'): string {
  const ids = db.prepare(`SELECT id FROM files WHERE state <> 'complete'`).pluck().all() as number[]
  return ids.length === 0 ? '' : ` AND ${alias}.file_id NOT IN (${ids.map((id) => Math.trunc(id)).join(',')})`
}

export type {RecordFields} from '../util/record-fields.js'

export interface RecordLine {
  fileId: number
  lineNo: number
  /** Position of the record among its line's items (0 for formats with one record a line). */
  item: number
  offset: number
  length: number
  crc: number
  source: string
}

/** A record row's columns as ingest writes them (its id aside), in the order both inserters bind them. */
const INGEST_COLUMNS = `file_id, line_no, item, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id,
       status, endpoint, model, prefill_node, decode_node, prompt_tokens, completion_tokens, cached_tokens, stream,
       response_kind, is_error, error_message`
const INGEST_WIDTH = 24

/**
 * Ingest's record rows, 16 to a statement (RowBatch). Each gets its id here, the one SQLite would
 * have chosen (the table's largest plus one, read when `begin` is called), so that the record's
 * extract rows and duplicate decisions can use it before its row is written: `flush` before
 * anything reads the table (the id is read again at the next `begin`).
 */
export interface RecordBatch {
  /** Reads the next id; call after the previous rows were flushed. */
  begin(): void
  add(line: RecordLine, w: RecordFields): number
  /** A record added and not yet written: its source, request id and raw CRC (as a read of its row gives them). */
  pending(id: number): [string, string, number] | undefined
  /** A record added and not yet written: its time (ts as stored, ts_ms). */
  pendingTime(id: number): [string, number] | undefined
  flush(): void
  discard(): void
  /** The batch's statement (for tests: it may not abort, see RowBatch). */
  readonly statements: readonly string[]
}

export function recordBatch(db: CaseDb): RecordBatch {
  // OR FAIL: no statement journal (RowBatch); a failure rolls the unit's transaction back whole.
  const batch = new RowBatch(
    db,
    `INSERT OR FAIL INTO records (id, ${INGEST_COLUMNS})`,
    INGEST_WIDTH + 1,
  )
  const largest = db.prepare('SELECT max(id) FROM records').pluck()
  let next = 0
  return {
    begin() {
      next = Number((largest.get() as number | null) ?? 0) + 1
    },
    add(l, w) {
      const a = batch.args
      const i = batch.at
      const id = next++
      a[i] = id
      a[i + 1] = l.fileId
      a[i + 2] = l.lineNo
      a[i + 3] = l.item
      a[i + 4] = l.offset
      a[i + 5] = l.length
      a[i + 6] = l.crc
      a[i + 7] = l.source
      a[i + 8] = w.request_id
      a[i + 9] = w.ts
      a[i + 10] = w.ts_ms
      a[i + 11] = w.tenant_id
      a[i + 12] = w.session_id
      a[i + 13] = w.status
      a[i + 14] = w.endpoint
      a[i + 15] = w.model
      a[i + 16] = w.prefill_node
      a[i + 17] = w.decode_node
      a[i + 18] = w.prompt_tokens
      a[i + 19] = w.completion_tokens
      a[i + 20] = w.cached_tokens
      a[i + 21] = w.stream
      a[i + 22] = w.response_kind
      a[i + 23] = w.is_error
      a[i + 24] = w.error_message
      batch.added()
      return id
    },
    pending(id) {
      const r = id - (next - batch.held)
      if (r < 0 || r >= batch.held) return undefined
      const a = batch.args
      const i = r * (INGEST_WIDTH + 1)
      return [a[i + 7] as string, a[i + 8] as string, a[i + 6] as number]
    },
    pendingTime(id) {
      const r = id - (next - batch.held)
      if (r < 0 || r >= batch.held) return undefined
      const i = r * (INGEST_WIDTH + 1)
      return [batch.args[i + 9] as string, batch.args[i + 10] as number]
    },
    flush: () => batch.flush(),
    discard: () => batch.discard(),
    statements: [batch.sql],
  }
}

/** A stored record's time (ts as stored, ts_ms), by id. */
export function recordTime(db: CaseDb): (id: number) => [string, number] | undefined {
  const q = db.prepare('SELECT ts, ts_ms FROM records WHERE id = ?').raw()
  return (id) => q.get(id) as [string, number] | undefined
}

export function recordInserter(db: CaseDb): (line: RecordLine, w: RecordFields) => number {
  const insert = db.prepare(
    `INSERT INTO records (${INGEST_COLUMNS}) VALUES (${Array(INGEST_WIDTH).fill('?').join(', ')})`,
  )
  return (l, w) =>
    Number(
      insert.run(
        l.fileId, l.lineNo, l.item, l.offset, l.length, l.crc, l.source, w.request_id, w.ts, w.ts_ms, w.tenant_id, w.session_id,
        w.status, w.endpoint, w.model, w.prefill_node, w.decode_node, w.prompt_tokens, w.completion_tokens, w.cached_tokens, w.stream,
        w.response_kind, w.is_error, w.error_message,
      ).lastInsertRowid,
    )
}

export function countAllRecords(db: CaseDb): number {
  return db.prepare('SELECT COUNT(*) FROM records').pluck().get() as number
}

/** (id, source, request_id) of every stored record, for duplicate detection during a load. */
export function iterateRequestIds(db: CaseDb): IterableIterator<[number, string, string]> {
  return db.prepare('SELECT id, source, request_id FROM records').raw().iterate() as IterableIterator<[number, string, string]>
}

/** source, request_id and raw CRC of one record. */
export function recordIdentity(db: CaseDb): (id: number) => [string, string, number] | undefined {
  const fetch = db.prepare('SELECT source, request_id, raw_crc32 FROM records WHERE id = ?').raw()
  return (id) => fetch.get(id) as [string, string, number] | undefined
}

/** Another line a record was read from (a Batch input line, an OTLP log record or parent span). */
export interface CompanionLine {
  file_id: number
  line_no: number
  byte_offset: number
  byte_len: number
  raw_crc32: number
}

/**
 * The lines the records of one line were read with (record_companions), each once, in the order
 * ingest offered them: a duplicate item of that line (an OTLP span whose content is in log
 * records) is read again with them, as its neighbours were.
 */
export function lineCompanions(db: CaseDb): (fileId: number, byteOffset: number) => CompanionLine[] {
  const q = db.prepare(
    `SELECT c.file_id, c.line_no, c.byte_offset, c.byte_len, c.raw_crc32 FROM records r JOIN record_companions c ON c.record_id = r.id
      WHERE r.file_id = ? AND r.byte_offset = ? GROUP BY c.file_id, c.byte_offset ORDER BY MIN(r.id * 1000000 + c.seq)`,
  )
  return (fileId, byteOffset) => q.all(fileId, byteOffset) as CompanionLine[]
}

export function companionInserter(db: CaseDb): (recordId: number, seq: number, c: CompanionLine) => void {
  const insert = db.prepare('INSERT INTO record_companions (record_id, seq, file_id, line_no, byte_offset, byte_len, raw_crc32) VALUES (?, ?, ?, ?, ?, ?, ?)')
  return (recordId, seq, c) => {
    insert.run(recordId, seq, c.file_id, c.line_no, c.byte_offset, c.byte_len, c.raw_crc32)
  }
}

/** Where a record's line is, how its file was parsed, and the other lines it was read from. */
export interface RecordLocation {
  file_id: number
  line_no: number
  item: number
  byte_offset: number
  byte_len: number
  raw_crc32: number
  parse_spec: string
  /** the file's path as given at ingest (for messages) */
  path?: string
  companions: CompanionLine[]
}

export function recordLocator(db: CaseDb): (id: number) => RecordLocation | undefined {
  const get = db.prepare(
    `SELECT r.file_id, r.line_no, r.item, r.byte_offset, r.byte_len, r.raw_crc32, f.parse_spec, f.path FROM records r JOIN files f ON f.id = r.file_id WHERE r.id = ?`,
  )
  const companions = db.prepare('SELECT file_id, line_no, byte_offset, byte_len, raw_crc32 FROM record_companions WHERE record_id = ? ORDER BY seq')
  return (id) => {
    const row = get.get(id) as Omit<RecordLocation, 'companions'> | undefined
    return row ? {...row, companions: companions.all(id) as CompanionLine[]} : undefined
  }
}

/**
 * Complete files other than these whose records, or duplicate lines, were read with lines of
 * these (so cannot lose them: a duplicate without them could no longer be judged).
 */
export function filesReadingFrom(db: CaseDb, fileIds: readonly number[]): Array<{id: number; path: string}> {
  if (fileIds.length === 0) return []
  const ids = fileIds.map((id) => Math.trunc(id)).join(',')
  return db
    .prepare(
      `SELECT DISTINCT f.id, f.path FROM (
          SELECT r.file_id AS reader FROM record_companions c JOIN records r ON r.id = c.record_id WHERE c.file_id IN (${ids}) AND r.file_id NOT IN (${ids})
          UNION
          SELECT d.file_id FROM duplicate_companions c JOIN duplicate_lines d ON d.id = c.duplicate_id WHERE c.file_id IN (${ids}) AND d.file_id NOT IN (${ids})
        ) x JOIN files f ON f.id = x.reader ORDER BY f.id`,
    )
    .all() as Array<{id: number; path: string}>
}

export interface StoredRecord extends RecordRowStored {
  /** the file's path as given at ingest, and its SHA-256 */
  path: string
  sha256: string
}

/** Records with this request id (in one source, or in any), at most `limit`. */
export function findRecordsByRequestId(db: CaseDb, requestId: string, source: string | undefined, limit: number): StoredRecord[] {
  return db
    .prepare(
      `SELECT r.*, f.path, f.sha256 FROM records r JOIN files f ON f.id = r.file_id
       WHERE r.request_id = ? ${source === undefined ? '' : 'AND r.source = ?'} ORDER BY r.id LIMIT ?`,
    )
    .all(...(source === undefined ? [requestId, limit] : [requestId, source, limit])) as StoredRecord[]
}

/** Records of complete files with this request id, in any source. */
export function completeRecordsByRequestId(db: CaseDb, requestId: string): StoredRecord[] {
  return db
    .prepare(`SELECT r.*, f.path, f.sha256 FROM records r JOIN files f ON f.id = r.file_id AND f.state = 'complete' WHERE r.request_id = ? ORDER BY r.id`)
    .all(requestId) as StoredRecord[]
}

export function recordsOfFile(db: CaseDb, fileId: number): number {
  return db.prepare('SELECT COUNT(*) FROM records WHERE file_id = ?').pluck().get(fileId) as number
}

export interface RecordTotals {
  records: number
  tenants: number
  sessions: number
  first_ms: number | null
  last_ms: number | null
}

/** Counts over the records of complete files; a session is counted within its tenant. */
export function recordTotals(db: CaseDb): RecordTotals {
  // Evidence by reference: the case holds only the findings' records; the job counted them all.
  const corpus = corpusFacts(db)
  if (corpus) return {records: corpus.records, tenants: corpus.tenants, sessions: corpus.sessions, first_ms: corpus.first_ms, last_ms: corpus.last_ms}
  return db
    .prepare(
      `SELECT count(*) AS records, count(DISTINCT tenant_id) AS tenants, min(ts_ms) AS first_ms, max(ts_ms) AS last_ms,
              (SELECT count(*) FROM (SELECT DISTINCT tenant_id, session_id FROM records r WHERE 1 = 1${completeRecords(db)})) AS sessions
         FROM records r WHERE 1 = 1${completeRecords(db)}`,
    )
    .get() as RecordTotals
}

export function tenantHasRecords(db: CaseDb, tenant: string): boolean {
  // Evidence by reference: a tenant may have records that no finding rests on; the job listed every tenant.
  if (corpusFacts(db)) return db.prepare('SELECT 1 FROM corpus_facts, json_each(corpus_facts.tenant_ids) WHERE value = ? LIMIT 1').get(tenant) !== undefined
  return db.prepare(`SELECT 1 FROM records r WHERE r.tenant_id = ?${completeRecords(db)} LIMIT 1`).get(tenant) !== undefined
}

/** Every tenant id with records in the case, exactly as written (read only to name the ids a mistyped one is not). */
export function tenantIdsWithRecords(db: CaseDb): string[] {
  if (corpusFacts(db)) return db.prepare('SELECT DISTINCT value FROM corpus_facts, json_each(corpus_facts.tenant_ids)').pluck().all() as string[]
  return db.prepare(`SELECT DISTINCT r.tenant_id FROM records r WHERE 1 = 1${completeRecords(db)}`).pluck().all() as string[]
}

/** Items of a file in stream order for verify: records, lines other records were read from, and quarantined lines. */
export interface FileItem {
  kind: 'record' | 'companion' | 'bad_line'
  name: string | null
  line_no: number
  byte_offset: number
  byte_len: number
  crc: number | null
  raw: Buffer | null
}

export function iterateFileItems(db: CaseDb, fileId: number): IterableIterator<FileItem> {
  return db
    .prepare(
      `SELECT 'record' AS kind, request_id AS name, line_no, byte_offset, byte_len, raw_crc32 AS crc, NULL AS raw FROM records WHERE file_id = ?
       UNION ALL
       SELECT 'companion', r.request_id, c.line_no, c.byte_offset, c.byte_len, c.raw_crc32, NULL
         FROM record_companions c JOIN records r ON r.id = c.record_id WHERE c.file_id = ?
       UNION ALL
       SELECT 'bad_line', NULL, line_no, byte_offset, byte_len, NULL, raw FROM bad_lines WHERE file_id = ?
       ORDER BY byte_offset`,
    )
    .iterate(fileId, fileId, fileId) as IterableIterator<FileItem>
}

// ------------------------------------------------------------------ questions over every record

/** Status-200 responses at or over the pool, grouped by decode node and hour. */
export interface AtRiskGroup {
  decode_node: string | null
  hour: number
  n: number
  errors: number
  over_advertised: number
  first_ms: number
  last_ms: number
}

// Contract: status == 200 and prompt_tokens >= pool, read literally. A 200 stream that ended
// in an error event (is_error = 1) was still answered 200 and still decoded from the stale
// pages, so it counts; it is also reported apart. Answered by the covering index records_at_risk.
export function atRiskGroups(db: CaseDb, pool: number, advertised: number | null): AtRiskGroup[] {
  referencePool(corpusFacts(db), pool)
  return db
    .prepare(
      `SELECT r.decode_node, (r.ts_ms / 3600000) * 3600000 AS hour, COUNT(*) AS n, SUM(r.is_error) AS errors,
              SUM(CASE WHEN @adv IS NOT NULL AND r.prompt_tokens >= @adv THEN 1 ELSE 0 END) AS over_advertised,
              MIN(r.ts_ms) AS first_ms, MAX(r.ts_ms) AS last_ms
         FROM records r
        WHERE r.status = 200 AND r.prompt_tokens >= @pool${completeRecords(db)}
        GROUP BY r.decode_node, hour`,
    )
    .all({pool, adv: advertised}) as AtRiskGroup[]
}

/** At-risk responses per recipient tenant (the tenant views). */
export function atRiskByTenant(db: CaseDb, pool: number): Map<string, number> {
  referencePool(corpusFacts(db), pool)
  const rows = db
    .prepare(`SELECT r.tenant_id, COUNT(*) FROM records r WHERE r.status = 200 AND r.prompt_tokens >= ?${completeRecords(db)} GROUP BY r.tenant_id`)
    .raw()
    .all(pool) as Array<[string, number]>
  return new Map(rows)
}

/**
 * Records (of complete files) whose own fields leave open whether they were at risk at this
 * pool: no status, with a prompt at or over the pool or of unrecorded size (served or refused is
 * not known), or status 200 with no prompt size. A record that says it was not answered 200, or
 * whose prompt is below the pool, is known not to be at risk whatever else it lacks, so it is not
 * counted. On a case whose records the Spark job counted, the job's count for its pool; undefined
 * where the job made none (findings of an older job): the caller falls back to every record
 * lacking either field, an upper bound. Both halves are ranges of the index records_at_risk
 * (status first, then prompt size).
 */
export function atRiskUndecided(db: CaseDb, pool: number): number | undefined {
  const corpus = corpusFacts(db)
  if (corpus) return corpus.pool_tokens === pool && corpus.undecided_at_risk !== null ? corpus.undecided_at_risk : undefined
  const complete = completeRecords(db)
  return db
    .prepare(
      `SELECT (SELECT count(*) FROM records r WHERE r.status IS NULL AND (r.prompt_tokens IS NULL OR r.prompt_tokens >= @pool)${complete})
            + (SELECT count(*) FROM records r WHERE r.status = 200 AND r.prompt_tokens IS NULL${complete})`,
    )
    .pluck()
    .get({pool}) as number
}

/**
 * Per decode node, the first and last of its atRiskUndecided records: scope's node windows take
 * them in, as they may have been at risk. On a Spark case the records are not here: the job
 * widened its node windows over them itself and recorded the windows it counted, which hold
 * every span scope adds to them (the same sightings, provenance and at-risk responses), so they
 * are given back as the spans; findings of a job that did not count them widen nothing.
 */
export function atRiskUndecidedSpans(db: CaseDb, pool: number): Array<{decode_node: string | null; first_ms: number; last_ms: number}> | undefined {
  const corpus = corpusFacts(db)
  if (corpus) {
    if (corpus.pool_tokens !== pool || !corpus.undecided_at_risk || corpus.served_windows === null) return undefined
    return (JSON.parse(corpus.served_windows) as Array<[string | null, number, number]>).map(([decode_node, first_ms, last_ms]) => ({decode_node, first_ms, last_ms}))
  }
  return db
    .prepare(
      `SELECT r.decode_node, MIN(r.ts_ms) AS first_ms, MAX(r.ts_ms) AS last_ms FROM records r
        WHERE ((r.status IS NULL AND (r.prompt_tokens IS NULL OR r.prompt_tokens >= @pool)) OR (r.status = 200 AND r.prompt_tokens IS NULL))${completeRecords(db)}
        GROUP BY r.decode_node`,
    )
    .all({pool}) as Array<{decode_node: string | null; first_ms: number; last_ms: number}>
}

/**
 * atRiskUndecided per recipient tenant (the tenant views); tenants with none are absent. On a Spark
 * case the records are not here: where the job counted none for this pool, every tenant has none
 * (an empty map); any other count is not known per tenant.
 */
export function atRiskUndecidedByTenant(db: CaseDb, pool: number): Map<string, number> | undefined {
  const corpus = corpusFacts(db)
  if (corpus) return corpus.pool_tokens === pool && corpus.undecided_at_risk === 0 ? new Map() : undefined
  const rows = db
    .prepare(
      `SELECT r.tenant_id, COUNT(*) FROM records r
        WHERE ((r.status IS NULL AND (r.prompt_tokens IS NULL OR r.prompt_tokens >= @pool)) OR (r.status = 200 AND r.prompt_tokens IS NULL))${completeRecords(db)}
        GROUP BY r.tenant_id`,
    )
    .raw()
    .all({pool}) as Array<[string, number]>
  return new Map(rows)
}

/**
 * Per tenant, its records (of complete files) that lack their status or their prompt size: where
 * no record gives both (atRiskJudgeable false), whether each was at risk is open, as the whole
 * case's count (no_status_or_prompt_tokens) says. Undefined on a Spark case, whose records are not
 * here, unless the job counted none (then every tenant has none: an empty map).
 */
export function recordsMissingAtRiskFieldsByTenant(db: CaseDb): Map<string, number> | undefined {
  const corpus = corpusFacts(db)
  if (corpus) return corpus.no_status_or_prompt_tokens === 0 ? new Map() : undefined
  const rows = db
    .prepare(`SELECT r.tenant_id, COUNT(*) FROM records r WHERE (r.status IS NULL OR r.prompt_tokens IS NULL)${completeRecords(db)} GROUP BY r.tenant_id`)
    .raw()
    .all() as Array<[string, number]>
  return new Map(rows)
}

/** Records (of complete files) that do not say a field: the counts that depend on it are unknown for them. */
export interface UnknownFieldCounts {
  /** the records counted (of complete files) */
  records: number
  no_status: number
  no_prompt_tokens: number
  no_completion_tokens: number
  no_decode_node: number
  /** no status or no prompt token count: the at-risk test cannot be applied to these */
  no_status_or_prompt_tokens: number
}

/**
 * Records whose fields are unknown, per field. A format that lacks a field (LiteLLM has no
 * HTTP status, Langfuse no node) makes every count that depends on it unknown for those records.
 */
/**
 * Whether the at-risk test can judge anything: false when no record gives both its status and
 * its prompt size (LiteLLM and Langfuse record no HTTP status), so every at-risk count is
 * unknown, not zero.
 */
export function atRiskJudgeable(unknown: UnknownFieldCounts): boolean {
  return !(unknown.records > 0 && unknown.no_status_or_prompt_tokens >= unknown.records)
}

export function recordsMissingAtRiskFields(db: CaseDb): UnknownFieldCounts {
  const corpus = corpusFacts(db)
  if (corpus) {
    return {
      records: corpus.records, no_status: corpus.no_status, no_prompt_tokens: corpus.no_prompt_tokens, no_completion_tokens: corpus.no_completion_tokens,
      no_decode_node: corpus.no_decode_node, no_status_or_prompt_tokens: corpus.no_status_or_prompt_tokens,
    }
  }
  // Counted by ingest per file (migration 006) wherever every complete log file has its counts;
  // records live in complete log files only, so the sum is what the read of the records gives.
  const counted = db
    .prepare(
      `SELECT count(*) AS files,
              coalesce(sum(no_status IS NOT NULL AND no_prompt_tokens IS NOT NULL AND no_completion_tokens IS NOT NULL
                           AND no_decode_node IS NOT NULL AND no_status_or_prompt_tokens IS NOT NULL), 0) AS counted,
              coalesce(sum(records), 0) AS records,
              coalesce(sum(no_status), 0) AS no_status, coalesce(sum(no_prompt_tokens), 0) AS no_prompt_tokens,
              coalesce(sum(no_completion_tokens), 0) AS no_completion_tokens, coalesce(sum(no_decode_node), 0) AS no_decode_node,
              coalesce(sum(no_status_or_prompt_tokens), 0) AS no_status_or_prompt_tokens
         FROM files WHERE kind = 'log' AND state = 'complete'`,
    )
    .get() as UnknownFieldCounts & {files: number; counted: number}
  if (counted.files === counted.counted) {
    const {files: _files, counted: _counted, ...counts} = counted
    return counts
  }
  return db
    .prepare(
      `SELECT count(*) AS records, coalesce(sum(r.status IS NULL), 0) AS no_status, coalesce(sum(r.prompt_tokens IS NULL), 0) AS no_prompt_tokens,
              coalesce(sum(r.completion_tokens IS NULL), 0) AS no_completion_tokens, coalesce(sum(r.decode_node IS NULL), 0) AS no_decode_node,
              coalesce(sum(r.status IS NULL OR r.prompt_tokens IS NULL), 0) AS no_status_or_prompt_tokens
         FROM records r WHERE 1 = 1${completeRecords(db)}`,
    )
    .get() as UnknownFieldCounts
}

/**
 * Distinct sessions (within their tenants) that the given decode nodes served inside their
 * windows, and the same together with the given confirmed sessions. At a million records the
 * windows hold most rows. records_by_tenant (tenant, session, node, time) gives the records
 * grouped by session, so SQLite counts the sessions with a record in its node's window in one
 * pass over that index, with no temporary B-tree: 1.5 s -> 0.33 s at 1M records (measured;
 * grouping the rows of each window, read by node and time, had cost 1.8 us a row). A
 * confirmed session not among them is looked up alone (there are few).
 */
export function countSessionsServed(
  db: CaseDb,
  windows: ReadonlyMap<string | null, readonly [number, number]>,
  confirmed: ReadonlyArray<readonly [string | null, string | null]>,
): {served: number; withConfirmed: number} {
  if (windows.size === 0 && confirmed.length === 0) return {served: 0, withConfirmed: 0}
  const corpus = corpusFacts(db)
  if (corpus) return referenceSessionsServed(corpus, windows)
  const complete = completeRecords(db)
  // Whether a record lies in its node's window: the named nodes' windows in a small table looked
  // up by the record's node (as fast as a CASE over 8 nodes, and a fleet of hundreds of suspect
  // nodes costs no more per record), and records that name no node against the unknown node's
  // window, if it has one.
  db.exec('CREATE TEMP TABLE IF NOT EXISTS scope_windows (node TEXT PRIMARY KEY, lo INTEGER NOT NULL, hi INTEGER NOT NULL) WITHOUT ROWID; DELETE FROM temp.scope_windows')
  try {
    const insert = db.prepare('INSERT INTO temp.scope_windows (node, lo, hi) VALUES (?, ?, ?)')
    db.transaction(() => {
      for (const [node, [lo, hi]] of windows) if (node !== null) insert.run(node, lo, hi)
    })()
    const unnamed = windows.get(null)
    const params = unnamed === undefined ? [] : [unnamed[0], unnamed[1]]
    const inWindow = `(EXISTS (SELECT 1 FROM temp.scope_windows w WHERE w.node = r.decode_node AND r.ts_ms BETWEEN w.lo AND w.hi)${unnamed === undefined ? '' : ' OR (r.decode_node IS NULL AND r.ts_ms BETWEEN ? AND ?)'})`
    const served = withSortCache(db, () =>
      db.prepare(`SELECT count(*) FROM (SELECT 1 FROM records r WHERE ${inWindow}${complete} GROUP BY r.tenant_id, r.session_id)`).pluck().get(...params) as number)
    const isServed = db.prepare(`SELECT 1 FROM records r WHERE r.tenant_id = ? AND r.session_id = ? AND ${inWindow}${complete} LIMIT 1`).pluck()
    let others = 0
    // A record always names its tenant and session: a confirmed source without one was never served.
    for (const [tenant, session] of confirmed) if (tenant === null || session === null || isServed.get(tenant, session, ...params) === undefined) others++
    return {served, withConfirmed: served + others}
  } finally {
    db.exec('DELETE FROM temp.scope_windows')
  }
}

export function recordById(db: CaseDb, id: number): StoredRecord | undefined {
  return db.prepare('SELECT r.*, f.path, f.sha256 FROM records r JOIN files f ON f.id = r.file_id WHERE r.id = ?').get(id) as StoredRecord | undefined
}

// ------------------------------------------------------------------ verify: the rows of one file, in line order

/** A record row as stored, without the file's path (verify compares it with its line re-parsed). */
export interface RecordRowStored extends RecordFields {
  id: number
  file_id: number
  line_no: number
  byte_offset: number
  byte_len: number
  raw_crc32: number
  source: string
  /** position among its line's items: 0 for a format of one record a line, the only ones verify walks line by line */
  item: number
}

/** The columns of a record row, in the order iterateRecordsOfFile gives them. */
export const RECORD_COLUMNS = [
  'id', 'file_id', 'line_no', 'byte_offset', 'byte_len', 'raw_crc32', 'source', 'request_id', 'ts', 'ts_ms', 'tenant_id', 'session_id',
  'status', 'endpoint', 'model', 'prefill_node', 'decode_node', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'stream',
  'response_kind', 'is_error', 'error_message', 'item',
] as const satisfies ReadonlyArray<keyof RecordRowStored>

/**
 * Every record of a file in line order (the index records_by_file), each as an array of
 * RECORD_COLUMNS: verify reads every record of a case, and arrays cost half what objects do.
 */
export function iterateRecordsOfFile(db: CaseDb, fileId: number): IterableIterator<unknown[]> {
  return db.prepare(`SELECT ${RECORD_COLUMNS.join(', ')} FROM records WHERE file_id = ? ORDER BY line_no, id`).raw().iterate(fileId) as IterableIterator<unknown[]>
}

/** The record a (source, request id) names (the unique index records_by_source_request). */
export function recordBySourceRequest(db: CaseDb): (source: string, requestId: string) => {id: number; file_id: number; line_no: number; raw_crc32: number} | undefined {
  const get = db.prepare('SELECT id, file_id, line_no, raw_crc32 FROM records WHERE source = ? AND request_id = ?')
  return (source, requestId) => get.get(source, requestId) as {id: number; file_id: number; line_no: number; raw_crc32: number} | undefined
}

/** Records whose file is missing or is not a log file (a row inserted by hand). */
export function recordsWithoutLogFile(db: CaseDb): number {
  return db.prepare(`SELECT COUNT(*) FROM records r WHERE NOT EXISTS (SELECT 1 FROM files f WHERE f.id = r.file_id AND f.kind = 'log')`).pluck().get() as number
}

// ------------------------------------------------------------------ evidence by reference

/**
 * A case whose evidence is by reference holds the at-risk records of the pool the Spark job
 * was given, and no others: any other pool is a question only the job can answer.
 */
function referencePool(corpus: CorpusFacts | undefined, pool: number): void {
  if (corpus && corpus.pool_tokens !== pool) {
    throw new InputError(
      `this case's evidence is by reference: its at-risk responses were found by the Spark job ${corpus.pool_tokens === null ? 'without a pool size' : `for --pool-tokens ${corpus.pool_tokens}`}; run the job again with --pool-tokens ${pool}`,
      'E_REFERENCE_POOL',
    )
  }
}

/** The sessions served inside the node windows, as the job counted them for exactly these windows. */
function referenceSessionsServed(corpus: CorpusFacts, windows: ReadonlyMap<string | null, readonly [number, number]>): {served: number; withConfirmed: number} {
  const asked = JSON.stringify([...windows].map(([node, [lo, hi]]) => [node, lo, hi]).sort((a, b) => (a[0] === b[0] ? 0 : a[0] === null ? 1 : b[0] === null ? -1 : String(a[0]) < String(b[0]) ? -1 : 1)))
  if (corpus.sessions_served === null || corpus.sessions_served_with_confirmed === null || corpus.served_windows !== asked) {
    throw new InputError("this case's evidence is by reference, and the Spark job did not count the sessions served inside these node windows; run it with the case's --pool-tokens", 'E_REFERENCE_POOL')
  }
  return {served: corpus.sessions_served, withConfirmed: corpus.sessions_served_with_confirmed}
}

/** A record an earlier ingest stored for a gen_ai.response.id, with where it was read from. */
export interface PriorSharer {
  request_id: string
  tenant_id: string
  session_id: string
  line: CompanionLine
  companions: CompanionLine[]
}

/**
 * The records of OpenTelemetry files of this source whose request id is this gen_ai.response.id,
 * alone or with the tenant and session added (`ID (tenant T, session S)`: the otel adapter's
 * recordIdentity), in the order they were stored. Null where the source holds no OpenTelemetry
 * record at all (nothing to look up).
 */
export function priorSharerLookup(db: CaseDb, source: string): ((responseId: string) => PriorSharer[]) | null {
  const any = db.prepare(`SELECT 1 FROM files f WHERE f.log_format = 'otel' AND f.source = ? AND f.records > 0 LIMIT 1`).get(source)
  if (any === undefined) return null
  // `ID (` up to `ID )`: every text that starts with `ID (` sorts between them (by the index on (source, request_id)).
  const q = db.prepare(
    `SELECT r.id, r.request_id, r.tenant_id, r.session_id, r.file_id, r.line_no, r.byte_offset, r.byte_len, r.raw_crc32 FROM records r JOIN files f ON f.id = r.file_id
      WHERE r.source = ? AND (r.request_id = ? OR (r.request_id >= ? AND r.request_id < ?)) AND f.log_format = 'otel' ORDER BY r.id`,
  )
  const companions = db.prepare('SELECT file_id, line_no, byte_offset, byte_len, raw_crc32 FROM record_companions WHERE record_id = ? ORDER BY seq')
  return (responseId) =>
    (q.all(source, responseId, `${responseId} (`, `${responseId} )`) as Array<CompanionLine & {id: number; request_id: string; tenant_id: string; session_id: string}>).map((r) => ({
      request_id: r.request_id,
      tenant_id: r.tenant_id,
      session_id: r.session_id,
      line: {file_id: r.file_id, line_no: r.line_no, byte_offset: r.byte_offset, byte_len: r.byte_len, raw_crc32: r.raw_crc32},
      companions: companions.all(r.id) as CompanionLine[],
    }))
}

/**
 * Records (in complete log files) whose answer holds at least one word (the fingerprints' count,
 * words split on white space), ids in order: every answer in which a text the verbatim-text search
 * cannot compare may lie unseen, however many spaced words it holds besides (not-comparable.ts).
 */
export function responseRecordIds(db: CaseDb): number[] {
  return db
    .prepare(`SELECT r.id FROM fingerprints p JOIN records r ON r.id = p.record_id WHERE p.response_words >= 1${completeRecords(db)} ORDER BY r.id`)
    .pluck()
    .all() as number[]
}
