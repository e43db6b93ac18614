import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'

/**
 * SHA-256 of a file, or of its first `limit` bytes: a log that has grown since it was ingested
 * is judged on the bytes that were read then (`size` reports how many were hashed; fewer than
 * `limit` means the file is now shorter).
 */
export async function sha256File(path: string, options: {limit?: number} = {}): Promise<{sha256: string; size: number; head: Buffer}> {
  const hash = createHash('sha256')
  let size = 0
  let head = Buffer.alloc(0)
  if (options.limit === 0) return {sha256: hash.digest('hex'), size: 0, head}
  const stream = createReadStream(path, {highWaterMark: 1 << 20, ...(options.limit !== undefined ? {end: options.limit - 1} : {})})
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size === 0) head = Buffer.from(chunk.subarray(0, 4))
    hash.update(chunk)
    size += chunk.length
  }
  return {sha256: hash.digest('hex'), size, head}
}

export const isGzipHead = (head: Buffer): boolean => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b
