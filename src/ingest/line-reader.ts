import {createReadStream} from 'node:fs'
import {createGunzip} from 'node:zlib'

// Splits a (possibly gzip-compressed) file into lines with exact byte offsets into the
// decompressed stream, in constant memory except for the line being assembled. A line's
// bytes exclude its LF terminator; a CR before it stays in the raw bytes (the caller trims
// it for parsing). Lines longer than `maxLineBytes` are reported, not assembled.

export interface RawLine {
  lineNo: number
  offset: number
  length: number
  /** Undefined when the line exceeded maxLineBytes (its bytes stay in the evidence store). */
  bytes: Buffer | undefined
}

export interface LineReaderOptions {
  gzip: boolean
  maxLineBytes: number
  /** Every decompressed chunk, in order, before its lines are yielded. */
  onChunk?: (chunk: Buffer) => void
}

export class TruncatedStreamError extends Error {}

export async function* readLines(path: string, options: LineReaderOptions): AsyncGenerator<RawLine> {
  const file = createReadStream(path, {highWaterMark: 1 << 20})
  const stream: AsyncIterable<Buffer> = options.gzip ? file.pipe(createGunzip({chunkSize: 1 << 20})) : file
  if (options.gzip) file.on('error', (e) => (stream as unknown as NodeJS.ReadableStream).emit('error', e))
  let lineNo = 1
  let lineStart = 0 // absolute offset of the current line's first byte
  let pos = 0 // absolute offset of the current chunk's first byte
  let carry: Buffer[] = []
  let carryBytes = 0
  let oversize = false
  try {
    for await (const chunk of stream) {
      options.onChunk?.(chunk)
      let from = 0
      for (;;) {
        const nl = chunk.indexOf(10, from)
        if (nl === -1) break
        const piece = chunk.subarray(from, nl)
        const length = carryBytes + piece.length
        let bytes: Buffer | undefined
        if (!oversize && length <= options.maxLineBytes) bytes = carryBytes === 0 ? piece : Buffer.concat([...carry, piece], length)
        yield {lineNo, offset: lineStart, length, bytes}
        lineNo++
        lineStart = pos + nl + 1
        carry = []
        carryBytes = 0
        oversize = false
        from = nl + 1
      }
      if (from < chunk.length) {
        const rest = chunk.subarray(from)
        carryBytes += rest.length
        if (carryBytes > options.maxLineBytes) {
          oversize = true
          carry = []
        } else carry.push(Buffer.from(rest)) // copy: the stream may reuse its buffer
      }
      pos += chunk.length
    }
  } catch (error) {
    const err = error as NodeJS.ErrnoException
    if (options.gzip && (err.code === 'Z_BUF_ERROR' || err.code === 'Z_DATA_ERROR' || /unexpected end/i.test(err.message))) {
      if (carryBytes > 0 || oversize) yield {lineNo, offset: lineStart, length: carryBytes, bytes: oversize ? undefined : Buffer.concat(carry, carryBytes)}
      throw new TruncatedStreamError(`gzip stream is truncated or corrupt after ${pos} decompressed bytes (${err.message})`)
    }
    throw error
  }
  if (carryBytes > 0 || oversize) yield {lineNo, offset: lineStart, length: carryBytes, bytes: oversize ? undefined : Buffer.concat(carry, carryBytes)}
}
