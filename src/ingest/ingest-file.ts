import {createHash} from 'node:crypto'
import {closeSync, openSync, readSync, statSync} from 'node:fs'
import {basename, resolve} from 'node:path'
import {InputError} from '../errors.js'
import {EvidenceWriter, type EvidenceCodec} from '../evidence/evidence-store.js'
import {isGzipHead, sha256File} from '../evidence/hash-file.js'
import {EXTRACT_SCHEME} from '../extract/extract.js'
import type {FieldMap} from '../extract/parse-record.js'
import {encodeParseSpec} from '../extract/parse-spec.js'
import {completeLogFile, deleteFile, insertLoadingLogFile, logFilesOfSize, otherFileWithSha256} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {withoutForeignKeyChecksAsync} from '../store/session.js'
import {TruncatedStreamError} from './line-reader.js'
import type {ParsePool} from './parse-pool.js'
import type {UnitResult} from './process-unit.js'
import type {RequestIdSet} from './request-id-set.js'
import {readUnits, UnitBuffers} from './unit-reader.js'
import {UnitWriter} from './unit-writer.js'

// One log file into the case: decide whether it is already there, then stream it through
// the parse pool into the evidence store and the tables, and mark it complete at the end.
// Until then the file is 'loading', and nothing counts its rows.

export interface IngestProgress {
  file: string
  fileIndex: number
  fileCount: number
  /** Offset in the (decompressed) stream. */
  bytesDone: number
  /** Null for gzip input, whose decompressed size is unknown until the end. */
  bytesTotal: number | null
  records: number
  /** Bytes of all the files as stored (compressed for .gz) read so far, and their total: an overall fraction and ETA. */
  inputBytesDone: number
  inputBytesTotal: number
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

/** What every file of one `ingest logs` shares. */
export interface IngestContext {
  db: CaseDb
  pool: ParsePool
  seen: RequestIdSet
  /** SHA-256 of the registry's unconventional markers the pool matches ('' when none). */
  unconventionalSha256: string
  map: FieldMap
  source: string
  now: () => Date
  maxLineBytes: number
  evidenceCodec: EvidenceCodec
  fileCount: number
  onProgress?: (p: IngestProgress) => void
  /** Sizes of the files before this one, and of all of them (for IngestProgress). */
  inputBytesBefore?: number
  inputBytesTotal?: number
}

/** Bytes of whole lines per parse unit. */
const UNIT_BYTES = 512 << 10
/** A unit is cut at the last line end once it holds UNIT_BYTES, so it can hold up to one read more. */
const UNIT_SLACK = 1 << 20
/** Input bytes per write transaction. */
const COMMIT_BYTES = 4 << 20

export async function ingestFile(ctx: IngestContext, path: string, fileIndex: number): Promise<IngestFileSummary> {
  const {db} = ctx
  const {size, head} = statAndHead(path)
  const absPath = resolve(path)
  // The file's SHA-256 decides whether it is already in the case. Hashing is a full read,
  // so it is done up front only when a file of the same size is in the case (only then can
  // the hashes be equal); otherwise the hash is taken in the same pass that ingests.
  const sameSize = logFilesOfSize(db, size)
  const preHash = sameSize.length > 0 ? await hashOrThrow(path) : null
  const empty: IngestFileSummary = {path, sha256: preHash ?? '', status: 'ingested', records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, first_ts: null, last_ts: null, notes: []}
  const done = sameSize.find((f) => f.state === 'complete' && f.sha256 === preHash)
  if (done) {
    // Same bytes already in the case: every request line in it is already present.
    return {...empty, status: 'already_present', duplicates: done.records + done.duplicates}
  }
  // An ingest of this file that was interrupted (crash, kill -9): drop its partial rows and redo it.
  for (const f of sameSize) {
    if (f.state === 'loading' && (f.sha256 === preHash || f.abs_path === absPath)) deleteFile(db, f.id)
  }
  const gzip = isGzipHead(head)
  const fileId = insertLoadingLogFile(db, {
    path, name: basename(path), absPath,
    sha256: preHash ?? `pending:${process.pid}:${Date.now()}:${fileIndex}`,
    size, compression: gzip ? 'gzip' : 'none', logFormat: 'native', parseSpec: encodeParseSpec({map: ctx.map}), source: ctx.source,
    startedAt: ctx.now().toISOString(),
  })

  const notes: string[] = []
  const streamed = await withoutForeignKeyChecksAsync(db, () => streamFile(ctx, {path, fileId, fileIndex, size, gzip, hashFile: preHash === null}, notes))
  const c = streamed.counts
  if (c.bom) notes.unshift('UTF-8 byte-order mark at the start of the file skipped')
  if (c.lines === 0) notes.push('empty file: no lines')
  const sha256 = preHash ?? streamed.sha256!
  if (preHash === null && otherFileWithSha256(db, sha256, fileId)) {
    // Cannot happen (no file of this size was in the case when the pass began), unless another process ingested it meanwhile.
    deleteFile(db, fileId)
    throw new InputError(`${path}: the same file was ingested into this case by another process meanwhile; run the ingest again`, 'E_CONCURRENT')
  }
  // --json timestamps are toISOString() form (contract); records keep every digit given.
  const firstTs = c.records > 0 ? new Date(c.first_ms).toISOString() : null
  const lastTs = c.records > 0 ? new Date(c.last_ms).toISOString() : null
  completeLogFile(db, fileId, {
    completedAt: ctx.now().toISOString(), sha256, contentSha256: streamed.contentSha256 ?? sha256, contentSize: streamed.contentSize,
    firstTs, lastTs, notes, extractScheme: EXTRACT_SCHEME, unconventionalSha256: ctx.unconventionalSha256,
  })
  return {path, sha256, status: 'ingested', records: c.records, duplicates: c.duplicates, bad_lines: c.bad_lines, blank_lines: c.blank_lines, first_ts: firstTs, last_ts: lastTs, notes}
}

function statAndHead(path: string): {size: number; head: Buffer} {
  try {
    const size = statSync(path).size
    const fd = openSync(path, 'r')
    try {
      const head = Buffer.alloc(4)
      return {size, head: head.subarray(0, readSync(fd, head, 0, 4, 0))}
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    throw unreadable(path, error)
  }
}

async function hashOrThrow(path: string): Promise<string> {
  try {
    return (await sha256File(path)).sha256
  } catch (error) {
    throw unreadable(path, error)
  }
}

function unreadable(path: string, error: unknown): InputError {
  return new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
}

interface StreamTarget {
  path: string
  fileId: number
  fileIndex: number
  size: number
  gzip: boolean
  /** Hash the file as read (no hash was taken up front). */
  hashFile: boolean
}

/**
 * The pipeline: the reader cuts the (decompressed) stream into units of whole lines, the
 * pool parses them on worker threads, and the results are written in submission order, a
 * few units per transaction, while every byte also goes to the evidence store.
 */
async function streamFile(
  ctx: IngestContext, t: StreamTarget, notes: string[],
): Promise<{counts: UnitWriter['counts']; sha256: string | null; contentSha256: string | null; contentSize: number}> {
  const {db, pool} = ctx
  const writer = new UnitWriter(db, t.fileId, ctx.source, ctx.seen)
  const evidence = new EvidenceWriter(db, t.fileId, ctx.evidenceCodec)
  const fileHash = t.hashFile ? createHash('sha256') : undefined
  // For a plain file the content is the file; only gzip needs a hash of its own.
  const contentHash = t.gzip ? createHash('sha256') : undefined
  let contentSize = 0

  // One transaction per several units: every page a transaction touches is written to the WAL once per transaction.
  const commit = db.transaction((results: UnitResult[], oversize: {lineNo: number; offset: number; length: number; max: number} | null) => {
    for (const r of results) writer.write(r)
    if (oversize) writer.writeOversize(oversize)
    evidence.writeReady()
    writer.saveCounts()
  })

  const inFlight = pool.threaded ? 2 * pool.size + 1 : 1
  // Unit buffers go round: reader -> worker -> back here -> reader (see readUnits).
  const unitBuffers = new UnitBuffers(UNIT_BYTES + UNIT_SLACK, inFlight + 2)
  let lastReport = 0
  let seq = 0
  let bytesDone = 0
  let fileBytesRead = 0
  const report = (): void => {
    if (!ctx.onProgress) return
    const now = Date.now()
    if (now - lastReport < 200) return
    lastReport = now
    ctx.onProgress({
      file: t.path, fileIndex: t.fileIndex, fileCount: ctx.fileCount, bytesDone, bytesTotal: t.gzip ? null : t.size, records: writer.counts.records,
      inputBytesDone: (ctx.inputBytesBefore ?? 0) + fileBytesRead, inputBytesTotal: ctx.inputBytesTotal ?? t.size,
    })
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
    for await (const event of readUnits(t.path, {
      gzip: t.gzip,
      unitBytes: UNIT_BYTES,
      buffers: unitBuffers,
      maxLineBytes: ctx.maxLineBytes,
      onFileChunk: (chunk) => {
        fileBytesRead += chunk.length
        fileHash?.update(chunk)
      },
      onChunk: (chunk) => {
        evidence.push(chunk)
        contentHash?.update(chunk)
        contentSize += chunk.length
      },
    })) {
      if (event.kind === 'oversize') {
        // In order: everything before it is written first.
        while (pool.pending > 0) await drainOne()
        flush({...event, max: ctx.maxLineBytes})
        continue
      }
      bytesDone = event.offset + event.bytes.length
      pool.submit({seq: seq++, bytes: event.bytes, offset: event.offset, firstLineNo: event.firstLineNo, map: ctx.map, maxLineBytes: ctx.maxLineBytes}, true)
      while (pool.pending >= inFlight) await drainOne()
      await evidence.backpressure()
    }
  } catch (error) {
    if (!(error instanceof TruncatedStreamError)) {
      throw new InputError(`${t.path}: read failed after line ${writer.counts.lines} (${(error as Error).message})`, 'E_UNREADABLE')
    }
    notes.push(error.message)
  }
  while (pool.pending > 0) await drainOne()
  await evidence.finish()
  flush()
  return {counts: writer.counts, sha256: fileHash ? fileHash.digest('hex') : null, contentSha256: contentHash ? contentHash.digest('hex') : null, contentSize}
}
