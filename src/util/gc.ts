import {setFlagsFromString} from 'node:v8'
import {runInNewContext} from 'node:vm'

let gcFn: (() => void) | null | undefined

/**
 * A full garbage collection where the runtime allows it. A bound on peak memory between the
 * phases of a long command, never a correctness matter: V8 lets the old generation grow to a
 * multiple of the live heap before it collects on its own.
 */
export function fullGc(): void {
  if (gcFn === undefined) {
    try {
      setFlagsFromString('--expose-gc')
      gcFn = runInNewContext('gc') as () => void
    } catch {
      gcFn = null
    }
  }
  gcFn?.()
}

/**
 * How far V8 lets a heap grow between full collections once a command's bulk work starts:
 * 1.3 times what survived the last one (V8 adds at least 8 MB all the same, so a small heap is
 * collected no more often than at 1.8). V8's own factor goes up to 4 where the heap may pass
 * 2 GB, and with three heaps at work (the main thread's and two parse workers') that was most of
 * what separated ingest's and the scan's peaks from the data they hold (200k-record triage 230
 * -> 176 MB at 1.8, measured when the launcher still set --max-old-space-size=1536 for it).
 * 1.3, not 1.8: at 5M records V8's incremental collections leave about 24 MB on the main thread
 * where a forced one leaves 12, and the next limit is set from that; one 5M triage each way,
 * ingest's RSS 195-204 MB against 210-217 and the quick pass's 207 against 221 (the whole
 * triage 343 s against 324-329, within what the page cache's share of 13.7 GB of logs moves it);
 * at 200k, three alternating triage pairs, the same time and peaks.
 */
const HEAP_GROWING_PERCENT = 30

let growthBounded = false

/**
 * Bounds V8's heap growth (see HEAP_GROWING_PERCENT) from here on, in every thread of the
 * process: V8 reads the setting each time it sets a heap's next limit, so a command can set it
 * once it is past what must be quick. Every command sets it as it starts but `triage`, whose
 * ingest sets it (ingest-logs.ts) once the canary verdict is printed: while the registry and
 * the quick pass churn through the main heap, bounded full collections (at 1.8x then) cost the verdict
 * 0.1-0.2 s at 200k records (of about 2.1-2.3 s, alternating runs). A pass past 1 GiB of input
 * sets it itself (quick-pass.ts BOUND_HEAP_AFTER_BYTES): at 5M records the main heap had grown
 * 23 -> 61 MB of old generation between two collections, the whole command's peak.
 */
export function boundHeapGrowth(): void {
  if (growthBounded) return
  growthBounded = true
  try {
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
  } catch {
    // A runtime without V8's flags: its own heap policy stands (memory, never an answer).
  }
}

/** Whether boundHeapGrowth has run in this thread (for tests). */
export function heapGrowthBounded(): boolean {
  return growthBounded
}

/**
 * Lets worker threads created from here on take their young generation from their own
 * resourceLimits. bin/run.js gives the main thread 4 MB semi-spaces with
 * --max-semi-space-size, and V8 applies that flag, over a worker's own limits, to every isolate
 * created while it is set: parse workers under it held 8 MB of new space where their limit, 4 MB then,
 * holds 4 (measured), with the main thread's that put a 200k-record triage's peak about 12 MB
 * higher. V8 reads the flag when it creates an isolate, so the main thread's stays as it was.
 */
export function workersUseTheirOwnYoungLimits(): void {
  try {
    setFlagsFromString('--max-semi-space-size=0')
  } catch {
    // A runtime without V8's flags: nothing was set.
  }
}
