import {parentPort, workerData} from 'node:worker_threads'
import {UnconventionalSet} from '../extract/extract.js'
import {processUnit, type UnitTask} from './process-unit.js'

// Worker-thread entry for ingest: parses units of lines and posts the results back.
// The fingerprint array is transferred, not copied; so is the input, back, when it came that way.
const unconventional = new UnconventionalSet((workerData as {unconventional: string[]}).unconventional)
parentPort!.on('message', (task: UnitTask) => {
  try {
    const result = processUnit(task, unconventional)
    // The input goes back too when it was transferred here (the reader reuses its buffer).
    const transfer = [result.fp.buffer as ArrayBuffer]
    if (task.transferred) transfer.push(task.bytes.buffer as ArrayBuffer)
    else delete result.input
    parentPort!.postMessage({ok: true, result}, transfer)
  } catch (error) {
    parentPort!.postMessage({ok: false, seq: task.seq, message: (error as Error).stack ?? String(error)})
  }
})
