// SIGINT / SIGTERM during a long ingest: the first signal asks the work to stop at the next
// unit (an AbortSignal), so that the command can say what was kept and record it in the audit
// log; a second one is not caught, and ends the process at once (what was committed is kept
// either way: an unfinished file stays 'loading' and the next ingest redoes it). Work that runs
// synchronously for long could not see a caught signal until it ended: `scan` runs on a worker
// thread (detect/scan-thread.ts), and answerInterrupts prints what was interrupted and ends the
// process by the signal; triage's scan (and `scan` with no worker threads) runs on the main thread
// and lets the event loop turn between its phases and pages of records (scanCaseUntil), so that the
// signal is seen there. What such a scan committed stays, and the case says the scan did not
// finish until one does (coverage.ts, unfinished_scan_started_at).

export interface InterruptWatch {
  signal: AbortSignal
  /** The signal received, or null. */
  received(): NodeJS.Signals | null
  dispose(): void
}

/** How many watches are listening now: the answer after the work is stored (answerAfterStored) leaves a signal to them. */
let watching = 0

export function watchInterrupts(): InterruptWatch {
  watching++
  let disposed = false
  const controller = new AbortController()
  let received: NodeJS.Signals | null = null
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']
  const handler = (sig: NodeJS.Signals): void => {
    received = sig
    // The next one takes the default action.
    for (const s of signals) process.removeListener(s, handler)
    controller.abort(new Error(`received ${sig}`))
  }
  for (const s of signals) process.on(s, handler)
  return {
    signal: controller.signal,
    received: () => received,
    dispose: () => {
      for (const s of signals) process.removeListener(s, handler)
      if (!disposed) watching--
      disposed = true
    },
  }
}

let stored: {check: () => boolean; message: (sig: NodeJS.Signals) => string} | null = null

/**
 * Once a command has recorded its work in the case (its audit entry): a SIGINT or SIGTERM that
 * comes before it ends (printing its result, closing the case) still ends it by the signal (130
 * or 143), as before, but first says in one line that the work was stored, where `check()` still
 * finds it so (the entry committed: the transaction it was written in did not roll back);
 * otherwise nothing is said. A watch listening at the time (watchInterrupts) answers instead.
 * The latest call's check and message stand.
 */
export function answerAfterStored(check: () => boolean, message: (sig: NodeJS.Signals) => string): void {
  const first = stored === null
  stored = {check, message}
  if (!first) return
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']
  const handler = (sig: NodeJS.Signals): void => {
    if (watching > 0) return
    for (const s of signals) process.removeListener(s, handler)
    let ok = false
    try {
      ok = stored?.check() ?? false
    } catch {
      ok = false
    }
    if (ok) process.stderr.write(`${stored!.message(sig)}\n`)
    process.kill(process.pid, sig)
  }
  for (const s of signals) process.on(s, handler)
}

/** The conventional exit status after a signal: 128 + its number. */
export function signalExitCode(sig: NodeJS.Signals): number {
  return sig === 'SIGINT' ? 130 : sig === 'SIGTERM' ? 143 : 1
}

/**
 * While work runs on another thread that cannot be stopped mid-statement (scan-thread.ts): the
 * first SIGINT or SIGTERM prints `message(signal)` on stderr at once, then ends the process by
 * that signal, its default action (the shell sees 130 or 143), as an uncaught one would have
 * without a word. Returns the function that stops answering.
 */
export function answerInterrupts(message: (sig: NodeJS.Signals) => string): () => void {
  watching++
  let stopped = false
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM']
  const handler = (sig: NodeJS.Signals): void => {
    for (const s of signals) process.removeListener(s, handler)
    process.stderr.write(`${message(sig)}\n`)
    // No listener is left: the signal again takes its default action, ending the process now.
    process.kill(process.pid, sig)
  }
  for (const s of signals) process.on(s, handler)
  return () => {
    for (const s of signals) process.removeListener(s, handler)
    if (!stopped) watching--
    stopped = true
  }
}
