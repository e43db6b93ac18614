import {readdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {processEnded} from './process-alive.js'

// Files written under a temporary name and renamed into place once complete (reports, notices,
// extracts) carry the writer's pid in that name. A process ended by a signal's default action,
// or by SIGKILL, runs no clean-up: its temporary file stays, hidden (a leading dot), in a folder
// that may be handed to a customer whole, holding a copy of a document. The next write into that
// folder removes those whose writer has ended. A pid that runs (again, or on another host through
// a shared folder: it cannot be told) keeps its file: a live writer's is never removed.

/** Removes the temporary files in `dir` whose names `pattern` matches (its first group: the writer's pid) and whose writer has ended; returns their names. */
export function removeStaleTemps(dir: string, pattern: RegExp): string[] {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return []
  }
  const removed: string[] = []
  for (const name of names) {
    const m = pattern.exec(name)
    if (!m) continue
    const pid = Number(m[1])
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || !processEnded(pid)) continue
    try {
      rmSync(join(dir, name), {force: true})
      removed.push(name)
    } catch {
      // Not ours to remove (another user's, a read-only folder): left, as before.
    }
  }
  return removed
}

/** writeFileAtomic's temporary names: `.NAME.PID.MILLISECONDS.part`. */
export const PART_FILE = /^\..+\.(\d+)\.\d+\.part$/
