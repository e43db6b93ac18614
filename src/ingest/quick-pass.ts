import type {LogFormat} from '../extract/formats/index.js'
import type {MarkerToken} from '../extract/markers.js'
import {DamagedStreamError} from './gunzip-recover.js'
import {IngestInterrupted, refusalOf, UNIT_BYTES, UNIT_SLACK, type IngestProgress, type Streamed} from './ingest-file.js'
import type {ParsePool} from './parse-pool.js'
import type {UnitResult} from './process-unit.js'
import {readUnits, UnitBuffers} from './unit-reader.js'
import {emptyCounts, tallyRecord, tallyUnit, type FileSummaryCounts} from './unit-writer.js'

// The quick verdict's pass: before ingest stores anything, the same reader cuts every file into
// the same units and the same parse workers decode them with the same rules, but take only each
// response's marker tokens (no personal data, no fingerprints, nothing written). Records are
// kept or dropped as duplicates by the rule ingest applies (the first (source, request_id) wins,
// in the order files are read) and each file is counted as ingest counts it, so that the caller
// can classify the markers exactly as a scan will and knows which files ingest will refuse.
// It runs only where that is certain to hold: a case with no log record yet, and formats that
// read each line alone (no companion index).

/** A record kept whose response holds a marker-shaped token or a registered marker. */
export interface QuickRecord {
  request_id: string
  tenant_id: string
  session_id: string
  ts_ms: number
  tokens: MarkerToken[]
  hits: MarkerToken[]
  /** the prompt, lower-cased (the echo check reads it) */
  prompt_lower: string
}

export interface QuickFile {
  path: string
  counts: FileSummaryCounts
  /** null: read whole; else what could not be (a damaged gzip stream) */
  unread: string | null
  /** ingest will refuse the file (refusalOf): no verdict may be printed over it */
  refused: boolean
}

export interface QuickPassResult {
  records: QuickRecord[]
  files: QuickFile[]
}

export interface QuickPassFile {
  path: string
  size: number
  gzip: boolean
  format: LogFormat
  spec: string
}

/**
 * Reads every file once with markers only. Returns null where its answer could differ from the
 * ingest that follows: two files that may be the same bytes (ingest skips a second copy whole).
 */
export async function quickPass(
  files: readonly QuickPassFile[],
  pool: ParsePool,
  options: {source: string; maxLineBytes: number; signal?: AbortSignal; head: (path: string) => Buffer; onProgress?: (p: IngestProgress) => void},
): Promise<QuickPassResult | null> {
  if (mayRepeat(files, options.head)) return null
  const seen = new PairSet()
  const records: QuickRecord[] = []
  const out: QuickFile[] = []
  const inFlight = pool.threaded ? 2 * pool.size + 1 : 1
  const buffers = new UnitBuffers(UNIT_BYTES + UNIT_SLACK, inFlight + 2)
  const inputBytesTotal = files.reduce((n, f) => n + f.size, 0)
  let inputBytesBefore = 0
  let lastReport = 0
  for (const [i, f] of files.entries()) {
    const counts = emptyCounts()
    let firstBad: Streamed['firstBad'] = null
    let unread: string | null = null
    const take = (r: UnitResult): void => {
      buffers.release(r.input?.buffer)
      r.input = undefined
      tallyUnit(counts, r)
      for (const item of r.items) {
        if (item.k === 'b') {
          counts.bad_lines++
          firstBad ??= {line: item.lineNo, reason: item.reason}
          continue
        }
        if (!seen.add(options.source, item.row.request_id)) {
          counts.duplicates++
          continue
        }
        tallyRecord(counts, item)
        if (item.tokens.length > 0 || item.unconventional.length > 0) {
          const w = item.row
          records.push({request_id: w.request_id, tenant_id: w.tenant_id, session_id: w.session_id, ts_ms: w.ts_ms, tokens: item.tokens, hits: item.unconventional, prompt_lower: item.promptLower ?? ''})
        }
      }
    }
    const drain = async (until: number): Promise<void> => {
      while (pool.pending > until) take(await pool.next())
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
        pool.submit({seq: seq++, bytes: event.bytes, offset: event.offset, firstLineNo: event.firstLineNo, spec: f.spec, file: String(i), maxLineBytes: options.maxLineBytes, markersOnly: true}, true, null)
        await drain(inFlight - 1)
      }
    } catch (error) {
      if (!(error instanceof DamagedStreamError)) {
        await drain(0).catch(() => {})
        // A signal stops triage; any other failure (a read error, a parse worker lost) leaves the
        // verdict to the scan: ingest meets the same failure and reports it with its file and line.
        if (error instanceof IngestInterrupted) throw error
        return null
      }
      unread = error.message
    }
    try {
      await drain(0)
    } catch {
      return null
    }
    inputBytesBefore += f.size
    out.push({path: f.path, counts, unread, refused: refusalOf(f.format, counts, firstBad) !== null})
  }
  return {records, files: out}
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

/**
 * (source, request_id) pairs seen, as two independent 32-bit hashes per pair: a few bytes a
 * record at any size. Two pairs that collide in all 64 bits (about 1 in 10^12 at a million
 * records) would read as a duplicate; the caller checks the quick verdict against the scan's
 * and fails loudly on any difference, so a collision can delay an answer, never change one.
 */
class PairSet {
  private a = new Uint32Array(1 << 16)
  private b = new Uint32Array(1 << 16)
  private used = new Uint8Array(1 << 16)
  private count = 0

  /** false when the pair was seen before */
  add(source: string, id: string): boolean {
    const [h1, h2] = hash2(source, id)
    let mask = this.a.length - 1
    for (let p = h1 & mask; this.used[p] === 1; p = (p + 1) & mask) if (this.a[p] === h1 && this.b[p] === h2) return false
    if ((this.count + 1) * 2 > this.a.length) this.grow()
    mask = this.a.length - 1
    let p = h1 & mask
    while (this.used[p] === 1) p = (p + 1) & mask
    this.a[p] = h1
    this.b[p] = h2
    this.used[p] = 1
    this.count++
    return true
  }

  private grow(): void {
    const {a, b, used} = this
    this.a = new Uint32Array(a.length * 2)
    this.b = new Uint32Array(a.length * 2)
    this.used = new Uint8Array(a.length * 2)
    const mask = this.a.length - 1
    for (let i = 0; i < a.length; i++) {
      if (used[i] !== 1) continue
      let p = a[i]! & mask
      while (this.used[p] === 1) p = (p + 1) & mask
      this.a[p] = a[i]!
      this.b[p] = b[i]!
      this.used[p] = 1
    }
  }
}

function hash2(source: string, id: string): [number, number] {
  let h = 0x811c9dc5
  let g = 0x9e3779b9
  const mix = (c: number): void => {
    h = Math.imul(h ^ c, 0x01000193)
    g = Math.imul(g ^ c, 0x5bd1e995) ^ (g >>> 15)
  }
  for (let i = 0; i < source.length; i++) mix(source.charCodeAt(i))
  mix(0x10000) // a separator no UTF-16 unit equals
  for (let i = 0; i < id.length; i++) mix(id.charCodeAt(i))
  return [fmix(h), fmix(g ^ id.length)]
}

function fmix(x: number): number {
  x ^= x >>> 16
  x = Math.imul(x, 0x85ebca6b)
  x ^= x >>> 13
  x = Math.imul(x, 0xc2b2ae35)
  return (x ^ (x >>> 16)) >>> 0
}
