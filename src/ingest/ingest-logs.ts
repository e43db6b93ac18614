import {statSync} from 'node:fs'
import type {EvidenceCodec} from '../evidence/evidence-store.js'
import {UnconventionalSet} from '../extract/extract.js'
import type {FieldMap} from '../extract/parse-record.js'
import {unconventionalMarkers} from '../store/canaries.js'
import {FIRST_LOAD_INDEXES, RANDOM_ORDER_INDEXES, restoreSuspendedIndexes, suspendIndexes} from '../store/indexes.js'
import type {CaseDb} from '../store/open-case.js'
import {countAllRecords} from '../store/records.js'
import {checkpoint, enterBulkLoad} from '../store/session.js'
import {expandPaths} from './expand-paths.js'
import {ingestFile, type IngestFileSummary, type IngestProgress} from './ingest-file.js'
import {claimIngest, releaseIngest} from './ingest-lock.js'
import {defaultWorkerCount, ParsePool, workersFromEnv} from './parse-pool.js'
import {RequestIdSet} from './request-id-set.js'

export type {IngestFileSummary, IngestProgress} from './ingest-file.js'

// `crosstalk ingest logs`: every file into the case, one after the other, as a bulk load.

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

/** Inputs smaller than this parse inline: starting workers would cost more than it saves. */
const INLINE_BELOW_BYTES = 8 << 20

export async function ingestLogs(db: CaseDb, options: IngestLogsOptions): Promise<IngestLogsResult> {
  const paths = expandPaths(options.paths)
  const result: IngestLogsResult = {files: 0, records: 0, duplicates: 0, bad_lines: 0, blank_lines: 0, skipped_files: 0, parse_workers: 0, warnings: [], per_file: []}
  const workers = options.workers ?? (workersFromEnv() === undefined && totalSize(paths) < INLINE_BELOW_BYTES ? 0 : defaultWorkerCount())
  // Refused before anything changes when another ingest holds the case.
  claimIngest(db)
  const leaveBulkLoad = enterBulkLoad(db)
  let pool: ParsePool | undefined
  try {
    // Unconventional registered markers are matched while the texts are at hand; a scan
    // under a different set matches again from the evidence.
    const unconventional = new UnconventionalSet(unconventionalMarkers(db))
    pool = new ParsePool(workers, unconventional.markers)
    result.parse_workers = pool.size
    // Request ids and PII value hashes arrive in random order: one sort at the end builds
    // their indexes much faster than inserting into them row by row, which rewrites most of
    // their pages in every transaction (request ids are checked for duplicates in memory
    // meanwhile). A case's first load builds every record index that way.
    suspendIndexes(db, countAllRecords(db) === 0 ? [...RANDOM_ORDER_INDEXES, ...FIRST_LOAD_INDEXES] : RANDOM_ORDER_INDEXES)
    const ctx = {
      db, pool, seen: new RequestIdSet(db), unconventionalSha256: unconventional.hash, map: options.map ?? {}, source: options.source ?? 'default',
      now: options.now, maxLineBytes: options.maxLineBytes ?? 256 * 1024 * 1024, evidenceCodec: options.evidenceCodec ?? 'raw', fileCount: paths.length,
      onProgress: options.onProgress, inputBytesBefore: 0, inputBytesTotal: totalSize(paths),
    }
    for (const [index, path] of paths.entries()) {
      const summary = await ingestFile(ctx, path, index)
      ctx.inputBytesBefore += totalSize([path])
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
    // Also after a failure: what was stored stays queryable by its indexes.
    try {
      restoreSuspendedIndexes(db)
    } finally {
      leaveBulkLoad()
      releaseIngest(db)
    }
  }
  // One sync of the whole load into the database file.
  checkpoint(db)
  return result
}

function totalSize(paths: readonly string[]): number {
  let total = 0
  for (const path of paths) {
    try {
      total += statSync(path).size
    } catch {
      // reported by ingestFile, in order
    }
  }
  return total
}
