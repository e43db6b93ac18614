import {parentPort, workerData} from 'node:worker_threads'
import {CliError} from '../errors.js'
import {appendAudit} from '../store/audit.js'
import {openCase} from '../store/open-case.js'
import {knownScanSummary, scanCase} from './scan-case.js'
import type {ScanJob, ScanMessage} from './scan-thread.js'

// A scan on a thread of its own (scan-thread.ts): the scan is synchronous, and on the main thread
// a signal could not be seen (and so not answered) until it ended.

const job = workerData as ScanJob
const post = (m: ScanMessage): void => parentPort!.postMessage(m)

try {
  const db = openCase(job.path)
  try {
    const now = new Date(job.now)
    const result = scanCase(db, {
      now, poolTokens: job.poolTokens, advertisedTokens: job.advertisedTokens, provenance: job.provenance, skipProvenance: job.skipProvenance,
      onProgress: job.progress ? (p) => post({type: 'progress', progress: p}) : undefined,
      onMarkersClassified: () => post({type: 'markers-classified'}),
      // Stored with the scan, in its last transaction, as the command would store it.
      record: (r) => {
        const {timings_ms: _t, provenance_stats: _p, ...summary} = r
        // With no canary registry the marker classes are recorded as not known (null), as scan --json gives them, never 0.
        appendAudit(db, {at: now, command: job.audit.command, args: job.audit.args, version: job.audit.version, summary: knownScanSummary(summary)})
      },
    })
    post({type: 'done', result})
  } finally {
    db.close()
  }
} catch (error) {
  const e = error as Partial<CliError> & Error
  post({type: 'failed', name: e?.name ?? 'Error', message: e?.message ?? String(error), code: e instanceof CliError ? e.code : typeof e?.code === 'string' ? e.code : 'E_FAILED', exit: e instanceof CliError ? e.exit : 1})
}
