import {createHash} from 'node:crypto'
import {closeSync, constants, fstatSync, openSync, readSync, type Stats} from 'node:fs'
import {IntegrityError} from '../errors.js'

// Evidence by reference (`ingest logs --evidence reference`): the case holds no byte of the
// file, and a line is read from the original where it lies. The reader refuses an original that
// is gone, is no longer a regular file, or is shorter than the bytes ingest read (a log that
// grew since, appended to, still reads); the caller checks each line it reads against the
// CRC-32 recorded at ingest (record-texts.ts), so a changed line is never decoded as evidence.
// A CRC-32 catches damage, not a forger: it is linear, and four bytes chosen anywhere in an
// edited line give it back its old CRC. So before the first line of an original is read in a
// process, the bytes ingest read are hashed again and compared with the SHA-256 recorded then,
// which no edit keeps; the file is not hashed again in that process unless its inode, size,
// mtime or ctime changes (ctime cannot be set back by the file's owner).

/** What the reader needs of a file kept by reference. */
export interface OriginalFile {
  id: number
  /** as given at ingest (for messages) */
  path: string
  abs_path: string
  /** bytes ingest read */
  size: number
  /** SHA-256 of those bytes, recorded at ingest (hex); checked before the first read */
  sha256?: string
}

/** Originals whose SHA-256 was found as recorded in this process, by what their stat said then. */
const verified = new Map<string, string>()

const statKey = (stat: Stats, file: OriginalFile): string => `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${file.size}:${file.sha256}`

/** Bytes read at once when reading in order: a scan's next lines are in the same window. */
const WINDOW_BYTES = 1 << 20
/** Originals held open at once (a case of thousands of files must not run out of descriptors). */
const MAX_OPEN = 16

interface Open {
  fd: number
  window: Buffer
  windowStart: number
  windowLen: number
}

/** The one error for an original that cannot be read as ingested: names it and the fix. */
export function originalUnreadable(file: Pick<OriginalFile, 'path' | 'abs_path'>, why: string): IntegrityError {
  return new IntegrityError(
    `${file.path}: kept by reference, and its original ${why} (${file.abs_path}); put the file ingested back where it was, unchanged, or, if it now lies elsewhere, point the case there with \`crosstalk relocate FROM-DIR TO-DIR\` (renamed where it lay, as logrotate does: \`crosstalk relocate OLD-FILE NEW-FILE\`) (\`crosstalk verify\` names every original missing or changed)`,
    'E_ORIGINAL',
  )
}

export class OriginalReader {
  private readonly open = new Map<number, Open>()

  /**
   * The bytes [offset, offset + length) of the original. `random`: reads scattered over the
   * file (provenance's verification) take just the range; otherwise a window is read and kept.
   */
  read(file: OriginalFile, offset: number, length: number, random = false): Buffer {
    if (length === 0) return Buffer.alloc(0)
    if (offset < 0 || offset + length > file.size) throw originalUnreadable(file, `holds no bytes ${offset}..${offset + length} in the ${file.size} bytes ingested`)
    const o = this.opened(file)
    if (offset >= o.windowStart && offset + length <= o.windowStart + o.windowLen) {
      return Buffer.from(o.window.subarray(offset - o.windowStart, offset - o.windowStart + length))
    }
    if (random && length < WINDOW_BYTES) return this.readAt(file, o.fd, offset, length)
    const want = Math.min(Math.max(WINDOW_BYTES, length), file.size - offset)
    if (o.window.length < want) o.window = Buffer.allocUnsafe(want)
    const got = this.fill(file, o.fd, o.window, offset, want)
    o.windowStart = offset
    o.windowLen = got
    if (got < length) throw originalUnreadable(file, `is shorter now than the ${file.size} bytes ingested`)
    return Buffer.from(o.window.subarray(0, length))
  }

  /** Closes every original held open. */
  close(): void {
    for (const o of this.open.values()) closeSync(o.fd)
    this.open.clear()
  }

  private readAt(file: OriginalFile, fd: number, offset: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length)
    if (this.fill(file, fd, out, offset, length) < length) throw originalUnreadable(file, `is shorter now than the ${file.size} bytes ingested`)
    return out
  }

  private fill(file: OriginalFile, fd: number, into: Buffer, offset: number, length: number): number {
    let got = 0
    try {
      while (got < length) {
        const n = readSync(fd, into, got, length - got, offset + got)
        if (n === 0) break
        got += n
      }
    } catch (error) {
      throw originalUnreadable(file, `could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
    }
    return got
  }

  /** SHA-256 of the first `file.size` bytes, read in 1 MiB pieces. */
  private sha256Of(file: OriginalFile, fd: number): string {
    const hash = createHash('sha256')
    const piece = Buffer.allocUnsafe(Math.min(WINDOW_BYTES, Math.max(1, file.size)))
    for (let at = 0; at < file.size; ) {
      const got = this.fill(file, fd, piece, at, Math.min(piece.length, file.size - at))
      if (got === 0) throw originalUnreadable(file, `is shorter now than the ${file.size} bytes ingested`)
      hash.update(piece.subarray(0, got))
      at += got
    }
    return hash.digest('hex')
  }

  private opened(file: OriginalFile): Open {
    const held = this.open.get(file.id)
    if (held) {
      // Most recently used last: the first one is the one to close when too many are open.
      this.open.delete(file.id)
      this.open.set(file.id, held)
      return held
    }
    let fd: number
    try {
      // Without blocking: a FIFO put where the original was would wait for a writer forever.
      fd = openSync(file.abs_path, constants.O_RDONLY | constants.O_NONBLOCK)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      throw originalUnreadable(file, code === 'ENOENT' ? 'is not there any more' : `cannot be opened (${code ?? (error as Error).message})`)
    }
    try {
      const stat = fstatSync(fd)
      if (!stat.isFile()) throw originalUnreadable(file, 'is no longer a regular file')
      if (stat.size < file.size) throw originalUnreadable(file, `is shorter (${stat.size} bytes) than the ${file.size} bytes ingested`)
      if (file.sha256 !== undefined && verified.get(file.abs_path) !== statKey(stat, file)) {
        if (this.sha256Of(file, fd) !== file.sha256) throw originalUnreadable(file, 'has changed since it was ingested: the SHA-256 of its first bytes no longer matches the one recorded then')
        verified.set(file.abs_path, statKey(stat, file))
      }
    } catch (error) {
      closeSync(fd)
      throw error
    }
    if (this.open.size >= MAX_OPEN) {
      const [oldest, o] = this.open.entries().next().value!
      closeSync(o.fd)
      this.open.delete(oldest)
    }
    const o: Open = {fd, window: Buffer.alloc(0), windowStart: 0, windowLen: 0}
    this.open.set(file.id, o)
    return o
  }
}
