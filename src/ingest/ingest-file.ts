import {createHash} from 'node:crypto'
import {closeSync, constants, fstatSync, openSync, readSync, statSync} from 'node:fs'
import {basename, resolve} from 'node:path'
import {CliError, InputError} from '../errors.js'
import {EvidenceWriter, type EvidenceCodec} from '../evidence/evidence-store.js'
import {isGzipHead, sha256File, sha256Prefixes} from '../evidence/hash-file.js'
import {EXTRACT_SCHEME} from '../extract/extract.js'
import {decodeParseSpec, describeParseSpec, encodeParseSpec} from '../extract/parse-spec.js'
import {jsonLinesFix, NOT_JSON_LINES, type WrappedJson} from '../extract/formats/common.js'
import {CONTENT_NOT_READ} from '../extract/formats/otel.js'
import {UNDECODED_BYTES, type CompanionIndex, type LogFormat} from '../extract/formats/index.js'
import {completeLogFile, deleteEvidenceBlocks, lastLineRead, deleteFile, inImmediateTransaction, insertLoadingLogFile, markEvidenceCopied, logFilesAtPath, logFilesOfSize, otherFileWithSha256, SAME_RECORDS_NOTE, sameRecordsUnderOtherSources, shorterLogFiles, smallLogFileSizes, HEAD_BYTES, type FileRow, type LogEvidence, type MissingFieldCounts} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {transactional, withoutForeignKeyChecksAsync} from '../store/session.js'
import {DamagedStreamError} from './gunzip-recover.js'
import type {ParsePool} from './parse-pool.js'
import type {UnitResult} from './process-unit.js'
import {isPacked, unpackUnitResult, type PackedUnitResult} from './unit-pack.js'
import type {RequestIdSet} from './request-id-set.js'
import {readUnits, UnitBuffers} from './unit-reader.js'
import {UnitWriter, type FileSummaryCounts} from './unit-writer.js'
import {count} from '../util/plural.js'
import {unloggedAnswers} from '../extract/redaction.js'
import {unreadShapesPhrase} from '../extract/parse-record.js'
import {quoted, withoutLineExcerpt} from '../util/sanitize.js'
import {descriptorFile, namesDescriptor} from '../util/descriptor-path.js'
import {lineDecoder} from '../extract/line-decoder.js'

// One log file into the case, in three steps: prepare (is it already there? a loading row
// for it), stream (the parse pool decodes its lines into the evidence store and the tables),
// finish (mark it complete with what was read, or refuse it when nothing in it could be read).
// Until finished the file is 'loading', and nothing counts its rows.

export interface IngestProgress {
  /** 'verdict': triage's quick pass over the files before ingest (markers only); absent: ingest */
  phase?: 'verdict'
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
  /** refused: nothing in it could be read (or no answer decoded to text); it was not kept */
  status: 'ingested' | 'already_present' | 'refused'
  log_format: LogFormat
  /** how the format was decided (auto's reason, or "given") */
  format_reason: string
  records: number
  duplicates: number
  bad_lines: number
  blank_lines: number
  /** records whose request decoded to no text */
  no_request_text: number
  /** records (errors aside) whose response decoded to no text */
  no_response_text: number
  /** items that are not model calls (non-GenAI spans, Batch input lines, Langfuse spans) */
  ignored_items: number
  /** duplicates whose time differs from the record kept (the first read); absent where none */
  duplicates_other_time?: number
  first_ts: string | null
  last_ts: string | null
  /** null: read whole; else what could not be read */
  unread: string | null
  notes: string[]
  /**
   * A compressed file's decompressed content (SHA-256 and bytes), kept in the ingest's audit
   * entry: the evidence stored from it is checked against these (the file's own sha256 speaks
   * for the content of an uncompressed one). Absent for uncompressed files.
   */
  content_sha256?: string
  content_size?: number
  /** when refused: why, and the likely fix */
  refused?: {reason: string; fix: string}
  /**
   * A longer version of a file already in the case (appended to since, or a copy of it that
   * grew): it begins with that file's bytes, so only its lines from `read_from` (offset in the
   * content; `from_line`, its line number) on were read; the lines before are that file's,
   * counted there. The case holds both versions and counts them as one log file.
   */
  continues?: {path: string; sha256: string; size: number; read_from: number; from_line: number | null}
  /** The file last ingested from this path, where this one does not begin with its bytes: the path holds other bytes than were ingested (never merged: read as a file of its own). */
  changed_from?: {path: string; sha256: string; size: number}
}

/** What every file of one `ingest logs` shares. */
export interface IngestContext {
  db: CaseDb
  pool: ParsePool
  seen: RequestIdSet
  /** SHA-256 of the registry's unconventional markers the pool matches ('' when none). */
  unconventionalSha256: string
  source: string
  now: () => Date
  maxLineBytes: number
  evidenceCodec: EvidenceCodec
  /** 'copy': every byte into the case; 'reference': none, each file read again where it lies (no gzip) */
  evidence: LogEvidence
  fileCount: number
  onProgress?: (p: IngestProgress) => void
  signal?: AbortSignal
  /** Sizes of the files before this one, and of all of them (for IngestProgress). */
  inputBytesBefore?: number
  inputBytesTotal?: number
  /** Log files this ingest completed (ids): the same bytes given again in it are theirs. */
  completed?: Set<number>
}

/** How a file is read: its format, why, and the parse spec (canonical JSON) of its lines. */
export interface FileFormat {
  format: LogFormat
  reason: string
  spec: string
}

export interface PreparedFile {
  path: string
  absPath: string
  fileIndex: number
  size: number
  gzip: boolean
  how: FileFormat
  /** The file's row: a new 'loading' one, or the complete one already in the case. */
  fileId: number
  present: FileRow | null
  /** false: the present file is kept by reference and its bytes are to be copied into the case (--evidence copy, copyIntoCase); true once they are. */
  copied?: boolean
  /**
   * The complete file this one is a longer version of (it begins with that file's bytes): only
   * the lines from readFrom on (content offset) are read, the ones before are that file's.
   */
  continues?: {file: FileRow; readFrom: number; lastLineRead: number | null} | null
  /** The file last ingested from this path, where this one does not begin with its bytes: the path holds other bytes now. */
  changed?: FileRow | null
  /** A file this one begins with that it could not continue (read another way), and why: all its lines are read. */
  notContinued?: {file: FileRow; why: string} | null
}

/** The ingest stopped on a signal: the file being read stays 'loading' and is redone next time. */
export class IngestInterrupted extends Error {
  constructor(readonly file: string) {
    super(`interrupted while reading ${file}`)
  }
}

/** Bytes of whole lines per parse unit. */
export const UNIT_BYTES = 512 << 10
/** A unit is cut at the last line end once it holds UNIT_BYTES, so it can hold up to one read more. */
export const UNIT_SLACK = 1 << 20
/** Input bytes per write transaction. */
const COMMIT_BYTES = 4 << 20

/**
 * Opens the path without blocking (a FIFO with no writer would block a plain open forever) and
 * refuses anything but a regular file: a FIFO, a device such as /dev/zero, a socket. Returns the
 * size (what will be read, even if the file grows meanwhile) and the first bytes.
 */
export function statRegularFile(path: string): {size: number; head: Buffer} {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    throw unreadable(path, error)
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) {
      throw new InputError(`${path}: ${nonFileKind(stat)}, not a regular file; crosstalk keeps the exact bytes of evidence files, so copy the log into a file first`, 'E_NOT_A_FILE')
    }
    const head = Buffer.alloc(4)
    return {size: stat.size, head: head.subarray(0, stat.size === 0 ? 0 : readSync(fd, head, 0, 4, 0))}
  } catch (error) {
    if (error instanceof CliError) throw error
    throw unreadable(path, error)
  } finally {
    closeSync(fd)
  }
}

/** What a path that is not a regular file is, in words ("a directory", "a FIFO (named pipe)"). */
export function nonFileKind(stat: {isDirectory(): boolean; isFIFO(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isSocket(): boolean}): string {
  return stat.isDirectory() ? 'a directory' : stat.isFIFO() ? 'a FIFO (named pipe)' : stat.isCharacterDevice() ? 'a character device' : stat.isBlockDevice() ? 'a block device' : stat.isSocket() ? 'a socket' : 'something else'
}

/**
 * Step one: whether the same bytes are already in the case (then nothing is read again), and a
 * 'loading' row for a file that is not. Rows an interrupted ingest left for this path (or for
 * these bytes) are dropped first, with everything they held.
 */
export async function prepareFile(ctx: IngestContext, given: string, fileIndex: number, how: FileFormat): Promise<PreparedFile> {
  const {db} = ctx
  const {size, head} = statRegularFile(given)
  const gzip = isGzipHead(head)
  // By reference the case reads the original where it lies, so the path must outlive this process.
  const path = keptAs(ctx, gzip) === 'reference' ? stablePath(given) : copiedPath(given)
  const absPath = resolve(path)
  // The file's SHA-256 decides whether it is already in the case. Hashing is a full read, so
  // it is done up front only when a file of the same size is in the case (only then can the
  // hashes be equal); the stream pass hashes what it reads in any case.
  const sameSize = logFilesOfSize(db, size)
  const preHash = sameSize.length > 0 ? await hashOrThrow(path, size) : null
  const done = sameSize.find((f) => f.state === 'complete' && f.sha256 === preHash)
  // Kept by reference and now asked for as a copy (before the originals are deleted, say): the
  // bytes go into the case, checked against the SHA-256 as they are copied; else the user is told
  // "already in the case" and deletes the only copy of the evidence.
  // The copy itself is made by copyIntoCase once the file before has been written.
  if (done && done.lines_held === 'none' && keptAs(ctx, gzip) === 'copy') return {path, absPath, fileIndex, size, gzip, how, fileId: done.id, present: done, copied: false}
  if (done) return {path, absPath, fileIndex, size, gzip, how, fileId: done.id, present: done}
  // An ingest of this file that was interrupted (crash, kill -9, a signal): drop its partial rows and redo it.
  for (const f of [...sameSize, ...logFilesAtPath(db, absPath)]) {
    if (f.state === 'loading' && (f.sha256 === preHash || f.abs_path === absPath)) deleteFile(db, f.id)
  }
  const history = await earlierVersions(ctx, {path, absPath, size, gzip, how})
  const fileId = insertLoadingLogFile(db, {
    path, name: basename(path), absPath,
    sha256: `pending:${process.pid}:${Date.now()}:${fileIndex}:${Math.random().toString(36).slice(2)}`,
    size, compression: gzip ? 'gzip' : 'none', logFormat: how.format, parseSpec: how.spec, formatReason: how.reason, source: ctx.source,
    startedAt: ctx.now().toISOString(), evidence: keptAs(ctx, gzip),
    ...(history.continues ? {continues: {fileId: history.continues.file.id, readFrom: history.continues.readFrom}} : {}),
  })
  return {path, absPath, fileIndex, size, gzip, how, fileId, present: null, continues: history.continues, changed: history.changed, notContinued: history.notContinued}
}

/** What the case holds of a file being ingested under other bytes: the version it grew from, and versions at its path it no longer begins with. */
interface FileHistory {
  continues: PreparedFile['continues']
  changed: FileRow | null
  notContinued: PreparedFile['notContinued']
}

/**
 * Whether a file not in the case is a longer version of one that is (a log appended to since it
 * was ingested, at its path or copied elsewhere under any name: found by path, name or the SHA-256
 * of its first HEAD_BYTES bytes, files.head_sha256): its first bytes are exactly
 * that file's (SHA-256), and it is read the same way. Then only the lines after the stored
 * version's last whole line are read (streamInto): the ones before are that version's records,
 * duplicates and bad lines, stored and counted there, never a second time. A file the case
 * holds at this path whose bytes this one does not begin with is `changed`: the path holds
 * other bytes now (rewritten, truncated, rotated), said, and never merged with what is stored.
 */
async function earlierVersions(
  ctx: IngestContext, f: {path: string; absPath: string; size: number; gzip: boolean; how: FileFormat},
): Promise<FileHistory> {
  const {db} = ctx
  // Its head (what a stored file's head_sha256 is over), and its first N bytes for each stored file of N < HEAD_BYTES.
  const heads = await hashPrefixesOrThrow(f.path, [Math.min(f.size, HEAD_BYTES), ...smallLogFileSizes(db, f.size)])
  const shorter = shorterLogFiles(db, {absPath: f.absPath, name: basename(f.path), size: f.size, heads: [...heads.values()]})
  const prefixes = shorter.length > 0 ? await hashPrefixesOrThrow(f.path, shorter.map((c) => c.size)) : new Map<number, string>()
  const isPrefix = (c: FileRow): boolean => prefixes.get(c.size) === c.sha256
  // A version read whole, of the same compression, read the same way, and whose lines stand alone
  // (a format that joins lines across files needs all of them together, companion index and all).
  const continuable = (c: FileRow): boolean =>
    c.unread === null && c.content_size !== null && c.compression === (f.gzip ? 'gzip' : 'none') && c.source === ctx.source
    && encodeParseSpec(decodeParseSpec(c.parse_spec)) === f.how.spec && !joinsLines(f.how.spec)
  const grown = shorter.filter(isPrefix)
  const from = grown.find(continuable)
  // What this path held when it was last ingested: the file now is those bytes (already present,
  // decided before), or begins with them (grown), or it changed.
  const last = logFilesAtPath(db, f.absPath).filter((c) => c.state === 'complete').at(-1)
  const changed = last !== undefined && !(last.size < f.size && isPrefix(last)) ? last : null
  const notContinued = from === undefined && grown.length > 0 ? {file: grown[0]!, why: whyNotContinued(grown[0]!, f.gzip, ctx.source, f.how.spec)} : null
  return {continues: from ? {file: from, readFrom: from.content_size!, lastLineRead: lastLineRead(db, from.id)} : null, changed, notContinued}
}

/** Why a file this one begins with is not continued: its lines are read again, its records counted as duplicates. */
function whyNotContinued(c: FileRow, gzip: boolean, source: string, spec: string): string {
  if (c.unread !== null) return 'it was not read whole'
  if (c.compression !== (gzip ? 'gzip' : 'none')) return 'it was stored in another compression'
  if (c.source !== source) return `it was read under --source ${quoted(c.source)}`
  if (joinsLines(spec)) return 'its format joins lines across files, so every line is read together'
  return `it was read as ${describeParseSpec(decodeParseSpec(c.parse_spec))}, not as ${describeParseSpec(decodeParseSpec(spec))}`
}

/** Whether a format's records join lines across lines and files (OpenTelemetry, Batch): every line is read together then. */
function joinsLines(spec: string): boolean {
  const decoder = lineDecoder(decodeParseSpec(spec))
  return decoder.adapter.newIndex(decoder.options) !== null
}

async function hashPrefixesOrThrow(path: string, sizes: readonly number[]): Promise<Map<number, string>> {
  try {
    return await sha256Prefixes(path, sizes)
  } catch (error) {
    throw unreadable(path, error)
  }
}

/** The note of a file kept by reference whose bytes this ingest copied into the case. */
export const REFERENCE_COPIED = 'was kept by reference: its bytes are now copied into the case (SHA-256 checked as they were copied); the case no longer needs the original'

/**
 * Copies the bytes of a file the case keeps by reference into its evidence store (the blocks a
 * copy has, so the records' offsets read the same lines), hashing them as they are copied; if they
 * are not the bytes recorded (the file changed since it was hashed), the transaction is rolled
 * back and the file stays a reference. Call with no other write in progress on the case.
 */
export async function copyIntoCase(ctx: IngestContext, f: PreparedFile): Promise<void> {
  if (f.copied !== false || !f.present) return
  const {db} = ctx
  const row = f.present
  const {createReadStream} = await import('node:fs')
  const hash = createHash('sha256')
  let bytes = 0
  await inImmediateTransaction(db, async () => {
    deleteEvidenceBlocks(db, row.id)
    const writer = new EvidenceWriter(db, row.id, ctx.evidenceCodec)
    if (row.size > 0) {
      try {
        for await (const chunk of createReadStream(f.path, {start: 0, end: row.size - 1, highWaterMark: 1 << 20}) as AsyncIterable<Buffer>) {
          hash.update(chunk)
          bytes += chunk.length
          writer.push(chunk)
          await writer.backpressure()
          writer.writeReady()
        }
      } catch (error) {
        throw unreadable(f.path, error)
      }
    }
    await writer.finish()
    writer.writeReady()
    if (bytes !== row.size || hash.digest('hex') !== row.sha256) {
      throw new InputError(`${f.path}: changed while it was being copied into the case (its SHA-256 is no longer ${row.sha256}, recorded at ingest); nothing was copied, the case still reads it by reference: run the ingest again`, 'E_CHANGED')
    }
    markEvidenceCopied(db, row.id)
  })
  f.present = {...row, evidence: 'copy', lines_held: 'all'}
  f.copied = true
}

/**
 * The path a file kept by reference is recorded under. One that names a file descriptor of this
 * process is resolved to the file it is open on, where that is a regular file with a path of its
 * own (stdin redirected from a file); else (a pipe, a deleted file) it is refused: the case would
 * record a path that means nothing once this process is gone.
 */
export function stablePath(path: string): string {
  if (!namesDescriptor(path)) return path
  const real = descriptorFile(path)
  if (real === null) {
    throw new InputError(`${path}: names a file descriptor of this process, not a file with a path of its own, so it cannot be kept by reference (the case would read a path that is gone once this command ends): ingest the file by its own path, or with --evidence copy`, 'E_NOT_STABLE')
  }
  return real
}

/**
 * The path a copied file is recorded under: a file descriptor of this process (`/dev/stdin <
 * a.jsonl`) as the regular file it is open on, so that verify re-hashes that original; where it
 * is open on none (a pipe), the path as given, which verify knows for one it cannot read again
 * (the case's copy is the evidence). Recorded as given, verify re-hashed whatever the next
 * process had on its stdin and reported the evidence altered.
 */
export function copiedPath(path: string): string {
  return descriptorFile(path) ?? path
}

/**
 * How a file is kept: as asked, except that a gzip file is always copied: a record inside a
 * compressed stream can only be read by decompressing everything before it, so every scan,
 * draft and show would decompress the file up to each record.
 */
export function keptAs(ctx: Pick<IngestContext, 'evidence'>, gzip: boolean): LogEvidence {
  return ctx.evidence === 'reference' && !gzip ? 'reference' : 'copy'
}

/** The note of a gzip file copied where --evidence reference was asked. */
export const GZIP_COPIED = 'copied into the case although --evidence reference was given: a gzip file cannot be read at a record\'s offset without decompressing all before it (decompress it, gunzip -k, to keep it by reference)'

async function hashOrThrow(path: string, size: number): Promise<string> {
  try {
    return (await sha256File(path, {limit: size})).sha256
  } catch (error) {
    throw unreadable(path, error)
  }
}

function unreadable(path: string, error: unknown): InputError {
  return new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
}

/** What the stream pass read. */
export interface Streamed {
  counts: FileSummaryCounts
  /** Of the records written, how many do not say each field the at-risk test depends on. */
  missing: MissingFieldCounts
  sha256: string
  contentSha256: string
  contentSize: number
  /** null: the whole file was read; else what could not be */
  unread: string | null
  /** the first bad line, for the message when nothing could be read */
  firstBad: {line: number; reason: string} | null
  /** A longer version of a stored file (PreparedFile.continues): where its own first line begins; null where it has none. */
  ownFrom?: {line: number; offset: number} | null
  /** SHA-256 of the file's first HEAD_BYTES bytes as stored (files.head_sha256) */
  headSha256: string
  /** Bytes of the file itself read (compressed ones for gzip): under PreparedFile.size where it was cut shorter meanwhile. */
  fileBytes?: number
}

/**
 * Step two: the pipeline. The reader cuts the (decompressed) stream into units of whole
 * lines, the pool parses them on worker threads (on this thread with `index`: formats whose
 * lines join other lines), and the results are written in submission order, a few units per
 * transaction, while every byte also goes to the evidence store.
 */
export async function streamFile(ctx: IngestContext, f: PreparedFile, index: CompanionIndex | null, overlap?: Overlap): Promise<Streamed> {
  return withoutForeignKeyChecksAsync(ctx.db, () => streamInto(ctx, f, index, overlap ?? null))
}

/**
 * A file read while the one before it is still being written (ingest-logs.ts). Its units are
 * parsed as soon as they are read, which keeps the workers busy through the other file's last
 * units and its completion, but none of its results is taken from the pool, and nothing of it
 * is written, before `after` (the other file's end, its completion included) resolves.
 */
export interface Overlap {
  after: Promise<unknown> | null
  /** Called once this file's last unit is submitted: the next file may start reading. */
  onReadEnd(): void
}

/** The other file failed: this one stops where it waits for it (the other's error is the one reported). */
export class PreviousFileFailed extends Error {}

/** Units of the next file read and parsed before the file before it is written: enough to keep the workers busy meanwhile. */
const AHEAD_UNITS = 3

async function streamInto(ctx: IngestContext, t: PreparedFile, index: CompanionIndex | null, overlap: Overlap | null): Promise<Streamed> {
  const {db, pool} = ctx
  const writer = new UnitWriter(db, t.fileId, ctx.source, ctx.seen)
  // By reference nothing of the bytes is stored: each record's offset, length and CRC-32 (the
  // unit writer stores them either way) and the file's SHA-256 are what reads are checked against.
  const evidence = keptAs(ctx, t.gzip) === 'copy' ? new EvidenceWriter(db, t.fileId, ctx.evidenceCodec) : null
  const fileHash = createHash('sha256')
  // The first HEAD_BYTES bytes as stored (files.head_sha256): how a longer version of this file is found.
  const headHash = createHash('sha256')
  let headLeft = HEAD_BYTES
  // For a plain file the content is the file; only gzip needs a hash of its own.
  const contentHash = t.gzip ? createHash('sha256') : undefined
  let contentSize = 0
  let fileBytes = 0
  let unread: string | null = null
  let firstBad: Streamed['firstBad'] = null
  const noteFirstBad = (r: UnitResult | PackedUnitResult): void => {
    if (firstBad) return
    for (const item of isPacked(r) ? r.bad : r.items) if (item.k === 'b') return void (firstBad = {line: item.lineNo, reason: item.reason})
  }

  // One transaction per several units: every page a transaction touches is written to the WAL once per transaction.
  const commit = transactional(db, (results: Array<UnitResult | PackedUnitResult>, extra: (() => void) | null) => {
    for (const r of results) writer.write(isPacked(r) ? unpackUnitResult(r) : r)
    if (extra) extra()
    evidence?.writeReady()
    writer.saveCounts()
  })

  const inFlight = pool.threaded && index === null ? 2 * pool.size + 1 : 1
  // Unit buffers go round: reader -> worker -> back here -> reader (see readUnits).
  // Its own buffers: the next file's reader takes buffers while this file's units are still out.
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
  let ready: Array<UnitResult | PackedUnitResult> = []
  let readyBytes = 0
  const flush = (extra: (() => void) | null = null): void => {
    commit(ready, extra)
    ready = []
    readyBytes = 0
    report()
  }
  // This file's units submitted and not yet taken (the pool may also hold the file before's).
  let own = 0
  let after = overlap?.after ?? null
  const drainOne = async (): Promise<void> => {
    if (after !== null) {
      await after.catch(() => {
        throw new PreviousFileFailed(t.path)
      })
      after = null
    }
    own--
    const r = await pool.nextUnit()
    unitBuffers.release(r.input?.buffer)
    r.input = undefined
    noteFirstBad(r)
    ready.push(r)
    readyBytes += r.bytes
    if (readyBytes >= COMMIT_BYTES) flush()
  }
  const task = {spec: t.how.spec, file: String(t.fileId), maxLineBytes: ctx.maxLineBytes}
  const readFrom = t.continues?.readFrom ?? 0
  let ownFrom: Streamed['ownFrom'] = null
  let reading = true
  try {
    for await (const event of readUnits(t.path, {
      gzip: t.gzip,
      size: t.size,
      unitBytes: UNIT_BYTES,
      buffers: unitBuffers,
      maxLineBytes: ctx.maxLineBytes,
      onFileChunk: (chunk) => {
        fileHash.update(chunk)
        if (headLeft > 0) {
          headHash.update(chunk.subarray(0, headLeft))
          headLeft -= Math.min(headLeft, chunk.length)
        }
        fileBytes += chunk.length
        fileBytesRead += chunk.length
      },
      onChunk: (chunk) => {
        evidence?.push(chunk)
        contentHash?.update(chunk)
        contentSize += chunk.length
      },
    })) {
      if (ctx.signal?.aborted) throw new IngestInterrupted(t.path)
      if (event.kind === 'skipping') {
        // A line past --max-line-bytes streams by: its evidence is stored as it comes, never held.
        bytesDone = event.offset
        if (evidence && evidence.heldBytes >= COMMIT_BYTES) {
          while (own > 0) await drainOne()
          flush()
        }
        await evidence?.backpressure()
        continue
      }
      // A longer version of a stored file: the lines before the stored version's last whole line are its.
      if (readFrom > 0 && event.kind === 'oversize' && event.offset + event.length < readFrom) continue
      if (event.kind === 'oversize' || event.kind === 'cut') {
        // In order: everything before it is written first.
        while (own > 0) await drainOne()
        if (event.kind === 'oversize') {
          firstBad ??= {line: event.lineNo, reason: `line is ${event.length} bytes, over --max-line-bytes ${ctx.maxLineBytes}`}
          flush(() => writer.writeOversize({...event, max: ctx.maxLineBytes}))
        } else {
          const reason = `line cut short where the gzip stream is damaged (its end could not be decompressed)`
          firstBad ??= {line: event.lineNo, reason}
          flush(() => writer.writeCut({...event, reason}))
        }
        continue
      }
      bytesDone = event.offset + event.bytes.length
      const unit = readFrom > event.offset ? ownLines(event, readFrom, t.continues?.lastLineRead ?? null) : event
      if (unit === null) {
        unitBuffers.release(event.bytes.buffer)
        report()
        continue
      }
      ownFrom ??= {line: unit.firstLineNo, offset: unit.offset}
      pool.submit({seq: seq++, bytes: unit.bytes, offset: unit.offset, firstLineNo: unit.firstLineNo, ...task}, true, index)
      own++
      while (own >= (after === null ? inFlight : AHEAD_UNITS)) await drainOne()
      await evidence?.backpressure()
    }
    reading = false
  } catch (error) {
    if (error instanceof DamagedStreamError) unread = error.message
    else throw describeFailure(ctx, t, writer, error, reading, bytesDone)
  }
  overlap?.onReadEnd()
  try {
    while (own > 0) await drainOne()
    await evidence?.finish()
    flush()
  } catch (error) {
    throw describeFailure(ctx, t, writer, error, false, bytesDone)
  }
  const sha256 = fileHash.digest('hex')
  return {counts: writer.counts, missing: writer.missing, sha256, contentSha256: contentHash ? contentHash.digest('hex') : sha256, contentSize, unread, firstBad, ownFrom, headSha256: headHash.digest('hex'), fileBytes}
}

/**
 * The lines of a unit that a longer version of a stored file reads itself: those that do not end,
 * newline included, within the stored version's first `readFrom` bytes (its whole lines, stored
 * and counted there). A last line the stored version held cut short (a log still being written)
 * is read again whole, at its line number and offset (a quarantined line settled, SETTLED_BAD_LINE),
 * unless it was read there as a record or a duplicate (`lastLineRead`: the offset of the stored
 * version's last line so read: a whole line whose newline, or the `\n` of its CRLF, was not written yet) and all the longer version adds to it is its line end (white
 * space): then it is that version's record, and reading it again would count it as a duplicate of itself.
 * Null: every line of the unit is the stored version's. Units hold whole lines, so the line that
 * holds byte readFrom - 1 starts in this unit.
 */
export function ownLines(unit: {bytes: Buffer; offset: number; firstLineNo: number}, readFrom: number, lastLineRead: number | null = null): {bytes: Buffer; offset: number; firstLineNo: number} | null {
  const within = Math.min(unit.bytes.length, readFrom - unit.offset)
  if (within <= 0) return unit
  let cut = unit.bytes.subarray(0, within).lastIndexOf(10) + 1
  if (lastLineRead === unit.offset + cut && cut < within && within === readFrom - unit.offset) {
    const end = unit.bytes.indexOf(10, within)
    const rest = unit.bytes.subarray(within, end === -1 ? unit.bytes.length : end)
    if (rest.every((b) => b === 13 || b === 32 || b === 9)) cut = end === -1 ? unit.bytes.length : end + 1
  }
  if (cut === 0) return unit
  if (cut >= unit.bytes.length) return null
  let skipped = 0
  for (let i = unit.bytes.indexOf(10); i !== -1 && i < cut; i = unit.bytes.indexOf(10, i + 1)) skipped++
  return {bytes: unit.bytes.subarray(cut), offset: unit.offset + cut, firstLineNo: unit.firstLineNo + skipped}
}

/**
 * One line for a failure mid-file. A full disk is the case's problem, not the log's: it names
 * the case and says the file will be redone. Reading errors name the line reached (`bytesDone`:
 * the bytes of the file read before it, said where no line was stored yet).
 */
function describeFailure(ctx: IngestContext, t: PreparedFile, writer: UnitWriter, error: unknown, reading: boolean, bytesDone: number): Error {
  if (error instanceof IngestInterrupted || error instanceof CliError || error instanceof PreviousFileFailed) return error as Error
  const e = error as NodeJS.ErrnoException
  const code = typeof e.code === 'string' ? e.code : ''
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || /disk is full|ENOSPC|no space left/i.test(e.message ?? '')) {
    return new InputError(
      `${ctx.db.name}: no space left to write the case (${code || 'disk full'}) while storing ${t.path}; free space, then run the same ingest again (${t.path} stays unfinished and is redone; files completed before it are kept)`,
      'E_DISK_FULL',
    )
  }
  if (code.startsWith('SQLITE_')) {
    return new InputError(`${ctx.db.name}: writing the case failed (${code}: ${e.message}) while storing ${t.path} ${failedWhere(writer.counts.lines, bytesDone)}`, 'E_CASE_WRITE')
  }
  if (reading) return new InputError(`${t.path}: read failed ${failedWhere(writer.counts.lines, bytesDone)} (${code || e.message})`, 'E_UNREADABLE')
  return error as Error
}

/** Where in a file a failure came: after the last line stored; before the first line, or after the bytes read, where none was ("after line 0" named a line there is none of). */
function failedWhere(lines: number, bytesDone: number): string {
  if (lines > 0) return `after line ${lines}`
  return bytesDone > 0 ? `after byte ${bytesDone}, before any line was stored` : 'before the first line'
}

const DAMAGED_FIX = 'the compressed file is damaged: copy it again from where it was collected (gzip -t FILE tests a copy)'

/** Why a file that was read cannot count as ingested, and the likely fix; null when it can. */
export function refusal(f: PreparedFile, s: Streamed): {reason: string; fix: string} | null {
  const shrunk = shrankWhileRead(f, s)
  if (shrunk) return shrunk
  const nothingRead = s.counts.records + s.counts.duplicates === 0 && s.counts.bad_lines > 0
  const refused = refusalOf(f.how.format, s.counts, s.firstBad, s.unread, (nothingRead && !f.gzip && wrappedJsonOf(f.path)) || false)
  // Its one line a JSON object cut off at its end (a log still being written, a copy taken part-way): no --log-format or --map reads the rest.
  if (refused && nothingRead && s.counts.bad_lines === 1 && !f.gzip && f.how.format === 'native' && s.firstBad !== null && lineCutShort(f.path, s.firstBad)) {
    return {reason: `its one line (line ${s.firstBad.line}) is a JSON object cut off before its end, as the last line of a log still being written is`, fix: 'ingest the file again once it is written whole (or a complete copy of it); its format is not in question'}
  }
  // Text in another encoding, or another compression than gzip: no --log-format or --map reads it.
  const encoding = refused && nothingRead && !f.gzip ? encodingOf(f.path) : null
  return refused && encoding ? {reason: `${refused.reason} (${encoding.what})`, fix: encoding.fix} : refused
}

/**
 * A file cut shorter while it was read (logrotate's copytruncate empties the file it copied,
 * and the writer goes on appending): the SHA-256 covers the bytes read, not the size seen when
 * the read began, and what the writer appends later could never be told from what was read.
 * Refused as a file that changed while it was read: nothing of it is kept, so no gate passes on it.
 */
function shrankWhileRead(f: PreparedFile, s: Streamed): {reason: string; fix: string} | null {
  if (s.fileBytes === undefined || s.fileBytes >= f.size) return null
  return {
    reason: `changed while it was being read: it was ${f.size} bytes when the read began and only ${s.fileBytes} could be read (truncated meanwhile, as logrotate's copytruncate does); nothing of it is kept`,
    fix: 'ingest it again once nothing truncates it (for a log rotated with copytruncate, ingest the rotated copy too)',
  }
}

/** Files this size or under are read again to tell a line cut off from a malformed one; larger ones keep the format's refusal. */
const CUT_SHORT_MAX_BYTES = 16 << 20

/**
 * Whether the bad line is an object whose JSON ends before it is closed: it opens with `{` and
 * JSON.parse stops at its very end (the whole line was valid so far), not somewhere inside it.
 */
function lineCutShort(path: string, bad: {line: number}): boolean {
  try {
    if (statSync(path).size > CUT_SHORT_MAX_BYTES) return false
    const fd = openSync(path, 'r')
    let text: string
    try {
      const buf = Buffer.alloc(fstatSync(fd).size)
      text = buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8')
    } finally {
      closeSync(fd)
    }
    const line = (text.split('\n')[bad.line - 1] ?? '').replace(/^\uFEFF/, '').trim()
    if (!line.startsWith('{')) return false
    try {
      JSON.parse(line)
      return false
    } catch (error) {
      const m = /^Unexpected end of JSON input|at position (\d+)/.exec((error as Error).message)
      return m !== null && (m[1] === undefined || Number(m[1]) === line.length)
    }
  } catch {
    return false
  }
}

/** What a file that read as no UTF-8 line opens with, when it says what it is: UTF-16/32 text, or a compression crosstalk does not read. */
function encodingOf(path: string): {what: string; fix: string} | null {
  let fd: number | null = null
  try {
    fd = openSync(path, constants.O_RDONLY)
    const b = Buffer.alloc(8)
    const n = readSync(fd, b, 0, b.length, 0)
    const head = b.subarray(0, n)
    const starts = (...bytes: number[]): boolean => bytes.every((x, i) => head[i] === x)
    const convert = (enc: string) => ({what: `the file is ${enc} text`, fix: `convert it to UTF-8 first (iconv -f ${enc} -t UTF-8 FILE > FILE.utf8.jsonl) and ingest that`})
    const unpack = (kind: string, tool: string) => ({what: `the file is ${kind}-compressed`, fix: `decompress it first (${tool} FILE) and ingest the result; crosstalk reads plain and gzip (.gz) files`})
    if (starts(0xff, 0xfe, 0, 0) || starts(0, 0, 0xfe, 0xff)) return convert('UTF-32')
    if (starts(0xff, 0xfe) || starts(0xfe, 0xff)) return convert('UTF-16')
    if (starts(0x42, 0x5a, 0x68)) return unpack('bzip2', 'bunzip2 -k')
    if (starts(0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00)) return unpack('xz', 'unxz -k')
    if (starts(0x28, 0xb5, 0x2f, 0xfd)) return unpack('zstd', 'unzstd')
    if (starts(0x50, 0x4b, 0x03, 0x04)) return unpack('zip', 'unzip')
    return null
  } catch {
    return null
  } finally {
    if (fd !== null) closeSync(fd)
  }
}

/**
 * Whether a file opens as JSON that is not JSON Lines: an array (`[`), pretty-printed JSON (a
 * first line of only `{`), or API pages (`{... "data": [`). Read only to word a refusal: no --log-format or --map reads such a file.
 */
function wrappedJsonOf(path: string): WrappedJson | null {
  let fd: number | null = null
  try {
    fd = openSync(path, constants.O_RDONLY)
    const head = Buffer.alloc(4096)
    const n = readSync(fd, head, 0, head.length, 0)
    const text = head.subarray(0, n).toString('utf8').replace(/^\uFEFF/, '').trimStart()
    if (text.startsWith('[')) return 'array'
    if (/^\{[ \t]*\r?\n/.test(text)) return 'object'
    // A saved API page ({"object": "list", "data": [...], "has_more": ...}) a line: a few keys, data a list.
    const eol = text.indexOf('\n')
    if (eol < 0) return null
    const first = JSON.parse(text.slice(0, eol)) as unknown
    return typeof first === 'object' && first !== null && !Array.isArray(first) && Array.isArray((first as {data?: unknown}).data) && Object.keys(first).length <= 6 ? 'page' : null
  } catch {
    return null
  } finally {
    if (fd !== null) closeSync(fd)
  }
}

/** The fix for spans whose content is in attributes this release does not read: no logs file holds it. */
const UNREAD_ATTRIBUTES_FIX = 'the content is on the spans, in attributes this release does not read (named in the cause): where one holds the answer text, --map response=attributes["KEY"] reads it; else export the calls with the GenAI conventions\' content (gen_ai.input.messages / gen_ai.output.messages, or their log records) and ingest that, or, once their texts are judged by other means, crosstalk ingest dismiss PATH --reason "..."'

/** The fix for a file whose one line is longer than --max-line-bytes. */
const OVERSIZE_FIX = 'check that the file is the log meant (one line this long is rarely a gateway\'s record: a dump, a blob, a file of another kind?); if it is, ingest it with --max-line-bytes raised past its line\'s length'

/**
 * The fix for a file whose line gives a key twice: no JSON writer repeats a key, so the line was
 * written by hand or altered, and no --log-format or --map reads it (which value is the record's
 * cannot be told).
 */
const DUPLICATE_KEY_FIX = 'no --log-format or --map reads a line that gives a key twice (no JSON writer repeats one: the line was written by hand or altered): look at the line, and ingest the log as its writer wrote it; or, once its texts are judged by other means, crosstalk ingest dismiss PATH --reason "..."'

/**
 * The fix for a file whose line is not UTF-8 text: no --log-format or --map reads bytes that are
 * no UTF-8. A multi-byte character cut short (a logger that cuts its output into byte chunks) is
 * dropped in a copy (iconv -c omits what it cannot convert); a file written in another encoding
 * is converted. The original stays the evidence; the copy is what is read.
 */
const NOT_UTF8_FIX = 'no --log-format or --map reads bytes that are not UTF-8: where a character was cut short (a logger that cuts its output into byte chunks), ingest a copy with the invalid bytes dropped (iconv -f UTF-8 -t UTF-8 -c FILE > FILE.utf8.jsonl) and keep the original as the evidence; where the file is in another encoding, convert it (iconv -f WINDOWS-1252 -t UTF-8 FILE > FILE.utf8.jsonl, naming its encoding); or, once its texts are judged by other means, crosstalk ingest dismiss PATH --reason "..."'

/**
 * The fix for a file whose every time is in a shape no reader takes: the shapes read, and the
 * ways to reach one. Not --log-format: the field was found, and every format reads a time alike.
 */
const TS_SHAPE_FIX = 'its times are in a form crosstalk does not read: it reads ISO 8601 / RFC 3339 with Z or an offset (2026-10-25T01:30:00Z, 2026-10-25T02:30:00+01:00, optionally followed by an RFC 9557 [zone]), "2026-10-25 01:30:00 UTC", zone-less date-times with --assume-tz ZONE, and epoch numbers (--map ts=epoch_s:PATH for another unit than milliseconds); if another field holds the time in one of these, --map ts=PATH; otherwise convert the times in a copy and keep the original as the evidence'

/** What refusal() needs of a file's counts (after duplicates are decided). */
export type RefusalCounts = Pick<FileSummaryCounts, 'records' | 'duplicates' | 'bad_lines' | 'ignored_items' | 'error_records' | 'no_response' | 'no_response_text' | 'notes'> & Partial<Pick<FileSummaryCounts, 'unread_items'>>

/** refusal() from what a read of the file counted (the quick verdict's pass counts the same, and a Spark job's findings). */
export function refusalOf(format: LogFormat, c: RefusalCounts, firstBad: Streamed['firstBad'], unread: string | null = null, wrappedJson: boolean | WrappedJson = false): {reason: string; fix: string} | null {
  // A compressed stream damaged before its first line: nothing in it was read, so nothing in it was judged.
  if (unread !== null && c.records + c.duplicates + c.bad_lines === 0) return {reason: `nothing in it could be read (${unread})`, fix: DAMAGED_FIX}
  const formatFix = format === 'native' ? `--log-format (otel, langfuse, litellm, openai-batch) or --map FIELD=PATH` : `--log-format, or --map FIELD=PATH`
  // No model call read, but items that carry model texts in a convention not read: the file is
  // not a companion of calls read elsewhere (those items are not counted), and its texts would be judged nowhere.
  const items = unreadItemsPhrase(c.unread_items ?? {})
  if (c.records + c.duplicates === 0 && items !== null) {
    return {reason: `no model call in it could be read as ${format}, but ${items}`, fix: unreadItemsFix(format)}
  }
  // A companion file: its items were read into other files' records (a Batch input file, an OTLP
  // logs file whose log records joined their spans), so a few bad items among them are quarantined
  // like any file's, not taken for a wrong format.
  const companionFile = (format === 'openai-batch' || format === 'otel') && c.ignored_items > 0
  if (c.records + c.duplicates === 0 && c.bad_lines > 0 && !companionFile) {
    const first = firstBad ? `; line ${firstBad.line}: ${withoutLineExcerpt(firstBad.reason)}` : ''
    // A damaged compressed stream is not a format question: another --log-format reads nothing more of it.
    const damaged = c.bad_lines === 1 && firstBad !== null && /^line cut short where the gzip stream is damaged/.test(firstBad.reason)
    // An OpenAI Batch answer without its own input line is not a format question either.
    const noInput = format === 'openai-batch' && firstBad !== null && /input files? given/.test(firstBad.reason)
    // JSON that is not JSON Lines (an array, pretty-printed): no --log-format or --map reads it.
    const wrapped = wrappedJson || (firstBad !== null && firstBad.reason === 'not a JSON object (got an array)')
    // The format read the lines but one field was nowhere it looks: say where it is (the reason names the option).
    const field = format !== 'native' && firstBad !== null ? /^missing (ts|request_id|tenant_id|session_id)\b/.exec(firstBad.reason)?.[1] : undefined
    const fieldFix = field === undefined ? null
      : `say where ${field} is${format === 'otel' && field === 'tenant_id' ? ': --tenant-attribute KEY, or' : ':'} --map ${field}=PATH (or --log-format, if the file is not ${format})`
    // An epoch in another unit than --map named (src/extract/field-path.ts says which): that --map is the fix, not another format.
    const unitFix = firstBad !== null ? /: it reads as (?:seconds|milliseconds|microseconds|nanoseconds)\b.*: (--map ts=epoch_(?:s|ms|us|ns):.+)$/.exec(firstBad.reason)?.[1] : undefined
    // Its every line past --max-line-bytes: no format reads such a line, so no --log-format or --map is the fix.
    const oversize = firstBad !== null && /^line is \d+ bytes, over --max-line-bytes \d+$/.test(firstBad.reason) && c.bad_lines === 1
    // Its one line gives a key twice: no format reads it, so no --log-format or --map is the fix.
    const twice = firstBad !== null && /^duplicate key /.test(firstBad.reason) && c.bad_lines === 1
    // Its first line is not UTF-8 text: an encoding fault, which no --log-format or --map reads past.
    const notUtf8 = firstBad !== null && /^invalid UTF-8 at byte \d+$/.test(firstBad.reason)
    if (notUtf8 && c.bad_lines === 1) return {reason: `its one line (line ${firstBad.line}) is not UTF-8 text: ${firstBad.reason} of the line, so it could not be read as ${format}`, fix: NOT_UTF8_FIX}
    // The time field was found and its value is in no shape crosstalk reads: another --log-format reads the same value the same way.
    const tsShape = firstBad !== null && /^field ts: unrecognised timestamp\b/.test(firstBad.reason)
    const fix = tsShape ? TS_SHAPE_FIX : damaged ? DAMAGED_FIX : oversize ? OVERSIZE_FIX : twice ? DUPLICATE_KEY_FIX : notUtf8 ? `${NOT_UTF8_FIX}; where the lines after it are UTF-8 and still not read, ${formatFix}` : wrapped ? jsonLinesFix(typeof wrappedJson === 'string' ? wrappedJson : firstBad?.reason === 'not a JSON object (got an array)' ? 'array' : null) : unitFix !== undefined ? `${unitFix} (the unit the file's times are in)` : noInput ? "ingest each batch's output file with its own input file (both paths, or their folder; one ingest per batch)" : fieldFix ?? formatFix
    const json = wrapped ? `: the file is JSON, ${NOT_JSON_LINES}` : ''
    return {reason: `${c.bad_lines === 1 ? 'its one line or item' : `none of its ${c.bad_lines} lines or items`} could ${c.bad_lines === 1 ? 'not ' : ''}be read as ${format}${first}${json}`, fix}
  }
  const answers = c.records - c.error_records
  // Native lines that record no response at all are metadata logs (status, tokens, nodes: the
  // at-risk test can use them); they are kept, and a gate will not pass on them. A response that
  // is there and decodes to nothing, or a format whose content is missing, is a reading failure.
  const metadataOnly = format === 'native' && c.no_response === answers
  if (answers > 0 && c.no_response_text >= answers && !metadataOnly) {
    const why = Object.keys(c.notes).find((n) => /content|output|response/i.test(n))
    // No field and no format holds a text the logger never wrote.
    const unlogged = unloggedAnswers(c.notes)
    return {
      reason: `${answers === 1 ? 'its one response' : `every one of its ${answers} responses`} decoded to no text (read as ${format}${why ? `: ${why}` : ''}), so nothing in it can be judged`,
      fix: unlogged.answers >= answers
        ? `the answers were not logged (${unlogged.why}): ingest logs that hold them, from a logger or gateway that received the texts`
        : `${unlogged.answers > 0 ? `${unlogged.answers} of the answers were not logged (${unlogged.why}), so logs that hold them are needed; for the others, ` : ''}${
          format === 'otel' ? (why?.startsWith(CONTENT_NOT_READ) ? UNREAD_ATTRIBUTES_FIX : 'give the OTLP logs file with the traces (message content is in log records), or --map response=PATH') : `--map response=PATH (the field holding the answer text), or ${formatFix}`}`,
    }
  }
  return null
}

/**
 * Ignored items that carry model texts (AdaptResult.unread) in a phrase, e.g. "2 items that are
 * no model call crosstalk reads carry model input or output text (OpenInference: 2)"; null for none.
 */
export function unreadItemsPhrase(items: Readonly<Record<string, number>>): string | null {
  // Model calls with a text given as bytes that are no UTF-8 text are said apart (undecodedPhrase).
  const entries = Object.entries(items).filter(([k, n]) => n > 0 && k !== UNDECODED_BYTES).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  const n = entries.reduce((a, [, k]) => a + k, 0)
  if (n === 0) return null
  return `${count(n, 'item')} that ${n === 1 ? 'is' : 'are'} no model call crosstalk reads ${n === 1 ? 'carries' : 'carry'} model input or output text, not read by this release (${entries.map(([what, k]) => `${what}: ${k}`).join(', ')})`
}

function unreadItemsFix(format: LogFormat): string {
  const dismiss = 'or, once their texts are judged by other means, crosstalk ingest dismiss PATH --reason "..."'
  if (format === 'langfuse') return `export the GENERATION observations of the same traces and ingest them (a model call logged as a SPAN or EVENT is not read), ${dismiss}`
  if (format === 'otel') return `give the file holding the model-call spans of the same traces (GenAI or OpenInference LLM spans), or --log-format if the file is not otel; ${dismiss}`
  return `--log-format, ${dismiss}`
}

/**
 * What a file kept (records read) leaves unread: the stream's own (a damaged gzip), and, in OTLP,
 * and Langfuse, the items that carry model texts of traces no model call read belongs to (otel.ts
 * and langfuse.ts count only those): their texts are judged nowhere, so the file is not read whole
 * and no gate passes on it.
 */
export function fileUnread(format: LogFormat, c: Partial<Pick<FileSummaryCounts, 'unread_items' | 'notes' | 'unread_first_line'>>, streamed: string | null): string | null {
  const items = format === 'otel' || format === 'langfuse' ? unreadItemsPhrase(c.unread_items ?? {}) : null
  const undecoded = c.unread_items?.[UNDECODED_BYTES] ?? 0
  const parts = [
    streamed,
    items === null ? null : `${items}, in traces where no model call's answer text was read`,
    // otel.ts: a model call read without a text it gave as OTLP bytes that are no UTF-8 text.
    undecoded > 0 ? `${count(undecoded, 'model call')} gave a text as an OTLP bytesValue that is not UTF-8 text (binary data), not read` : null,
    unreadShapesPhrase(c.notes ?? {}, c.unread_first_line ?? null),
  ].filter((p): p is string => p !== null)
  return parts.length === 0 ? null : parts.join('; ')
}

/** What a file's counts need to be said as its notes. */
export type NoteCounts = Pick<FileSummaryCounts, 'bom' | 'lines' | 'notes' | 'records' | 'no_request_text' | 'no_response_text' | 'no_response' | 'error_records'> & Partial<Pick<FileSummaryCounts, 'unread_items' | 'missing_required' | 'duplicates_other_time'>>

/** The notes a complete file is stored with (ingest, and a Spark job's findings brought in); `unread` as fileUnread gives it. */
export function fileNotes(c: NoteCounts, unread: string | null): string[] {
  const notes: string[] = []
  if (c.bom) notes.push('UTF-8 byte-order mark at the start of the file skipped')
  // A stream damaged before its first line is not an empty file: the unread note says what happened.
  if (c.lines === 0 && !unread) notes.push('empty file: no lines')
  if (unread) notes.push(unread)
  for (const [note, n] of Object.entries(c.notes).sort((a, b) => b[1] - a[1])) notes.push(`${n} record${n === 1 ? '' : 's'}: ${note}`)
  // Quarantined items are never judged (no gate passes on them): how many lacked what, and the flag that says where it is.
  for (const [field, n] of Object.entries(c.missing_required ?? {})) {
    const flag = field === 'tenant_id' ? '--tenant-attribute KEY (OTLP) or --map tenant_id=PATH' : `--map ${field}=PATH`
    notes.push(`${n} item${n === 1 ? '' : 's'} quarantined with no ${field} found: say where it is with ${flag}, then drop and ingest the file again (each reason, naming what the item carries: crosstalk status --bad-lines)`)
  }
  const other = c.duplicates_other_time
  if (other !== undefined) {
    notes.push(`${count(other.count, 'duplicate')} (a request_id already read from this source) ${other.count === 1 ? 'gives' : 'give'} another time than the record kept (first at line ${other.line}: ${other.ts}, kept ${other.kept_ts}): the record read first is kept, so first and last seen depend on the order the files were given; times an hour or more apart are the mark of a zone read wrong in one of the logs`)
  }
  if (c.no_request_text > 0) notes.push(`${c.no_request_text} of ${count(c.records, 'record')} ${c.no_request_text === 1 ? 'has' : 'have'} no request text`)
  if (c.no_response_text > 0) {
    const absent = c.no_response > 0 ? ` (of which ${c.no_response} recorded no response at all)` : ''
    notes.push(`${c.no_response_text} of ${count(c.records - c.error_records, 'answer')} (errors aside) ${c.no_response_text === 1 ? 'has' : 'have'} no response text${absent}: they cannot be searched for markers or copied text`)
  }
  return notes
}

/** Step three, for a file that counts: mark it complete with what was read. */
export function finishFile(ctx: IngestContext, f: PreparedFile, s: Streamed): IngestFileSummary {
  const {db} = ctx
  const c = s.counts
  const unread = fileUnread(f.how.format, c, s.unread)
  const notes = fileNotes(c, unread)
  if (f.gzip && ctx.evidence === 'reference') notes.unshift(GZIP_COPIED)
  const other = otherFileWithSha256(db, s.sha256, f.fileId)
  if (other) {
    deleteFile(db, f.fileId)
    // The same bytes given twice in one ingest (a.jsonl and its copy): the second is read while
    // the first is still being written (streamFile's overlap), so neither was in the case when
    // the second began. It is the first's, as if read after it: already present.
    if (other.state === 'complete' && ctx.completed?.has(other.id)) return presentSummary({...f, fileId: other.id, present: other})
    // No complete file of this size held these bytes when the pass began: another process ingested it meanwhile.
    throw new InputError(`${f.path}: the same file was ingested into this case by another process meanwhile; run the ingest again`, 'E_CONCURRENT')
  }
  // The same records under another --source (a rotated copy, a grown copy labelled differently):
  // stored again, since a request id is unique only within its source; said loudly, with the file.
  if (c.records > 0) {
    for (const o of sameRecordsUnderOtherSources(db, f.fileId, ctx.source)) {
      notes.unshift(
        `${SAME_RECORDS_NOTE}: ${o.records} of its ${count(c.records, 'record')} repeat${o.records === 1 ? 's' : ''} line for line a record already in the case under --source ${quoted(o.source)} (same request id, tenant, session and time, and the same line, or the same content where only line ends or JSON serialisation differ); read under --source ${quoted(ctx.source)}, ${o.records === 1 ? 'it is' : 'they are'} stored again and every figure counts ${o.records === 1 ? 'it' : 'them'} twice. If the file is a copy of logs already in the case, drop it (crosstalk drop ${f.path} --reason "..."), then ingest it under --source ${quoted(o.source)} or not at all`,
      )
    }
  }
  // --json timestamps are toISOString() form; records keep every digit given.
  const firstTs = c.records > 0 ? new Date(c.first_ms).toISOString() : null
  const lastTs = c.records > 0 ? new Date(c.last_ms).toISOString() : null
  completeLogFile(db, f.fileId, {
    completedAt: ctx.now().toISOString(), sha256: s.sha256, size: s.fileBytes ?? f.size, contentSha256: s.contentSha256, contentSize: s.contentSize,
    firstTs, lastTs, notes, extractScheme: EXTRACT_SCHEME, unconventionalSha256: ctx.unconventionalSha256,
    noRequestText: c.no_request_text, noResponseText: c.no_response_text, errorRecords: c.error_records, ignoredItems: c.ignored_items, unread,
    missing: s.missing, headSha256: s.headSha256,
  })
  ctx.completed?.add(f.fileId)
  return {
    ...summaryBase(f, s.sha256, c), status: 'ingested', first_ts: firstTs, last_ts: lastTs, unread, notes: [...historyNotes(f, ctx.source), ...notes], ...history(f, s),
    ...(f.gzip ? {content_sha256: s.contentSha256, content_size: s.contentSize} : {}),
  }
}

/** The summary's continues / changed_from (absent where there is nothing to say). */
function history(f: PreparedFile, s: Streamed): Pick<IngestFileSummary, 'continues' | 'changed_from'> {
  const c = f.continues
  return {
    ...(c ? {continues: {path: c.file.path, sha256: c.file.sha256, size: c.file.size, read_from: s.ownFrom?.offset ?? c.readFrom, from_line: s.ownFrom?.line ?? null}} : {}),
    ...(f.changed ? {changed_from: {path: f.changed.path, sha256: f.changed.sha256, size: f.changed.size}} : {}),
  }
}

/** What the summary warns of the file's history in the case: a stored file it begins with and could not continue, the file at its path it no longer begins with. */
function historyNotes(f: PreparedFile, source: string): string[] {
  // A file that grew is said by its `continues` (and the per-file line): no warning, it is what was asked.
  const notes: string[] = []
  // The version it grew from is read where it was ingested: renamed to this file (logrotate), its lines are read from nowhere.
  const from = f.continues?.file
  if (from && from.lines_held === 'none' && from.abs_path !== f.absPath) {
    notes.push(`grew from ${from.path}, kept by reference and read from ${from.abs_path}, not from here: its ${count(from.records, 'record')} ${from.records === 1 ? 'is' : 'are'} read there, so if that file was renamed to this one (as logrotate does), point the case here (crosstalk relocate ${from.abs_path} ${f.absPath}, which checks its SHA-256), or its records cannot be read`)
  }
  if (f.notContinued) {
    // A request id is unique within its source: under another source the repeated lines are records again, not duplicates.
    const repeated = f.notContinued.file.source !== source
      ? `its lines are stored again under --source ${quoted(source)}, not counted as duplicates (a request id is a duplicate only within its source)`
      : 'the repeated ones count as duplicates'
    notes.push(`begins with the bytes of ${f.notContinued.file.path} already in the case, but is read whole, as a file of its own, because ${f.notContinued.why}: the lines of both count, ${repeated}`)
  }
  const x = f.changed
  if (x) {
    notes.push(`CHANGED since it was ingested: the ${x.size} bytes stored from this path (sha256 ${x.sha256.slice(0, 12)}…) are no longer how it begins (rewritten, truncated or rotated?); read as a file of its own, never merged with them: a request id in both counts as a duplicate, and the stored file stays as it was read`)
  }
  return notes
}

/** A file refused after reading: its rows go, the summary says why. */
export function refuseFile(ctx: IngestContext, f: PreparedFile, s: Streamed, why: {reason: string; fix: string}): IngestFileSummary {
  deleteFile(ctx.db, f.fileId)
  return {...summaryBase(f, s.sha256, s.counts), status: 'refused', first_ts: null, last_ts: null, unread: s.unread, notes: historyNotes(f, ctx.source), refused: why, ...history(f, s)}
}

/**
 * The summary of a file whose bytes were already in the case. Read then under other options
 * than now, it says so and how to read it again: the case holds one reading of each file.
 */
export function presentSummary(f: PreparedFile): IngestFileSummary {
  const p = f.present!
  const notes: string[] = []
  // Not read whole when it was ingested: still so, said again (a second ingest reads nothing more of it).
  if (p.unread) notes.push(`already in the case, and NOT READ WHOLE when it was ingested: ${p.unread}; what could not be read is judged by nothing`)
  if (f.copied) notes.push(REFERENCE_COPIED)
  // The same bytes at another place: the case goes on reading the original where it was ingested.
  else if (p.lines_held === 'none' && p.abs_path !== f.absPath) {
    notes.push(`already in the case, kept by reference and read from ${p.abs_path}, not from here; if that file is moved or deleted, point the case at the new place with crosstalk relocate FROM-DIR TO-DIR, or, renamed where it lay, crosstalk relocate OLD-FILE NEW-FILE (or ingest with --evidence copy to keep the bytes in the case)`)
  }
  if (encodeParseSpec(decodeParseSpec(p.parse_spec)) !== f.how.spec) {
    const then = describeParseSpec(decodeParseSpec(p.parse_spec))
    const now = describeParseSpec(decodeParseSpec(f.how.spec))
    notes.push(`already in the case, read as ${then}, not as ${now}: to read it again that way, run crosstalk drop ${f.path} --reason "...", then this ingest again`)
  }
  return {
    path: f.path, sha256: p.sha256, status: 'already_present', log_format: p.log_format as LogFormat, format_reason: p.format_reason ?? 'given',
    records: 0, duplicates: p.records + p.duplicates, bad_lines: 0, blank_lines: 0, no_request_text: 0, no_response_text: 0, ignored_items: 0,
    first_ts: null, last_ts: null, unread: p.unread, notes,
  }
}

function summaryBase(f: PreparedFile, sha256: string, c: FileSummaryCounts): Omit<IngestFileSummary, 'status' | 'first_ts' | 'last_ts' | 'unread' | 'notes'> {
  return {
    path: f.path, sha256, log_format: f.how.format, format_reason: f.how.reason, records: c.records, duplicates: c.duplicates, bad_lines: c.bad_lines,
    blank_lines: c.blank_lines, no_request_text: c.no_request_text, no_response_text: c.no_response_text, ignored_items: c.ignored_items,
    ...(c.duplicates_other_time ? {duplicates_other_time: c.duplicates_other_time.count} : {}),
  }
}
