import {mkdirSync, renameSync, rmSync, statSync} from 'node:fs'
import {removeStaleTemps} from '../util/stale-temp.js'
import {basename, join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {InputError, UsageError} from '../errors.js'
import {UnconventionalSet} from '../extract/extract.js'
import type {LogFormat} from '../extract/formats/index.js'
import {lineDecoder} from '../extract/line-decoder.js'
import type {ParseSpec} from '../extract/parse-spec.js'
import {expandLogPaths, unreadEntriesMessage} from '../ingest/expand-paths.js'
import {decideFormats, readingUnits, type Decided} from '../ingest/ingest-logs.js'
import {ExtractWriter} from './extract-parquet.js'
import {extractShards, type ShardFacts} from './extract-shard.js'
import {count} from '../util/plural.js'

// `crosstalk extract`: the per-record map of provider-scale audits, with no case. Each log
// file (a shard) becomes one Parquet file in the output directory, named after the shard and
// its SHA-256, so that re-running a task rewrites the same file and two shards never collide.
// Formats are decided as `ingest logs` decides them (per file, or one given), and files whose
// records join lines across files are extracted together, as ingest reads them.

export interface ExtractFormatOptions {
  /** One format for every file, or 'auto' (default): decided per file from its first readable lines. */
  logFormat?: LogFormat | 'auto'
  /** --map specs, format options and --assume-tz: the parse spec without the format. */
  parse?: Omit<ParseSpec, 'format'>
  maxLineBytes?: number
}

export interface ExtractLogsOptions extends ExtractFormatOptions {
  paths: readonly string[]
  outDir: string
  /** The registry's markers outside the CANARY-<hex> convention (matched as ingest matches them). */
  unconventional?: readonly string[]
  /** The URIs to record for the files, in order, when they were copied here from elsewhere (object storage). */
  uris?: readonly string[]
  /** Hears, once, that temporary extracts a killed extract left in --out were removed (named). */
  onStale?: (message: string) => void
}

/** The temporary name of an extract being written: `.extract-PID-N.parquet.tmp`. */
const EXTRACT_TMP = /^\.extract-(\d+)-\d+\.parquet\.tmp$/

export interface ExtractFileResult {
  path: string
  uri: string
  sha256: string
  log_format: LogFormat
  extract: string
  log_bytes: number
  extract_bytes: number
  record_lines: number
  bad_lines: number
  lines: number
  /** why the file was not read whole (a damaged gzip stream: what came before the damage is in the extract), or null where it was */
  unread: string | null
}

export interface ExtractLogsResult {
  files: number
  record_lines: number
  bad_lines: number
  log_bytes: number
  extract_bytes: number
  /** extract bytes / log bytes */
  ratio: number
  per_file: ExtractFileResult[]
}

/** `crosstalk extract --plan`: the files in the order `ingest logs` reads them, and the units read together. */
export interface ExtractPlan {
  /** every file, in reading order (the order record ids, and so duplicates and ties in time, follow) */
  shards: string[]
  /** the files read together: one alone, or a set whose records join lines across files */
  units: Array<{files: string[]; format: LogFormat; joined: boolean}>
}

const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024

async function decide(paths: readonly string[], options: ExtractFormatOptions): Promise<Decided[]> {
  const given = options.logFormat !== undefined && options.logFormat !== 'auto' ? options.logFormat : null
  if (given) lineDecoder({...options.parse, format: given})
  const expanded = expandLogPaths(paths)
  // An entry the walk could not read may hold a log: no extract can stand in for it.
  const unread = unreadEntriesMessage(expanded.skipped)
  if (unread) throw new InputError(`${unread}; copy each log into a regular file (decompressed, or gzip) and extract it`, 'E_NOT_READ')
  const files = await decideFormats(expanded.paths, given, {parse: options.parse}, options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES)
  // A file whose format cannot be decided is refused by ingest: no extract can stand in for it.
  const undecided = files.find((f) => f.how === null)
  if (undecided) throw new InputError(`${undecided.path}: its log format could not be decided: ${undecided.reason}; to fix: --log-format FORMAT, with --map FIELD=PATH where fields are elsewhere`, 'E_FORMAT')
  return files
}

export async function planShards(paths: readonly string[], options: ExtractFormatOptions = {}): Promise<ExtractPlan> {
  const units = readingUnits(await decide(paths, options))
  return {
    shards: units.flatMap((u) => u.files.map((f) => f.path)),
    units: units.map((u) => ({files: u.files.map((f) => f.path), format: u.files[0]!.how!.format, joined: u.joined})),
  }
}

export async function extractLogs(options: ExtractLogsOptions): Promise<ExtractLogsResult> {
  const files = await decide(options.paths, options)
  if (options.uris !== undefined && options.uris.length !== files.length) {
    throw new UsageError(`--uri names the location of each file given: ${options.uris.length} given for ${count(files.length, 'file')}`)
  }
  const uriOf = new Map(files.map((f, i) => [f.path, options.uris?.[i] ?? pathToFileURL(resolve(f.path)).href]))
  mkdirSync(options.outDir, {recursive: true})
  // An extract killed mid-way (a signal's default action, SIGKILL) ran no clean-up: its
  // temporary files stay, hidden, in --out. Those whose writer has ended are removed here.
  const stale = removeStaleTemps(options.outDir, EXTRACT_TMP)
  if (stale.length > 0) options.onStale?.(`${options.outDir}: removed ${count(stale.length, 'temporary extract')} that an interrupted extract left there (${stale.join(', ')})`)
  const unconventional = new UnconventionalSet(options.unconventional ?? [])
  const result: ExtractLogsResult = {files: 0, record_lines: 0, bad_lines: 0, log_bytes: 0, extract_bytes: 0, ratio: 0, per_file: []}
  for (const unit of readingUnits(files)) {
    const tmps = unit.files.map((_, i) => join(options.outDir, `.extract-${process.pid}-${result.files + i}.parquet.tmp`))
    let facts: ShardFacts[]
    try {
      const writers = tmps.map((t) => new ExtractWriter(t))
      const shards = unit.files.map((f) => ({path: f.path, uri: uriOf.get(f.path)!, size: f.size, gzip: f.gzip, how: f.how!}))
      facts = await extractShards({
        files: shards, decoder: unit.files[0]!.decoder, joined: unit.joined, maxLineBytes: options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, unconventional,
        onRow: (i, row) => writers[i]!.add(row, shards[i]!.uri),
      })
      facts.forEach((f, i) => writers[i]!.finish(f))
    } catch (error) {
      for (const t of tmps) rmSync(t, {force: true})
      throw error
    }
    for (const [i, f] of unit.files.entries()) {
      const shard = facts[i]!
      const out = join(options.outDir, `${basename(f.path).replace(/[^A-Za-z0-9._-]/g, '_')}-${shard.sha256.slice(0, 16)}.parquet`)
      renameSync(tmps[i]!, out)
      const extractBytes = statSync(out).size
      result.per_file.push({
        path: f.path, uri: shard.uri, sha256: shard.sha256, log_format: shard.log_format, extract: out, log_bytes: shard.size, extract_bytes: extractBytes,
        record_lines: shard.record_lines, bad_lines: shard.bad_lines, lines: shard.lines, unread: shard.unread,
      })
      result.files++
      result.record_lines += shard.record_lines
      result.bad_lines += shard.bad_lines
      result.log_bytes += shard.size
      result.extract_bytes += extractBytes
    }
  }
  result.ratio = result.log_bytes === 0 ? 0 : result.extract_bytes / result.log_bytes
  return result
}

/** The extract's error where a file was not read whole (as ingest logs says it), or null. */
export function extractNotReadWholeError(result: ExtractLogsResult): string | null {
  const files = result.per_file.filter((f) => f.unread !== null)
  if (files.length === 0) return null
  return `${files.map((f) => `${f.path}: not read whole (${f.unread})`).join('; ')}; what was read is in the extract, the rest is judged by nothing: get the file whole (a complete copy) and extract it`
}
