import {InputError, IntegrityError, UsageError} from '../errors.js'
import {recordTextLoader} from '../evidence/record-texts.js'
import {EXTRACT_SCHEME, UnconventionalSet} from '../extract/extract.js'
import {GUARANTEE_WORDS, MAX_BOILERPLATE_TENANTS, MAX_MIN_WORDS, maxMinWordsMessage, minWordsMessage} from '../extract/winnow.js'
import {
  classifySighting, promptSearch, resolveTokens, SIGHTING_CLASSES, SIGHTING_RULES, sortedFound,
  type MarkerRegistry, type MarkerToken, type RecipientContext, type RegisteredMarker, type SightingClass,
} from '../extract/markers.js'
import {countCanaries} from '../store/canaries.js'
import {deleteUnconventionalHits, extractInserters, fileTokens, recordIdsOfFile} from '../store/extracts.js'
import {completeLogFiles, fileTotals, setUnconventionalMatched, type FileRow} from '../store/files.js'
import {countPiiFindings, countProvenance, deleteAllSightings, sightingCounts, sightingInserter} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {atRiskGroups, atRiskJudgeable, recordsMissingAtRiskFields} from '../store/records.js'
import {beginScanRun, completeRecordCount, finishScanRun, lastFinishedScan, markFilesScanned, scannedFileIds, unfinishedScanStart} from '../store/scan-runs.js'
import {corpusFacts} from '../store/scale.js'
import {begin, commit, foreignKeyChecksOff, inTransaction, rollback} from '../store/session.js'
import {getSettings, ingestClaimant, piiRefKey, registryVersion, setPool} from '../store/settings.js'
import {releaseMemory} from '../ingest/release-memory.js'
import {unreadableFiles, type UnreadableFile} from './gate.js'
import {checkTokenWindow} from './token-window.js'
import {unreadSourceFiles, type UnreadSourceFile} from './not-read.js'
import {computePiiFindings} from './pii-findings.js'
import {reextractPriorFiles} from './reextract.js'
import {countNotComparable} from './provenance/not-comparable.js'
import {computeProvenance, DEFAULT_PROVENANCE, type ProvenanceOptions, type ProvenanceStats} from './provenance.js'
import {sqliteRegistry} from './registry.js'
import {claimIngest, releaseIngest} from '../ingest/ingest-lock.js'

// `crosstalk scan`: markers, provenance, PII and over-pool flags for a whole case, recorded
// as a scan run. Incremental: records of evidence files not yet scanned are classified; a
// changed canary registry re-classifies every record (a new canary can turn an orphan into
// a cross-tenant sighting); provenance and PII attribution are recomputed from the stored
// per-record extracts, because boilerplate and "who sent it first" are properties of the
// whole case.

export interface ScanOptions {
  now: Date
  /** The serving stack's KV pool; recorded in the case. Without it the recorded one applies. */
  poolTokens?: number
  advertisedTokens?: number
  provenance?: Partial<ProvenanceOptions>
  /** Skip provenance (e.g. a marker-only CI gate); default false. Leaves provenance stale when records are new. */
  skipProvenance?: boolean
  onProgress?: (p: ScanProgress) => void
  /**
   * Called once every record's markers are classified, before provenance and personal data:
   * the sightings in the case are final from here on, so the canary verdict can be read.
   */
  onMarkersClassified?: () => void
  /**
   * Called with the result inside the transaction that marks the scan finished, so that the
   * caller's audit entry is stored with it or not at all (verify checks every finished scan
   * has one).
   */
  record?: (result: ScanResult) => void
}

export interface ScanProgress {
  /** reextract: personal data extracted again from a case made under the prior extract scheme (done and total in records; before the three phases, once) */
  phase: 'reextract' | 'markers' | 'provenance' | 'pii'
  done: number
  total: number
}

export interface ScanResult {
  scanned_at: string
  records_total: number
  /** Records looked at for markers in this run (all of them after a registry change). */
  records_scanned: number
  /** Records of newly scanned evidence files. */
  records_new: number
  /** The registry changed since the previous scan, so every record was classified again (false on a first scan). */
  full_rescan: boolean
  canaries: number
  sightings: number
  sightings_by_class: Record<SightingClass, number>
  partial_sightings: number
  contaminated_responses: number
  cross_session_responses: number
  cross_tenant_responses: number
  /** null: provenance skipped, or no record was examined (a case with no log record: not known, never 0) */
  provenance_matches: number | null
  /**
   * Answers too short in words for the verbatim-text search, in a script written without spaces
   * (Chinese, Japanese, Thai, ...): not compared (provenance/not-comparable.ts); null where
   * provenance did not run in this scan and none is carried over, or no record was examined.
   */
  provenance_not_comparable: number | null
  /** records (in complete log files) whose request text the logs do not hold: their prompts could not be looked for in other answers */
  no_request_text: number
  /** null where no record was examined (a case with no log record): not known, never 0 */
  pii_findings: number | null
  pii_attributed: number | null
  at_risk: number | null
  pool_tokens: number | null
  advertised_tokens: number | null
  /** Status-200 responses whose prompt was at or above the advertised context (should have been refused). */
  above_advertised: number | null
  provenance_stats: ProvenanceStats | null
  /**
   * Log files detection could not judge: an ingest left unfinished, a file not read whole
   * (damaged gzip), or one with answers that decoded to no text. A gate never passes on them.
   */
  unreadable_files: UnreadableFile[]
  timings_ms: {markers: number; provenance: number; pii: number; at_risk: number; total: number}
}

const PAGE = 1000

/**
 * One scan at a time, and none while an ingest or drop writes the case: a scan over a file being
 * loaded would judge none of it and say zero, and would rebuild the ingest's suspended indexes.
 * The scan takes the case's ingest claim (triage's own ingest already holds it).
 */
export function scanCase(db: CaseDb, options: ScanOptions): ScanResult {
  const held = ingestClaimant(db) === process.pid
  claimIngest(db)
  try {
    return runToEnd(scanSteps(db, options))
  } finally {
    if (!held) releaseIngest(db)
  }
}

/**
 * The same scan on the main thread, stopped by `signal`: between its phases, and every PAGE
 * records of the marker pass, it lets the event loop turn (so that a caught SIGINT or SIGTERM is
 * dispatched) and throws ScanStopped once the signal is aborted. What was committed stays: the
 * run is left unfinished (the case reads as not completely scanned, and a gate fails, until a
 * scan finishes), and the marker pass under way is rolled back. No worker thread: its second
 * connection and heap are what triage's peak memory could not take.
 */
export async function scanCaseUntil(db: CaseDb, options: ScanOptions, signal: AbortSignal): Promise<ScanResult> {
  const held = ingestClaimant(db) === process.pid
  claimIngest(db)
  try {
    const steps = scanSteps(db, options)
    for (;;) {
      const step = steps.next()
      if (step.done) return step.value
      await new Promise<void>((resolve) => setImmediate(resolve))
      if (signal.aborted) {
        // Runs the pass's finally blocks: an open marker transaction is rolled back.
        steps.return(undefined as never)
        throw new ScanStopped(step.value)
      }
    }
  } finally {
    if (!held) releaseIngest(db)
  }
}

/** Where a scan was when a signal stopped it (scanCaseUntil). */
export type ScanStep = 'start' | 'markers' | 'provenance' | 'pii' | 'at_risk'

export class ScanStopped extends Error {
  constructor(readonly step: ScanStep) {
    super(`the scan was stopped (${step})`)
  }
}

/** Runs a pass that yields at the points where it may be stopped, without stopping. */
function runToEnd<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/**
 * The scan, yielding the step it is in at each point where it may stop: outside any
 * transaction, except inside the marker pass's own (which is then rolled back).
 */
function* scanSteps(db: CaseDb, options: ScanOptions): Generator<ScanStep, ScanResult, void> {
  const t0 = performance.now()
  // Evidence by reference holds the findings' lines only: detection over every record is the Spark job's.
  if (corpusFacts(db)) throw new InputError('this case holds Spark findings with evidence by reference: detection runs in the job (spark/); run it again and bring its findings into a new case', 'E_REFERENCE_CASE')
  const params: ProvenanceOptions = {...DEFAULT_PROVENANCE, ...options.provenance}
  if (params.minWords < GUARANTEE_WORDS) throw new UsageError(minWordsMessage(params.minWords))
  if (!Number.isSafeInteger(params.minWords) || params.minWords > MAX_MIN_WORDS) throw new UsageError(maxMinWordsMessage(params.minWords))
  if (params.boilerplateTenants < 2) throw new UsageError('--boilerplate-tenants must be at least 2')
  if (!Number.isSafeInteger(params.boilerplateTenants) || params.boilerplateTenants > MAX_BOILERPLATE_TENANTS) throw new UsageError(`--boilerplate-tenants must be at most ${MAX_BOILERPLATE_TENANTS} (got ${params.boilerplateTenants})`)
  for (const [flag, v] of [['--pool-tokens', options.poolTokens], ['--advertised-tokens', options.advertisedTokens]] as const) {
    if (v !== undefined && !Number.isSafeInteger(v)) throw new UsageError(`${flag} must be at most ${Number.MAX_SAFE_INTEGER} (got ${v})`)
  }
  if (options.poolTokens === undefined && options.advertisedTokens !== undefined) throw new UsageError('--advertised-tokens needs --pool-tokens')
  checkTokenWindow(options.poolTokens, options.advertisedTokens)
  // The registry's version as the scan begins: the run is recorded against it, and a registry
  // changed by the time the scan is stored makes the scan's findings not current.
  const versionAtStart = getSettings(db).registry_version
  const previous = lastFinishedScan(db)
  // A scan begun since and not finished (killed: each phase commits on its own) may have
  // rewritten provenance with other parameters: the previous scan's is then not the one stored.
  const interrupted = unfinishedScanStart(db) !== null
  // Files extracted under a prior scheme are extracted again first (reextract.ts); their sightings
  // and the provenance found in their fingerprints are then derived again, with every file's.
  let complete = completeLogFiles(db)
  const reextracted = reextractPriorFiles(db, complete, (done, total) => options.onProgress?.({phase: 'reextract', done, total}))
  if (reextracted > 0) complete = completeLogFiles(db)
  const scanned = scannedFileIds(db)
  const fresh = complete.filter((f) => !scanned.has(f.id))
  // Every file again where the registry changed, where the last scan classified under other rules, or where extracts were made again.
  const full = previous !== null && (previous.registry_version !== versionAtStart || previous.sighting_rules !== SIGHTING_RULES || reextracted > 0)
  // The pool size is a recorded fact of the case: a later scan (and scope, and every draft) uses it.
  // It is set with this run's row, in one transaction, so that a scan killed later leaves it set
  // by a run the case names (verify says so), never by no run at all.
  const {runId, settings} = inTransaction(db, () => {
    if (options.poolTokens !== undefined) setPool(db, options.poolTokens, options.advertisedTokens ?? null, options.now)
    const settings = getSettings(db)
    const runId = beginScanRun(db, {
      startedAt: options.now.toISOString(), registryVersion: versionAtStart, extractScheme: EXTRACT_SCHEME, fullRescan: full, sightingRules: SIGHTING_RULES,
      minWords: params.minWords, boilerplateTenants: params.boilerplateTenants, poolTokens: settings.pool_tokens, advertisedTokens: settings.advertised_tokens,
    })
    return {runId, settings}
  })

  // The first point where the scan may stop: its run is stored, so a stop leaves it unfinished.
  yield 'start'
  const classified = full ? complete : fresh
  // The registry the markers are classified against, as the pass read it: its count is the one
  // the result gives, and its version is checked again as the scan is stored.
  const used = yield* classifyMarkerSteps(db, classified, {full, onProgress: options.onProgress})
  options.onMarkersClassified?.()
  yield 'markers'
  const t1 = performance.now()

  // Provenance is current when the previous scan left it so with the same parameters and
  // nothing new has been scanned since.
  const provenanceWasCurrent =
    previous !== null && !interrupted && previous.provenance_state === 'current' && previous.min_words === params.minWords &&
    previous.boilerplate_tenants === params.boilerplateTenants && fresh.length === 0 && reextracted === 0
  let provenance: ProvenanceStats | null = null
  // Answers the verbatim-text search could not compare (not-comparable.ts), counted with provenance.
  let notComparable: number | null = null
  if (!options.skipProvenance && !provenanceWasCurrent) {
    options.onProgress?.({phase: 'provenance', done: 0, total: 1})
    // The markers' registry lookups filled the page cache: provenance reads other pages.
    releaseMemory(db)
    provenance = computeProvenance(db, params)
    notComparable = countNotComparable(db, params.minWords)
    options.onProgress?.({phase: 'provenance', done: 1, total: 1})
    yield 'provenance'
  }
  const provenanceState = provenance !== null || provenanceWasCurrent ? 'current' : 'stale'
  const t2 = performance.now()
  // The key `pii` shows value references under: made here, by the scan the audit log records.
  piiRefKey(db, {create: true})
  options.onProgress?.({phase: 'pii', done: 0, total: 1})
  const pii = computePiiFindings(db)
  const t3 = performance.now()
  yield 'pii'

  const pool = settings.pool_tokens
  const advertised = settings.advertised_tokens
  // Unknown, not zero, where no record gives both its status and its prompt size (as scope says).
  const risk = pool === null || !atRiskJudgeable(recordsMissingAtRiskFields(db)) ? null : atRiskGroups(db, pool, advertised)
  const t4 = performance.now()
  yield 'at_risk'

  const counts = sightingCounts(db)
  const byClass = Object.fromEntries(SIGHTING_CLASSES.map((c) => [c, counts.by_class[c] ?? 0])) as Record<SightingClass, number>
  const recordsTotal = completeRecordCount(db)
  const sum = (rows: FileRow[]): number => rows.reduce((a, f) => a + f.records, 0)
  const result: ScanResult = {
    scanned_at: options.now.toISOString(),
    records_total: recordsTotal,
    records_scanned: sum(classified),
    records_new: sum(fresh),
    full_rescan: full,
    canaries: used.canaries,
    sightings: Object.values(byClass).reduce((a, b) => a + b, 0),
    sightings_by_class: byClass,
    partial_sightings: counts.partial,
    contaminated_responses: counts.contaminated_responses,
    cross_session_responses: counts.cross_session_responses,
    cross_tenant_responses: counts.cross_tenant_responses,
    // A case with no record examined found nothing and ruled out nothing: not known, never 0.
    provenance_matches: provenanceState === 'current' && recordsTotal > 0 ? countProvenance(db) : null,
    provenance_not_comparable: recordsTotal === 0 ? null : notComparable !== null ? notComparable : provenanceWasCurrent ? previous!.provenance_not_comparable_responses : null,
    no_request_text: fileTotals(db).no_request_text,
    pii_findings: recordsTotal > 0 ? pii.findings : null,
    pii_attributed: recordsTotal > 0 ? pii.attributed : null,
    at_risk: risk === null ? null : risk.reduce((a, g) => a + g.n, 0),
    pool_tokens: pool,
    advertised_tokens: advertised,
    above_advertised: risk === null || advertised === null ? null : risk.reduce((a, g) => a + g.over_advertised, 0),
    provenance_stats: provenance,
    unreadable_files: unreadableFiles(db),
    timings_ms: {
      markers: Math.round(t1 - t0),
      provenance: Math.round(t2 - t1),
      pii: Math.round(t3 - t2),
      at_risk: Math.round(t4 - t3),
      total: Math.round(performance.now() - t0),
    },
  }
  // The files count as covered only once the whole run has finished. The run is stored as made
  // against the registry it began with: where the registry changed since (another process, a
  // claim broken by hand), detection reads as incomplete afterwards (the registry changed since the
  // last scan), and this scan's findings are refused as current below.
  const changed = inTransaction(db, () => {
    const now = registryVersion(db)
    markFilesScanned(db, runId, fresh.map((f) => f.id))
    finishScanRun(db, runId, {
      finishedAt: options.now.toISOString(), recordsTotal, recordsScanned: result.records_scanned, recordsNew: result.records_new, provenanceState,
      // Provenance left current by the previous scan keeps that scan's count.
      boilerplateResponses: provenance !== null ? provenance.boilerplate_responses : provenanceWasCurrent ? previous!.provenance_boilerplate_responses : null,
      notComparableResponses: notComparable !== null ? notComparable : provenanceWasCurrent ? previous!.provenance_not_comparable_responses : null,
    })
    options.record?.(result)
    return now !== versionAtStart || used.version !== versionAtStart ? Math.max(now, used.version) : null
  })
  if (changed !== null) throw registryChangedError(versionAtStart, changed, used.canaries)
  return result
}

/** The registry changed since the last finished scan began (between a scan's end and its gate): the error to stop on, else null. */
export function registryChangedSinceScan(db: CaseDb, canaries: number): InputError | null {
  const last = lastFinishedScan(db)
  const now = registryVersion(db)
  return last !== null && last.registry_version !== now ? registryChangedError(last.registry_version, now, canaries) : null
}

/**
 * The canary registry changed while a scan ran: its markers were classified against the registry
 * it began with, so its findings (and a gate's "no leak") are not those of the case as it is now.
 */
export function registryChangedError(from: number, to: number, canaries: number): InputError {
  return new InputError(
    `the canary registry changed while this scan ran (registry version ${from} when it began, ${to} now: markers were added or withdrawn by another process): its findings were classified against the registry as it began (${canaries} ${canaries === 1 ? 'canary' : 'canaries'}) and are not current (detection incomplete); run crosstalk scan again`,
    'E_REGISTRY_CHANGED',
  )
}

/**
 * The marker pass over the given files: classifies the marker-shaped tokens ingest stored
 * for each response (a hash lookup per token, so the cost does not grow with the registry);
 * the texts are read only for the prompts of non-own sightings (the echo check) and, for a
 * file matched under another set of unconventional markers, for every response.
 */
export function classifyMarkers(db: CaseDb, files: readonly FileRow[], options: {full: boolean; onProgress?: (p: ScanProgress) => void}): void {
  runToEnd(classifyMarkerSteps(db, files, options))
}

/** The registry a marker pass classified against: its version and its markers. */
interface RegistryUsed {
  version: number
  canaries: number
}

/** The marker pass, yielding every PAGE records (inside its transaction; one not finished is rolled back). */
function* classifyMarkerSteps(db: CaseDb, files: readonly FileRow[], options: {full: boolean; onProgress?: (p: ScanProgress) => void}): Generator<ScanStep, RegistryUsed, void> {
  const registry = sqliteRegistry(db)
  const texts = recordTextLoader(db)
  const insertSighting = sightingInserter(db)
  const unconventional = new UnconventionalSet(registry.unconventional.map((m) => m.marker))
  const byMarker = new Map(registry.unconventional.map((m) => [m.marker, m]))
  const wholeHits = (text: string): MarkerToken[] => unconventional.hits(text)
  const hits = extractInserters(db)
  const pageOfFile = recordIdsOfFile(db)


  // Unconventional markers: ingest matched the set the registry held then; a file matched
  // under another set is matched again from its texts (read in order, block by block).
  const rematch = function* (fileId: number): Generator<ScanStep, void, void> {
    deleteUnconventionalHits(db, fileId)
    if (unconventional.automaton) {
      for (let last = 0; ; ) {
        const ids = pageOfFile(fileId, last, PAGE)
        if (ids.length === 0) break
        for (const id of ids) for (const hit of unconventional.hits(texts(id).response_text ?? '')) hits.hit(id, hit.position, hit.token)
        last = ids.at(-1)!
        yield 'markers'
      }
    }
    setUnconventionalMatched(db, fileId, unconventional.hash)
  }

  const classifyFile = function* (file: FileRow): Generator<ScanStep, void, void> {
    if (file.extract_scheme !== EXTRACT_SCHEME) {
      throw new IntegrityError(`${file.path}: extracted under scheme ${file.extract_scheme ?? 'none'}, this crosstalk reads ${EXTRACT_SCHEME}; ingest the file into a new case`)
    }
    if (file.unconventional_sha256 !== unconventional.hash) yield* rematch(file.id)
    // Read the file's tokens first: classify() reads prompts, which needs other statements.
    const rows = fileTokens(db, file.id)
    for (let i = 0, n = 0; i < rows.length; ) {
      if (++n % PAGE === 0) yield 'markers'
      const [id, , , , tenant, session] = rows[i]!
      const tokens: MarkerToken[] = []
      const found: MarkerToken[] = []
      for (; i < rows.length && rows[i]![0] === id; i++) (rows[i]![1] === 0 ? tokens : found).push({position: rows[i]![2], token: rows[i]![3]})
      const recipient = {tenant, session, promptHas: promptSearch(() => texts(id).request_text, wholeHits)}
      for (const x of responseSightings(tokens, found, registry, byMarker, recipient)) {
        insertSighting(id, x.marker, x.markerKey, x.class, x.partial, x.sourceSession, x.sourceTenant, x.position, x.token)
      }
    }
  }

  // Every row written here references a record id just read from `records` in the same
  // transaction, so the foreign-key lookups SQLite would make per insert prove nothing.
  // One transaction, opened by hand so that the pass may yield inside it (better-sqlite3's
  // transactions are synchronous); a pass stopped or failed part-way is rolled back whole.
  const restoreChecks = foreignKeyChecksOff(db)
  let committed = false
  try {
    begin(db)
    if (options.full) deleteAllSightings(db)
    // Read inside the pass's transaction: the registry its lookups see.
    const used: RegistryUsed = {version: registryVersion(db), canaries: countCanaries(db)}
    for (const [i, f] of files.entries()) {
      yield* classifyFile(f)
      options.onProgress?.({phase: 'markers', done: i + 1, total: files.length})
      yield 'markers'
    }
    commit(db)
    committed = true
    return used
  } finally {
    if (!committed) rollback(db)
    restoreChecks()
  }
}

/** One sighting of a response, as the sightings table keeps it. */
export interface ResponseSighting {
  marker: string
  markerKey: string | null
  class: SightingClass
  partial: boolean
  sourceSession: string | null
  sourceTenant: string | null
  position: number
  token: string
}

/**
 * The sightings of one response: its marker-shaped tokens and unconventional hits (as ingest
 * extracted them) resolved against the registry and classified, by position, one per marker
 * (the first occurrence; the table keeps one row per record and marker). The scan writes
 * them; verify derives them again and compares.
 */
export function responseSightings(
  tokens: readonly MarkerToken[], hits: readonly MarkerToken[], registry: MarkerRegistry, byMarker: ReadonlyMap<string, RegisteredMarker>, recipient: RecipientContext,
): ResponseSighting[] {
  const resolved = resolveTokens(tokens, registry, hits)
  for (const hit of hits) {
    const registered = byMarker.get(hit.token)
    if (registered && !resolved.has(registered.key)) resolved.set(registered.key, {registered, token: registered.marker, hex: null, partial: false, position: hit.position})
  }
  const out: ResponseSighting[] = []
  const seen = new Set<string>()
  for (const f of sortedFound(resolved)) {
    const marker = f.registered ? f.registered.marker : f.token
    if (seen.has(marker)) continue
    seen.add(marker)
    const c = classifySighting(f, recipient)
    // A token cut short of several sessions' markers, one of them the recipient's own, is an
    // orphan as before (classifySighting), not flagged partial: the flag names a sighting of a marker.
    out.push({marker, markerKey: f.registered?.key ?? null, class: c.class, partial: f.partial && (f.registered !== null || c.class !== 'orphan'), sourceSession: c.sourceSession, sourceTenant: c.sourceTenant, position: f.position, token: f.token})
  }
  return out
}

/** The registry as the scan sees it (tests and the bench). */
export function caseRegistry(db: CaseDb): MarkerRegistry {
  return sqliteRegistry(db)
}

/**
 * A scan's result on a case with no canary registry, as `scan --json` and `triage --json` give it:
 * no marker can be attributed to a session, so every marker found is an orphan and the other
 * classes and the contamination counts are not known (null), not 0 (unknown is never printed as
 * zero; scope's figures are nulled the same way, registrylessScope).
 */
export type RegistrylessScan = ReturnType<typeof registrylessScan<ScanResult>>

/** Counts of a scan that are not known where nothing was searched (scanJson). */
type NotKnown<T> = {[K in keyof T]: T[K] | null}

/**
 * A scan's result as `scan --json` and triage's `scan` give it. Where the case holds no log
 * record the scan searched nothing: every sighting and contamination count is not known (null),
 * never 0, as `scope --json` and `status --json` give them. Without a registry the counts
 * no marker can be attributed for are null (registrylessScan). `unreadable_files` adds the log
 * sources an ingest reached and never read (`state: "not_read"`), as the console names them.
 */
export interface ScanJson extends Omit<ScanResult, 'sightings' | 'sightings_by_class' | 'partial_sightings' | 'contaminated_responses' | 'cross_session_responses' | 'cross_tenant_responses' | 'unreadable_files'> {
  sightings: number | null
  sightings_by_class: NotKnown<Record<SightingClass, number>>
  partial_sightings: number | null
  contaminated_responses: number | null
  cross_session_responses: number | null
  cross_tenant_responses: number | null
  unreadable_files: Array<UnreadableFile | UnreadSourceFile>
}

export function scanJson(db: CaseDb, r: ScanResult): ScanJson {
  const unreadable_files = [...r.unreadable_files, ...unreadSourceFiles(db)]
  if (r.records_total === 0) {
    const classes = Object.fromEntries(SIGHTING_CLASSES.map((c) => [c, null])) as NotKnown<Record<SightingClass, number>>
    return {
      ...r, sightings: null, sightings_by_class: classes, partial_sightings: null,
      contaminated_responses: null, cross_session_responses: null, cross_tenant_responses: null, unreadable_files,
    }
  }
  return {...(r.canaries === 0 ? registrylessScan(r) : r), unreadable_files}
}

export function registrylessScan<R extends Pick<ScanResult, 'sightings_by_class' | 'contaminated_responses' | 'cross_session_responses' | 'cross_tenant_responses'>>(r: R) {
  return {
    ...r,
    sightings_by_class: {own: null, echo: null, cross_session: null, cross_tenant: null, orphan: r.sightings_by_class.orphan},
    contaminated_responses: null,
    cross_session_responses: null,
    cross_tenant_responses: null,
  }
}

/**
 * A scan's summary as its audit entry records it (the result without timings): with no canary
 * registry (`canaries` 0), the marker classes and contamination counts as scan --json gives them
 * (null, not 0). Entries recorded before this was applied hold 0 there: read them back through
 * it too (the audit log is append-only, so they are never rewritten).
 */
export function knownScanSummary<T>(summary: T): T | ReturnType<typeof registrylessScan<ScanSummary>> {
  return isScanSummary(summary) && summary.canaries === 0 ? registrylessScan(summary) : summary
}

type ScanSummary = Pick<ScanResult, 'canaries' | 'sightings_by_class' | 'contaminated_responses' | 'cross_session_responses' | 'cross_tenant_responses'>

function isScanSummary(x: unknown): x is ScanSummary {
  if (typeof x !== 'object' || x === null) return false
  const s = x as Record<string, unknown>
  return typeof s.canaries === 'number' && typeof s.sightings_by_class === 'object' && s.sightings_by_class !== null && 'contaminated_responses' in s
}
