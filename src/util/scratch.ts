import {lstatSync, mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {processEnded} from './process-alive.js'

// A scratch folder that holds copies of case data (verify --deep rebuilds the detection in one):
// personal data outside the case. It is removed when the work ends, and also when SIGINT,
// SIGTERM or SIGHUP ends the process first (a finally block never runs then); the signal is
// raised again once the folder is gone, so the process ends as it would have.
//
// SIGKILL (an OOM killer, `timeout -s KILL`, a CI runner's hard stop) runs no handler: the
// folder stayed, a copy of the canary registry in it, and no later run removed it. So the
// folder's name carries the pid of the process it is for (`crosstalk-verify-<pid>-XXXXXX`), and
// each new scratch folder first removes those of its prefix, in the same parent, that belong to
// this user and whose process has ended (gone, or a zombie never reaped). A live process's
// folder is never touched (a pid since reused by another live process keeps its folder until
// that one ends: the safe side).

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/** Folders made before names carried a pid (`<prefix>XXXXXX`) are removed once this old: no run lasts a day. */
const UNNAMED_STALE_MS = 24 * 60 * 60 * 1000

export interface Scratch {
  path: string
  /** Folders of ended processes removed when this one was made (their paths). */
  swept: string[]
  /** Removes the folder and stops watching for signals (idempotent). */
  remove(): void
}

export function scratchDir(parent: string, prefix: string): Scratch {
  const path = mkdtempSync(join(parent, `${prefix}${process.pid}-`))
  const swept = sweepStale(parent, prefix, path)
  let removed = false
  const remove = (): void => {
    if (removed) return
    removed = true
    for (const s of SIGNALS) process.removeListener(s, onSignal)
    rmSync(path, {recursive: true, force: true})
  }
  const onSignal = (sig: NodeJS.Signals): void => {
    remove()
    // Another listener (an interrupt watch) decides what the signal does; alone, it takes its default action.
    if (process.listenerCount(sig) === 0) process.kill(process.pid, sig)
  }
  for (const s of SIGNALS) process.on(s, onSignal)
  return {path, swept, remove}
}

/**
 * Removes `parent`'s folders named `<prefix><pid>-XXXXXX` whose process has ended (and unnamed
 * `<prefix>XXXXXX` ones older than a day), this user's only, never `keep`. Best effort: a folder
 * that cannot be read or removed is left (it is another user's, or already gone).
 */
export function sweepStale(parent: string, prefix: string, keep: string): string[] {
  const swept: string[] = []
  let names: string[]
  try {
    names = readdirSync(parent)
  } catch {
    return swept
  }
  const uid = process.getuid?.()
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const rest = name.slice(prefix.length)
    const withPid = /^(\d+)-[A-Za-z0-9]{6}$/.exec(rest)
    const unnamed = /^[A-Za-z0-9]{6}$/.test(rest)
    if (!withPid && !unnamed) continue
    const path = join(parent, name)
    if (path === keep) continue
    try {
      const stat = lstatSync(path)
      if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue
      if (withPid) {
        const pid = Number(withPid[1])
        if (pid === process.pid || !processEnded(pid)) continue
      } else if (Date.now() - stat.mtimeMs < UNNAMED_STALE_MS) continue
      rmSync(path, {recursive: true, force: true})
      swept.push(path)
    } catch {
      // Gone meanwhile, or not ours to remove: left.
    }
  }
  return swept
}
