import {existsSync, rmSync} from 'node:fs'
import {availableParallelism} from 'node:os'
import {fileURLToPath} from 'node:url'
import {MessageChannel, receiveMessageOnPort, Worker, type MessagePort} from 'node:worker_threads'
import type {CaseDb} from '../../store/open-case.js'
import {workersUseTheirOwnYoungLimits} from '../../util/gc.js'
import {workersFromEnv} from '../../ingest/parse-pool.js'
import {BEAT, CONTROL_SLOTS, NEXT, POSTED, REACHED, type HelperData, type HelperMessage, type HelperRequest, type PassTask} from './helper-protocol.js'
import {provenanceScratchDir, SpillFiles} from './spill.js'

// Provenance on a second core. The scan is synchronous and ran on one core while the other
// idled (3.1-3.5 s at 200k records, the parse workers long gone). A helper thread writes the
// spill files through its own read-only connection while the main thread puts the records in
// time order (two reads of the case that took turns), then takes the passes over the hash
// space beside the main thread. The main thread waits for it with Atomics.wait: nothing here
// needs the event loop. During verification it decodes, a chunk or two ahead, the texts the
// main thread will compare (random reads of the evidence, about 65 us a record: most of
// verification's time); the main thread takes what has arrived when it needs a text and
// decodes the rest itself, so it never waits for the helper there.
//
// Results never depend on the helper: a pass is the same code on either thread, a pass's
// tallies are added to the store whole once the pass is done, and the store sums them, so the
// order passes finish in changes nothing. A helper that stops giving signs of life (it could
// not start, or died) or fails is left behind: the main thread writes the spill, or runs the
// passes the helper had taken, itself.

/**
 * How long the helper may go without a sign of life before the main thread does its work. It
 * gives one every 4,096 records its spill reads and every 64K fingerprints a pass reads; its
 * longest silence in normal work is the one statement that counts the fingerprints' bytes
 * before the spill (25 ms at 200k records).
 */
const STALL_MS = 20_000

/** What helpers have done in this process (tests: that the helper did the work it was given). */
const activity = {spills: 0, passes: 0, fellSilent: 0, failed: 0, textsRead: 0}
export function helperActivity(): Readonly<typeof activity> {
  return {...activity}
}
const WAIT_SLICE_MS = 250

/** The helper script: beside this module in dist/, or under dist/ where this module is bundled. */
function helperScript(): string | null {
  const here = fileURLToPath(import.meta.url)
  const candidates = here.endsWith('.ts')
    ? [here.replace(/[/\\]src[/\\]detect[/\\]provenance[/\\]helper\.ts$/, '/dist/detect/provenance/helper-worker.js')]
    : [fileURLToPath(new URL('./helper-worker.js', import.meta.url)), fileURLToPath(new URL('../detect/provenance/helper-worker.js', import.meta.url))]
  return candidates.find((p) => p !== here && existsSync(p)) ?? null
}

export interface HelperOptions {
  /** Force the number of passes (tests). */
  passes: number | undefined
  /** One pass's index budget: each of the two threads holds one index at a time. */
  bytesPerPass: number
  bytesPerResponseFingerprint: number
  /** Use a helper (tests force it on a one-core machine, or off); default: when there is a second core. */
  helper?: boolean
  /** Tests: the helper takes every pass (the main thread takes none unless the helper falls silent). */
  helperTakesAll?: boolean
  /** Tests: the helper falls silent here, and is given up after `stallMs`. */
  silentFrom?: 'start' | 'passes' | 'texts'
  stallMs?: number
  /** Tests: the helper fails here. */
  failFrom?: 'start' | 'passes' | 'texts'
}

export class ProvenanceHelper {
  private readonly ctrl: Int32Array
  private received = 0
  private lastBeat = -1
  private lastBeatAt = 0
  private stalled = false
  private closed = false
  /** The last match chunk the helper is done reading ahead for. */
  private textsDone = -1

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    control: SharedArrayBuffer,
    readonly dir: string,
    private readonly takesAll: boolean,
    private readonly stallMs: number,
  ) {
    this.ctrl = new Int32Array(control)
  }

  /**
   * Starts the helper and its spill (null where there is none: one core, CROSSTALK_WORKERS=0,
   * a case not in a file, a write transaction open on `db` whose rows the helper's connection
   * would not see, or no helper script).
   */
  static start(db: CaseDb, options: HelperOptions): ProvenanceHelper | null {
    // CROSSTALK_WORKERS=0 keeps every thread's work on the main thread, as it does for ingest.
    const env = workersFromEnv()
    const wanted = options.helper ?? (env === undefined ? availableParallelism() > 1 : env > 0)
    if (!wanted || db.memory || db.inTransaction || !existsSync(db.name)) return null
    const script = helperScript()
    if (script === null) return null
    const dir = provenanceScratchDir()
    const control = new SharedArrayBuffer(CONTROL_SLOTS * 4)
    const {port1, port2} = new MessageChannel()
    const data: HelperData = {
      path: db.name, dir, passes: options.passes, bytesPerPass: options.bytesPerPass,
      bytesPerResponseFingerprint: options.bytesPerResponseFingerprint, control, port: port2, silentFrom: options.silentFrom, failFrom: options.failFrom,
    }
    let worker: Worker
    try {
      workersUseTheirOwnYoungLimits()
      worker = new Worker(script, {workerData: data, transferList: [port2], resourceLimits: {maxYoungGenerationSizeMb: 4}})
    } catch {
      rmSync(dir, {recursive: true, force: true})
      port1.close()
      return null
    }
    // Its failures come as messages; an 'error' event (it could not start) is seen as silence.
    worker.on('error', () => {})
    worker.unref()
    port1.unref()
    const helper = new ProvenanceHelper(worker, port1, control, dir, options.helperTakesAll ?? false, options.stallMs ?? STALL_MS)
    helper.lastBeatAt = performance.now()
    return helper
  }

  /**
   * The spill files once the helper has written them, with the number of passes; null where
   * the helper fell silent or failed (the caller writes them itself).
   */
  spilled(): {passes: number; spill: SpillFiles | null} | null {
    const m = this.next(true)
    if (m === null) return null
    if (m.type !== 'spilled') {
      this.giveUp()
      return null
    }
    activity.spills++
    return {passes: m.passes, spill: m.passes > 1 ? new SpillFiles(this.dir, m.passes) : null}
  }

  /**
   * Runs every pass: the helper takes passes from the shared counter while the main thread
   * runs `own` on the ones it takes; each of the helper's results goes to `apply` on the main
   * thread. Passes the helper had taken when it fell silent or failed are run by `own`.
   */
  runPasses(task: PassTask, own: (pass: number) => void, apply: (m: Extract<HelperMessage, {type: 'pass'}>) => void): void {
    const done = new Uint8Array(task.passes)
    const take = (m: HelperMessage): void => {
      if (m.type === 'error') return this.giveUp()
      if (m.type !== 'pass') return
      if (done[m.pass] === 1) return // run here after the helper fell silent
      done[m.pass] = 1
      activity.passes++
      apply(m)
    }
    if (!this.stalled) this.post({type: 'passes', task})
    for (let pass = this.takesAll ? task.passes : Atomics.add(this.ctrl, NEXT, 1); pass < task.passes; pass = Atomics.add(this.ctrl, NEXT, 1)) {
      own(pass)
      done[pass] = 1
      for (let m = this.next(false); m !== null; m = this.next(false)) take(m)
    }
    // The passes the helper still has.
    while (done.includes(0) && !this.stalled) {
      const m = this.next(true)
      if (m !== null) take(m)
    }
    for (let pass = 0; pass < task.passes; pass++) {
      if (done[pass] === 0) {
        own(pass)
        done[pass] = 1
      }
    }
  }

  /**
   * Asks the helper to decode these records' texts for match chunk `chunk` (the main thread
   * has not reached it yet), at most about `maxChars` characters of them; false where it was
   * not asked (no ids, or no helper left).
   */
  readAhead(chunk: number, ids: Uint32Array, maxChars: number): boolean {
    if (this.stalled || this.closed || ids.length === 0) return false
    this.post({type: 'texts', chunk, ids, maxChars})
    return true
  }

  /**
   * The main thread has reached match chunk `chunk`: the helper stops reading ahead for it
   * (the main thread decodes what has not arrived) and goes on to the next one asked.
   */
  reached(chunk: number): void {
    Atomics.store(this.ctrl, REACHED, chunk)
  }

  /**
   * Hands each text the helper has sent since the last call to `take`. Never waits, unless
   * `waitFor` names a chunk asked of the helper (tests: every text read ahead is then the
   * helper's): then until the helper is done with that chunk, or has fallen silent.
   */
  receivedTexts(take: (chunk: number, id: number, request: string | null, response: string | null) => void, waitFor = -1): void {
    for (;;) {
      if (this.stalled) return
      const m = this.next(waitFor > this.textsDone)
      if (m === null) return
      if (m.type === 'error') return this.giveUp()
      if (m.type !== 'texts') continue
      if (m.done) this.textsDone = Math.max(this.textsDone, m.chunk)
      activity.textsRead += m.ids.length
      for (let i = 0; i < m.ids.length; i++) take(m.chunk, m.ids[i]!, m.texts[2 * i] ?? null, m.texts[2 * i + 1] ?? null)
    }
  }

  private post(request: HelperRequest): void {
    this.worker.postMessage(request)
  }

  /**
   * A helper that failed (its error message) is given up like a silent one: the main thread
   * does what is left, and a failure that is the case's, not the helper's, is then met there
   * and worded as the scan words it.
   */
  private giveUp(): void {
    this.stalled = true
    activity.failed++
  }

  /** Removes the spill files (the passes are done; the helper may still read texts ahead). */
  removeSpill(): void {
    rmSync(this.dir, {recursive: true, force: true})
  }

  /** Stops the helper and removes its spill files. */
  close(): void {
    if (this.closed) return
    this.closed = true
    // Reading ahead stops at its next record, before the thread is terminated.
    Atomics.store(this.ctrl, REACHED, 0x7fffffff)
    void this.worker.terminate().catch(() => {})
    this.port.close()
    rmSync(this.dir, {recursive: true, force: true})
  }

  /** The helper's next message; with `wait`, waits for one, or null once it has fallen silent. */
  private next(wait: boolean): HelperMessage | null {
    for (;;) {
      const got = receiveMessageOnPort(this.port)
      if (got !== undefined) {
        this.received++
        return got.message as HelperMessage
      }
      if (!wait || this.stalled) return null
      Atomics.wait(this.ctrl, POSTED, this.received, WAIT_SLICE_MS)
      const beat = Atomics.load(this.ctrl, BEAT)
      const now = performance.now()
      if (beat !== this.lastBeat) {
        this.lastBeat = beat
        this.lastBeatAt = now
      } else if (now - this.lastBeatAt > this.stallMs && Atomics.load(this.ctrl, POSTED) === this.received) {
        this.stalled = true
        activity.fellSilent++
        return null
      }
    }
  }
}

