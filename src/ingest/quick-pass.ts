import type {LogFormat} from '../extract/formats/index.js'
import {DamagedStreamError} from './gunzip-recover.js'
import {fileUnread, IngestInterrupted, refusalOf, UNIT_BYTES, UNIT_SLACK, type IngestProgress, type Streamed} from './ingest-file.js'
import {PairSet} from './pair-set.js'
import type {ParsePool} from './parse-pool.js'
import type {QuickRecord, QuickUnitResult} from './quick-unit.js'
import {readUnits, UnitBuffers} from './unit-reader.js'
import {emptyCounts, tallyFlags, tallyUnit, type FileSummaryCounts} from './unit-writer.js'
import {boundHeapGrowth, fullGc} from '../util/gc.js'

// The quick verdict's pass: before ingest stores anything, the same reader cuts every file into
// the same units and the same parse workers decode them with the same rules, but take only each
// response's marker tokens (no personal data, no fingerprints, nothing written). Records are
// kept or dropped as duplicates by the rule ingest applies (the first (source, request_id) wins,
// in the order files are read) and each file is counted as ingest counts it, so that the caller
// can classify the markers exactly as a scan will and knows which files ingest will refuse.
// Each kept marked record is handed to the caller as soon as it is known to be kept (onRecord),
// in the order ingest will store them, so that nothing in the pass grows with the number of
// marked records: at millions of records, holding them until the end cost tens of MB.
// It runs only where that is certain to hold: a case with no log record yet, and formats that
// read each line alone (no companion index).

export type {QuickRecord} from './quick-unit.js'

export interface QuickFile {
  path: string
  counts: FileSummaryCounts
  /** null: read whole; else what could not be (a damaged gzip stream) */
  unread: string | null
  /** ingest will refuse the file (refusalOf): no verdict may be printed over it */
  refused: boolean
}

export interface QuickPassResult {
  files: QuickFile[]
  /** How many records were handed to onRecord. */
  marked: number
}

export interface QuickPassFile {
  path: string
  size: number
  gzip: boolean
  format: LogFormat
  spec: string
}

export interface QuickPassOptions {
  source: string
  maxLineBytes: number
  signal?: AbortSignal
  head: (path: string) => Buffer
  onProgress?: (p: IngestProgress) => void
  /** Every record kept (not a duplicate) whose response holds a marker, in ingest's order. Discarded by the caller when the pass returns null. */
  onRecord: (r: QuickRecord) => void
  /** Input after which heaps are bounded (default BOUND_HEAP_AFTER_BYTES). */
  boundHeapAfterBytes?: number
}

/**
 * Input read by the pass after which V8's heaps are bounded (util/gc.ts boundHeapGrowth) while it
 * runs, not only once the verdict is out. Before, a 5M-record pass (13.7 GB) let the main
 * thread's old generation grow from 23 to 61 MB between two full collections, most of it garbage,
 * and that was the whole command's peak (234 MB against ingest's 222 at most). Past a
 * 200k-record incident's size (560 MB), so that a verdict of that size never pays the collections.
 */
export const BOUND_HEAP_AFTER_BYTES = 1 << 30

/**
 * Units in flight per parse worker. Results are taken in the order submitted (a file's duplicates
 * are decided in line order), so a worker that has finished its units waits, idle, for the next
 * until the oldest unit in flight is back, however long its own worker takes over it. With two
 * per worker the workers sat idle for 20-35% of the pass at 200k records (their CPU profiles); with
 * four the verdict came 70 ms sooner (medians of six alternating runs, 1336 -> 1265 ms from spawn;
 * six and eight no better), for two more unit buffers of 512 KB per worker.
 */
export const QUICK_UNITS_PER_WORKER = 4

/**
 * Reads every file once with markers only. Returns null where its answer could differ from the
 * ingest that follows: two files that may be the same bytes (ingest skips a second copy whole).
 */
export async function quickPass(
  files: readonly QuickPassFile[],
  pool: ParsePool,
  options: QuickPassOptions,
): Promise<QuickPassResult | null> {
  if (mayRepeat(files, options.head)) return null
  const seen = new PairSet()
  try {
    return await passFiles(files, pool, options, seen)
  } finally {
    seen.close()
  }
}

async function passFiles(files: readonly QuickPassFile[], pool: ParsePool, options: QuickPassOptions, seen: PairSet): Promise<QuickPassResult | null> {
  let marked = 0
  const out: QuickFile[] = []
  const inFlight = pool.threaded ? QUICK_UNITS_PER_WORKER * pool.size + 1 : 1
  const buffers = new UnitBuffers(UNIT_BYTES + UNIT_SLACK, inFlight + 2)
  const inputBytesTotal = files.reduce((n, f) => n + f.size, 0)
  let inputBytesBefore = 0
  let lastReport = 0
  let bounded = false
  for (const [i, f] of files.entries()) {
    const counts = emptyCounts()
    let firstBad: Streamed['firstBad'] = null
    let unread: string | null = null
    const take = (r: QuickUnitResult): void => {
      buffers.release(r.input?.buffer)
      r.input = undefined
      tallyUnit(counts, r)
      counts.bad_lines += r.bad
      if (r.firstBad) firstBad ??= r.firstBad
      let next = 0
      for (let i = 0; i < r.flags.length; i++) {
        if (!seen.addHashed(r.pairs[2 * i]!, r.pairs[2 * i + 1]!)) {
          counts.duplicates++
          continue
        }
        tallyFlags(counts, r.flags[i]!, r.ts[i]!)
        while (next < r.marked.length && r.marked[next]!.at < i) next++
        const m = r.marked[next]
        if (m?.at !== i) continue
        marked++
        try {
          options.onRecord({request_id: m.request_id, tenant_id: m.tenant_id, session_id: m.session_id, ts_ms: m.ts_ms, tokens: m.tokens, hits: m.hits, token_echo: m.token_echo, token_whole: m.token_whole, hit_echo: m.hit_echo})
        } catch (error) {
          throw new RecordHandlerFailed(error)
        }
      }
    }
    const drain = async (until: number): Promise<void> => {
      while (pool.pending > until) take(await pool.nextQuick())
    }
    let seq = 0
    let fileBytes = 0
    let bytesDone = 0
    const report = (): void => {
      const now = Date.now()
      if (!options.onProgress || now - lastReport < 200) return
      lastReport = now
      options.onProgress({
        phase: 'verdict', file: f.path, fileIndex: i, fileCount: files.length, bytesDone, bytesTotal: f.gzip ? null : f.size, records: counts.records,
        inputBytesDone: inputBytesBefore + fileBytes, inputBytesTotal,
      })
    }
    try {
      for await (const event of readUnits(f.path, {gzip: f.gzip, size: f.size, unitBytes: UNIT_BYTES, buffers, maxLineBytes: options.maxLineBytes, onFileChunk: (chunk) => void (fileBytes += chunk.length)})) {
        if (options.signal?.aborted) throw new IngestInterrupted('')
        report()
        if (event.kind === 'skipping') continue
        if (event.kind === 'oversize' || event.kind === 'cut') {
          await drain(0)
          counts.lines++
          counts.bad_lines++
          firstBad ??= {
            line: event.lineNo,
            reason: event.kind === 'oversize' ? `line is ${event.length} bytes, over --max-line-bytes ${options.maxLineBytes}` : 'line cut short where the gzip stream is damaged (its end could not be decompressed)',
          }
          continue
        }
        bytesDone = event.offset + event.bytes.length
        pool.submit({seq: seq++, bytes: event.bytes, offset: event.offset, firstLineNo: event.firstLineNo, spec: f.spec, file: String(i), maxLineBytes: options.maxLineBytes, quickSource: options.source}, true, null)
        await drain(inFlight - 1)
        if (!bounded && inputBytesBefore + fileBytes >= (options.boundHeapAfterBytes ?? BOUND_HEAP_AFTER_BYTES)) {
          bounded = true
          boundHeapGrowth()
          // V8 reads the bound when it next sets a limit: at once, not at the old limit.
          fullGc()
        }
      }
    } catch (error) {
      if (!(error instanceof DamagedStreamError)) {
        await drain(0).catch(() => {})
        // A signal stops triage; any other failure (a read error, a parse worker lost) leaves the
        // verdict to the scan: ingest meets the same failure and reports it with its file and line.
        // The caller's own failure is not the pass's: it goes up as it was thrown.
        if (error instanceof IngestInterrupted) throw error
        if (error instanceof RecordHandlerFailed) throw error.cause
        return null
      }
      unread = error.message
    }
    try {
      await drain(0)
    } catch (error) {
      if (error instanceof RecordHandlerFailed) throw error.cause
      return null
    }
    inputBytesBefore += f.size
    // What ingest will store as unread, and whether it will refuse the file: the same rules (ingest-file.ts).
    out.push({path: f.path, counts, unread: fileUnread(f.format, counts, unread), refused: refusalOf(f.format, counts, firstBad, unread) !== null})
  }
  return {files: out, marked}
}

/** An error thrown by onRecord, told apart from the pass's own (which leave the verdict to the scan). */
class RecordHandlerFailed extends Error {
  constructor(override readonly cause: unknown) {
    super('the quick pass\'s record handler failed')
  }
}

/** Two files of one size whose first bytes agree may be copies: ingest would skip the second whole. */
function mayRepeat(files: readonly QuickPassFile[], head: (path: string) => Buffer): boolean {
  const bySize = new Map<number, QuickPassFile[]>()
  for (const f of files) bySize.set(f.size, [...(bySize.get(f.size) ?? []), f])
  for (const same of bySize.values()) {
    if (same.length < 2) continue
    const heads = same.map((f) => head(f.path).toString('latin1'))
    if (new Set(heads).size < heads.length) return true
  }
  return false
}
