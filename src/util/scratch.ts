import {mkdtempSync, rmSync} from 'node:fs'
import {join} from 'node:path'

// A scratch folder that holds copies of case data (verify --deep rebuilds the detection in one):
// personal data outside the case. It is removed when the work ends, and also when SIGINT,
// SIGTERM or SIGHUP ends the process first (a finally block never runs then); the signal is
// raised again once the folder is gone, so the process ends as it would have.

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

export interface Scratch {
  path: string
  /** Removes the folder and stops watching for signals (idempotent). */
  remove(): void
}

export function scratchDir(parent: string, prefix: string): Scratch {
  const path = mkdtempSync(join(parent, prefix))
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
  return {path, remove}
}
