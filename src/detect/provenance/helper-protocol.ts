import type {MessagePort} from 'node:worker_threads'
import type {PassCounts} from './pass.js'

// What provenance's main thread and its helper thread (helper.ts, helper-worker.ts) share.

// Slots of the control block, an Int32Array over shared memory.
/** The next pass to take: each thread takes one with Atomics.add. */
export const NEXT = 0
/** Messages the helper has sent (the main thread waits on this slot). */
export const POSTED = 1
/** The helper's sign of life, counted up as it reads. */
export const BEAT = 2
/** The block's length in slots (one spare). */
export const CONTROL_SLOTS = 4

export interface HelperData {
  /** The case file, opened read-only by the helper. */
  path: string
  /** Where the spill files go (made by the main thread, which removes it). */
  dir: string
  /** Passes asked for (tests), else the helper counts them from the fingerprints' bytes. */
  passes: number | undefined
  bytesPerPass: number
  bytesPerResponseFingerprint: number
  control: SharedArrayBuffer
  port: MessagePort
  /** Tests: the helper stops answering (as if it had died) at this point. */
  silentFrom?: 'start' | 'passes'
  /** Tests: the helper fails (sends an error) at this point. */
  failFrom?: 'start' | 'passes'
}

/** The passes' shared inputs, in shared memory (none copied). */
export interface PassTask {
  passes: number
  expected: number
  boilerplateTenants: number
  rankOfId: Int32Array
  session: Int32Array
  tenant: Uint16Array | Int32Array
  node: Int16Array | Int32Array
}

export type HelperMessage =
  | {type: 'spilled'; passes: number; records: number; ms: number}
  /** One pass done: its candidate tallies as (r, v, n) triples and its boilerplate hashes as (h1, h2) pairs. */
  | {type: 'pass'; pass: number; counts: PassCounts; tallies: Uint32Array; boilerplate: Uint32Array; ms: number}
  /** No pass left to take. */
  | {type: 'idle'}
  | {type: 'error'; message: string}
