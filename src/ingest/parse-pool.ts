import {existsSync} from 'node:fs'
import {availableParallelism} from 'node:os'
import {fileURLToPath} from 'node:url'
import {Worker} from 'node:worker_threads'
import {UnconventionalSet} from '../extract/extract.js'
import {InputError} from '../errors.js'
import type {CompanionIndex} from '../extract/formats/index.js'
import {processUnit, type UnitResult, type UnitTask} from './process-unit.js'
import {quickUnit, type QuickUnitResult, type QuickUnitTask} from './quick-unit.js'
import {releaseNativeQuick} from './native-quick.js'
import {isPacked, unpackUnitResult, type PackedUnitResult} from './unit-pack.js'
import {workersUseTheirOwnYoungLimits} from '../util/gc.js'
import {quoted} from '../util/sanitize.js'

// Parsing and extraction run on worker threads, one per core, while the main thread
// reads, hashes and writes SQLite. Results come back in any order; `next()` hands them
// out in submission order, so the main thread writes records exactly as a sequential
// ingest would. With no workers (small inputs, CROSSTALK_WORKERS=0, or a source checkout
// without a build) the same processUnit runs inline. The quick verdict's pass submits
// QuickUnitTasks (quick-unit.ts) to the same workers and takes their results with nextQuick().

/**
 * The compiled worker script. Under a TypeScript test runner this module is src/…ts; the worker
 * must be plain JS from dist/. Built, this module is dist/ingest/parse-pool.js or part of a bundle
 * in dist/bundles/ (scripts/bundle.mjs): the worker is found from either.
 */
function workerScript(): string | null {
  const here = fileURLToPath(import.meta.url)
  const js = here.endsWith('.ts') ? here.replace(/[/\\]src[/\\]ingest[/\\]parse-pool\.ts$/, '/dist/ingest/parse-worker.js') : fileURLToPath(new URL('../ingest/parse-worker.js', import.meta.url))
  return existsSync(js) ? js : null
}

/** CROSSTALK_WORKERS (0-16), or undefined when unset or empty; anything else is refused. */
export function workersFromEnv(): number | undefined {
  const env = process.env.CROSSTALK_WORKERS
  if (env === undefined || env === '') return undefined
  if (!/^\d+$/.test(env)) throw new InputError(`CROSSTALK_WORKERS must be a whole number of threads (got ${quoted(env)})`, 'E_BAD_ENV')
  return Math.min(16, Number(env))
}

/** Worker threads to use: CROSSTALK_WORKERS when set, else one per core (at most 4). */
export function defaultWorkerCount(): number {
  return workersFromEnv() ?? Math.max(1, Math.min(4, availableParallelism()))
}

interface Slot {
  worker: Worker
  busy: number
}

/**
 * Old-space limit of a parse worker. Not a budget (a worker holds a few MB) but a setting of
 * V8's heap growth: below 2 GB it lets the heap grow by at most about 1.8x between
 * collections instead of 4x, and with three heaps at work that is most of ingest's peak
 * (200k records: 230 -> 195 MB, measured). Units too large to parse safely under it are
 * parsed on the main thread instead (see INLINE_UNIT_BYTES).
 */
const WORKER_OLD_SPACE_MB = 1536

/**
 * Young generation of a parse worker. What a unit allocates is mostly short-lived (its texts,
 * the JSON of each line's other fields, the records' objects), but with 4 MB a scavenge came
 * every megabyte or so and copied what the unit still held: a 200,000-record ingest ran
 * 500-610 scavenges a worker, 1.0-1.5 s of each worker's time (--trace-gc). The addon now hands
 * over a unit's texts one record at a time (native-ingest.ts), and with 8 MB that is 210-270
 * scavenges and 0.55 s, for about 5 MB more RSS (16 MB: 110-140 and 0.25 s, but 20 MB more,
 * which a 5M-record ingest's peak took in full: 243 MB against 223).
 */
const WORKER_YOUNG_MB = 8
/** A unit this large (a line of tens of MB) is parsed on the main thread, whose heap has more room. */
export const INLINE_UNIT_BYTES = 64 << 20

export class ParsePool {
  private readonly slots: Slot[] = []
  private readonly waiting = new Map<number, {seq: number; resolve: (r: UnitResult | PackedUnitResult | QuickUnitResult) => void; reject: (e: Error) => void}>()
  /** The next unit's number in `waiting` (submit). */
  private keys = 0
  private readonly queue: Array<Promise<UnitResult | PackedUnitResult | QuickUnitResult>> = []
  private failure: Error | undefined

  private unconventional: UnconventionalSet | null

  /**
   * `workers` 0 runs everything inline. `unconventional`: the registry's unconventional
   * markers, matched in every response (the set itself where the caller has one: its markers
   * are not sorted, hashed and built into an automaton twice); null starts the workers before
   * the markers are known (they load their code meanwhile), and useMarkers() gives them before
   * the first unit.
   */
  constructor(workers: number, unconventional: UnconventionalSet | readonly string[] | null = []) {
    this.unconventional = unconventional === null || unconventional instanceof UnconventionalSet ? unconventional : new UnconventionalSet(unconventional)
    const script = workers > 0 ? workerScript() : null
    if (!script) return
    // One automaton of the markers for all the workers, in shared memory (each built its own).
    const markers = this.unconventional?.markers ?? null
    const automaton = this.unconventional?.share() ?? null
    workersUseTheirOwnYoungLimits()
    for (let i = 0; i < workers; i++) {
      const worker = new Worker(script, {workerData: {unconventional: markers, automaton}, resourceLimits: {maxYoungGenerationSizeMb: WORKER_YOUNG_MB, maxOldGenerationSizeMb: WORKER_OLD_SPACE_MB}})
      const slot: Slot = {worker, busy: 0}
      worker.on('message', (msg: {ok: true; result: PackedUnitResult | QuickUnitResult} | {ok: false; seq: number; message: string; stack?: string}) => {
        slot.busy--
        const key = msg.ok ? msg.result.seq : msg.seq
        const w = this.waiting.get(key)
        this.waiting.delete(key)
        // The result carries the caller's number for the unit again.
        if (msg.ok && w) msg.result.seq = w.seq
        if (msg.ok) w?.resolve(msg.result)
        else {
          const error = new Error(`parse worker failed: ${msg.message}`)
          if (msg.stack !== undefined) error.stack = `${error.stack ?? error.message}\nin the worker: ${msg.stack}`
          w?.reject(error)
        }
      })
      worker.on('error', (error) => this.fail(error))
      worker.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`parse worker exited with code ${code}`))
      })
      this.slots.push(slot)
    }
  }

  get size(): number {
    return this.slots.length
  }

  /** Whether the markers are given (a pool started with null has none until useMarkers()). */
  get hasMarkers(): boolean {
    return this.unconventional !== null
  }

  /** The markers of a pool started without them; messages keep their order, so every unit submitted after this is read with them. */
  useMarkers(unconventional: UnconventionalSet): void {
    if (this.unconventional !== null) throw new Error('ParsePool.useMarkers: the pool already has its markers')
    this.unconventional = unconventional
    if (this.slots.length === 0) return
    const automaton = unconventional.share()
    for (const slot of this.slots) slot.worker.postMessage({markers: unconventional.markers, automaton})
  }

  get threaded(): boolean {
    return this.slots.length > 0
  }

  /**
   * The quick pass is over: each worker lets go of what only the pass uses (its native
   * extractor). Messages keep their order, so units submitted after this see it done.
   */
  endQuickPass(): void {
    for (const slot of this.slots) slot.worker.postMessage({endQuickPass: true})
    releaseNativeQuick()
  }

  /** Units submitted and not yet taken with next(). */
  get pending(): number {
    return this.queue.length
  }

  /**
   * Queues a unit. With `ownBuffer` the unit's bytes are the only view of their ArrayBuffer
   * (readUnits makes them so): the buffer is transferred to the worker and back, and the
   * caller gets it in the result's `input` to reuse. Otherwise the bytes are transferred
   * only when they span their whole buffer, and the caller must not use them again.
   * A unit whose lines need a companion index (formats that join lines across the file set)
   * is parsed here, on the thread that holds the index.
   * A QuickUnitTask's result is taken with nextQuick(), any other's with next().
   */
  submit(task: UnitTask | QuickUnitTask, ownBuffer = false, index: CompanionIndex | null = null): void {
    if (this.unconventional === null) throw new Error('ParsePool.submit before useMarkers()')
    if (this.slots.length === 0 || task.bytes.byteLength > INLINE_UNIT_BYTES || index !== null) {
      const set = this.unconventional
      this.queue.push(Promise.resolve().then(() => ('quickSource' in task ? quickUnit(task, set) : processUnit(task, set, index))))
      return
    }
    const slot = this.slots.reduce((a, b) => (b.busy < a.busy ? b : a))
    slot.busy++
    // The pool's own number for the unit: two files' units can be in flight at once (ingest
    // reads the next file while the last one's units are written), each numbered from 0.
    const key = this.keys++
    const promise = new Promise<UnitResult | PackedUnitResult | QuickUnitResult>((resolve, reject) => {
      if (this.failure) reject(this.failure)
      else this.waiting.set(key, {seq: task.seq, resolve, reject})
    })
    promise.catch(() => {}) // observed through next(); never an unhandled rejection
    this.queue.push(promise)
    const buffer = task.bytes.buffer as ArrayBuffer
    const transfer = buffer instanceof ArrayBuffer && (ownBuffer || (task.bytes.byteOffset === 0 && task.bytes.byteLength === buffer.byteLength))
    slot.worker.postMessage({...task, seq: key, transferred: transfer}, transfer ? [buffer] : [])
  }

  /** The oldest submitted unit's result (a UnitTask's). */
  async next(): Promise<UnitResult> {
    const r = await this.oldest()
    // A worker's result comes packed (unit-pack.ts); an inline one as processUnit made it.
    if (isPacked(r)) return unpackUnitResult(r)
    if ('items' in r) return r
    throw new Error('ParsePool.next() on a quick unit: take it with nextQuick()')
  }

  /**
   * The same, left packed where a worker packed it: unpacked as it is written, its objects die
   * young instead of waiting in old space for their transaction (unit-pack.ts).
   */
  async nextUnit(): Promise<UnitResult | PackedUnitResult> {
    const r = await this.oldest()
    if (isPacked(r) || 'items' in r) return r
    throw new Error('ParsePool.nextUnit() on a quick unit: take it with nextQuick()')
  }

  /** The oldest submitted unit's result (a QuickUnitTask's). */
  async nextQuick(): Promise<QuickUnitResult> {
    const r = await this.oldest()
    if ('pairs' in r) return r
    throw new Error('ParsePool.nextQuick() on an ingest unit: take it with next()')
  }

  private oldest(): Promise<UnitResult | PackedUnitResult | QuickUnitResult> {
    const head = this.queue.shift()
    if (!head) return Promise.reject(new Error('ParsePool.next() with nothing submitted'))
    return head
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()))
    this.slots.length = 0
  }

  private fail(error: Error): void {
    this.failure ??= error
    for (const w of this.waiting.values()) w.reject(error)
    this.waiting.clear()
  }
}
