import type {MessagePort} from 'node:worker_threads'
import type {PassCounts} from './pass.js'
import type {NodeNumbers, TenantNumbers} from './record-order.js'

// What provenance's main thread and its helper thread (helper.ts, helper-worker.ts) share.

// Slots of the control block, an Int32Array over shared memory.
/** The next pass to take: each thread takes one with Atomics.add. */
export const NEXT = 0
/** Messages the helper has sent (the main thread waits on this slot). */
export const POSTED = 1
/** The helper's sign of life, counted up as it reads. */
export const BEAT = 2
/** The match chunk the main thread has reached: the helper drops what it was asked to read ahead for it, or before it. */
export const REACHED = 3
/** The block's length in slots. */
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
  silentFrom?: 'start' | 'passes' | 'texts'
  /** Tests: the helper fails (sends an error) at this point. */
  failFrom?: 'start' | 'passes' | 'texts'
}

/** The passes' shared inputs, in shared memory (none copied). */
export interface PassTask {
  passes: number
  expected: number
  boilerplateTenants: number
  rankOfId: Int32Array
  session: Int32Array
  tenant: TenantNumbers
  node: NodeNumbers
}

/** What the main thread asks of the helper. */
export type HelperRequest =
  | {type: 'passes'; task: PassTask}
  /**
   * The texts of these records, decoded from the evidence ahead of the main thread's
   * verification of match chunk `chunk`; dropped once the main thread reaches that chunk
   * (REACHED), and cut short past `maxChars` characters.
   */
  | {type: 'texts'; chunk: number; ids: Uint32Array; maxChars: number}

export type HelperMessage =
  | {type: 'spilled'; passes: number; records: number; ms: number}
  /** One pass done: its candidate tallies as (r, v, n) triples and its boilerplate hashes as (h1, h2) pairs. */
  | {type: 'pass'; pass: number; counts: PassCounts; tallies: Uint32Array; boilerplate: Uint32Array; ms: number}
  /** No pass left to take. */
  | {type: 'idle'}
  /**
   * Texts read ahead for match chunk `chunk`: record ids[i]'s request text at texts[2i], its
   * response text at texts[2i + 1] (null where it has none). A record the helper could not
   * decode is left out: the main thread decodes it itself, and meets the error in its own words.
   * `done`: the last message for that chunk.
   */
  | {type: 'texts'; chunk: number; ids: Uint32Array; texts: Array<string | null>; done: boolean}
  | {type: 'error'; message: string}
