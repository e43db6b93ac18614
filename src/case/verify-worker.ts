import {parentPort, workerData} from 'node:worker_threads'
import {fileById} from '../store/files.js'
import {openCase} from '../store/open-case.js'
import {lineCheckContext, verifyLogFile} from './verify-lines.js'
import {Problems} from './verify-problems.js'

// Worker-thread entry for verify: checks whole log files, one per message, on its own
// read-only connection to the case, and posts back the file's tally and problems.
const {path, deep, compareSightings} = workerData as {path: string; deep: boolean; compareSightings: boolean}
const db = openCase(path, {readonly: true})
parentPort!.on('message', (fileId: number) => {
  try {
    const problems = new Problems()
    const tally = verifyLogFile(lineCheckContext(db, problems, {deep, compareSightings}), fileById(db, fileId)!)
    parentPort!.postMessage({ok: true, fileId, tally, listed: problems.listed, total: problems.total})
  } catch (error) {
    parentPort!.postMessage({ok: false, fileId, message: (error as Error).stack ?? String(error)})
  }
})
