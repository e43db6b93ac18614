import {parentPort, workerData} from 'node:worker_threads'
import {UnconventionalSet} from '../detect/extract.js'
import {processUnit, type UnitTask} from './process-unit.js'

// Worker-thread entry for ingest: parses units of lines and posts the results back.
// The fingerprint array is transferred, not copied.
const unconventional = new UnconventionalSet((workerData as {unconventional: string[]}).unconventional)
parentPort!.on('message', (task: UnitTask) => {
  try {
    const result = processUnit(task, unconventional)
    parentPort!.postMessage({ok: true, result}, [result.fp.buffer as ArrayBuffer])
  } catch (error) {
    parentPort!.postMessage({ok: false, seq: task.seq, message: (error as Error).stack ?? String(error)})
  }
})
