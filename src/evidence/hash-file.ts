import {createHash} from 'node:crypto'
import {closeSync, createReadStream, openSync, readSync} from 'node:fs'

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

/**
 * SHA-256 of each of the file's first `sizes` bytes, in one read up to the largest (a hash is
 * copied at each size on the way): whether the file begins with the bytes of a shorter file
 * stored earlier. A size past the file's end gets no entry (the file is shorter).
 */
export async function sha256Prefixes(path: string, sizes: readonly number[]): Promise<Map<number, string>> {
  const wanted = [...new Set(sizes)].filter((n) => n >= 0).sort((a, b) => a - b)
  const out = new Map<number, string>()
  const hash = createHash('sha256')
  let at = 0
  let i = 0
  for (; i < wanted.length && wanted[i] === 0; i++) out.set(0, hash.copy().digest('hex'))
  if (i === wanted.length) return out
  const stream = createReadStream(path, {highWaterMark: 1 << 20, end: wanted.at(-1)! - 1})
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let c = chunk
    while (i < wanted.length && at + c.length >= wanted[i]!) {
      const take = wanted[i]! - at
      hash.update(c.subarray(0, take))
      at += take
      c = c.subarray(take)
      out.set(wanted[i]!, hash.copy().digest('hex'))
      i++
    }
    hash.update(c)
    at += c.length
  }
  return out
}

/** SHA-256 of a file's first `limit` bytes, read synchronously in 1 MiB reads; null where it holds fewer. */
export function sha256FileSync(path: string, limit: number): string | null {
  const hash = createHash('sha256')
  const buf = Buffer.alloc(Math.min(limit, 1 << 20))
  const fd = openSync(path, 'r')
  try {
    let at = 0
    while (at < limit) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, limit - at), at)
      if (n === 0) return null
      hash.update(buf.subarray(0, n))
      at += n
    }
  } finally {
    closeSync(fd)
  }
  return hash.digest('hex')
}
