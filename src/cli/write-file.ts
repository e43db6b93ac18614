import {closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync, writeSync} from 'node:fs'
import {basename, dirname, join, resolve} from 'node:path'
import {InputError} from '../errors.js'
import {PART_FILE, removeStaleTemps} from '../util/stale-temp.js'

// Files the commands write for people (reports, notices, exports). Written to a temporary file
// in the same directory and renamed into place once complete, so that a full disk, a killed
// process or a read-only directory never leaves an empty or half-written report under the
// name the user asked for; errors name that path and the cause in one line. The temporary file
// is removed whenever the write does not complete in this process (finally). A signal's default
// action, or SIGKILL, ends the process with no code run at all (the write is synchronous: no
// listener could run in the middle of it), so each write first removes, naming them through
// `onStale`, the temporary files in its folder whose writer has ended (util/stale-temp.ts).

export function writeFileAtomic(out: string, bytes: Buffer, options: {onStale?: (message: string) => void} = {}): void {
  const dir = dirname(resolve(out))
  if (!existsSync(dir)) throw new InputError(`${out}: cannot write: there is no directory ${dir}`, 'E_NO_DIR')
  const existing = statIfAny(out)
  if (existing?.isDirectory()) throw new InputError(`${out}: cannot write: it is a directory`, 'E_CANNOT_WRITE')
  // A FIFO would block the open until a reader came (for ever, with none); a device keeps nothing.
  if (existing && !existing.isFile()) throw new InputError(`${out}: cannot write: it is not a regular file (a FIFO, device or socket); give a file path`, 'E_NOT_A_FILE')
  const stale = removeStaleTemps(dir, PART_FILE)
  if (stale.length > 0) options.onStale?.(`${dirname(out)}: removed ${stale.length === 1 ? 'a temporary file' : `${stale.length} temporary files`} that an interrupted write left there (${stale.join(', ')})`)
  const tmp = join(dir, `.${basename(out)}.${process.pid}.${Date.now()}.part`)
  let renamed = false
  try {
    writeAll(tmp, bytes, 'wx')
    renameSync(tmp, out)
    renamed = true
  } catch (error) {
    if (error instanceof InputError) throw new InputError(error.message.replace(tmp, out), error.code)
    throw new InputError(`${out}: cannot write (${describe(error)})`, 'E_CANNOT_WRITE')
  } finally {
    if (!renamed) rmSync(tmp, {force: true})
  }
}

function writeAll(path: string, bytes: Buffer, flag: 'w' | 'wx'): void {
  let fd: number
  try {
    fd = openSync(path, flag, 0o600)
  } catch (error) {
    throw new InputError(`${path}: cannot write (${describe(error)})`, 'E_CANNOT_WRITE')
  }
  try {
    for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done)
    // On disk before it takes the final name (a crash right after must not leave an empty file there).
    if (flag === 'wx') fsyncSync(fd)
  } catch (error) {
    throw new InputError(`${path}: cannot write (${describe(error)})`, 'E_CANNOT_WRITE')
  } finally {
    closeSync(fd)
  }
}

function statIfAny(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  const words: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EDQUOT: 'disk quota exceeded',
    EFBIG: 'file too large for this system or its limits',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'read-only file system',
    EISDIR: 'it is a directory',
    ENOENT: 'no such directory',
  }
  return e.code && words[e.code] ? `${e.code}: ${words[e.code]}` : (e.code ?? e.message)
}
