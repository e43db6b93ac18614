import {mkdirSync, renameSync, rmSync, statSync} from 'node:fs'
import {basename, join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {UnconventionalSet} from '../extract/extract.js'
import type {FieldMap} from '../extract/parse-record.js'
import {expandPaths} from '../ingest/expand-paths.js'
import {ExtractWriter} from './extract-parquet.js'
import {extractShard, type ShardFacts} from './extract-shard.js'

// `crosstalk extract`: the per-record map of provider-scale audits, with no case. Each log
// file (a shard) becomes one Parquet file in the output directory, named after the shard and
// its SHA-256, so that re-running a task rewrites the same file and two shards never collide.

export interface ExtractLogsOptions {
  paths: readonly string[]
  outDir: string
  map?: FieldMap
  maxLineBytes?: number
  /** The registry's markers outside the CANARY-<hex> convention (matched as ingest matches them). */
  unconventional?: readonly string[]
  /** The URI to record for the (single) shard, when it was copied here from elsewhere (object storage). */
  uri?: string
}

export interface ExtractFileResult {
  path: string
  uri: string
  sha256: string
  extract: string
  log_bytes: number
  extract_bytes: number
  record_lines: number
  bad_lines: number
  lines: number
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

/** The shards PATHS name, in the order `ingest logs` reads them (the order duplicate request ids are decided in). */
export function planShards(paths: readonly string[]): string[] {
  return expandPaths(paths)
}

export async function extractLogs(options: ExtractLogsOptions): Promise<ExtractLogsResult> {
  const files = expandPaths(options.paths)
  if (options.uri !== undefined && files.length !== 1) throw new Error('--uri names the location of one shard: give exactly one file')
  mkdirSync(options.outDir, {recursive: true})
  const unconventional = new UnconventionalSet(options.unconventional ?? [])
  const result: ExtractLogsResult = {files: 0, record_lines: 0, bad_lines: 0, log_bytes: 0, extract_bytes: 0, ratio: 0, per_file: []}
  for (const [i, path] of files.entries()) {
    const tmp = join(options.outDir, `.extract-${process.pid}-${i}.parquet.tmp`)
    let facts: ShardFacts
    try {
      const writer = new ExtractWriter(tmp)
      const uri = options.uri ?? pathToFileURL(resolve(path)).href
      facts = await extractShard({
        path, uri, map: options.map ?? {}, maxLineBytes: options.maxLineBytes ?? 256 * 1024 * 1024, unconventional,
        onRow: (row) => writer.add(row, uri),
      })
      writer.finish(facts)
    } catch (error) {
      rmSync(tmp, {force: true})
      throw error
    }
    const name = `${basename(path).replace(/[^A-Za-z0-9._-]/g, '_')}-${facts.sha256.slice(0, 16)}.parquet`
    const out = join(options.outDir, name)
    renameSync(tmp, out)
    const extractBytes = statSync(out).size
    result.per_file.push({
      path, uri: facts.uri, sha256: facts.sha256, extract: out, log_bytes: facts.size, extract_bytes: extractBytes,
      record_lines: facts.record_lines, bad_lines: facts.bad_lines, lines: facts.lines,
    })
    result.files++
    result.record_lines += facts.record_lines
    result.bad_lines += facts.bad_lines
    result.log_bytes += facts.size
    result.extract_bytes += extractBytes
  }
  result.ratio = result.log_bytes === 0 ? 0 : result.extract_bytes / result.log_bytes
  return result
}
