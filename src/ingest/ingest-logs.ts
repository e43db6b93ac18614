import {createHash} from 'node:crypto'
import {closeSync, openSync, readSync, statSync} from 'node:fs'
import {resolve} from 'node:path'
import {EXTRACT_SCHEME, UnconventionalSet, type ExtractOptions} from '../detect/extract.js'
import {UNCONVENTIONAL_WHERE} from '../detect/markers.js'
import {extractWriter} from '../detect/store-extract.js'
import {InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {EvidenceWriter, type EvidenceCodec} from './evidence-store.js'
import {expandPaths} from './expand-paths.js'
import {isGzipHead, sha256File} from './hash-file.js'
import {TruncatedStreamError} from './line-reader.js'
import type {FieldMap} from './parse-record.js'
import {defaultWorkerCount, ParsePool, workersFromEnv} from './parse-pool.js'
import type {UnitResult} from './process-unit.js'
import {readUnits, UnitBuffers} from './unit-reader.js'
import {RequestIdSet} from './request-id-set.js'

/**
 * One ingest at a time per case: duplicates are detected in memory while the unique index
 * is down, so a second ingest running at the same time would not see the first's records.
 */
function claimIngest(db: CaseDb): void {
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'ingest_pid'`).pluck().get() as string | undefined
  const pid = row === undefined ? NaN : Number(row)
  if (Number.isInteger(pid) && pid !== process.pid && processAlive(pid)) {
    throw new InputError(`another ingest (process ${pid}) is writing to this case; wait for it to finish`, 'E_BUSY')
  }
  db.prepare(`INSERT INTO meta (key, value) VALUES ('ingest_pid', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run(String(process.pid))
}

function releaseIngest(db: CaseDb): void {
  db.prepare(`DELETE FROM meta WHERE key = 'ingest_pid' AND value = ?`).run(String(process.pid))
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export interface IngestLogsOptions {
  paths: readonly string[]
  map?: FieldMap
  /** Log source label: request_id is unique within a source (default "default"). */
  source?: string
  now: () => Date
  maxLineBytes?: number
  onProgress?: (p: IngestProgress) => void
  /** Parse worker threads (default: one per core; 0 parses inline). Small inputs always parse inline. */
  workers?: number
  /** Evidence block codec: 'raw' (default, fastest) or 'deflate' (about a third of the size, several times the CPU). */
  evidenceCodec?: EvidenceCodec
  /** What ingest extracts for detection while it parses (default: everything). */
  extract?: Partial<ExtractOptions>
}

export interface IngestProgress {
  file: string
  fileIndex: number
  fileCount: number
  /** Offset in the (decompressed) stream. */
  bytesDone: number
  /** Null for gzip input, whose decompressed size is unknown until the end. */
  bytesTotal: number | null
  records: number
}

export interface IngestFileSummary {
  path: string
  sha256: string
  status: 'ingested' | 'already_present'
  records: number
  duplicates: number
  bad_lines: number
  blank_lines: number
  first_ts: string | null
  last_ts: string | null
  notes: string[]
}

/** `crosstalk ingest logs --json` (contract keys first; the rest are extensions). */
export interface IngestLogsResult {
  files: number
  records: number
  duplicates: number
  bad_lines: number
  blank_lines: number
  skipped_files: number
  /** Worker threads that parsed (0: parsed on the main thread). */
  parse_workers: number
  warnings: string[]
  per_file: IngestFileSummary[]
}

/** Bytes of whole lines per parse unit. */
const UNIT_BYTES = 512 << 10
/** A unit is cut at the last line end once it holds UNIT_BYTES, so it can hold up to one read more. */
const UNIT_SLACK = 1 << 20
/** Input bytes per write transaction. */
const COMMIT_BYTES = 4 << 20
/** Inputs smaller than this parse inline: starting workers would cost more than it saves. */
const INLINE_BELOW_BYTES = 8 << 20

export async function ingestLogs(db: CaseDb, options: IngestLogsOptions): Promise<IngestLogsResult> {
  const paths = expandPaths(options.paths)
  const result: IngestLogsResult = {files: 0, records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, skipped_files: 0, parse_workers: 0, warnings: [], per_file: []}
  let totalBytes = 0
  for (const path of paths) {
    try {
      totalBytes += statSync(path).size
    } catch {
      // reported by ingestOne, in order
    }
  }
  const workers = options.workers ?? (workersFromEnv() === undefined && totalBytes < INLINE_BELOW_BYTES ? 0 : defaultWorkerCount())
  // Refused before anything changes when another ingest holds the case.
  claimIngest(db)
  const cacheSize = db.pragma('cache_size', {simple: true}) as number
  let pool: ParsePool | undefined
  try {
    // Bulk load without an fsync per commit: in WAL mode NORMAL syncs only when a checkpoint
    // copies the log into the database file, so an OS crash or power loss mid-ingest loses at
    // most the transactions since the last checkpoint (the file stays 'loading' and the next
    // ingest redoes it) and never corrupts what earlier ingests stored. OFF would skip those
    // syncs too, and a power cut during a checkpoint could then tear pages that hold older
    // evidence; it bought 3-4% at 200k records (measured), not worth the evidence.
    db.pragma('synchronous = NORMAL')
    // Bulk load touches each page about once: a small page cache costs nothing and keeps the
    // peak memory down (the default is 16 MB).
    db.pragma('cache_size = -8000')
    // Unconventional registered markers are matched while the texts are at hand; a scan
    // under a different set matches again from the evidence.
    const unconventional = new UnconventionalSet(db.prepare(`SELECT marker FROM canaries WHERE ${UNCONVENTIONAL_WHERE}`).pluck().all() as string[])
    pool = new ParsePool(workers, unconventional.markers)
    result.parse_workers = pool.size
    // Request ids and PII values arrive in random order: one sort at the end builds their
    // indexes much faster than inserting into them row by row, which rewrites most of their
    // pages in every transaction (ensureQueryIndexes puts them back; request ids are checked
    // for duplicates in memory meanwhile).
    db.exec('DROP INDEX IF EXISTS pii_values_by_value; DROP INDEX IF EXISTS records_by_source_request')
    const seen = new RequestIdSet(db)
    for (const [index, path] of paths.entries()) {
      const summary = await ingestOne(db, pool, seen, unconventional.hash, path, index, paths.length, options)
      result.per_file.push(summary)
      if (summary.status === 'already_present') {
        result.skipped_files++
        result.duplicates += summary.duplicates
        continue
      }
      result.files++
      result.records += summary.records
      result.duplicates += summary.duplicates
      result.bad_lines += summary.bad_lines
      result.blank_lines += summary.blank_lines
      for (const note of summary.notes) result.warnings.push(`${path}: ${note}`)
    }
  } finally {
    await pool?.close()
    // The final checkpoint below syncs the whole load into the database file.
    // Also after a failure: what was stored stays queryable by its indexes.
    try {
      ensureQueryIndexes(db)
    } finally {
      db.pragma(`cache_size = ${cacheSize}`)
      releaseIngest(db)
    }
  }
  db.pragma('wal_checkpoint(TRUNCATE)')
  return result
}

/** Secondary indexes, built after bulk loading rather than maintained row by row. */
export function ensureQueryIndexes(db: CaseDb): void {
  db.exec(`
    CREATE UNIQUE INDEX IF NOT EXISTS records_by_source_request ON records (source, request_id);
    CREATE INDEX IF NOT EXISTS records_by_ts ON records (ts_ms);
    CREATE INDEX IF NOT EXISTS records_by_session ON records (session_id, ts_ms);
    CREATE INDEX IF NOT EXISTS records_by_tenant ON records (tenant_id);
    CREATE INDEX IF NOT EXISTS records_by_file ON records (file_id, line_no);
    CREATE INDEX IF NOT EXISTS bad_lines_by_file ON bad_lines (file_id, line_no);
    CREATE INDEX IF NOT EXISTS pii_values_by_value ON pii_values (value_sha256);
    -- scope's at-risk and exposure queries (see src/scope/scope-data.ts): built here, once,
    -- so that the first scope of a large case answers in seconds.
    DROP INDEX IF EXISTS records_scope_at_risk;
    CREATE INDEX IF NOT EXISTS records_scope_at_risk_v2 ON records (status, prompt_tokens, decode_node, ts_ms, is_error);
    CREATE INDEX IF NOT EXISTS records_scope_node_ts ON records (decode_node, ts_ms, tenant_id, session_id);
  `)
}

function readHead(path: string): Buffer {
  const fd = openSync(path, 'r')
  try {
    const head = Buffer.alloc(4)
    const n = readSync(fd, head, 0, 4, 0)
    return head.subarray(0, n)
  } finally {
    closeSync(fd)
  }
}

async function ingestOne(db: CaseDb, pool: ParsePool, seen: RequestIdSet, unconventionalHash: string, path: string, fileIndex: number, fileCount: number, options: IngestLogsOptions): Promise<IngestFileSummary> {
  let size: number
  let head: Buffer
  try {
    size = statSync(path).size
    head = readHead(path)
  } catch (error) {
    throw new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
  }
  const absPath = resolve(path)
  // The file's SHA-256 decides whether it is already in the case. Hashing is a full read,
  // so it is done up front only when a file of the same size is in the case (only then can
  // the hashes be equal); otherwise the hash is taken in the same pass that ingests.
  const sameSize = db.prepare(`SELECT id, sha256, state, records, duplicates, abs_path FROM files WHERE kind = 'log' AND size = ?`).all(size) as Array<{
    id: number; sha256: string; state: string; records: number; duplicates: number; abs_path: string
  }>
  let preHash: string | null = null
  if (sameSize.length > 0) {
    try {
      preHash = (await sha256File(path)).sha256
    } catch (error) {
      throw new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
    }
  }
  const base = {path, sha256: preHash ?? '', records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, first_ts: null, last_ts: null, notes: []}
  const done = sameSize.find((f) => f.state === 'complete' && f.sha256 === preHash)
  if (done) {
    // Same bytes already in the case: every request line in it is already present.
    return {...base, status: 'already_present', duplicates: done.records + done.duplicates}
  }
  // An ingest of this file that was interrupted (crash, kill -9): drop its partial rows and redo it.
  for (const f of sameSize) {
    if (f.state === 'loading' && (f.sha256 === preHash || f.abs_path === absPath)) db.prepare('DELETE FROM files WHERE id = ?').run(f.id)
  }
  const gzip = isGzipHead(head)
  const source = options.source ?? 'default'
  const map = options.map ?? {}
  const extract: ExtractOptions = {fingerprints: true, pii: true, ...options.extract}
  const fileId = Number(
    db
      .prepare(
        `INSERT INTO files (kind, path, abs_path, sha256, size, format, source, state, started_at, field_map)
         VALUES ('log', ?, ?, ?, ?, ?, ?, 'loading', ?, ?)`,
      )
      // Until the pass ends the hash is not known: a unique placeholder holds the column.
      .run(path, absPath, preHash ?? `pending:${process.pid}:${Date.now()}:${fileIndex}`, size, gzip ? 'jsonl.gz' : 'jsonl', source, options.now().toISOString(),
        Object.keys(map).length ? JSON.stringify(map) : null).lastInsertRowid,
  )

  const insertRecord = db.prepare(
    `INSERT INTO records (file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id,
       status, endpoint, model, prefill_node, decode_node, prompt_tokens, completion_tokens, cached_tokens, stream,
       response_kind, is_error, error_message)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const insertDuplicate = db.prepare(
    'INSERT INTO duplicate_lines (file_id, line_no, byte_offset, byte_len, request_id, identical) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const insertBad = db.prepare(
    'INSERT INTO bad_lines (file_id, line_no, byte_offset, byte_len, reason, raw, raw_truncated) VALUES (?, ?, ?, ?, ?, ?, ?)',
  )
  const extracts = extractWriter(db)
  const updateCounts = db.prepare('UPDATE files SET lines = ?, records = ?, duplicates = ?, bad_lines = ?, blank_lines = ? WHERE id = ?')

  const evidence = new EvidenceWriter(db, fileId, options.evidenceCodec ?? 'raw')
  const fileHash = preHash ? undefined : createHash('sha256')
  // For a plain file the content is the file; only gzip needs a hash of its own.
  const contentHash = gzip ? createHash('sha256') : undefined
  let contentSize = 0
  const summary: IngestFileSummary = {...base, status: 'ingested', notes: []}
  let firstMs = Infinity
  let lastMs = -Infinity
  let lines = 0
  let bomNoted = false

  // One transaction per several units: the request-id index takes inserts in random order,
  // and every page a transaction touches is written to the WAL once per transaction.
  const commit = db.transaction((results: UnitResult[], oversize: {lineNo: number; offset: number; length: number; max: number} | null) => {
    for (const r of results) writeUnit(r)
    if (oversize) {
      lines++
      summary.bad_lines++
      insertBad.run(fileId, oversize.lineNo, oversize.offset, oversize.length, `line is ${oversize.length} bytes, over --max-line-bytes ${oversize.max}`, Buffer.alloc(0), 1)
    }
    evidence.writeReady()
    updateCounts.run(lines, summary.records, summary.duplicates, summary.bad_lines, summary.blank_lines, fileId)
  })
  const writeUnit = (r: UnitResult): void => {
    {
      lines += r.lines
      summary.blank_lines += r.blank
      if (r.bom && !bomNoted) {
        bomNoted = true
        summary.notes.push('UTF-8 byte-order mark at the start of the file skipped')
      }
      for (const item of r.items) {
        if (item.k === 'b') {
          summary.bad_lines++
          insertBad.run(fileId, item.lineNo, item.offset, item.length, item.reason, Buffer.from(item.raw.buffer, item.raw.byteOffset, item.raw.byteLength), item.truncated ? 1 : 0)
          continue
        }
        const w = item.row
        const prior = seen.find(source, w.request_id)
        if (prior) {
          summary.duplicates++
          insertDuplicate.run(fileId, item.lineNo, item.offset, item.length, w.request_id, prior.crc === item.crc ? 1 : 0)
          continue
        }
        // Positional binding: measurably cheaper than named parameters on this hot path.
        const info = insertRecord.run(
          fileId, item.lineNo, item.offset, item.length, item.crc, source, w.request_id, w.ts, w.ts_ms, w.tenant_id, w.session_id,
          w.status, w.endpoint, w.model, w.prefill_node, w.decode_node, w.prompt_tokens, w.completion_tokens, w.cached_tokens, w.stream,
          w.response_kind, w.is_error, w.error_message,
        )
        const id = Number(info.lastInsertRowid)
        seen.add(source, w.request_id, id)
        summary.records++
        if (w.ts_ms < firstMs) firstMs = w.ts_ms
        if (w.ts_ms > lastMs) lastMs = w.ts_ms
        extracts.write(id, item, extract.fingerprints ? r.fp : null, w)
      }
    }
  }

  const maxLineBytes = options.maxLineBytes ?? 256 * 1024 * 1024
  const inFlight = pool.threaded ? 2 * pool.size + 1 : 1
  // Unit buffers go round: reader -> worker -> back here -> reader (see readUnits).
  const unitBuffers = new UnitBuffers(UNIT_BYTES + UNIT_SLACK, inFlight + 2)
  // Every row written below references a record or file written in the same pass, so
  // SQLite's per-row foreign-key lookups prove nothing; they are off for the pass.
  const fk = db.pragma('foreign_keys', {simple: true}) as number
  if (fk) db.pragma('foreign_keys = OFF')
  let lastReport = 0
  let seq = 0
  let bytesDone = 0
  const report = (): void => {
    if (!options.onProgress) return
    const t = Date.now()
    if (t - lastReport < 200) return
    lastReport = t
    options.onProgress({file: path, fileIndex, fileCount, bytesDone, bytesTotal: gzip ? null : size, records: summary.records})
  }
  let ready: UnitResult[] = []
  let readyBytes = 0
  const flush = (oversize: {lineNo: number; offset: number; length: number; max: number} | null = null): void => {
    commit(ready, oversize)
    ready = []
    readyBytes = 0
    report()
  }
  const drainOne = async (): Promise<void> => {
    const r = await pool.next()
    unitBuffers.release(r.input?.buffer)
    r.input = undefined
    ready.push(r)
    readyBytes += r.bytes
    if (readyBytes >= COMMIT_BYTES) flush()
  }
  try {
    for await (const event of readUnits(path, {
      gzip,
      unitBytes: UNIT_BYTES,
      buffers: unitBuffers,
      maxLineBytes,
      onFileChunk: (chunk) => fileHash?.update(chunk),
      onChunk: (chunk) => {
        evidence.push(chunk)
        contentHash?.update(chunk)
        contentSize += chunk.length
      },
    })) {
      if (event.kind === 'oversize') {
        // In order: everything before it is written first.
        while (pool.pending > 0) await drainOne()
        flush({...event, max: maxLineBytes})
        continue
      }
      bytesDone = event.offset + event.bytes.length
      pool.submit({seq: seq++, bytes: event.bytes, offset: event.offset, firstLineNo: event.firstLineNo, map, maxLineBytes, extract}, true)
      while (pool.pending >= inFlight) await drainOne()
      await evidence.backpressure()
    }
  } catch (error) {
    if (!(error instanceof TruncatedStreamError)) {
      throw new InputError(`${path}: read failed after line ${lines} (${(error as Error).message})`, 'E_UNREADABLE')
    }
    summary.notes.push(error.message)
  } finally {
    if (fk) db.pragma('foreign_keys = ON')
  }
  while (pool.pending > 0) await drainOne()
  await evidence.finish()
  flush()
  // --json timestamps are toISOString() form (contract); records keep every digit given.
  if (summary.records > 0) {
    summary.first_ts = new Date(firstMs).toISOString()
    summary.last_ts = new Date(lastMs).toISOString()
  }
  if (lines === 0) summary.notes.push('empty file: no lines')
  const sha256 = preHash ?? fileHash!.digest('hex')
  summary.sha256 = sha256
  const twin = preHash ? undefined : (db.prepare(`SELECT id, records, duplicates FROM files WHERE sha256 = ? AND id <> ?`).get(sha256, fileId) as {id: number} | undefined)
  if (twin) {
    // Cannot happen (no file of this size was in the case when the pass began), unless another process ingested it meanwhile.
    db.prepare('DELETE FROM files WHERE id = ?').run(fileId)
    throw new InputError(`${path}: the same file was ingested into this case by another process meanwhile; run the ingest again`, 'E_CONCURRENT')
  }
  db.prepare(
    `UPDATE files SET state = 'complete', completed_at = ?, sha256 = ?, content_sha256 = ?, content_size = ?, first_ts = ?, last_ts = ?, notes = ?, extracted = ?,
       extracted_unconventional = ?
     WHERE id = ?`,
  ).run(options.now().toISOString(), sha256, contentHash ? contentHash.digest('hex') : sha256, contentSize, summary.first_ts, summary.last_ts,
    summary.notes.length ? JSON.stringify(summary.notes) : null, extract.fingerprints && extract.pii ? EXTRACT_SCHEME : null, unconventionalHash, fileId)
  return summary
}
