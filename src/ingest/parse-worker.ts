import {parentPort, workerData} from 'node:worker_threads'
import {UnconventionalSet} from '../extract/extract.js'
import type {SharedAutomaton} from '../extract/aho-corasick.js'
import {processUnit, type UnitTask} from './process-unit.js'
import {quickUnit, type QuickUnitTask} from './quick-unit.js'
import {packUnitResult} from './unit-pack.js'
import {releaseNativeQuick, releaseFreedMemory} from './native-quick.js'
import {fullGc} from '../util/gc.js'

// Worker-thread entry for ingest and the quick verdict's pass: parses units of lines and posts
// the results back. Typed arrays (fingerprints; the quick pass's columns; an ingest unit's
// packed records, unit-pack.ts) are transferred, not copied; so is the input, back, when it
// came that way.
// The markers come with the worker's data, or, where the pool started before they were known,
// in a message that precedes every unit.
const data = workerData as {unconventional: string[] | null; automaton: SharedAutomaton | null}
let unconventional = data.unconventional === null ? null : new UnconventionalSet(data.unconventional, data.automaton ?? undefined)
data.unconventional = []
parentPort!.on('message', (task: UnitTask | QuickUnitTask | {endQuickPass: true} | {markers: string[]; automaton: SharedAutomaton | null}) => {
  if ('markers' in task) {
    unconventional = new UnconventionalSet(task.markers, task.automaton ?? undefined)
    return
  }
  if ('endQuickPass' in task) {
    // The quick pass is over: its native extractor goes (see releaseNativeQuick), and the C
    // heap it leaves is handed back once its finalizer has run. So do the markers' strings,
    // which only that extractor read: ingest's matching reads each hit from the text.
    releaseNativeQuick()
    unconventional = unconventional?.withoutMarkers() ?? null
    fullGc()
    setImmediate(releaseFreedMemory)
    return
  }
  try {
    if (unconventional === null) throw new Error('a unit before the markers')
    let result
    let transfer: ArrayBuffer[]
    if ('quickSource' in task) {
      const q = quickUnit(task, unconventional)
      result = q
      transfer = [q.pairs.buffer as ArrayBuffer, q.flags.buffer as ArrayBuffer, q.ts.buffer as ArrayBuffer]
    } else {
      const r = packUnitResult(processUnit(task, unconventional))
      result = r
      transfer = [r.fp.buffer as ArrayBuffer, r.nums.buffer as ArrayBuffer]
    }
    // The input goes back too when it was transferred here (the reader reuses its buffer).
    if (task.transferred) transfer.push(task.bytes.buffer as ArrayBuffer)
    else delete result.input
    parentPort!.postMessage({ok: true, result}, transfer)
  } catch (error) {
    // The cause in one line; the stack (machine paths) only for --verbose, which prints the error's stack.
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
    parentPort!.postMessage({ok: false, seq: task.seq, message, stack: error instanceof Error ? error.stack : undefined})
  }
})
