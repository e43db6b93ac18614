import {createReadStream} from 'node:fs'
import {createGunzip} from 'node:zlib'
import {TruncatedStreamError} from './line-reader.js'

// Cuts a (possibly gzip-compressed) file into units of whole lines, about `unitBytes`
// each, with exact offsets into the decompressed stream: the work items that parse
// workers take. A line longer than `maxLineBytes` is not assembled; it comes out as an
// `oversize` event with its line number, offset and length (its bytes still pass through
// onChunk into the evidence store).

export type UnitEvent =
  | {kind: 'unit'; bytes: Buffer; offset: number; firstLineNo: number; lines: number}
  | {kind: 'oversize'; lineNo: number; offset: number; length: number}

export interface UnitReaderOptions {
  gzip: boolean
  unitBytes: number
  maxLineBytes: number
  /** Every decompressed chunk, in order, before any unit containing it is yielded. */
  onChunk?: (chunk: Buffer) => void
  /** Every chunk of the file as stored (for gzip, the compressed bytes), in order. */
  onFileChunk?: (chunk: Buffer) => void
}

function countNewlines(buf: Buffer): number {
  let n = 0
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++
  return n
}

export async function* readUnits(path: string, options: UnitReaderOptions): AsyncGenerator<UnitEvent> {
  const file = createReadStream(path, {highWaterMark: 1 << 20})
  const stream: AsyncIterable<Buffer> = options.gzip ? file.pipe(createGunzip({chunkSize: 1 << 20})) : file
  if (options.gzip) file.on('error', (e) => (stream as unknown as NodeJS.ReadableStream).emit('error', e))
  if (options.gzip && options.onFileChunk) file.on('data', (chunk) => options.onFileChunk!(chunk as Buffer))
  let pending: Buffer[] = []
  let pendingBytes = 0
  let pendingStart = 0 // stream offset of the first pending byte
  let lineNo = 1 // number of the first pending line
  let lineStart = 0 // stream offset where the current (unfinished) line starts
  let pos = 0 // stream offset of the current chunk
  let oversize: {lineNo: number; offset: number; length: number} | null = null

  const take = (upTo: number): UnitEvent | null => {
    // The pending bytes before stream offset `upTo` (a line boundary) as one unit.
    const n = upTo - pendingStart
    if (n <= 0) return null
    const all = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes)
    const bytes = Buffer.from(all.subarray(0, n)) // own ArrayBuffer: transferable
    const rest = all.subarray(n)
    pending = rest.length > 0 ? [rest] : []
    pendingBytes = rest.length
    const unit: UnitEvent = {kind: 'unit', bytes, offset: pendingStart, firstLineNo: lineNo, lines: countNewlines(bytes) + (bytes[n - 1] === 10 ? 0 : 1)}
    lineNo += unit.lines
    pendingStart = upTo
    return unit
  }

  try {
    for await (const chunk of stream) {
      if (!options.gzip) options.onFileChunk?.(chunk)
      options.onChunk?.(chunk)
      let c = chunk
      let at = pos
      pos += chunk.length
      if (oversize) {
        const nl = c.indexOf(10)
        if (nl === -1) {
          oversize.length += c.length
          continue
        }
        oversize.length += nl
        yield {kind: 'oversize', ...oversize}
        oversize = null
        lineNo++
        c = c.subarray(nl + 1)
        at += nl + 1
        pendingStart = at
        lineStart = at
      }
      if (c.length === 0) continue
      const lastNl = c.lastIndexOf(10)
      pending.push(c)
      pendingBytes += c.length
      if (lastNl !== -1) lineStart = at + lastNl + 1
      if (pos - lineStart > options.maxLineBytes) {
        // The unfinished line is over the limit: emit the lines before it, then skip it.
        const unit = take(lineStart)
        if (unit) yield unit
        oversize = {lineNo, offset: lineStart, length: pos - lineStart}
        pending = []
        pendingBytes = 0
        pendingStart = pos
        continue
      }
      if (pendingBytes >= options.unitBytes && lastNl !== -1) {
        const unit = take(lineStart)
        if (unit) yield unit
      }
    }
  } catch (error) {
    const err = error as NodeJS.ErrnoException
    if (options.gzip && (err.code === 'Z_BUF_ERROR' || err.code === 'Z_DATA_ERROR' || /unexpected end/i.test(err.message))) {
      if (oversize) yield {kind: 'oversize', ...oversize}
      else {
        const unit = take(pendingStart + pendingBytes)
        if (unit) yield unit
      }
      throw new TruncatedStreamError(`gzip stream is truncated or corrupt after ${pos} decompressed bytes (${err.message})`)
    }
    throw error
  }
  if (oversize) yield {kind: 'oversize', ...oversize}
  else {
    const unit = take(pendingStart + pendingBytes)
    if (unit) yield unit
  }
}
