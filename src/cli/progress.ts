import type {IngestProgress} from '../ingest/ingest-logs.js'

/** A one-line progress bar on stderr, only when stderr is a terminal. */
export function ingestProgressBar(): ((p: IngestProgress) => void) | undefined {
  if (!process.stderr.isTTY) return undefined
  const started = Date.now()
  let fileStarted = started
  let lastFile = ''
  return (p) => {
    if (p.file !== lastFile) (lastFile = p.file), (fileStarted = Date.now())
    const secs = Math.max((Date.now() - started) / 1000, 0.001)
    const fileSecs = Math.max((Date.now() - fileStarted) / 1000, 0.001)
    const rate = Math.round(p.records / fileSecs)
    const mb = (p.bytesDone / 1e6).toFixed(0)
    let bar = ''
    let eta = ''
    if (p.bytesTotal) {
      const frac = Math.min(p.bytesDone / p.bytesTotal, 1)
      const width = 24
      bar = `[${'#'.repeat(Math.round(frac * width)).padEnd(width, '.')}] ${(frac * 100).toFixed(0).padStart(3)}% `
      const left = frac > 0 ? (fileSecs / frac) * (1 - frac) : 0
      eta = ` ETA ${left.toFixed(0)}s`
    }
    const name = p.file.length > 40 ? `…${p.file.slice(-39)}` : p.file
    process.stderr.write(`\r\x1b[2K${p.fileIndex + 1}/${p.fileCount} ${name} ${bar}${mb} MB ${rate} rec/s${eta} (${secs.toFixed(0)}s)`)
  }
}

export function clearProgress(): void {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K')
}
