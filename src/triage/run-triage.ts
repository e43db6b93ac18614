import {scanCase, type ScanProgress, type ScanResult} from '../detect/scan-case.js'
import type {EvidenceCodec} from '../evidence/evidence-store.js'
import type {FieldMap} from '../extract/parse-record.js'
import {expandPaths} from '../ingest/expand-paths.js'
import {ingestCanaries, type IngestCanariesResult} from '../ingest/ingest-canaries.js'
import {ingestLogs, type IngestLogsResult, type IngestProgress} from '../ingest/ingest-logs.js'
import {computeScope, type ScopeResult} from '../scope/compute-scope.js'
import {loadScopeInputs} from '../scope/scope-data.js'
import type {CaseDb} from '../store/open-case.js'
import {shrinkMemory} from '../store/session.js'
import {fullGc} from '../util/gc.js'

// The first hour of an incident in one process: the registry, the logs, the scan and the
// scope, into one case. Used by `crosstalk triage` and by the demo. Each step that changes
// the case is handed to `afterStep` as soon as it is done, so that the command can audit it
// even if a later step fails.

export interface TriageOptions {
  paths: readonly string[]
  canaries?: string
  map?: FieldMap
  source?: string
  evidenceCodec?: EvidenceCodec
  workers?: number
  maxLineBytes?: number
  poolTokens?: number
  advertisedTokens?: number
  skipProvenance?: boolean
  now: () => Date
  onIngestProgress?: (p: IngestProgress) => void
  onScanProgress?: (p: ScanProgress) => void
}

export interface TriageResult {
  canaries: IngestCanariesResult | null
  ingest: IngestLogsResult
  scan: ScanResult
  scope: ScopeResult
  timings_ms: {canaries: number; ingest: number; scan: number; scope: number; total: number}
}

export type TriageStep =
  | {step: 'canaries'; result: IngestCanariesResult}
  | {step: 'ingest'; result: IngestLogsResult}
  | {step: 'scan'; result: ScanResult}

export async function runTriage(db: CaseDb, options: TriageOptions, afterStep: (s: TriageStep) => void = () => {}): Promise<TriageResult> {
  // Every log path is checked before anything is stored: a typo must not leave a half-made case.
  expandPaths(options.paths)
  const t0 = performance.now()
  // The registry goes in first, so that markers outside the CANARY-<hex> convention are matched while the logs are parsed.
  const canaries = options.canaries ? await ingestCanaries(db, {path: options.canaries, now: options.now}) : null
  if (canaries) afterStep({step: 'canaries', result: canaries})
  const t1 = performance.now()
  const ingest = await ingestLogs(db, {
    paths: options.paths, map: options.map, source: options.source, now: options.now, evidenceCodec: options.evidenceCodec,
    workers: options.workers, maxLineBytes: options.maxLineBytes, onProgress: options.onIngestProgress,
  })
  afterStep({step: 'ingest', result: ingest})
  const t2 = performance.now()
  // Ingest's garbage (parse results, the request-id table) and the page cache are released
  // before the scan builds its own index, so that the two peaks do not stack.
  releaseMemory(db)
  const scan = scanCase(db, {
    now: options.now(), poolTokens: options.poolTokens, advertisedTokens: options.advertisedTokens, skipProvenance: options.skipProvenance,
    onProgress: options.onScanProgress,
    // Audited in the transaction that finishes the scan: a scan is never stored without its entry.
    record: (result) => afterStep({step: 'scan', result}),
  })
  const t3 = performance.now()
  // And the scan's (its provenance index, its evidence reads) before scope's queries.
  releaseMemory(db)
  const scope = computeScope(loadScopeInputs(db))
  const t4 = performance.now()
  const ms = (a: number, b: number): number => Math.round(b - a)
  return {canaries, ingest, scan, scope, timings_ms: {canaries: ms(t0, t1), ingest: ms(t1, t2), scan: ms(t2, t3), scope: ms(t3, t4), total: ms(t0, t4)}}
}

function releaseMemory(db: CaseDb): void {
  shrinkMemory(db)
  fullGc()
}
