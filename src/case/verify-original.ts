import {createHash} from 'node:crypto'
import {closeSync, constants, fstatSync, openSync, readSync} from 'node:fs'
import type {FileRow} from '../store/files.js'
import type {Problems} from './verify-problems.js'
import {CHUNK_BYTES} from '../evidence/original-state.js'
import {count} from '../util/plural.js'

// `verify` of a log file kept by reference (`ingest logs --evidence reference`): the case holds
// none of its bytes, so the line walk reads the original where it lies, the bytes ingest read
// (a log appended to since still verifies), in the order the blocks of a copy would give them.
// What cannot be read is said once, as the original's problem: every record of the file then
// shows as missing from the evidence, which is what it is.

export {originalState, readFromOriginal} from '../evidence/original-state.js'


/**
 * The original's first `file.size` bytes in order, as chunks; a problem of kind 'original' when
 * it is missing, not a regular file, or shorter than ingested. `whole`: every byte was read.
 */
export function* originalChunks(file: FileRow, problems: Problems, out: {whole: boolean}): Generator<Buffer> {
  out.whole = false
  let fd: number
  try {
    // Without blocking: a FIFO put where the original was would wait for a writer forever.
    fd = openSync(file.abs_path, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    problems.add('original', file.abs_path, code === 'ENOENT' ? `missing: ${file.path} is kept by reference and the case holds none of its bytes, so its ${count(file.records, 'record')} cannot be read; put the original back, or, if it now lies elsewhere, point the case there with \`crosstalk relocate FROM-DIR TO-DIR\` (renamed where it lay, as logrotate does: \`crosstalk relocate OLD-FILE NEW-FILE\`)` : `cannot be opened (${code ?? (error as Error).message})`)
    return
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) {
      problems.add('original', file.abs_path, `no longer a regular file: ${file.path} is kept by reference`)
      return
    }
    if (stat.size < file.size) problems.add('original', file.abs_path, `changed: shorter (${stat.size} bytes) than the ${file.size} bytes ingested (kept by reference)`)
    let at = 0
    while (at < file.size) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, file.size - at))
      let n: number
      try {
        n = readSync(fd, chunk, 0, chunk.length, at)
      } catch (error) {
        problems.add('original', file.abs_path, `read failed at byte ${at} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
        return
      }
      if (n === 0) return
      at += n
      yield n === chunk.length ? chunk : chunk.subarray(0, n)
    }
    out.whole = true
  } finally {
    closeSync(fd)
  }
}

