// Streaming output files with the hygiene problems real log shipping produces: a gzip file, a
// CRLF file, a UTF-8 BOM, and per-file line statistics the ground truth reports. Writes are
// buffered and flushed in 1 MiB blocks, so memory stays flat however many records are written.

import {closeSync, createWriteStream, openSync, statSync, writeSync} from 'node:fs'
import {once} from 'node:events'
import {createGzip, type Gzip} from 'node:zlib'

const FLUSH_AT = 1 << 16

export interface SinkOptions {
  gzip?: boolean
  crlf?: boolean
  bom?: boolean
}

export class LineSink {
  lines = 0
  records = 0
  duplicates = 0
  badLines = 0
  blankLines = 0
  private parts: (string | Buffer)[] = []
  private buffered = 0
  private fd: number | null = null
  private gz: Gzip | null = null
  private done: Promise<unknown> | null = null
  private readonly eol: string

  constructor(
    readonly path: string,
    readonly relPath: string,
    readonly options: SinkOptions = {},
  ) {
    this.eol = options.crlf ? '\r\n' : '\n'
    if (options.gzip) {
      // No file name or mtime in the header: the same input gives the same bytes. Level 1: speed.
      this.gz = createGzip({level: 1})
      const out = createWriteStream(path)
      this.gz.pipe(out)
      this.done = once(out, 'close')
    } else {
      this.fd = openSync(path, 'w')
    }
    if (options.bom) this.push('\uFEFF')
  }

  /** Appends one line (a string, or raw bytes for deliberately broken lines). */
  writeLine(line: string | Buffer): void {
    this.lines++
    if (typeof line === 'string') this.push(line + this.eol)
    else {
      this.push(line)
      this.push(this.eol)
    }
  }

  get needsFlush(): boolean {
    return this.buffered >= FLUSH_AT
  }

  private push(part: string | Buffer): void {
    this.parts.push(part)
    this.buffered += part.length
  }

  async flush(): Promise<void> {
    if (this.parts.length === 0) return
    const chunks: Buffer[] = []
    let run: string[] = []
    for (const p of this.parts) {
      if (typeof p === 'string') run.push(p)
      else {
        if (run.length) chunks.push(Buffer.from(run.join(''), 'utf8'))
        run = []
        chunks.push(p)
      }
    }
    if (run.length) chunks.push(Buffer.from(run.join(''), 'utf8'))
    this.parts = []
    this.buffered = 0
    const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
    if (this.fd !== null) writeSync(this.fd, buf)
    else if (this.gz && !this.gz.write(buf)) await once(this.gz, 'drain')
  }

  /** Flushes and closes; returns the size of the file on disk. */
  async close(): Promise<number> {
    await this.flush()
    if (this.fd !== null) {
      closeSync(this.fd)
      this.fd = null
    } else if (this.gz) {
      this.gz.end()
      await this.done
      this.gz = null
    }
    return statSync(this.path).size
  }
}
