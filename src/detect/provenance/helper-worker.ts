import {getHeapStatistics} from 'node:v8'
import {parentPort, workerData, type MessagePort} from 'node:worker_threads'
import {recordTextLoader, type RecordTexts} from '../../evidence/record-texts.js'
import {releaseFreedMemory} from '../../ingest/native-quick.js'
import {responseFingerprintBytes} from '../../store/extracts.js'
import {openCase, type CaseDb} from '../../store/open-case.js'
import {setPageCache} from '../../store/session.js'
import {fullGc} from '../../util/gc.js'
import {PassIndex, type PassOrder} from './pass.js'
import {SpillFiles} from './spill.js'
import {BEAT, NEXT, POSTED, REACHED, type HelperData, type HelperMessage, type HelperRequest, type PassTask} from './helper-protocol.js'

// Provenance's helper thread (helper.ts): it writes the spill files through its own read-only
// connection while the main thread puts the records in time order, then takes passes from the
// shared counter beside the main thread, then decodes the texts verification will read, a
// chunk or two ahead of it. Every message it sends is counted in the control block, which the
// main thread waits on (it waits synchronously: the scan is synchronous).

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

parentPort!.on('message', (request: HelperRequest) => {
  try {
    if (request.type === 'passes') runPasses(request.task)
    else readTexts(request)
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

/** Memory outside V8's heap (the read buffers) after which this thread collects. */
const EXTERNAL_SLACK_BYTES = 8 << 20
/** Page cache of the connection that reads texts ahead (KiB). */
const TEXT_CACHE_KIB = 2048
/** Records whose texts go in one message, and the characters after which one goes sooner. */
const TEXTS_PER_MESSAGE = 32
const CHARS_PER_MESSAGE = 1 << 20

let loadTexts: ((id: number) => RecordTexts) | undefined
let textDb: CaseDb | undefined

/**
 * Decodes the records' texts from the evidence, in the order asked, through a read-only
 * connection of its own (the evidence was committed at ingest), and sends them in small
 * batches. Stops once the main thread has reached the chunk they are for: what is left, it
 * decodes itself. A record that does not decode is left out (the main thread then meets its
 * error, worded as the scan words it).
 */
function readTexts(request: Extract<HelperRequest, {type: 'texts'}>): void {
  const {chunk} = request
  if (data.silentFrom === 'texts') fallSilent()
  if (data.failFrom === 'texts') throw new Error('failing as the test asked')
  if (textDb === undefined) {
    textDb = openCase(data.path, {readonly: true})
    // Random reads, each of a record's row and its evidence block: a page cache would hold pages
    // seldom read twice, beside the main thread's own (16 MB each by default).
    setPageCache(textDb, TEXT_CACHE_KIB)
  }
  loadTexts ??= recordTextLoader(textDb, {random: true})
  let ids: number[] = []
  let texts: Array<string | null> = []
  let chars = 0
  let total = 0
  const flush = (done: boolean): void => {
    if (ids.length === 0 && !done) return
    const sent = Uint32Array.from(ids)
    send({type: 'texts', chunk, ids: sent, texts, done}, [sent.buffer])
    ids = []
    texts = []
    chars = 0
  }
  for (const id of request.ids) {
    if (total >= request.maxChars || Atomics.load(ctrl, REACHED) >= chunk) break
    let t: RecordTexts
    try {
      t = loadTexts(id)
    } catch {
      continue
    }
    beat()
    const n = (t.request_text?.length ?? 0) + (t.response_text?.length ?? 0)
    ids.push(id)
    texts.push(t.request_text, t.response_text)
    chars += n
    total += n
    if (ids.length >= TEXTS_PER_MESSAGE || chars >= CHARS_PER_MESSAGE) flush(false)
  }
  flush(true)
  // Each text is read into a Buffer outside V8's heap, freed only when its small wrapper is
  // collected, and V8 let them reach 4-21 MB here in a 5M-record scan (measured); with this
  // bound the scan's verification ran at 183-187 MB instead of 197-202 (the main thread's alone,
  // before the helper read ahead: 164-168).
  if (getHeapStatistics().external_memory > EXTERNAL_SLACK_BYTES) fullGc()
}
