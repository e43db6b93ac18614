import type {CaseDb} from '../store/open-case.js'
import {UsageError} from '../errors.js'
import {ensureQueryIndexes} from '../ingest/ingest-logs.js'
import {recordTextLoader} from '../ingest/record-texts.js'
import {EXTRACT_SCHEME, extractRecord, UnconventionalSet} from './extract.js'
import {
  classifySighting, resolveTokens, SIGHTING_CLASSES, sortedFound, sqliteRegistry,
  type FoundMarker, type MarkerRegistry, type MarkerToken, type SightingClass,
} from './markers.js'
import {computePiiFindings} from './pii-findings.js'
import {computeProvenance, DEFAULT_PROVENANCE, fingerprintTexts, storeFingerprints, type ProvenanceOptions, type ProvenanceStats} from './provenance.js'
import {extractWriter} from './store-extract.js'
import {FingerprintBuffer, SCHEME} from './winnow.js'

// `crosstalk scan`: markers, provenance, PII and over-pool flags for a whole case.
// Incremental: records of evidence files not yet scanned get markers, PII values and
// fingerprints; a changed canary registry re-classifies every record (a new canary can
// turn an orphan into a cross-tenant sighting); provenance, PII attribution and at-risk
// flags are recomputed from stored per-record data each time, because boilerplate and
// "who sent it first" are properties of the whole case.

export interface ScanOptions {
  now: Date
  poolTokens?: number
  advertisedTokens?: number
  provenance?: Partial<ProvenanceOptions>
  /** Skip provenance (e.g. a marker-only CI gate); default false. */
  skipProvenance?: boolean
}

export interface ScanResult {
  scanned_at: string
  records_total: number
  /** Records looked at for markers in this run (all of them after a registry change). */
  records_scanned: number
  /** Records of newly scanned evidence files. */
  records_new: number
  full_rescan: boolean
  canaries: number
  sightings: number
  sightings_by_class: Record<SightingClass, number>
  partial_sightings: number
  contaminated_responses: number
  cross_session_responses: number
  cross_tenant_responses: number
  provenance_matches: number | null
  pii_findings: number
  pii_attributed: number
  at_risk: number | null
  pool_tokens: number | null
  advertised_tokens: number | null
  /** Status-200 responses whose prompt was at or above the advertised context (should have been refused). */
  above_advertised: number | null
  provenance_stats: ProvenanceStats | null
  timings_ms: {markers: number; provenance: number; pii: number; at_risk: number; total: number}
}

const BATCH = 1000

export function loadRegistry(db: CaseDb): MarkerRegistry {
  return sqliteRegistry(db)
}

/** Bumped by triggers on every change to `canaries` (migration 002). */
function registryVersion(db: CaseDb): string {
  return getState(db, 'registry_version') ?? '0'
}

function getState(db: CaseDb, key: string): string | null {
  const row = db.prepare('SELECT value FROM scan_state WHERE key = ?').get(key) as {value: string} | undefined
  return row?.value ?? null
}

function setState(db: CaseDb, key: string, value: string | null): void {
  if (value === null) db.prepare('DELETE FROM scan_state WHERE key = ?').run(key)
  else db.prepare('INSERT INTO scan_state (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value)
}

interface MarkerPassStats {
  scanned: number
  fresh: number
  full: boolean
  /** Records whose stored fingerprints were of an older scheme and were recomputed. */
  refingerprinted: number
  registry: MarkerRegistry
}

/**
 * Per-record detection data (marker tokens, PII values, fingerprints) for the records of
 * files that ingest did not extract under the current scheme: files ingested by an
 * earlier version. Texts come from the records (older cases stored them) or the evidence.
 */
function extractFiles(db: CaseDb, fileIds: readonly number[], fingerprints: boolean): void {
  if (fileIds.length === 0) return
  const texts = recordTextLoader(db)
  const extracts = extractWriter(db)
  const page = db.prepare(`SELECT id, tenant_id, session_id, ts_ms, decode_node FROM records WHERE file_id = ? AND id > ? ORDER BY id LIMIT ${BATCH}`).raw()
  const buf = new FingerprintBuffer()
  for (const fileId of fileIds) {
    for (let last = 0; ; ) {
      const rows = page.all(fileId, last) as Array<[number, string, string, number, string | null]>
      if (rows.length === 0) break
      for (const [id, tenant, session, ts, node] of rows) {
        const t = texts(id)
        buf.length = 0
        const x = extractRecord(t.request_text, t.response_text, buf, {fingerprints, pii: true})
        extracts.write(id, x, fingerprints ? buf.data : null, {ts_ms: ts, tenant_id: tenant, session_id: session, decode_node: node})
      }
      last = rows.at(-1)![0]
    }
    // Unconventional markers are matched by the marker pass (extracted_unconventional stays unset).
    db.prepare('UPDATE files SET extracted = ? WHERE id = ?').run(fingerprints ? EXTRACT_SCHEME : null, fileId)
  }
}

/**
 * The marker pass: classifies the marker-shaped tokens ingest stored for each response
 * (a hash lookup per token, so the cost does not grow with the registry); the texts are
 * read only for the prompts of non-own sightings (the echo check) and, when the registry
 * holds markers outside the CANARY-<hex> convention, for every response.
 */
export function scanMarkers(db: CaseDb, options: {now: Date; fingerprints?: boolean}): MarkerPassStats {
  const registry = loadRegistry(db)
  const version = registryVersion(db)
  const full = getState(db, 'scanned_registry_version') !== version
  const scanned = new Set((db.prepare('SELECT file_id FROM scanned_files').pluck().all() as number[]))
  const complete = db.prepare(`SELECT id, extracted FROM files WHERE state = 'complete' AND kind = 'log' ORDER BY id`).all() as Array<{id: number; extracted: string | null}>
  const freshFiles = complete.filter((f) => !scanned.has(f.id))
  const insertSighting = db.prepare(
    `INSERT OR IGNORE INTO sightings (record_id, marker, marker_key, class, partial, source_session, source_tenant, position, token)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
  const texts = recordTextLoader(db)
  const putFingerprints = storeFingerprints(db)
  const countRecords = db.prepare('SELECT COUNT(*) FROM records WHERE file_id = ?').pluck()
  const stats: MarkerPassStats = {scanned: 0, fresh: 0, full, refingerprinted: 0, registry}

  const classify = (id: number, tenant: string, session: string, found: FoundMarker[]): void => {
    if (found.length === 0) return
    let lower: string | null = null
    const recipient = {tenant, session, promptLower: () => (lower ??= (texts(id).request_text ?? '').toLowerCase())}
    for (const f of found) {
      const c = classifySighting(f, recipient)
      insertSighting.run(id, f.registered ? f.registered.marker : f.token, f.registered?.key ?? null, c.class, f.partial ? 1 : 0, c.sourceSession, c.sourceTenant, f.position, f.token)
    }
  }

  // Unconventional markers: ingest matched the set the registry held then; a file matched
  // under another set is matched again from its texts (read in order, block by block).
  const unconventional = new UnconventionalSet(registry.unconventional.map((m) => m.marker))
  const byMarker = new Map(registry.unconventional.map((m) => [m.marker, m]))
  const extracts = extractWriter(db)
  const rematch = (fileId: number): void => {
    db.prepare('DELETE FROM response_tokens WHERE kind = 1 AND record_id IN (SELECT id FROM records WHERE file_id = ?)').run(fileId)
    if (unconventional.automaton) {
      const page = db.prepare(`SELECT id FROM records WHERE file_id = ? AND id > ? ORDER BY id LIMIT ${BATCH}`).pluck()
      for (let last = 0; ; ) {
        const ids = page.all(fileId, last) as number[]
        if (ids.length === 0) break
        for (const id of ids) {
          for (const hit of unconventional.hits(texts(id).response_text ?? '')) extracts.hit(id, hit)
        }
        last = ids.at(-1)!
      }
    }
    db.prepare('UPDATE files SET extracted_unconventional = ? WHERE id = ?').run(unconventional.hash, fileId)
  }

  const classifyFile = (fileId: number): void => {
    const matchedUnder = db.prepare('SELECT extracted_unconventional FROM files WHERE id = ?').pluck().get(fileId) as string | null
    if (matchedUnder !== unconventional.hash) rematch(fileId)
    // Read the file's tokens first: classify() reads prompts, which needs other statements.
    const rows = db
      .prepare(
        `SELECT t.record_id, t.kind, t.position, t.token, r.tenant_id, r.session_id FROM response_tokens t JOIN records r ON r.id = t.record_id
         WHERE r.file_id = ? ORDER BY t.record_id, t.kind, t.position`,
      )
      .raw()
      .all(fileId) as Array<[number, number, number, string, string, string]>
    for (let i = 0; i < rows.length; ) {
      const [id, , , , tenant, session] = rows[i]!
      const tokens: MarkerToken[] = []
      const hits: MarkerToken[] = []
      for (; i < rows.length && rows[i]![0] === id; i++) (rows[i]![1] === 0 ? tokens : hits).push({position: rows[i]![2], token: rows[i]![3]})
      const found = resolveTokens(tokens, registry)
      for (const hit of hits) {
        const registered = byMarker.get(hit.token)
        if (registered && !found.has(registered.key)) found.set(registered.key, {registered, token: registered.marker, hex: null, partial: false, position: hit.position})
      }
      classify(id, tenant, session, sortedFound(found))
    }
  }

  // Every row written here references a record id just read from `records` in the same
  // transaction, so the foreign-key lookups SQLite would make per insert prove nothing.
  const fk = db.pragma('foreign_keys', {simple: true}) as number
  if (fk) db.pragma('foreign_keys = OFF')
  try {
    db.transaction(() => {
      extractFiles(db, freshFiles.filter((f) => f.extracted !== EXTRACT_SCHEME).map((f) => f.id), options.fingerprints !== false)
      if (full) db.prepare('DELETE FROM sightings').run()
      for (const f of full ? complete : freshFiles) {
        classifyFile(f.id)
        stats.scanned += countRecords.get(f.id) as number
      }
      for (const f of freshFiles) {
        stats.fresh += countRecords.get(f.id) as number
        db.prepare('INSERT OR REPLACE INTO scanned_files (file_id, scanned_at) VALUES (?, ?)').run(f.id, options.now.toISOString())
      }
      // Fingerprints stored under an older scheme (e.g. by an earlier version) are recomputed.
      if (options.fingerprints !== false && getState(db, 'fingerprint_scheme') !== SCHEME) {
        const stale = db.prepare('SELECT record_id FROM fingerprints WHERE (scheme <> ? OR tenant_id IS NULL) AND record_id > ? ORDER BY record_id LIMIT 1000').pluck()
        const meta = db.prepare('SELECT ts_ms, tenant_id, session_id, decode_node FROM records WHERE id = ?').raw()
        for (let last = 0; ; ) {
          const ids = stale.all(SCHEME, last) as number[]
          if (ids.length === 0) break
          for (const id of ids) {
            const [ts, tenant, session, node] = meta.get(id) as [number, string, string, string | null]
            const t = texts(id)
            putFingerprints(id, fingerprintTexts(t.request_text, t.response_text), {ts_ms: ts, tenant_id: tenant, session_id: session, decode_node: node})
          }
          last = ids.at(-1)!
          stats.refingerprinted += ids.length
        }
        setState(db, 'fingerprint_scheme', SCHEME)
      }
      setState(db, 'scanned_registry_version', version)
    })()
  } finally {
    if (fk) db.pragma('foreign_keys = ON')
  }
  return stats
}

/** Flags status-200, non-error responses whose prompt reached the pool. */
export function flagAtRisk(db: CaseDb, poolTokens: number, advertisedTokens: number | null): {at_risk: number; above_advertised: number} {
  return db.transaction(() => {
    db.prepare('DELETE FROM at_risk').run()
    db.prepare(
      `INSERT INTO at_risk (record_id, prompt_tokens, pool_tokens, advertised_tokens, above_advertised)
       SELECT r.id, r.prompt_tokens, @pool, @adv, CASE WHEN @adv IS NOT NULL AND r.prompt_tokens >= @adv THEN 1 ELSE 0 END
       FROM records r JOIN files f ON f.id = r.file_id
       WHERE f.state = 'complete' AND r.status = 200 AND r.is_error = 0 AND r.prompt_tokens >= @pool`,
    ).run({pool: poolTokens, adv: advertisedTokens})
    return db.prepare('SELECT COUNT(*) AS at_risk, COALESCE(SUM(above_advertised), 0) AS above_advertised FROM at_risk').get() as {
      at_risk: number
      above_advertised: number
    }
  })()
}

export function scanCase(db: CaseDb, options: ScanOptions): ScanResult {
  const t0 = performance.now()
  const provOptions: ProvenanceOptions = {...DEFAULT_PROVENANCE, ...options.provenance}
  if (provOptions.minWords < 5) throw new UsageError('--min-words must be at least 5 (the k-gram length)')
  if (provOptions.boilerplateTenants < 2) throw new UsageError('--boilerplate-tenants must be at least 2')
  if (options.poolTokens === undefined && options.advertisedTokens !== undefined) throw new UsageError('--advertised-tokens needs --pool-tokens')
  if (options.poolTokens !== undefined && options.advertisedTokens !== undefined && options.advertisedTokens < options.poolTokens) {
    throw new UsageError('--advertised-tokens must be at least --pool-tokens')
  }

  // Query indexes (normally built by ingest; an interrupted ingest may have left one out).
  ensureQueryIndexes(db)
  const markers = scanMarkers(db, {now: options.now})
  const t1 = performance.now()

  let provenance: ProvenanceStats | null = null
  const params = JSON.stringify({minWords: provOptions.minWords, boilerplateTenants: provOptions.boilerplateTenants})
  // Nothing new and the same parameters: the stored table is current.
  const provenanceCurrent = markers.fresh === 0 && markers.refingerprinted === 0 && getState(db, 'provenance_params') === params
  if (!options.skipProvenance && !provenanceCurrent) {
    provenance = computeProvenance(db, provOptions)
    setState(db, 'provenance_params', params)
    setState(db, 'provenance_records', String(provenance.records))
  } else if (options.skipProvenance) {
    // New records were fingerprinted but not matched: the stored table is stale.
    setState(db, 'provenance_params', null)
  }
  const t2 = performance.now()
  const pii = computePiiFindings(db)
  const t3 = performance.now()

  // Pool size persists: a later incremental scan flags new records against the same pool.
  const pool = options.poolTokens ?? (getState(db, 'pool_tokens') === null ? null : Number(getState(db, 'pool_tokens')))
  const advertised =
    options.poolTokens !== undefined ? (options.advertisedTokens ?? null) : getState(db, 'advertised_tokens') === null ? null : Number(getState(db, 'advertised_tokens'))
  let risk: {at_risk: number; above_advertised: number} | null = null
  if (pool !== null) {
    risk = flagAtRisk(db, pool, advertised)
    setState(db, 'pool_tokens', String(pool))
    setState(db, 'advertised_tokens', advertised === null ? null : String(advertised))
  }
  const t4 = performance.now()

  const byClass = Object.fromEntries(SIGHTING_CLASSES.map((c) => [c, 0])) as Record<SightingClass, number>
  for (const row of db.prepare('SELECT class, COUNT(*) AS n FROM sightings GROUP BY class').all() as Array<{class: SightingClass; n: number}>) byClass[row.class] = row.n
  const responses = db
    .prepare(
      `SELECT COUNT(DISTINCT record_id) AS any,
              COUNT(DISTINCT CASE WHEN class = 'cross_session' THEN record_id END) AS cs,
              COUNT(DISTINCT CASE WHEN class = 'cross_tenant' THEN record_id END) AS ct
       FROM sightings WHERE class IN ('cross_session', 'cross_tenant')`,
    )
    .get() as {any: number; cs: number; ct: number}
  const result: ScanResult = {
    scanned_at: options.now.toISOString(),
    records_total: db.prepare(`SELECT COUNT(*) FROM records r JOIN files f ON f.id = r.file_id WHERE f.state = 'complete'`).pluck().get() as number,
    records_scanned: markers.scanned,
    records_new: markers.fresh,
    full_rescan: markers.full,
    canaries: db.prepare('SELECT COUNT(*) FROM canaries').pluck().get() as number,
    sightings: Object.values(byClass).reduce((a, b) => a + b, 0),
    sightings_by_class: byClass,
    partial_sightings: db.prepare('SELECT COUNT(*) FROM sightings WHERE partial = 1').pluck().get() as number,
    contaminated_responses: responses.any,
    cross_session_responses: responses.cs,
    cross_tenant_responses: responses.ct,
    provenance_matches: options.skipProvenance ? null : (db.prepare('SELECT COUNT(*) FROM provenance').pluck().get() as number),
    pii_findings: pii.findings,
    pii_attributed: pii.attributed,
    at_risk: risk?.at_risk ?? null,
    pool_tokens: pool,
    advertised_tokens: advertised,
    above_advertised: advertised === null ? null : (risk?.above_advertised ?? null),
    provenance_stats: provenance,
    timings_ms: {
      markers: Math.round(t1 - t0),
      provenance: Math.round(t2 - t1),
      pii: Math.round(t3 - t2),
      at_risk: Math.round(t4 - t3),
      total: Math.round(performance.now() - t0),
    },
  }
  setState(db, 'last_scan', JSON.stringify({at: result.scanned_at, records_total: result.records_total}))
  return result
}

/** Records in complete log files that no scan has looked at yet, and whether the registry changed since. */
export function scanStaleness(db: CaseDb): {unscanned_records: number; registry_changed: boolean; never_scanned: boolean} {
  const unscanned = db
    .prepare(
      `SELECT COUNT(*) FROM records r JOIN files f ON f.id = r.file_id
       WHERE f.state = 'complete' AND NOT EXISTS (SELECT 1 FROM scanned_files s WHERE s.file_id = r.file_id)`,
    )
    .pluck()
    .get() as number
  const scannedVersion = getState(db, 'scanned_registry_version')
  return {
    unscanned_records: unscanned,
    registry_changed: scannedVersion !== null && scannedVersion !== registryVersion(db),
    never_scanned: scannedVersion === null,
  }
}

export {getState as readScanState}
