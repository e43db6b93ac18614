import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'

export async function sha256File(path: string): Promise<{sha256: string; size: number; head: Buffer}> {
  const hash = createHash('sha256')
  let size = 0
  let head = Buffer.alloc(0)
  for await (const chunk of createReadStream(path, {highWaterMark: 1 << 20}) as AsyncIterable<Buffer>) {
    if (size === 0) head = Buffer.from(chunk.subarray(0, 4))
    hash.update(chunk)
    size += chunk.length
  }
  return {sha256: hash.digest('hex'), size, head}
}

export const isGzipHead = (head: Buffer): boolean => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b
