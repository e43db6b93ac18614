import {statSync} from 'node:fs'
import {datedAfterIngest, FUTURE_TOLERANCE_MS} from '../store/findings.js'
import {basename} from 'node:path'
import {CliError, InputError} from '../errors.js'
import type {EvidenceCodec} from '../evidence/evidence-store.js'
import {UnconventionalSet} from '../extract/extract.js'
import {DEFAULT_TENANT_ATTRIBUTES, JSON_LINES_FIX, NOT_JSON_LINES} from '../extract/formats/common.js'
import type {CompanionIndex, LogFormat, SniffDecision} from '../extract/formats/index.js'
import {lineDecoder, type LineDecoder} from '../extract/line-decoder.js'
import {encodeParseSpec, type ParseSpec} from '../extract/parse-spec.js'
import {unconventionalMarkers} from '../store/canaries.js'
import type {LogEvidence} from '../store/files.js'
import {countLogFiles} from '../store/files.js'
import {FIRST_LOAD_INDEXES, RANDOM_ORDER_INDEXES, restoreSuspendedIndexes, suspendIndexes} from '../store/indexes.js'
import type {CaseDb} from '../store/open-case.js'
import {countAllRecords} from '../store/records.js'
import {corpusFacts} from '../store/scale.js'
import {checkpoint, enterBulkLoad, inTransaction} from '../store/session.js'
import {startCheckpointer, type Checkpointer} from '../store/checkpointer.js'
import {expandLogPaths, unreadEntriesMessage, type SkippedEntry} from './expand-paths.js'
import {buildCompanionIndex, DUPLICATE_KEY_LINES, readsWithStoredFiles, sniffFile} from './file-lines.js'
import {
  copyIntoCase, finishFile, IngestInterrupted, prepareFile, presentSummary, REFERENCE_COPIED, refusal, refuseFile, statRegularFile, streamFile,
  type FileFormat, type IngestContext, type IngestFileSummary, type IngestProgress, type PreparedFile, type Streamed,
} from './ingest-file.js'
import {isGzipHead} from '../evidence/hash-file.js'
import {claimIngest, releaseIngest} from './ingest-lock.js'
import {defaultWorkerCount, ParsePool, workersFromEnv} from './parse-pool.js'
import {quickPass, type QuickPassResult, type QuickRecord} from './quick-pass.js'
import {RequestIdSet} from './request-id-set.js'
import {boundHeapGrowth, fullGc} from '../util/gc.js'
import {safeLine} from '../util/sanitize.js'
import {releaseFreedMemory} from './native-quick.js'
import {offerPriorSharers} from './prior-sharers.js'
import {rememberUnread, type UnreadSourcesChange} from './unread-sources.js'

export type {IngestFileSummary, IngestProgress} from './ingest-file.js'

// `crosstalk ingest logs`: every file into the case, one after the other, as a bulk load. Each
// file is read in its log format: the one given, or (auto) the one its first readable lines
// show, decided per file and reported. Files of a format whose records join lines across files
// (OpenTelemetry spans and log records, Batch output and input) are read as one set: every
// line of the set is offered to the format's companion index first, and the set is marked
// complete together (an interruption leaves all of it to be redone).

export interface IngestLogsOptions {
  paths: readonly string[]
  /** One format for every file, or 'auto' (default): decided per file from its first readable lines. */
  logFormat?: LogFormat | 'auto'
  /** --map specs (text per field), format options and --assume-tz: the parse spec without the format. */
  parse?: Omit<ParseSpec, 'format'>
  /** Log source label: request_id is unique within a source (default "default"). */
  source?: string
  now: () => Date
  maxLineBytes?: number
  onProgress?: (p: IngestProgress) => void
  /** Each file's format as soon as it is decided (before anything is read into the case). */
  onFormat?: (d: FormatDecision) => void
  /** Parse worker threads (default: one per core; 0 parses inline). Small inputs always parse inline. */
  workers?: number
  /** Evidence block codec: 'raw' (default, fastest) or 'deflate' (about a third of the size, several times the CPU). */
  evidenceCodec?: EvidenceCodec
  /**
   * 'copy' (default): every byte of every file goes into the case. 'reference': none does; the
   * case keeps each file's SHA-256 and each record's offset, length and CRC-32, and reads the
   * original where it lies (checked on every read). A gzip file is copied all the same (a
   * record inside a compressed stream cannot be read at its offset), and says so in its notes.
   */
  evidence?: LogEvidence
  /** Stops the ingest between units: files completed stay, the one being read stays 'loading' (redone next time). */
  signal?: AbortSignal
  /**
   * Asks for the quick verdict's pass (quick-pass.ts) before anything is stored, where it is
   * exact: a case with no log record yet, and formats that read each line alone. onRecord is
   * called with each kept record that holds a marker as the pass reads it, and onPass at its
   * end with its result, or with null where it gave no answer (the records it was handed are
   * then to be discarded). Neither is called where the pass does not run.
   */
  quickPass?: {onRecord: (r: QuickRecord) => void; onPass: (r: QuickPassResult | null) => void}
  /**
   * A registry read but not yet in the case (triage's, so that its verdict does not wait for
   * SQLite): its markers outside the convention, matched while the logs are parsed, and the
   * store that puts it into the case, run once the quick pass is over (or where it would have
   * run) and before anything of the logs is stored. The markers must be those the store leaves
   * in the case (the store refuses a file that changed since it was read).
   */
  pendingRegistry?: {unconventional: readonly string[]; store: () => Promise<void>}
  /**
   * Parse workers the caller started before the markers were known (ParsePool(n, null), n from
   * ingestWorkers), so that they load their code while the caller reads the registry. Ingest
   * gives them the markers and uses them where it would start as many itself; it closes them in
   * every case, a failure included.
   */
  startedPool?: ParsePool
  /** The command the case's unread sources are recorded by (default 'ingest logs'). */
  recordedBy?: string
}

/** How one file is read (or why it is not). */
export interface FormatDecision {
  path: string
  /** null: no format could be decided; the file is refused */
  format: LogFormat | null
  /** true when --log-format auto decided */
  auto: boolean
  reason: string
}

/** `crosstalk ingest logs --json` (contract keys first; the rest are extensions). */
export interface IngestLogsResult {
  files: number
  records: number
  duplicates: number
  bad_lines: number
  blank_lines: number
  skipped_files: number
  /** files not counted as ingested: nothing in them could be read (nothing of them was kept) */
  refused_files: number
  /** Worker threads that parsed (0: parsed on the main thread). */
  parse_workers: number
  /** files read per format */
  formats: Partial<Record<LogFormat, number>>
  warnings: string[]
  per_file: IngestFileSummary[]
  /**
   * Entries a directory walk or a glob reached and did not read, with why. `unread`: one that may
   * hold a log (a broken link, a link loop, a FIFO, a compression crosstalk does not read): the
   * command exits 1 and a gate does not pass; otherwise a name that is not a log's (listed only).
   */
  skipped_entries: SkippedEntry[]
  /** null, or what a signal left: the files complete before it are kept, `file` stays unfinished */
  interrupted: {file: string | null; files_not_started: string[]} | null
  /**
   * The sources the case now keeps open because this ingest did not read them (skipped entries
   * that may hold a log, refused files), and the open ones it read whole and so settled.
   */
  unread_sources: UnreadSourcesChange
}

/** Inputs smaller than this parse inline: starting workers would cost more than it saves. */
const INLINE_BELOW_BYTES = 8 << 20

/** The parse workers ingest starts for inputs of these bytes (options.workers, else by size and CROSSTALK_WORKERS). */
export function ingestWorkers(inputBytes: number, workers: number | undefined): number {
  return workers ?? (workersFromEnv() === undefined && inputBytes < INLINE_BELOW_BYTES ? 0 : defaultWorkerCount())
}

export async function ingestLogs(db: CaseDb, options: IngestLogsOptions): Promise<IngestLogsResult> {
  let started = options.startedPool
  const remember = (r: IngestLogsResult): Promise<UnreadSourcesChange> => rememberUnread(db, r, {recordedBy: options.recordedBy ?? 'ingest logs', now: options.now})
  try {
    const result = await ingestInto(db, options, (workers) => {
      const pool = started
      started = undefined
      if (pool?.size === workers) return pool
      // Another count than ingest's: let them go now, not at the end of the ingest.
      pool?.close().catch(() => {})
      return undefined
    })
    result.unread_sources = await remember(result)
    return result
  } catch (error) {
    // What it reached and did not read is kept even when the run failed after.
    const partial = (error as {partial?: IngestLogsResult} | null)?.partial
    if (partial) partial.unread_sources = await remember(partial)
    throw error
  } finally {
    // Never taken (a failure before the workers were needed): not left running.
    await started?.close()
  }
}

async function ingestInto(db: CaseDb, options: IngestLogsOptions, takeStarted: (workers: number) => ParsePool | undefined): Promise<IngestLogsResult> {
  const {paths, skipped} = expandWithSkipped(options.paths)
  const result = emptyResult(skipped)
  const maxLineBytes = options.maxLineBytes ?? 256 * 1024 * 1024
  // A bad CROSSTALK_WORKERS is refused before anything is read or said.
  workersFromEnv()
  // Options are checked before anything is read: a bad --map or pattern is a usage error.
  const given = options.logFormat !== undefined && options.logFormat !== 'auto' ? options.logFormat : null
  if (given) lineDecoder({...options.parse, format: given})
  // Refused before anything changes when another ingest holds the case.
  claimIngest(db)
  let leaveBulkLoad = (): void => {}
  let checkpointer: Checkpointer | null = null
  // Each file as the quick pass found it (triage): a file replaced before its read is refused, never read as what the verdict judged.
  let passRead: Map<string, {dev: number; ino: number; size: number} | null> | null = null
  let pool: ParsePool | undefined
  let seen: RequestIdSet | undefined
  let current: string | null = null
  const done = new Set<string>()
  // The file being written while the next one is read (see the loop below).
  let writing: Promise<void> | null = null
  try {
    const files = await decideFormats(paths, given, options, maxLineBytes)
    const evidence = options.evidence ?? 'copy'
    checkEvidenceKind(db)
    const workers = ingestWorkers(files.reduce((n, f) => n + f.size, 0), options.workers)
    // Unconventional registered markers are matched while the texts are at hand; a scan
    // under a different set matches again from the evidence.
    const unconventional = new UnconventionalSet(options.pendingRegistry?.unconventional ?? unconventionalMarkers(db))
    const started = takeStarted(workers)
    if (started) {
      pool = started
      pool.useMarkers(unconventional)
    } else pool = new ParsePool(workers, unconventional)
    result.parse_workers = pool.size
    // The pass's verdict speaks for these files alone: only where the case holds no other log
    // file (one an earlier ingest left unfinished holds no record, yet the verdict must count it).
    if (options.quickPass && countAllRecords(db) === 0 && countLogFiles(db) === 0 && files.every((f) => f.how !== null && f.decoder.adapter.newIndex(f.decoder.options) === null)) {
      const before = new Map(files.map((f) => {
        const id = fileIdentity(f.path)
        return [f.path, id === null ? null : {...id, size: f.size}] as const
      }))
      passRead = before
      const quick = await quickPass(
        files.map((f) => ({path: f.path, size: f.size, gzip: f.gzip, format: f.how!.format, spec: f.how!.spec})),
        pool, {source: options.source ?? 'default', maxLineBytes, signal: options.signal, head: (path) => statRegularFile(path).head, onProgress: options.onProgress, onRecord: options.quickPass.onRecord},
      )
      // No verdict is given over a file already replaced.
      for (const f of files) checkSincePass(before, f.path)
      options.quickPass.onPass(quick)
      pool.endQuickPass()
      // The pass's last objects are unreachable only now (its result, the extractors the pool
      // held). A full collection here, after the caller's in onPass, brings the main heap down to
      // what an ingest without the pass keeps; with either collection alone V8 kept its heap about
      // 20 MB larger through the whole ingest of a 5M-record triage, and its own collections did
      // not give that room back (measured: 44-51 MB committed against 27-29, and by heap
      // snapshot the same live objects).
      fullGc()
      releaseFreedMemory()
    }
    // From here on the case grows with the logs: heaps collect at 1.3x (a no-op where the
    // command already bounded them; triage leaves it to here, after its verdict).
    boundHeapGrowth()
    // The registry goes in as its own command stores it (its own transaction, outside the bulk
    // load's settings), before the first record.
    // (The store releases what it allocated, as triage does after a registry stored first.)
    await options.pendingRegistry?.store()
    leaveBulkLoad = enterBulkLoad(db)
    checkpointer = startCheckpointer(db)
    // Request ids and PII value hashes arrive in random order: one sort at the end builds
    // their indexes much faster than inserting into them row by row, which rewrites most of
    // their pages in every transaction (request ids are checked for duplicates in memory
    // meanwhile). A case's first load builds every record index that way.
    suspendIndexes(db, countAllRecords(db) === 0 ? [...RANDOM_ORDER_INDEXES, ...FIRST_LOAD_INDEXES] : RANDOM_ORDER_INDEXES)
    seen = new RequestIdSet(db)
    const ctx: IngestContext = {
      db, pool, seen, unconventionalSha256: unconventional.hash, source: options.source ?? 'default',
      now: options.now, maxLineBytes, evidenceCodec: options.evidenceCodec ?? 'raw', evidence, fileCount: paths.length,
      onProgress: options.onProgress, signal: options.signal, inputBytesBefore: 0, inputBytesTotal: totalSize(paths), completed: new Set(),
    }
    const add = (s: IngestFileSummary): void => {
      done.add(s.path)
      // A file kept by reference under the real path of the descriptor it was given as (/dev/stdin) is done under both.
      if (current !== null) done.add(current)
      ctx.inputBytesBefore = (ctx.inputBytesBefore ?? 0) + totalSize([s.path])
      result.per_file.push(s)
      if (s.status === 'already_present') {
        result.skipped_files++
        result.duplicates += s.duplicates
        // Bytes copied into the case is what was asked, not a warning (the per-file line says it).
        for (const note of s.notes) if (note !== REFERENCE_COPIED) result.warnings.push(`${s.path}: ${note}`)
        return
      }
      if (s.status === 'refused') {
        result.refused_files++
        return
      }
      result.files++
      result.formats[s.log_format] = (result.formats[s.log_format] ?? 0) + 1
      result.records += s.records
      result.duplicates += s.duplicates
      result.bad_lines += s.bad_lines
      result.blank_lines += s.blank_lines
      for (const note of s.notes) result.warnings.push(`${s.path}: ${note}`)
    }
    // A file's last units are written while the next file is read and parsed (streamFile's
    // overlap): at each file's end the workers went idle until the next file's first units
    // came, about 40 ms a file (measured: a 200k incident's eleven plain files 0.45 s slower
    // than the same lines in one file). `writing` is the file being written: its end (written,
    // completed, its summary added), which the next file's writes wait for.
    const settle = async (): Promise<void> => {
      const w = writing
      writing = null
      await w
    }
    for (const unit of readingUnits(files)) {
      const f = unit.files[0]!
      current = null
      if (options.signal?.aborted) {
        await settle()
        throw new IngestInterrupted('')
      }
      current = f.path
      if (f.how === null) {
        await settle()
        add(undecided(f.path, f.reason))
        continue
      }
      if (!unit.joined) {
        if (passRead) checkSincePass(passRead, f.path)
        const prepared = await prepareFile(ctx, f.path, files.indexOf(f), f.how)
        if (prepared.present) {
          await settle()
          await copyIntoCase(ctx, prepared)
          add(presentSummary(prepared))
          continue
        }
        const previous = writing
        let readEnd = (): void => {}
        const readEnded = new Promise<void>((resolve) => (readEnd = resolve))
        const whole = (async (): Promise<void> => {
          try {
            const streamed = await streamFile(ctx, prepared, null, {after: previous, onReadEnd: readEnd})
            const why = refusal(prepared, streamed)
            add(why ? refuseFile(ctx, prepared, streamed, why) : finishFile(ctx, prepared, streamed))
          } catch (error) {
            // The file before ends first, as when files were read one after the other: its
            // own failure is the one reported, and a failure here leaves it complete.
            await previous
            throw error
          }
        })()
        // Observed below (or by the next file); never an unhandled rejection meanwhile.
        whole.catch(() => {})
        writing = whole
        // The next file is read once this one's last unit is submitted.
        await Promise.race([readEnded, whole])
        continue
      }
      await settle()
      // The whole set of this format (and these options), read together.
      const members = unit.files.map((m) => ({path: m.path, index: files.indexOf(m), how: m.how!, gzip: m.gzip, size: m.size}))
      for (const s of await ingestSet(ctx, f.decoder, members, maxLineBytes)) add(s)
    }
    await settle()
    current = null
  } catch (error) {
    // A file still being written ends (or fails) before the workers go: what it read is kept whole or redone.
    await (writing as Promise<void> | null)?.catch(() => {})
    if (!(error instanceof IngestInterrupted)) {
      if (error instanceof CliError) Object.assign(error, {partial: result})
      throw error
    }
    const file = error.file || current
    result.interrupted = {file, files_not_started: paths.filter((p) => !done.has(p) && p !== file)}
  } finally {
    seen?.close()
    await pool?.close()
    // Also after a failure: what was stored stays queryable by its indexes.
    try {
      try {
        restoreSuspendedIndexes(db)
      } finally {
        leaveBulkLoad()
        releaseIngest(db)
      }
    } finally {
      await checkpointer?.stop()
    }
  }
  // One sync of the whole load into the database file.
  checkpoint(db)
  // A record dated after its file was read was served at no time that had happened: kept and searched, its time out of every window (scope-data.ts timeIsFact); said once a file.
  for (const s of result.per_file) {
    if (s.status !== 'ingested') continue
    const future = datedAfterIngest(db, s.sha256)
    if (future !== null) result.warnings.push(`${s.path}: ${future.records === 1 ? '1 line carries a time' : `${future.records} lines carry times`} more than ${FUTURE_TOLERANCE_MS / 60_000} minutes after this ingest (the latest ${future.latest}): kept and searched, but ${future.records === 1 ? 'its time is' : 'their times are'} left out of every date and window the case states; check the log's clock and time zone`)
  }
  return result
}

function emptyResult(skipped: SkippedEntry[]): IngestLogsResult {
  return {
    files: 0, records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, skipped_files: 0, refused_files: 0, parse_workers: 0, formats: {},
    warnings: [...skipped.filter((s) => s.unread).map((s) => `${s.path}: not read: ${s.reason}`), ...notLogWarnings(skipped)], per_file: [], skipped_entries: skipped, interrupted: null,
    unread_sources: {recorded: [], settled: []},
  }
}

/** How many files a walk skipped as not logs are named one a line; the rest in one line (all of them are in skipped_entries). */
const NOT_LOG_WARNINGS = 20

/**
 * A walked file skipped as not a log is said, not only listed in --json: a rotated or oddly named
 * log the rules miss would otherwise be passed over in silence.
 */
function notLogWarnings(skipped: readonly SkippedEntry[]): string[] {
  const notLogs = skipped.filter((s) => !s.unread)
  const out = notLogs.slice(0, NOT_LOG_WARNINGS).map((s) => `${s.path}: skipped: ${s.reason}`)
  const more = notLogs.length - NOT_LOG_WARNINGS
  if (more > 0) out.push(`and ${more} more file${more === 1 ? '' : 's'} skipped as not logs (--json skipped_entries lists them)`)
  return out
}

/** The paths to read; where none can be, the error carries the entries reached (as an ingest that read nothing) so that they are remembered. */
function expandWithSkipped(inputs: readonly string[]): ReturnType<typeof expandLogPaths> {
  try {
    return expandLogPaths(inputs)
  } catch (error) {
    const skipped = (error as {skipped?: SkippedEntry[]}).skipped
    if (skipped && error instanceof CliError) Object.assign(error, {partial: emptyResult(skipped)})
    throw error
  }
}

/**
 * Where no path given could be read at all (expand-paths.ts's error carries the entries reached):
 * the entries are remembered in the case all the same, and carried on the error as an ingest
 * that read nothing, for the command to audit. Triage checks its paths before ingest starts.
 */
export async function rememberEntriesOfFailure(db: CaseDb, error: unknown, options: {recordedBy: string; now: () => Date}): Promise<void> {
  const skipped = (error as {skipped?: SkippedEntry[]} | null)?.skipped
  if (!skipped || !(error instanceof CliError)) return
  const partial = emptyResult(skipped)
  partial.unread_sources = await rememberUnread(db, partial, options)
  Object.assign(error, {partial})
}

/** What an ingest stored before it failed, on the error it throws (so the command can still audit it). */
export function partialIngest(error: unknown): IngestLogsResult | null {
  const partial = (error as {partial?: IngestLogsResult} | null)?.partial
  return partial && (partial.per_file.length > 0 || partial.unread_sources.recorded.length > 0) ? partial : null
}

/** Logs cannot join a case of Spark findings (their counts are the job's, over every shard). */
function checkEvidenceKind(db: CaseDb): void {
  if (corpusFacts(db)) {
    throw new InputError('this case holds Spark findings (ingest findings): logs cannot join them; ingest the logs into a new case', 'E_REFERENCE_CASE')
  }
}

/** A file with its format decided (how: null when none could be). */
export interface Decided {
  path: string
  size: number
  gzip: boolean
  how: FileFormat | null
  decoder: LineDecoder
  reason: string
}

/** Files whose first lines are being read at once while formats are decided. */
const SNIFFS_AHEAD = 4

/** Every file's format, before anything is read into the case (`crosstalk extract` decides them the same way). */
export async function decideFormats(
  paths: readonly string[], given: LogFormat | null, options: Pick<IngestLogsOptions, 'parse' | 'signal' | 'onFormat'>, maxLineBytes: number,
): Promise<Decided[]> {
  const out: Decided[] = []
  // The next files' first lines are read while this one's are looked at: each sniff is mostly
  // waiting on its file (12 files of the 200k incident: 45-50 ms one after another, measured).
  // A few at a time, so that thousands of files do not each hold a read buffer at once; a file
  // that cannot be opened still stops the run in its place in the list, after the files before it.
  const ahead: Array<{path: string; size: number; gzip: boolean; sniff: Promise<SniffDecision> | null} | {path: string; error: unknown}> = []
  let next = 0
  const fill = (): void => {
    while (next < paths.length && ahead.length < SNIFFS_AHEAD) {
      const path = paths[next++]!
      try {
        const {size, head} = statRegularFile(path)
        const gzip = isGzipHead(head)
        const sniff = given ? null : sniffFile({path, gzip, size}, maxLineBytes)
        // Awaited in turn below; one behind a failure before it is never awaited.
        sniff?.catch(() => {})
        ahead.push({path, size, gzip, sniff})
      } catch (error) {
        ahead.push({path, error})
        next = paths.length
      }
    }
  }
  for (;;) {
    if (options.signal?.aborted) throw new IngestInterrupted('')
    fill()
    const f = ahead.shift()
    if (f === undefined) break
    if ('error' in f) throw f.error
    const {path, size, gzip} = f
    let format: LogFormat | null = given
    let reason = 'given with --log-format'
    if (f.sniff !== null) {
      let d: SniffDecision
      try {
        d = await f.sniff
      } catch (error) {
        // Its first lines could not be read or judged (a read error, an exception in a format's
        // sniff): this file is refused, saying why, and the files after it are still read.
        const why = sniffFailure(error)
        options.onFormat?.({path, format: null, auto: true, reason: why})
        out.push({path, size, gzip, how: null, decoder: lineDecoder({format: 'native'}), reason: why})
        continue
      }
      const mapped = Object.keys(options.parse?.map ?? {}).length > 0
      if (d.format) reason = `auto: ${d.reason}`
      else if (/no readable JSON lines/.test(d.reason)) {
        // No readable JSON line at all (an empty file, or nothing but garbage): read as native, so
        // that an empty file is reported as such and garbage is refused with each line's reason.
        format = 'native'
        // JSON lines that give a key twice are read as JSON: the format could be decided, were they not altered.
        const twice = d.reason.endsWith(DUPLICATE_KEY_LINES)
        reason = `auto: ${twice ? `${DUPLICATE_KEY_LINES} (no JSON writer repeats a key)` : 'no readable JSON line to decide the format from'}; no format guessed: each line is checked as a native line and refused with its reason`
      } else if (mapped && d.candidates.every((c) => c.confidence < 0.8)) {
        // No known format, but the --map given says where the fields are.
        format = 'native'
        reason = 'auto: no known log format fits the first lines; read as native with the --map given'
      } else reason = d.reason
      format = d.format ?? format
    }
    let decoder: LineDecoder | null = null
    const spec: ParseSpec = {...options.parse, format: format ?? 'native'}
    // The tenant attributes an otel file is read with are kept with it, the default too (a spec
    // without them names the earlier default, line-decoder.ts).
    if (format === 'otel' && !spec.tenant_attributes?.length) spec.tenant_attributes = [...DEFAULT_TENANT_ATTRIBUTES]
    if (format) {
      try {
        decoder = lineDecoder(spec)
      } catch (error) {
        // A format auto chose needs an option that was not given (a Batch file without --custom-id-pattern).
        reason = `${reason}; but ${(error as Error).message}`
        format = null
      }
    }
    options.onFormat?.({path, format, auto: !given, reason})
    out.push({path, size, gzip, how: format ? {format, reason, spec: encodeParseSpec(spec)} : null, decoder: decoder ?? lineDecoder({format: 'native'}), reason})
  }
  return out
}

/** Why a file's first lines gave no format decision (sniffFile threw), in one line. */
function sniffFailure(error: unknown): string {
  const e = error as NodeJS.ErrnoException | null
  const code = typeof e?.code === 'string' ? e.code : ''
  const message = error instanceof Error ? error.message : String(error)
  const cause = code !== '' && !message.includes(code) ? `${code}: ${message}` : message
  return `reading its first lines to decide the format failed (${safeLine(cause)})`
}

/** Files read together: one alone, or every file of a format whose records join lines across files (with the same parse spec). */
export interface ReadingUnit<T extends Decided> {
  files: T[]
  /** read as one set, every line offered to the format's companion index first */
  joined: boolean
}

/**
 * The order ingest reads decided files in: each file at its place, except that a format whose
 * records join lines across files (OpenTelemetry spans and log records, Batch output and input)
 * is read as one set, all of it at its first member's place. Record ids, and so duplicate
 * decisions and ties in time, follow this order; `crosstalk extract --plan` gives it to Spark.
 */
export function readingUnits<T extends Decided>(files: readonly T[]): Array<ReadingUnit<T>> {
  const done = new Set<string>()
  const units: Array<ReadingUnit<T>> = []
  for (const f of files) {
    if (done.has(f.path)) continue
    const joined = f.how !== null && f.decoder.adapter.newIndex(f.decoder.options) !== null
    const members = joined ? files.filter((m) => m.how !== null && m.how.spec === f.how!.spec && !done.has(m.path)) : [f]
    for (const m of members) done.add(m.path)
    units.push({files: members, joined})
  }
  return units
}

function undecided(path: string, reason: string): IngestFileSummary {
  return {
    path, sha256: '', status: 'refused', log_format: 'native', format_reason: reason, records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0,
    no_request_text: 0, no_response_text: 0, ignored_items: 0, first_ts: null, last_ts: null, unread: null, notes: [],
    refused: {
      reason: `its log format could not be decided: ${reason}`,
      fix: reason.includes(NOT_JSON_LINES) ? JSON_LINES_FIX : '--log-format FORMAT (native, otel, langfuse, litellm, openai-batch), with --map FIELD=PATH where fields are elsewhere',
    },
  }
}

/**
 * A set of files whose records join lines across files: every line offered to the companion
 * index first, then each file streamed with it, and the set completed in one transaction (or
 * refused as a whole: a record of one file may have been read with lines of another).
 */
async function ingestSet(
  ctx: IngestContext, decoder: LineDecoder, members: ReadonlyArray<{path: string; index: number; how: FileFormat; gzip: boolean; size: number}>, maxLineBytes: number,
): Promise<IngestFileSummary[]> {
  const prepared: PreparedFile[] = []
  for (const m of members) prepared.push(await prepareFile(ctx, m.path, m.index, m.how))
  for (const p of prepared) await copyIntoCase(ctx, p)
  const index = await buildCompanionIndex(
    decoder.spec.format ?? 'native', decoder.options, prepared.map((p) => ({path: p.path, gzip: p.gzip, size: p.size, key: String(p.fileId), name: basename(p.path)})), maxLineBytes, ctx.signal,
  )
  if (ctx.signal?.aborted) throw new IngestInterrupted(prepared.find((p) => !p.present)?.path ?? '')
  // Calls an earlier ingest stored under a response id these files give (prior-sharers.ts).
  offerPriorSharers(ctx.db, ctx.source, index)
  const streamed = new Map<PreparedFile, Streamed>()
  for (const p of prepared) if (!p.present) streamed.set(p, await streamFile(ctx, p, index))
  const leaning = await withStoredFiles(ctx, decoder, prepared, index, maxLineBytes)
  const refused = [...streamed].map(([p, s]) => ({p, why: leaning.get(p) ?? refusal(p, s)})).filter((r) => r.why !== null)
  return inTransaction(ctx.db, () =>
    prepared.map((p) => {
      if (p.present) return presentSummary(p)
      const s = streamed.get(p)!
      if (refused.length === 0) return finishFile(ctx, p, s)
      const own = refused.find((r) => r.p === p)?.why
      const first = refused[0]!
      return refuseFile(ctx, p, s, own ?? {reason: `read as one set with ${first.p.path}, which could not be read (${first.why!.reason})`, fix: first.why!.fix})
    }),
  )
}

/**
 * The new files of a joined set whose lines belong to model calls of a file an earlier ingest
 * stored (readsWithStoredFiles: a wrapper of a stored call, a log record of a stored span), each
 * with its refusal: the stored file is not read again, so those texts would be judged nowhere
 * (and a gate would pass on them). Refused, the set is read again as a whole into a fresh case.
 */
async function withStoredFiles(
  ctx: IngestContext, decoder: LineDecoder, prepared: readonly PreparedFile[], index: CompanionIndex | null, maxLineBytes: number,
): Promise<Map<PreparedFile, {reason: string; fix: string}>> {
  const out = new Map<PreparedFile, {reason: string; fix: string}>()
  const stored = prepared.filter((p) => p.present)
  const fresh = prepared.filter((p) => !p.present)
  if (index === null || stored.length === 0 || fresh.length === 0) return out
  const keyOf = (p: PreparedFile) => ({path: p.path, gzip: p.gzip, size: p.size, key: String(p.fileId), name: basename(p.path)})
  const leaning = await readsWithStoredFiles(decoder.spec.format ?? 'native', decoder.options, index, fresh.map(keyOf), maxLineBytes, ctx.signal)
  const names = stored.map((p) => p.path).join(', ')
  for (const p of fresh) {
    if (!leaning.has(String(p.fileId))) continue
    out.set(p, {
      reason: `its lines belong to model calls of ${names}, already in the case from an earlier ingest, which is not read again: their texts (a wrapper's answer, a log record's message) would be judged nowhere`,
      fix: `ingest all of the files together into a fresh case (crosstalk triage FILES... --db NEW.db, or ingest logs FILES... --db NEW.db), or drop ${names} from this case (crosstalk drop PATH --reason "...") and ingest them all again`,
    })
  }
  return out
}

/** The entries a walk reached and could not read, in one line (ingest logs exits 1 on them); null where there are none. */
export function unreadEntriesError(result: IngestLogsResult): string | null {
  const named = unreadEntriesMessage(result.skipped_entries)
  if (named === null) return null
  const kept = result.files + result.skipped_files
  return `${named}; a log among them would not be judged by any scan (${kept === 0 ? 'nothing else was read' : `the ${kept === 1 ? 'file' : `${kept} files`} read ${kept === 1 ? 'is' : 'are'} in the case`}); copy each log into a regular file (decompressed, or gzip) and ingest it`
}

/**
 * The files of this ingest whose bytes could not all be read (a truncated or corrupt gzip stream:
 * gunzip-recover.ts's messages, which lead a file's unread), new or already in the case: the
 * command's error (exit 1), once what could be read is stored. Records of shapes a format does
 * not read are said as warnings and fail the gates, as before.
 */
export function notReadWholeError(result: IngestLogsResult): string | null {
  const files = result.per_file.filter((f) => f.status !== 'refused' && f.unread !== null && /^gzip stream /.test(f.unread))
  if (files.length === 0) return null
  return `${files.map((f) => `${f.path}: not read whole (${f.unread})`).join('; ')}; what was read is in the case, the rest is judged by nothing: get the file whole (a complete copy) and ingest it`
}

/** One line per refused file: the command's error when any file was refused. */
export function refusedMessage(result: IngestLogsResult): string | null {
  const refused = result.per_file.filter((f) => f.status === 'refused')
  if (refused.length === 0) return null
  const lines = refused.map((f) => `${f.path}: not ingested: ${f.refused!.reason}; to fix: ${f.refused!.fix}`)
  const kept = result.files + result.skipped_files
  return `${lines.join('; ')}${kept === 1 ? ' (the other file is in the case)' : kept > 1 ? ` (the other ${kept} files are in the case)` : ''}`
}

/** Bytes of the input files as they lie (compressed for .gz): what the progress line counts. */
function totalSize(paths: readonly string[]): number {
  let total = 0
  for (const path of paths) {
    try {
      total += statSync(path).size
    } catch {
      // reported by the file's own ingest, in order
    }
  }
  return total
}

/** Which file a path names (a rename over it gives another), or null where it cannot be examined now (the read says why). */
function fileIdentity(path: string): {dev: number; ino: number} | null {
  try {
    const st = statSync(path)
    return {dev: st.dev, ino: st.ino}
  } catch {
    return null
  }
}

/**
 * A log replaced (renamed over) or cut shorter between triage's quick pass and its read into
 * the case: the verdict printed was given on other bytes than the case would hold. Refused as
 * a file that changed; one that only grew is read on, its new lines judged by the scan.
 */
function checkSincePass(passRead: ReadonlyMap<string, {dev: number; ino: number; size: number} | null>, path: string): void {
  const then = passRead.get(path)
  if (!then) return
  const now = fileIdentity(path)
  let size: number | null = null
  try {
    size = statSync(path).size
  } catch {
    // Gone: prepareFile names it.
  }
  const what = now === null || size === null ? null
    : now.dev !== then.dev || now.ino !== then.ino ? 'replaced by another file'
    : size < then.size ? `now ${size} bytes, under the ${then.size} the quick verdict read`
    : null
  if (what) throw new InputError(`${path}: changed between triage's quick canary pass and its read into the case (${what}); the verdict was given on other bytes: run triage again once nothing replaces or truncates it`, 'E_CHANGED')
}
