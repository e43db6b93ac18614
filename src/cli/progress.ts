import type {ScanProgress} from '../detect/scan-case.js'
import type {IngestProgress} from '../ingest/ingest-logs.js'

// Progress on stderr, on one line redrawn in place, only when stderr is a terminal (never in a
// pipe, a log file or under --json, which the commands check). Ingest shows one line for the
// whole run: the fraction of all input bytes read (compressed bytes for .gz, whose
// decompressed size is unknown until the end), the rate and an ETA once there is enough to
// base one on. Scan shows its phases (markers per file, then provenance, then personal data).

/** Where progress goes: process.stderr, or a test's stand-in. */
export interface ProgressStream {
  isTTY?: boolean
  /** The terminal's width: a line that wrapped could not be redrawn in place. */
  columns?: number
  write(text: string): unknown
}

/** Redraws the line in place, cut to the terminal's width. */
function redraw(stream: ProgressStream, text: string): void {
  const room = stream.columns && stream.columns > 10 ? stream.columns - 1 : text.length
  stream.write(`\r\x1b[2K${[...text].slice(0, room).join('')}`)
}

/** No rate or ETA before this much time and this fraction: the first readings are noise. */
const SETTLE_MS = 2000
const SETTLE_FRACTION = 0.01
const WIDTH = 24

export function ingestProgressBar(stream: ProgressStream = process.stderr, now: () => number = Date.now): ((p: IngestProgress) => void) | undefined {
  if (!stream.isTTY) return undefined
  let started = now()
  let phase: IngestProgress['phase'] = undefined
  // Records of the files already done (each event counts the current file's).
  const recordsByFile = new Map<number, number>()
  return (p) => {
    // triage's quick verdict pass reads the files once before ingest: each pass has its own bar and ETA.
    if (p.phase !== phase) {
      phase = p.phase
      started = now()
      recordsByFile.clear()
    }
    recordsByFile.set(p.fileIndex, p.records)
    const records = [...recordsByFile.values()].reduce((a, b) => a + b, 0)
    const elapsed = now() - started
    const total = Math.max(p.inputBytesTotal, 1)
    const frac = Math.min(p.inputBytesDone / total, 1)
    const bar = `[${'#'.repeat(Math.round(frac * WIDTH)).padEnd(WIDTH, '.')}] ${(frac * 100).toFixed(0).padStart(3)}%`
    const settled = elapsed >= SETTLE_MS && frac >= SETTLE_FRACTION
    const rate = settled ? `  ${mb(p.inputBytesDone / (elapsed / 1000))}/s, ${Math.round(records / (elapsed / 1000)).toLocaleString('en')} rec/s` : ''
    const eta = settled && frac < 1 ? `  ETA ${duration(((elapsed / frac) * (1 - frac)) / 1000)}` : ''
    const files = p.fileCount > 1 ? `  file ${p.fileIndex + 1}/${p.fileCount}` : ''
    redraw(stream, `${p.phase === 'verdict' ? 'verdict pass' : 'ingest'} ${bar}  ${mb(p.inputBytesDone)} of ${mb(p.inputBytesTotal)}${files}  ${records.toLocaleString('en')} records${rate}${eta}  (${duration(elapsed / 1000)})`)
  }
}

const PHASES: Record<ScanProgress['phase'], string> = {
  reextract: 'detection extracts made again under the current rules (a case made by an earlier version; once)',
  markers: 'canary markers',
  provenance: 'provenance (verbatim overlap)',
  pii: 'personal data',
}
const STEP: Record<Exclude<ScanProgress['phase'], 'reextract'>, number> = {markers: 1, provenance: 2, pii: 3}

export function scanProgressLine(stream: ProgressStream = process.stderr, now: () => number = Date.now): ((p: ScanProgress) => void) | undefined {
  if (!stream.isTTY) return undefined
  const started = now()
  return (p) => {
    if (p.phase === 'reextract') {
      redraw(stream, `scan: ${PHASES.reextract} ${p.done.toLocaleString('en')}/${p.total.toLocaleString('en')} records  (${duration((now() - started) / 1000)})`)
      return
    }
    const count = p.phase === 'markers' ? ` ${p.done}/${p.total} file${p.total === 1 ? '' : 's'}` : p.done >= p.total ? ' done' : '…'
    redraw(stream, `scan ${STEP[p.phase]}/3: ${PHASES[p.phase]}${count}  (${duration((now() - started) / 1000)})`)
  }
}

export function clearProgress(stream: ProgressStream = process.stderr): void {
  if (stream.isTTY) stream.write('\r\x1b[2K')
}

function mb(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${(bytes / 1e6).toFixed(bytes >= 1e8 ? 0 : 1)} MB`
}

function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}
