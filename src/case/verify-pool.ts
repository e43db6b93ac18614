import {existsSync} from 'node:fs'
import {availableParallelism} from 'node:os'
import {fileURLToPath} from 'node:url'
import {Worker} from 'node:worker_threads'
import {workersFromEnv} from '../ingest/parse-pool.js'
import type {FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {lineCheckContext, verifyLogFile, type FileLineTally} from './verify-lines.js'
import {mergeProblems, type Problems, type VerifyProblem} from './verify-problems.js'

// The line walk of each log file is independent of every other (parse, compare, derive), and
// parsing is most of verify's cost: files are spread over worker threads, each with its own
// read-only connection to the case. One file, a small case, or no built worker script: the
// main thread does it all, the same way.

/** Below this much log evidence, starting workers costs more than it saves. */
const PARALLEL_FROM_BYTES = 32 << 20

/** The compiled worker script, from src/ under a test runner, or from dist/case/ or a bundle in dist/bundles/ (scripts/bundle.mjs). */
function workerScript(): string | null {
  const here = fileURLToPath(import.meta.url)
  const js = here.endsWith('.ts') ? here.replace(/[/\\]src[/\\]case[/\\]verify-pool\.ts$/, '/dist/case/verify-worker.js') : fileURLToPath(new URL('../case/verify-worker.js', import.meta.url))
  return existsSync(js) ? js : null
}

export interface LogFilesCheck {
  tallies: FileLineTally[]
  workers: number
}

export async function verifyLogFiles(
  db: CaseDb, files: readonly FileRow[], problems: Problems, options: {deep: boolean; compareSightings: boolean; workers?: number},
): Promise<LogFilesCheck> {
  const bytes = files.reduce((a, f) => a + (f.content_size ?? f.size), 0)
  const wanted = options.workers ?? workersFromEnv() ?? Math.min(4, availableParallelism())
  // An explicit worker count (tests, CROSSTALK_WORKERS) applies whatever the size.
  const bigEnough = options.workers !== undefined || bytes >= PARALLEL_FROM_BYTES
  const script = files.length > 1 && wanted > 1 && bigEnough ? workerScript() : null
  if (!script) {
    const ctx = lineCheckContext(db, problems, options)
    return {tallies: files.map((f) => verifyLogFile(ctx, f)), workers: 0}
  }
  const count = Math.min(wanted, files.length)
  // Largest first, so that one big file does not start last.
  const queue = [...files].sort((a, b) => (b.content_size ?? b.size) - (a.content_size ?? a.size)).map((f) => f.id)
  const results = new Map<number, {tally: FileLineTally; listed: VerifyProblem[]; total: number}>()
  const workers = Array.from({length: count}, () => new Worker(script, {workerData: {path: db.name, deep: options.deep, compareSightings: options.compareSightings}}))
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve, reject) => {
            const next = (): void => {
              const id = queue.shift()
              if (id === undefined) resolve()
              else worker.postMessage(id)
            }
            worker.on('message', (msg: {ok: true; fileId: number; tally: FileLineTally; listed: VerifyProblem[]; total: number} | {ok: false; fileId: number; message: string}) => {
              if (!msg.ok) return reject(new Error(`verify worker failed on file #${msg.fileId}: ${msg.message}`))
              results.set(msg.fileId, msg)
              next()
            })
            worker.on('error', reject)
            worker.on('exit', (code) => {
              if (code !== 0) reject(new Error(`verify worker exited with code ${code}`))
            })
            next()
          }),
      ),
    )
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
  // Reported in file order, whichever worker finished first.
  const tallies: FileLineTally[] = []
  for (const f of files) {
    const r = results.get(f.id)!
    mergeProblems(problems, r.listed, r.total)
    tallies.push(r.tally)
  }
  return {tallies, workers: count}
}
