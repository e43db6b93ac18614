import {realpathSync, statSync} from 'node:fs'
import {resolve} from 'node:path'

/** Paths that name a file descriptor of this process (/dev/stdin, /dev/fd/N, /proc/self/fd/N): gone once it exits. */
export const DESCRIPTOR_PATH = /^\/(dev\/(stdin|stdout|stderr|fd(\/|$))|proc\/(self|thread-self|\d+)\/(fd|fdinfo|task\/\d+\/fd)\/)/

/** Whether a path names a file descriptor of the process that reads it, not a file that a later process can open again. */
export function namesDescriptor(path: string): boolean {
  return DESCRIPTOR_PATH.test(resolve(path))
}

/**
 * The regular file a descriptor path is open on, by its own path (stdin redirected from a file:
 * `< a.jsonl`), or null where there is none (a pipe, a terminal, a deleted file) or the path names
 * no descriptor.
 */
export function descriptorFile(path: string): string | null {
  const abs = resolve(path)
  if (!DESCRIPTOR_PATH.test(abs)) return null
  try {
    const candidate = realpathSync(abs)
    const a = statSync(abs)
    const b = statSync(candidate)
    if (!DESCRIPTOR_PATH.test(candidate) && !candidate.startsWith('/proc/') && b.isFile() && a.dev === b.dev && a.ino === b.ino) return candidate
  } catch {
    return null
  }
  return null
}
