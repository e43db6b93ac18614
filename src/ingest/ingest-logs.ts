import {createHash} from 'node:crypto'
import {resolve} from 'node:path'
import {crc32} from 'node:zlib'
import {InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {EvidenceWriter} from './evidence-store.js'
import {expandPaths} from './expand-paths.js'
import {isGzipHead, sha256File} from './hash-file.js'
import {readLines, TruncatedStreamError} from './line-reader.js'
import {parseLine, type FieldMap, type RecordRow} from './parse-record.js'

export interface IngestLogsOptions {
  paths: readonly string[]
  map?: FieldMap
  /** Log source label: request_id is unique within a source (default "default"). */
  source?: string
  now: () => Date
  maxLineBytes?: number
  onProgress?: (p: IngestProgress) => void
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
  warnings: string[]
  per_file: IngestFileSummary[]
}

const BATCH_LINES = 2000
const BATCH_BYTES = 16 << 20
const RAW_KEEP = 64 * 1024 // bytes of a bad line copied into bad_lines; all of it stays in evidence_blocks

export async function ingestLogs(db: CaseDb, options: IngestLogsOptions): Promise<IngestLogsResult> {
  const paths = expandPaths(options.paths)
  const result: IngestLogsResult = {files: 0, records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, skipped_files: 0, warnings: [], per_file: []}
  db.pragma('synchronous = NORMAL')
  for (const [index, path] of paths.entries()) {
    const summary = await ingestOne(db, path, index, paths.length, options)
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
  ensureQueryIndexes(db)
  return result
}

/** Secondary indexes, built after bulk loading rather than maintained row by row. */
export function ensureQueryIndexes(db: CaseDb): void {
  db.exec(`
    CREATE INDEX IF NOT EXISTS records_by_ts ON records (ts_ms);
    CREATE INDEX IF NOT EXISTS records_by_session ON records (session_id, ts_ms);
    CREATE INDEX IF NOT EXISTS records_by_tenant ON records (tenant_id);
    CREATE INDEX IF NOT EXISTS records_by_file ON records (file_id, line_no);
    CREATE INDEX IF NOT EXISTS bad_lines_by_file ON bad_lines (file_id, line_no);
    -- scope's at-risk and exposure queries (see src/scope/scope-data.ts): built here, once,
    -- so that the first scope of a large case answers in seconds.
    CREATE INDEX IF NOT EXISTS records_scope_at_risk ON records (status, prompt_tokens, decode_node, ts_ms);
    CREATE INDEX IF NOT EXISTS records_scope_node_ts ON records (decode_node, ts_ms, tenant_id, session_id);
  `)
}

async function ingestOne(db: CaseDb, path: string, fileIndex: number, fileCount: number, options: IngestLogsOptions): Promise<IngestFileSummary> {
  let hashed
  try {
    hashed = await sha256File(path)
  } catch (error) {
    throw new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
  }
  const existing = db.prepare('SELECT id, state, records, duplicates FROM files WHERE sha256 = ?').get(hashed.sha256) as
    | {id: number; state: string; records: number; duplicates: number}
    | undefined
  const base = {path, sha256: hashed.sha256, records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, first_ts: null, last_ts: null, notes: []}
  if (existing?.state === 'complete') {
    // Same bytes already in the case: every request line in it is already present.
    return {...base, status: 'already_present', duplicates: existing.records + existing.duplicates}
  }
  if (existing) {
    // An ingest of this file was interrupted (crash, kill -9): drop its partial rows and redo it.
    db.prepare('DELETE FROM files WHERE id = ?').run(existing.id)
  }
  const gzip = isGzipHead(hashed.head)
  const source = options.source ?? 'default'
  const fileId = Number(
    db
      .prepare(
        `INSERT INTO files (kind, path, abs_path, sha256, size, format, source, state, started_at)
         VALUES ('log', ?, ?, ?, ?, ?, ?, 'loading', ?)`,
      )
      .run(path, resolve(path), hashed.sha256, hashed.size, gzip ? 'jsonl.gz' : 'jsonl', source, options.now().toISOString()).lastInsertRowid,
  )

  const insertRecord = db.prepare(
    `INSERT INTO records (file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id,
       status, endpoint, model, prefill_node, decode_node, prompt_tokens, completion_tokens, cached_tokens, stream,
       response_kind, is_error, error_message, request_text, response_text)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (source, request_id) DO NOTHING`,
  )
  const findExisting = db.prepare('SELECT raw_crc32 FROM records WHERE source = ? AND request_id = ?').pluck()
  const insertDuplicate = db.prepare(
    'INSERT INTO duplicate_lines (file_id, line_no, byte_offset, byte_len, request_id, identical) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const insertBad = db.prepare(
    'INSERT INTO bad_lines (file_id, line_no, byte_offset, byte_len, reason, raw, raw_truncated) VALUES (?, ?, ?, ?, ?, ?, ?)',
  )

  const evidence = new EvidenceWriter(db, fileId)
  // For a plain file the content is the file, already hashed; only gzip needs its own.
  const contentHash = gzip ? createHash('sha256') : undefined
  let contentSize = 0
  const summary: IngestFileSummary = {...base, status: 'ingested', notes: []}
  let firstMs = Infinity
  let lastMs = -Infinity
  let lines = 0

  type Pending =
    | {kind: 'record'; lineNo: number; offset: number; length: number; crc: number; row: RecordRow}
    | {kind: 'bad'; lineNo: number; offset: number; length: number; reason: string; raw: Buffer; truncated: boolean}
  let batch: Pending[] = []
  let batchBytes = 0

  const commit = db.transaction((items: Pending[]) => {
    for (const item of items) {
      if (item.kind === 'bad') {
        insertBad.run(fileId, item.lineNo, item.offset, item.length, item.reason, item.raw, item.truncated ? 1 : 0)
        continue
      }
      const r = item.row
      // Positional binding: measurably cheaper than named parameters on this hot path.
      const info = insertRecord.run(
        fileId, item.lineNo, item.offset, item.length, item.crc, source, r.request_id, r.ts, r.ts_ms, r.tenant_id, r.session_id,
        r.status, r.endpoint, r.model, r.prefill_node, r.decode_node, r.prompt_tokens, r.completion_tokens, r.cached_tokens, r.stream,
        r.response_kind, r.is_error, r.error_message, r.request_text, r.response_text,
      )
      if (info.changes === 1) {
        summary.records++
        if (item.row.ts_ms < firstMs) firstMs = item.row.ts_ms
        if (item.row.ts_ms > lastMs) lastMs = item.row.ts_ms
      } else {
        summary.duplicates++
        const crc = findExisting.get(source, item.row.request_id) as number | undefined
        insertDuplicate.run(fileId, item.lineNo, item.offset, item.length, item.row.request_id, crc === item.crc ? 1 : 0)
      }
    }
    evidence.writeReady()
    db.prepare('UPDATE files SET lines = ?, records = ?, duplicates = ?, bad_lines = ?, blank_lines = ? WHERE id = ?').run(
      lines, summary.records, summary.duplicates, summary.bad_lines, summary.blank_lines, fileId,
    )
  })

  let lastReport = 0
  const maxLineBytes = options.maxLineBytes ?? 256 * 1024 * 1024
  try {
    for await (const line of readLines(path, {
      gzip,
      maxLineBytes,
      onChunk: (chunk) => {
        evidence.push(chunk)
        contentHash?.update(chunk)
        contentSize += chunk.length
      },
    })) {
      lines++
      let bytes = line.bytes
      let offset = line.offset
      let length = line.length
      if (line.lineNo === 1 && bytes && bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
        summary.notes.push('UTF-8 byte-order mark at the start of the file skipped')
        bytes = bytes.subarray(3)
        offset += 3
        length -= 3
      }
      if (!bytes) {
        summary.bad_lines++
        batch.push({kind: 'bad', lineNo: line.lineNo, offset, length, reason: `line is ${length} bytes, over --max-line-bytes ${maxLineBytes}`, raw: Buffer.alloc(0), truncated: true})
      } else {
        const parsed = parseLine(bytes, options.map ?? {})
        if (parsed.kind === 'blank') summary.blank_lines++
        else if (parsed.kind === 'bad') {
          summary.bad_lines++
          batch.push({kind: 'bad', lineNo: line.lineNo, offset, length, reason: parsed.reason, raw: Buffer.from(bytes.subarray(0, RAW_KEEP)), truncated: bytes.length > RAW_KEEP})
        } else {
          batch.push({kind: 'record', lineNo: line.lineNo, offset, length, crc: crc32(bytes), row: parsed.row})
        }
        batchBytes += length
      }
      if (batch.length >= BATCH_LINES || batchBytes >= BATCH_BYTES) {
        commit(batch)
        batch = []
        batchBytes = 0
        await evidence.backpressure()
      }
      if (options.onProgress) {
        const t = Date.now()
        if (t - lastReport > 200) {
          lastReport = t
          options.onProgress({file: path, fileIndex, fileCount, bytesDone: line.offset, bytesTotal: gzip ? null : hashed.size, records: summary.records + batch.length})
        }
      }
    }
  } catch (error) {
    if (!(error instanceof TruncatedStreamError)) {
      throw new InputError(`${path}: read failed after line ${lines} (${(error as Error).message})`, 'E_UNREADABLE')
    }
    summary.notes.push(error.message)
  }
  await evidence.finish()
  commit(batch)
  // --json timestamps are toISOString() form (contract); records keep every digit given.
  if (summary.records > 0) {
    summary.first_ts = new Date(firstMs).toISOString()
    summary.last_ts = new Date(lastMs).toISOString()
  }
  if (lines === 0) summary.notes.push('empty file: no lines')
  db.prepare(
    `UPDATE files SET state = 'complete', completed_at = ?, content_sha256 = ?, content_size = ?, first_ts = ?, last_ts = ?, notes = ?
     WHERE id = ?`,
  ).run(options.now().toISOString(), contentHash ? contentHash.digest('hex') : hashed.sha256, contentSize, summary.first_ts, summary.last_ts, summary.notes.length ? JSON.stringify(summary.notes) : null, fileId)
  return summary
}
