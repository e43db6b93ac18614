import {existsSync} from 'node:fs'
import {fileURLToPath} from 'node:url'
import {Worker} from 'node:worker_threads'
import {CliError} from '../errors.js'
import {workersFromEnv} from '../ingest/parse-pool.js'
import type {ProvenanceOptions} from './provenance.js'
import type {ScanProgress, ScanResult} from './scan-case.js'

// `scan` (and triage's scan) run synchronously for minutes on a large case. On the main thread a
// caught SIGINT or SIGTERM is dispatched only once the scan has returned, and an uncaught one
// ended the process without a word. So the scan runs on a worker thread with a connection of its
// own, and the main thread stays free to answer a signal at once: it says what was interrupted
// and in what state the case is left, and ends the process by the signal (interrupt.ts). A worker
// cannot be stopped inside a SQLite statement, and neither can a process.exit() that waits for it,
// so the process ends as a killed one would: what the scan committed stays, and SQLite rolls back
// what it had not (the case says the scan did not finish until one does).

export interface ScanJob {
  path: string
  /** ISO time */
  now: string
  poolTokens?: number
  advertisedTokens?: number
  provenance?: Partial<ProvenanceOptions>
  skipProvenance?: boolean
  /** Whether progress messages are wanted. */
  progress: boolean
  /** The audit entry the finished scan is stored with. */
  audit: {command: string; args: Record<string, unknown>; version: string}
}

export type ScanMessage =
  | {type: 'progress'; progress: ScanProgress}
  | {type: 'markers-classified'}
  | {type: 'done'; result: ScanResult}
  | {type: 'failed'; name: string; message: string; code: string; exit: number}

/**
 * The compiled worker script: from dist/ under a test runner (src/), or from dist/detect/ or beside
 * a bundle in dist/bundles/ (scripts/bundle.mjs). Null where there is none, and with
 * CROSSTALK_WORKERS=0 (every thread's work on the main thread, as for ingest): the scan then runs
 * on the main thread, and a signal during it ends the process without a word.
 */
export function scanWorkerScript(): string | null {
  if (workersFromEnv() === 0) return null
  const here = fileURLToPath(import.meta.url)
  const candidates = here.endsWith('.ts')
    ? [here.replace(/[/\\]src[/\\]detect[/\\]scan-thread\.ts$/, '/dist/detect/scan-worker.js')]
    : [fileURLToPath(new URL('./scan-worker.js', import.meta.url)), fileURLToPath(new URL('../detect/scan-worker.js', import.meta.url))]
  return candidates.find((p) => p !== here && existsSync(p)) ?? null
}

/** Runs the scan on a worker thread; onMarkersClassified is told when the sightings are final (the worker goes on meanwhile). */
export function scanOnWorker(script: string, job: ScanJob, handlers: {onProgress?: (p: ScanProgress) => void; onMarkersClassified?: () => void} = {}): Promise<ScanResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, {workerData: job})
    let settled = false
    worker.on('message', (m: ScanMessage) => {
      if (m.type === 'progress') handlers.onProgress?.(m.progress)
      else if (m.type === 'markers-classified') handlers.onMarkersClassified?.()
      else if (m.type === 'done') (settled = true), resolve(m.result)
      else (settled = true), reject(Object.assign(new CliError(m.message, m.code, m.exit), {name: m.name}))
    })
    worker.on('error', (error) => {
      if (!settled) (settled = true), reject(error)
    })
    worker.on('exit', (code) => {
      if (!settled) (settled = true), reject(new CliError(`the scan's thread ended (exit ${code}) before the scan did`, 'E_FAILED', 1))
    })
  })
}
