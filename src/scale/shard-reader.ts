import {createHash} from 'node:crypto'
import {closeSync, createReadStream, openSync, readSync} from 'node:fs'
import {isAbsolute, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {createGunzip} from 'node:zlib'
import {InputError, UsageError} from '../errors.js'
import {isGzipHead, sha256File} from '../evidence/hash-file.js'

// Reading lines back from the original shards by their offsets in the (decompressed) stream:
// the verification of provenance candidates on the executors, and `ingest findings`, which
// stores each finding's line from the shard it names. A shard is a local path or a file://
// URI; a URI of another scheme (s3://, gs://, abfss://, ...) is mapped to a local mount with
// a prefix rewrite (--shard-prefix s3://bucket/logs=/mnt/logs), never fetched over a network.

export interface LineRange {
  offset: number
  length: number
}

export type PrefixRewrite = ReadonlyArray<readonly [from: string, to: string]>

/** --shard-prefix FROM=TO specs. */
export function parsePrefixRewrites(specs: readonly string[] | undefined): PrefixRewrite {
  return (specs ?? []).map((spec) => {
    const eq = spec.indexOf('=')
    if (eq <= 0 || eq === spec.length - 1) throw new UsageError(`--shard-prefix ${spec}: expected FROM=TO, e.g. s3://bucket/logs=/mnt/logs`)
    return [spec.slice(0, eq), spec.slice(eq + 1)] as const
  })
}

/** The local path a shard URI names (after the first matching prefix rewrite). */
export function shardPath(uri: string, rewrites: PrefixRewrite = []): string {
  let target = uri
  for (const [from, to] of rewrites) {
    if (target.startsWith(from)) {
      target = to + target.slice(from.length)
      break
    }
  }
  if (target.startsWith('file:')) return fileURLToPath(target)
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    throw new InputError(`${uri}: crosstalk reads shards from local paths and file:// URIs; map this one to a local mount with --shard-prefix FROM=TO`, 'E_UNREADABLE')
  }
  return isAbsolute(target) ? target : resolve(target)
}

export interface ShardRead {
  /** The bytes of each range asked for, by offset. */
  lines: Map<number, Buffer>
  /** SHA-256 and size of the file as stored, and of its decompressed stream (with `hash`). */
  sha256: string | null
  size: number | null
  contentSha256: string | null
  contentSize: number | null
  gzip: boolean
}

function isGzipFile(path: string): boolean {
  const fd = openSync(path, 'r')
  try {
    const head = Buffer.alloc(2)
    return isGzipHead(head.subarray(0, readSync(fd, head, 0, 2, 0)))
  } finally {
    closeSync(fd)
  }
}

/**
 * The bytes of the given ranges of a shard's (decompressed) stream. A plain file is read at
 * the offsets; a gzip file, or any file when `hash` is asked for, is read once from start to
 * end (the hashes cover every byte), keeping only the ranges.
 */
export async function readShardRanges(path: string, ranges: readonly LineRange[], options: {hash?: boolean} = {}): Promise<ShardRead> {
  let gzip: boolean
  try {
    gzip = isGzipFile(path)
  } catch (error) {
    throw new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
  }
  const lines = new Map<number, Buffer>()
  if (!gzip && !options.hash) {
    const fd = openSync(path, 'r')
    try {
      for (const r of ranges) {
        const buf = Buffer.alloc(r.length)
        const n = r.length === 0 ? 0 : readSync(fd, buf, 0, r.length, r.offset)
        lines.set(r.offset, buf.subarray(0, n))
      }
    } finally {
      closeSync(fd)
    }
    return {lines, sha256: null, size: null, contentSha256: null, contentSize: null, gzip}
  }
  const sorted = [...ranges].sort((a, b) => a.offset - b.offset)
  const contentHash = options.hash ? createHash('sha256') : null
  let pos = 0
  // Ranges being filled: the next one to start, and the open ones (ranges may overlap).
  let next = 0
  const open: Array<{r: LineRange; buf: Buffer; filled: number}> = []
  const file = createReadStream(path, {highWaterMark: 1 << 20})
  const stream: AsyncIterable<Buffer> = gzip ? file.pipe(createGunzip({chunkSize: 1 << 20})) : file
  if (gzip) file.on('error', (e) => (stream as unknown as NodeJS.ReadableStream).emit('error', e))
  try {
    for await (const chunk of stream) {
      contentHash?.update(chunk)
      const end = pos + chunk.length
      while (next < sorted.length && sorted[next]!.offset < end) {
        const r = sorted[next++]!
        open.push({r, buf: Buffer.alloc(r.length), filled: 0})
      }
      for (let i = 0; i < open.length; ) {
        const o = open[i]!
        const from = Math.max(o.r.offset, pos)
        const to = Math.min(o.r.offset + o.r.length, end)
        if (to > from) {
          chunk.copy(o.buf, from - o.r.offset, from - pos, to - pos)
          o.filled += to - from
        }
        if (o.filled >= o.r.length) {
          lines.set(o.r.offset, o.buf)
          open.splice(i, 1)
        } else i++
      }
      pos = end
    }
  } catch (error) {
    // A truncated gzip stream: the ranges read so far stand; the hashes are those of the bytes as they are.
    if (!gzip) throw new InputError(`${path}: read failed (${(error as Error).message})`, 'E_UNREADABLE')
  }
  for (const r of sorted) if (r.length === 0) lines.set(r.offset, Buffer.alloc(0))
  const contentSha256 = contentHash ? contentHash.digest('hex') : null
  if (!options.hash) return {lines, sha256: null, size: null, contentSha256: null, contentSize: pos, gzip}
  // A gzip file's own hash is over its compressed bytes (read again: the stream above may stop at a truncation).
  const stored = gzip ? await sha256File(path) : {sha256: contentSha256!, size: pos}
  return {lines, sha256: stored.sha256, size: stored.size, contentSha256, contentSize: pos, gzip}
}
