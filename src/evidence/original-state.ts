import {createHash} from 'node:crypto'
import {closeSync, constants, fstatSync, openSync, readSync} from 'node:fs'
import type {FileRow} from '../store/files.js'

// A log file kept by reference (`ingest logs --evidence reference`): the case holds none of its
// bytes, only their SHA-256 and size, and reads the original where it lies. Whether that
// original is still the one ingested, for `verify` and for the drafts that say where the evidence is.

/** How many bytes of an original are read at a time. */
export const CHUNK_BYTES = 1 << 20

/** Whether the file's lines are read from its original (nothing of it is in the case). */
export const readFromOriginal = (file: Pick<FileRow, 'lines_held'>): boolean => file.lines_held === 'none'

/**
 * Whether an original kept by reference is still what was ingested, as verify judges it: there,
 * a regular file, and its first `size` bytes hash to the SHA-256 recorded (a log appended to
 * since is intact). A document that says the originals are kept states only what this finds.
 */
export function originalState(file: Pick<FileRow, 'abs_path' | 'size' | 'sha256'>): 'intact' | 'missing' | 'changed' {
  let fd: number
  try {
    fd = openSync(file.abs_path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch {
    return 'missing'
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile() || stat.size < file.size) return 'changed'
    const hash = createHash('sha256')
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
    let at = 0
    while (at < file.size) {
      const n = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, file.size - at), at)
      if (n === 0) return 'changed'
      hash.update(chunk.subarray(0, n))
      at += n
    }
    return hash.digest('hex') === file.sha256 ? 'intact' : 'changed'
  } catch {
    return 'changed'
  } finally {
    closeSync(fd)
  }
}
