import {parentPort, workerData, type MessagePort} from 'node:worker_threads'
import {releaseFreedMemory} from '../../ingest/native-quick.js'
import {responseFingerprintBytes} from '../../store/extracts.js'
import {openCase, type CaseDb} from '../../store/open-case.js'
import {fullGc} from '../../util/gc.js'
import {PassIndex, type PassOrder} from './pass.js'
import {SpillFiles} from './spill.js'
import {BEAT, NEXT, POSTED, type HelperData, type HelperMessage, type PassTask} from './helper-protocol.js'

// Provenance's helper thread (helper.ts): it writes the spill files through its own read-only
// connection while the main thread puts the records in time order, then takes passes from the
// shared counter beside the main thread. Every message it sends is counted in the control
// block, which the main thread waits on (it waits synchronously: the scan is synchronous).

const data = workerData as HelperData
const ctrl = new Int32Array(data.control)
const port: MessagePort = data.port
const beat = (): void => void Atomics.add(ctrl, BEAT, 1)

function send(message: HelperMessage, transfer: ArrayBuffer[] = []): void {
  port.postMessage(message, transfer)
  Atomics.add(ctrl, POSTED, 1)
  Atomics.notify(ctrl, POSTED)
}

/** A full collection and the C heap's freed pages handed back (this thread's heap is small: a few ms). */
function settle(): void {
  fullGc()
  releaseFreedMemory()
}

function fail(error: unknown): void {
  send({type: 'error', message: error instanceof Error ? error.message : String(error)})
}

/** Tests: blocks this thread for good, as a helper that died would leave the main thread. */
function fallSilent(): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
}

beat()
if (data.silentFrom === 'start') fallSilent()
try {
  if (data.failFrom === 'start') throw new Error('failing as the test asked')
  const t0 = performance.now()
  const db = openCase(data.path, {readonly: true})
  try {
    const passes = data.passes ?? passesFor(db, data.bytesPerPass)
    let records = 0
    if (passes > 1) records = new SpillFiles(data.dir, passes).write(db, beat)
    db.close()
    // What the spill's reading left (a buffer a row, SQLite's sort cache) is let go before the
    // passes: idle until they start, this thread would otherwise hold it through them (part of
    // 36 MB more at the peak of a 5M-record scan, measured).
    settle()
    send({type: 'spilled', passes, records, ms: performance.now() - t0})
  } finally {
    if (db.open) db.close()
  }
} catch (error) {
  fail(error)
}

parentPort!.on('message', (task: PassTask) => {
  try {
    runPasses(task)
  } catch (error) {
    fail(error)
  }
})

/** Passes enough for each one's index to stay within its share of the budget (the main thread runs one beside it). */
function passesFor(db: CaseDb, bytesPerPass: number): number {
  return Math.max(1, Math.ceil(((responseFingerprintBytes(db) / 8) * data.bytesPerResponseFingerprint) / bytesPerPass))
}

function runPasses(task: PassTask): void {
  if (data.silentFrom === 'passes') {
    // Takes a pass first, so that the main thread must run a pass the helper had taken.
    Atomics.add(ctrl, NEXT, 1)
    fallSilent()
  }
  if (data.failFrom === 'passes') {
    Atomics.add(ctrl, NEXT, 1)
    throw new Error('failing as the test asked')
  }
  const order: PassOrder = {session: task.session, tenant: task.tenant, node: task.node}
  const spill = new SpillFiles(data.dir, task.passes)
  let index: PassIndex | undefined
  for (let pass = Atomics.add(ctrl, NEXT, 1); pass < task.passes; pass = Atomics.add(ctrl, NEXT, 1)) {
    index ??= new PassIndex(task.expected, order, task.boilerplateTenants)
    const t0 = performance.now()
    const boiler: number[] = []
    const counts = index.build(
      (visit) => spill.read(pass, 0, task.rankOfId, visit, beat),
      (visit) => spill.read(pass, 1, task.rankOfId, visit, beat),
      (h1, h2) => void boiler.push(h1, h2),
    )
    const tally: number[] = []
    index.match((r, v, n) => void tally.push(r, v, n))
    const tallies = Uint32Array.from(tally)
    const hashes = Uint32Array.from(boiler)
    send({type: 'pass', pass, counts, tallies, boilerplate: hashes, ms: performance.now() - t0}, [tallies.buffer, hashes.buffer])
  }
  index = undefined
  settle()
  send({type: 'idle'})
}
