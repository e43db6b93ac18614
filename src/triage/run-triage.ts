import {giveOtherTenantLabels} from '../scope/tenant-view.js'
import {caseRegistry, responseSightings, scanCase, scanCaseUntil, ScanStopped, type ScanOptions, type ScanProgress, type ScanResult} from '../detect/scan-case.js'
import {recordlessWhy, unreadableFiles, withWhy, type RecordlessFile, type UnreadableFile} from '../detect/gate.js'
import type {EvidenceCodec} from '../evidence/evidence-store.js'
import type {LogFormat} from '../extract/formats/index.js'
import {unloggedAnswers} from '../extract/redaction.js'
import type {ParseSpec} from '../extract/parse-spec.js'
import {statSync} from 'node:fs'
import {expandLogPaths, type SkippedEntry} from '../ingest/expand-paths.js'
import {ParsePool} from '../ingest/parse-pool.js'
import {nativeQuickStatus, releaseFreedMemory} from '../ingest/native-quick.js'
import {releaseMemory} from '../ingest/release-memory.js'
import {ingestCanaries, previewRegistry, type IngestCanariesResult} from '../ingest/ingest-canaries.js'
import {ingestLogs, ingestWorkers, refusedMessage, rememberEntriesOfFailure, unreadEntriesError, type FormatDecision, type IngestLogsResult, type IngestProgress} from '../ingest/ingest-logs.js'
import {InputError} from '../errors.js'
import {computeScope, type ScopeResult} from '../scope/compute-scope.js'
import {loadScopeInputs} from '../scope/scope-data.js'
import {canaryVerdict} from '../scope/verdict.js'
import {canaryFigures, type CanaryFigures, type CanaryRow} from '../scope/compute-scope.js'
import type {QuickPassResult, QuickRecord} from '../ingest/quick-pass.js'
import {MARKER_PREFIX, type MarkerRegistry, type RecipientContext, type RegisteredMarker} from '../extract/markers.js'
import {completeLogRecords, countLogFiles, logFilesWithBadLines, type QuarantinedFile} from '../store/files.js'
import {countCanaries} from '../store/canaries.js'
import {countAllRecords} from '../store/records.js'
import type {LogEvidence} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {fullGc} from '../util/gc.js'

// The first hour of an incident in one process: the registry, the logs, the scan and the
// scope, into one case. Used by `crosstalk triage` and by the demo. Each step that changes
// the case is handed to `afterStep` as soon as it is done, so that the command can audit it
// even if a later step fails.

export interface TriageOptions {
  paths: readonly string[]
  canaries?: string
  logFormat?: LogFormat | 'auto'
  parse?: Omit<ParseSpec, 'format'>
  source?: string
  evidenceCodec?: EvidenceCodec
  /** How the logs are kept: a copy in the case (default) or by reference (ingest-logs.ts) */
  evidence?: LogEvidence
  workers?: number
  maxLineBytes?: number
  poolTokens?: number
  advertisedTokens?: number
  skipProvenance?: boolean
  /** The markers-only pass before ingest that gives the verdict first (default true where it is exact). */
  quickVerdict?: boolean
  now: () => Date
  /**
   * Stops the ingest between units (SIGINT), triage before its scan when it comes after
   * ingest's last unit, the scan between its phases and pages of records, or triage before,
   * between or after scope's synchronous steps: triage then throws TriageStopped, saying where.
   */
  signal?: AbortSignal
  onFormat?: (d: FormatDecision) => void
  onIngestProgress?: (p: IngestProgress) => void
  onScanProgress?: (p: ScanProgress) => void
  /**
   * The canary verdict, as soon as every record's markers are classified (before provenance,
   * personal data and scope, which never change it): printed first, and what --fail-on-leak
   * decides on.
   */
  onVerdict?: (v: TriageVerdict) => void
  /**
   * The scan's verdict differs from the quick one printed before it (never expected: the quick
   * pass applies ingest's and the scan's own rules). The caller must not let the run pass.
   */
  onVerdictMismatch?: (quick: TriageVerdict, scan: TriageVerdict) => void
}

export interface TriageVerdict extends CanaryFigures {
  /**
   * quick: from a markers-only pass over the files before ingest (where it is exact: a case
   * with no log record yet, formats read line by line), checked against the scan's later;
   * scan: read from the case once the scan has classified every record's markers.
   */
  basis: 'quick' | 'scan'
  /** log files no verdict can speak for (a gate fails on them) */
  unreadable_files: UnreadableFile[]
  /** log files with quarantined lines (never judged), and their count */
  quarantined_files: QuarantinedFile[]
  quarantined_lines: number
  /** entries a directory walk or a glob reached and could not read (a gate fails on them) */
  skipped_entries: SkippedEntry[]
  /** records the verdict speaks for */
  records_judged?: number
  /** the quick verdict's: the files that gave no record (the scan's are read from the case) */
  recordless_files?: RecordlessFile[]
  /** canaries registered in the case (none: no marker can be attributed) */
  canaries: number
  /** since triage started */
  at_ms: number
}

export interface TriageResult {
  canaries: IngestCanariesResult | null
  ingest: IngestLogsResult
  scan: ScanResult
  scope: ScopeResult
  /** verdict: when the canary verdict was known (ms since triage started), before the evidence work that follows it */
  timings_ms: {canaries: number; ingest: number; scan: number; scope: number; total: number; verdict: number}
  /** how the verdict printed first was reached, and whether the scan's agreed with it (null: it was the scan's) */
  verdict: {basis: 'quick' | 'scan'; confirmed_by_scan: boolean | null}
}

/**
 * Triage ended by a signal. `during` says where: 'ingest' (during or right after its ingest
 * step: the ingest result says what was kept, nothing was scanned), 'scan' (the ingest is
 * stored and audited; the scan's run is left unfinished, so the case reads as not completely
 * scanned and a gate fails until a scan finishes), or 'scope' (the scan is stored and audited
 * too, `scan` says what it found; scope, which writes nothing, was not computed).
 */
export class TriageStopped extends Error {
  constructor(
    readonly ingest: IngestLogsResult,
    readonly during: 'ingest' | 'scan' | 'scope' = 'ingest',
    readonly scan: ScanResult | null = null,
  ) {
    super(`interrupted during ${during}`)
  }
}

export type TriageStep =
  | {step: 'canaries'; result: IngestCanariesResult}
  | {step: 'ingest'; result: IngestLogsResult}
  | {step: 'scan'; result: ScanResult}

export async function runTriage(db: CaseDb, options: TriageOptions, afterStep: (s: TriageStep) => void = () => {}): Promise<TriageResult> {
  // Every log path is checked before anything is stored: a typo must not leave a half-made case.
  let expanded: ReturnType<typeof expandLogPaths>
  try {
    expanded = expandLogPaths(options.paths)
  } catch (error) {
    // None of them could be read: the entries reached are kept in the case (a later gate knows them).
    await rememberEntriesOfFailure(db, error, {recordedBy: 'triage', now: options.now})
    throw error
  }
  const {paths, skipped} = expanded
  const unreadEntries = skipped.filter((s) => s.unread)
  const t0 = performance.now()
  const quickVerdict = options.quickVerdict !== false
  // The quick verdict speaks for the files of this pass alone, so only where the case holds no
  // other: a file an earlier ingest left unfinished (killed before its first unit was stored)
  // holds no record yet, and the scan's verdict counts it where the quick one could not.
  const emptyCase = countAllRecords(db) === 0 && countLogFiles(db) === 0
  // The parse workers start now, before the markers are known, where the pass follows at once:
  // they load their code (about 75 ms each) on the other core while this one reads the registry
  // and decides the formats (the first unit reached a worker 40 ms sooner at 200k records,
  // measured). Not where a registry over the in-memory bound is stored first (they would wait
  // through it holding their memory).
  const startedPool = quickVerdict && emptyCase && (!options.canaries || fileSize(options.canaries) <= (nativeQuickStatus().native ? PREVIEW_MAX_BYTES : PREVIEW_MAP_MAX_BYTES)) ? earlyPool(paths, options.workers) : undefined
  // The registry goes in first, so that markers outside the CANARY-<hex> convention are matched
  // while the logs are parsed. Where the quick verdict will be given on a case with no registry
  // yet, a registry of ordinary size is read and checked in memory first (every refusal of its
  // lines comes here, before any log is read) and stored once the pass is over: the verdict does
  // not wait for its staging, checks and copy in SQLite (about 0.2 s of 0.35 at 37,000 markers).
  // Held for the verdict until the registry is stored (then the case answers the same).
  let held: ReturnType<typeof previewRegistry> = null
  let canaries: IngestCanariesResult | null = null
  let storeMs = 0
  // Whether the registry's turn came (stored or refused): a refused one is not stored after all below.
  let storeTried = false
  const storeRegistry = async (expectSha256?: string): Promise<void> => {
    const s = performance.now()
    canaries = await ingestCanaries(db, {path: options.canaries!, now: options.now, expectSha256})
    afterStep({step: 'canaries', result: canaries})
    // The registry's load leaves SQLite's page cache full and the C heap it freed resident (41 MB
    // after 926,440 markers, measured); the pass and ingest read few of those pages again.
    releaseMemory(db)
    storeMs += performance.now() - s
  }
  let deferred: {sha256: string; unconventional: readonly string[]} | null
  try {
    held = options.canaries && quickVerdict && emptyCase && countCanaries(db) === 0 ? previewRegistry(options.canaries, PREVIEW_MAX_BYTES, PREVIEW_MAP_MAX_BYTES) : null
    deferred = held === null ? null : {sha256: held.sha256, unconventional: held.unconventional}
    if (options.canaries && deferred === null) await storeRegistry()
  } catch (error) {
    // A registry refused: the workers started for the pass are not left running.
    await startedPool?.close()
    throw error
  }
  const t1 = performance.now()
  const sinkRegistry = (): RegistrySource => held ?? {registry: caseRegistry(db), markers: countCanaries(db)}
  let quick: TriageVerdict | null = null
  // Built when the pass hands its first record (or ends), dropped when it ends: the registry's
  // unconventional markers it holds are not kept through ingest.
  let quickSink: QuickVerdict | null = null
  const ingesting = ingestLogs(db, {
    paths: options.paths, logFormat: options.logFormat, parse: options.parse, source: options.source, now: options.now, evidenceCodec: options.evidenceCodec, evidence: options.evidence,
    workers: options.workers, maxLineBytes: options.maxLineBytes, onProgress: options.onIngestProgress, onFormat: options.onFormat, signal: options.signal, startedPool, recordedBy: 'triage',
    pendingRegistry: deferred === null ? undefined : {
      unconventional: deferred.unconventional,
      store: async () => {
        held = null
        storeTried = true
        // What the verdict was given is what the case stores, or the run is refused and nothing
        // of the registry is stored (ingestCanaries checks the hash before it stores anything,
        // and the bytes it stores against that hash).
        await storeRegistry(deferred.sha256)
      },
    },
    quickPass: !quickVerdict ? undefined : {
      onRecord: (r) => (quickSink ??= new QuickVerdict(sinkRegistry())).add(r),
      onPass: (q) => {
        const sink = quickSink ?? new QuickVerdict(sinkRegistry())
        quickSink = null
        // No answer from the pass (files that may be copies, a read failure): the scan's verdict is printed.
        if (q === null) return
        // A file ingest will refuse ends triage with no verdict at all: none is printed over it.
        if (q.files.some((f) => f.refused)) return
        const v = sink.verdict(q)
        // Its records could not answer an echo check (never expected): the scan's verdict is printed.
        if (v === null) return
        // The case holds none of the pass's records yet: what the gate speaks for is counted here.
        const recordless = q.files.filter((f) => f.counts.records === 0)
        quick = {
          ...v, skipped_entries: unreadEntries, at_ms: Math.round(performance.now() - t0),
          records_judged: q.files.reduce((n, f) => n + f.counts.records, 0),
          recordless_files: recordless.map((f) => ({path: f.path, why: recordlessWhy({content_size: null, ...f.counts})})),
        }
        options.onVerdict?.(quick)
        // The pass's garbage goes before ingest builds its own, so that the two peaks do not
        // stack (ingest collects again once the pass's last objects are unreachable).
        fullGc()
        releaseFreedMemory()
      },
    },
  })
  let ingest: IngestLogsResult
  try {
    ingest = await ingesting
  } catch (error) {
    // A failure before the registry's turn (a log file refused while formats were decided, a
    // read error in the pass) still leaves the registry in the case, as it did when it went first.
    if (deferred !== null && !storeTried) await storeRegistry().catch(() => {})
    throw error
  }
  // A signal during the pass ends ingest before the registry's turn: a registry read goes in whole.
  if (deferred !== null && !storeTried) await storeRegistry()
  afterStep({step: 'ingest', result: ingest})
  // Node dispatches a caught signal to its listeners only when the event loop turns: one that
  // came while ingest's step was recorded is seen here, before the scan begins.
  await new Promise<void>((resolve) => setImmediate(resolve))
  // Nothing is scanned after an interruption (the command says what was kept), nor when a file
  // could not be read at all: a scan and a scope without it would read as a verdict on it. A
  // signal that came after ingest's last unit was looked at stops triage here all the same.
  if (ingest.interrupted || options.signal?.aborted) throw new TriageStopped(ingest)
  const refused = refusedMessage(ingest)
  // Worded as `ingest logs` words it: the entries the walk reached and did not read are named too.
  const unread = unreadEntriesError(ingest)
  // No verdict is given over a file not read; what was read stays in the case, unscanned, and `crosstalk scan` judges it (its gate still fails on the file not read).
  const kept = ingest.files + ingest.skipped_files
  const unscanned = kept === 0 ? null : 'no verdict: the case is not scanned; crosstalk scan judges what was read (the file not read is judged by nothing, and --fail-on-leak fails on it until it is ingested whole or dismissed: crosstalk ingest dismiss PATH --reason "...")'
  if (refused) throw Object.assign(new InputError([refused, unread, unscanned].filter(Boolean).join('; '), 'E_NOTHING_READ'), {ingest})
  const t2 = performance.now()
  // Ingest's garbage (parse results, the request-id table) and the page cache are released
  // before the scan builds its own index, so that the two peaks do not stack.
  releaseMemory(db)
  let verdictAt = quick === null ? Number.NaN : t0 + (quick as TriageVerdict).at_ms
  let confirmed: boolean | null = null
  const scanOptions: ScanOptions = {
    now: options.now(), poolTokens: options.poolTokens, advertisedTokens: options.advertisedTokens, skipProvenance: options.skipProvenance,
    onProgress: options.onScanProgress,
    onMarkersClassified: () => {
      const quarantined = logFilesWithBadLines(db)
      const full: TriageVerdict = {
        ...canaryVerdict(db), basis: 'scan', canaries: countCanaries(db), unreadable_files: unreadableFiles(db), quarantined_files: quarantined,
        quarantined_lines: quarantined.reduce((a, f) => a + f.bad_lines, 0), skipped_entries: unreadEntries, records_judged: completeLogRecords(db), at_ms: Math.round(performance.now() - t0),
      }
      const first = quick as TriageVerdict | null
      if (first === null) {
        verdictAt = performance.now()
        options.onVerdict?.(full)
        return
      }
      confirmed = sameVerdict(first, full)
      if (!confirmed) options.onVerdictMismatch?.(first, full)
    },
    // Audited in the transaction that finishes the scan: a scan is never stored without its entry.
    record: (result) => afterStep({step: 'scan', result}),
  }
  // On the main thread (a worker's connection and heap raised triage's peak by about 50 MB at
  // 1M records): a signal is seen between the scan's phases and pages of records, and stops it.
  let scan: ScanResult
  try {
    scan = options.signal ? await scanCaseUntil(db, scanOptions, options.signal) : scanCase(db, scanOptions)
  } catch (error) {
    if (error instanceof ScanStopped) throw new TriageStopped(ingest, 'scan')
    throw error
  }
  // The other customers' labels are given as the scan finishes, and kept (phased notices name a customer alike).
  giveOtherTenantLabels(db, scanOptions.now)
  const t3 = performance.now()
  // And the scan's (its provenance index, its evidence reads) before scope's queries. Scope
  // writes nothing: a signal that came during the scan's last step, or during scope's loading
  // or computing (each synchronous), stops triage with the scan stored.
  releaseMemory(db)
  const turned = async (): Promise<void> => {
    await new Promise<void>((resolve) => setImmediate(resolve))
    if (options.signal?.aborted) throw new TriageStopped(ingest, 'scope', scan)
  }
  await turned()
  const inputs = loadScopeInputs(db)
  await turned()
  const scope = computeScope(inputs)
  await turned()
  const t4 = performance.now()
  const ms = (a: number, b: number): number => Math.round(b - a)
  return {canaries, ingest, scan, scope, timings_ms: {canaries: Math.round(t1 - t0 + (deferred === null ? 0 : storeMs)), ingest: Math.round(t2 - t1 - (deferred === null ? 0 : storeMs)), scan: ms(t2, t3), scope: ms(t3, t4), total: ms(t0, t4), verdict: ms(t0, verdictAt)}, verdict: {basis: quick === null ? 'scan' : 'quick', confirmed_by_scan: confirmed}}
}

/**
 * The quick pass's records classified as the scan classifies them (the scan's own function,
 * against the registry in the case) as the pass reads them, and counted as scope counts them.
 * Only the contaminated sightings are kept, so that the pass holds nothing per marked record.
 */
class QuickVerdict {
  private readonly registry: MarkerRegistry
  private readonly markers: number
  private readonly byMarker: Map<string, RegisteredMarker>
  private readonly rows: CanaryRow[] = []
  private records = 0
  /** A record's echo check could not be answered from its facts: no quick verdict. */
  private unknown = false

  constructor(source: RegistrySource) {
    this.registry = source.registry
    this.markers = source.markers
    this.byMarker = new Map(this.registry.unconventional.map((m) => [m.marker, m]))
  }

  add(r: QuickRecord): void {
    const id = ++this.records
    if (this.unknown) return
    const recipient = {tenant: r.tenant_id, session: r.session_id, promptHas: echoFromFacts(r)}
    try {
      for (const x of responseSightings(r.tokens, r.hits, this.registry, this.byMarker, recipient)) {
        if (x.class !== 'cross_session' && x.class !== 'cross_tenant') continue
        this.rows.push({record_id: id, class: x.class, source_session: x.sourceSession, source_tenant: x.sourceTenant, recipient_tenant: r.tenant_id, ts_ms: r.ts_ms})
      }
    } catch (error) {
      if (!(error instanceof EchoUnknown)) throw error
      this.unknown = true
      this.rows.length = 0
    }
  }

  verdict(q: QuickPassResult): Omit<TriageVerdict, 'at_ms' | 'skipped_entries' | 'records_judged' | 'recordless_files'> | null {
    // Every record the pass kept was classified here, or the pass's answer is not this one.
    if (this.unknown || q.marked !== this.records) return null
    const quarantined = q.files.filter((f) => f.counts.bad_lines > 0).map((f) => ({path: f.path, bad_lines: f.counts.bad_lines}))
    return {
      // Copied whole: its sessions and tenants may be slices of a registry's text read in memory,
      // which would keep each 1 MiB chunk of it alive as long as the verdict (to the scan's check).
      ...(structuredClone(canaryFigures(this.rows)) as CanaryFigures),
      basis: 'quick',
      canaries: this.markers,
      unreadable_files: q.files
        .filter((f) => f.unread !== null || f.counts.no_response_text > 0)
        .map((f) => withWhy({path: f.path, state: 'complete', records: f.counts.records, answers: f.counts.records - f.counts.error_records, no_response_text: f.counts.no_response_text, unread: f.unread}, unloggedAnswers(f.counts.notes))),
      quarantined_files: quarantined,
      quarantined_lines: quarantined.reduce((a, f) => a + f.bad_lines, 0),
    }
  }
}

/** The registry the quick verdict classifies against: the case's, or one read but not stored yet. */
interface RegistrySource {
  registry: MarkerRegistry
  /** markers registered (the verdict's `canaries`) */
  markers: number
}

/**
 * The largest registry held in memory for the verdict where the native reader reads it: about
 * 250,000 markers (its index of 185,807 markers, an 18 MB file, held 37 MB of heap and 19.5 MB
 * of strings outside it, 58-74 MB of RSS, measured). A larger registry is stored before the pass, which waits for
 * it on one core: in a 1M-record triage with that 18 MB registry the verdict came at 8.06-8.28 s
 * with the old 8 MB bound and at 5.59-5.60 s with this one, the peak 196-198 MB against 218 MB
 * (alternating runs, the same findings). A 5M-record registry (90 MB) is still stored first, so
 * the peak there is unchanged.
 */
const PREVIEW_MAX_BYTES = 24 << 20

/**
 * The same where the TypeScript reader reads it (no addon, or a file the native reader leaves to
 * it: JSONL, quoted fields): a map of every marker, about twice the native index's memory (the
 * 18 MB registry above: 144 MB of RSS against 74, measured), so the bound the verdict had before
 * the native index (about 85,000 markers).
 */
const PREVIEW_MAP_MAX_BYTES = 8 << 20

/** The file's size in bytes; Infinity where it cannot be read (its reader reports why). */
function fileSize(path: string): number {
  try {
    return statSync(path).size
  } catch {
    return Number.POSITIVE_INFINITY
  }
}

/**
 * Parse workers for the logs at `paths`, started before their markers are known (ingestLogs
 * gives them); undefined where ingest would parse inline or CROSSTALK_WORKERS is bad (ingest
 * refuses it, after the registry is in, as it always has).
 */
function earlyPool(paths: readonly string[], workers: number | undefined): ParsePool | undefined {
  let n: number
  try {
    n = ingestWorkers(paths.reduce((sum, p) => sum + fileSize(p), 0), workers)
  } catch {
    return undefined
  }
  return n > 0 && Number.isFinite(n) ? new ParsePool(n, null) : undefined
}

class EchoUnknown extends Error {}

/**
 * The echo check of a quick record, answered from what its worker kept of the prompt: a token's
 * needle is `CANARY-` and a prefix of its hex, held exactly when that hex is no longer than the
 * token's promptPrefix (the digits the prompt holds after a `CANARY-`) for a partial, its
 * token_whole (as many, with no more hex after them) for a full sighting; an unconventional
 * marker's needle is the marker as registered, which the hit says. A needle of any other shape
 * throws EchoUnknown.
 */
export function echoFromFacts(r: QuickRecord): RecipientContext['promptHas'] {
  return (needle, found) => {
    if (found.hex !== null) {
      const i = r.tokens.findIndex((t) => t.position === found.position && t.token === found.token)
      const hex = needle.startsWith(MARKER_PREFIX) ? needle.slice(MARKER_PREFIX.length) : null
      if (i === -1 || hex === null || !found.hex.startsWith(hex)) throw new EchoUnknown()
      return hex.length <= (found.partial ? r.token_echo[i]! : r.token_whole[i]!)
    }
    const i = r.hits.findIndex((h) => h.position === found.position && h.token === needle)
    if (i === -1) throw new EchoUnknown()
    return r.hit_echo[i]!
  }
}

/** The quick verdict and the scan's agree on every figure, every flow, and what could not be judged. */
function sameVerdict(a: TriageVerdict, b: TriageVerdict): boolean {
  const key = (v: TriageVerdict): string => {
    const {at_ms: _at, basis: _basis, unreadable_files, quarantined_files: _q, records_judged: _r, recordless_files: _f, ...figures} = v
    return JSON.stringify({...figures, unreadable: unreadable_files.length})
  }
  return key(a) === key(b)
}
