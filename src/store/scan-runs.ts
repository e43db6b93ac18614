import {completeRecords} from './records.js'
import type {CaseDb} from './open-case.js'

// Each scan as a recorded fact (scan_runs) and the files it covered (scanned_files), so that
// "has detection covered everything ingested?" is one question to the case, never inferred
// from whether a table has rows.

export interface ScanRunStart {
  startedAt: string
  registryVersion: number
  extractScheme: string
  fullRescan: boolean
  minWords: number
  boilerplateTenants: number
  poolTokens: number | null
  advertisedTokens: number | null
  /** the rules its sightings are classified under (SIGHTING_RULES) */
  sightingRules: number
}

export function beginScanRun(db: CaseDb, s: ScanRunStart): number {
  return Number(
    db
      .prepare(
        `INSERT INTO scan_runs (started_at, registry_version, extract_scheme, full_rescan, provenance_state, min_words, boilerplate_tenants, pool_tokens, advertised_tokens, sighting_rules)
         VALUES (?, ?, ?, ?, 'stale', ?, ?, ?, ?, ?)`,
      )
      .run(s.startedAt, s.registryVersion, s.extractScheme, s.fullRescan ? 1 : 0, s.minWords, s.boilerplateTenants, s.poolTokens, s.advertisedTokens, s.sightingRules).lastInsertRowid,
  )
}

export function markFilesScanned(db: CaseDb, runId: number, fileIds: readonly number[]): void {
  const mark = db.prepare('INSERT OR REPLACE INTO scanned_files (file_id, scan_run_id) VALUES (?, ?)')
  for (const id of fileIds) mark.run(id, runId)
}

export interface ScanRunEnd {
  finishedAt: string
  recordsTotal: number
  recordsScanned: number
  recordsNew: number
  provenanceState: 'current' | 'stale'
  /** responses provenance set aside as boilerplate; null: not known */
  boilerplateResponses?: number | null
  /** answers the verbatim-text search could not compare (a script written without spaces); null: not known */
  notComparableResponses?: number | null
}

export function finishScanRun(db: CaseDb, runId: number, e: ScanRunEnd): void {
  db.prepare('UPDATE scan_runs SET finished_at = ?, records_total = ?, records_scanned = ?, records_new = ?, provenance_state = ?, provenance_boilerplate_responses = ?, provenance_not_comparable_responses = ? WHERE id = ?').run(
    e.finishedAt, e.recordsTotal, e.recordsScanned, e.recordsNew, e.provenanceState, e.boilerplateResponses ?? null, e.notComparableResponses ?? null, runId,
  )
}

export interface ScanRunRow {
  id: number
  started_at: string
  finished_at: string | null
  registry_version: number
  extract_scheme: string
  full_rescan: number
  records_total: number | null
  records_scanned: number | null
  records_new: number | null
  provenance_state: 'current' | 'stale'
  min_words: number
  boilerplate_tenants: number
  pool_tokens: number | null
  advertised_tokens: number | null
  /** responses provenance set aside as boilerplate; null: not known */
  provenance_boilerplate_responses: number | null
  /** answers the verbatim-text search could not compare (a script written without spaces); null: not known (migration 018) */
  provenance_not_comparable_responses: number | null
  /** the rules its sightings were classified under; null: before rules 2 (a scan before migration 012) */
  sighting_rules: number | null
}

/** The most recent scan that finished, or null. */
export function lastFinishedScan(db: CaseDb): ScanRunRow | null {
  return (db.prepare('SELECT * FROM scan_runs WHERE finished_at IS NOT NULL ORDER BY id DESC LIMIT 1').get() as ScanRunRow | undefined) ?? null
}

/**
 * The start of the last scan run where it did not finish (killed, interrupted by a signal,
 * failed), or is still running: one begun after the last finished run. Each phase of a scan
 * commits on its own (sightings, then provenance, then personal data), so such a run may have
 * rewritten some of the findings the last finished run describes. Null where there is none.
 */
export function unfinishedScanStart(db: CaseDb): string | null {
  return (
    (db
      .prepare(`SELECT started_at FROM scan_runs WHERE finished_at IS NULL AND id > (SELECT COALESCE(MAX(id), 0) FROM scan_runs WHERE finished_at IS NOT NULL) ORDER BY id DESC LIMIT 1`)
      .pluck()
      .get() as string | undefined) ?? null
  )
}

/** Whether a scan run began at this time and never finished (killed, failed, or still running). */
export function unfinishedScanRunAt(db: CaseDb, startedAt: string): boolean {
  return db.prepare('SELECT EXISTS (SELECT 1 FROM scan_runs WHERE started_at = ? AND finished_at IS NULL)').pluck().get(startedAt) === 1
}

export function scannedFileIds(db: CaseDb): Set<number> {
  return new Set(db.prepare('SELECT file_id FROM scanned_files').pluck().all() as number[])
}

/**
 * Complete log files and their records that no finished scan has covered. A log held in two
 * versions (ingested again once it grew), neither scanned, is one log file, as status counts
 * it: an earlier version is left out of `files` where the version that continues it is unscanned
 * too (so `files` is 0 exactly when no file is unscanned); every record counts.
 */
export function unscannedFiles(db: CaseDb): {files: number; records: number} {
  const unscanned = (f: string) => `NOT EXISTS (SELECT 1 FROM scanned_files s JOIN scan_runs run ON run.id = s.scan_run_id WHERE s.file_id = ${f}.id AND run.finished_at IS NOT NULL)`
  return db
    .prepare(
      `SELECT COUNT(*) - coalesce(SUM(EXISTS (SELECT 1 FROM files n WHERE n.continues_file_id = f.id AND n.kind = 'log' AND n.state = 'complete' AND ${unscanned('n')})), 0) AS files,
              coalesce(SUM(f.records), 0) AS records FROM files f
        WHERE f.kind = 'log' AND f.state = 'complete' AND ${unscanned('f')}`,
    )
    .get() as {files: number; records: number}
}

/** Records of complete files (what a scan covers). */
export function completeRecordCount(db: CaseDb): number {
  return db.prepare(`SELECT COUNT(*) FROM records r WHERE 1 = 1${completeRecords(db)}`).pluck().get() as number
}

/** Every scan that finished, oldest first. */
export function finishedScanRuns(db: CaseDb): ScanRunRow[] {
  return db.prepare('SELECT * FROM scan_runs WHERE finished_at IS NOT NULL ORDER BY id').all() as ScanRunRow[]
}

/** A scratch copy's detection state cleared, so that a scan there derives every finding again (verify --deep). */
export function resetDetection(db: CaseDb): void {
  db.transaction(() => {
    db.prepare('DELETE FROM sightings').run()
    db.prepare('DELETE FROM provenance').run()
    db.prepare('DELETE FROM pii_findings').run()
    db.prepare('DELETE FROM scanned_files').run()
    db.prepare('DELETE FROM scan_runs').run()
  })()
}

/**
 * Evidence was removed (crosstalk drop): provenance ranked sources among records that are gone
 * and judged boilerplate over texts that are gone, so the last scan's provenance no longer
 * covers the case. Detection then reads as incomplete until the next scan recomputes it.
 */
export function markProvenanceStale(db: CaseDb): void {
  db.prepare(`UPDATE scan_runs SET provenance_state = 'stale' WHERE provenance_state = 'current'`).run()
}

/**
 * One tenant's records in complete log files, and how many of them no finished scan has covered
 * (the tenant view's figures speak for the scanned ones only: a lower bound, or not known where
 * none of its records was scanned).
 */
export function tenantRecordsScanned(db: CaseDb, tenant: string): {records: number; not_scanned: number} {
  return db
    .prepare(
      `SELECT COUNT(*) AS records,
              coalesce(SUM(NOT EXISTS (SELECT 1 FROM scanned_files s JOIN scan_runs run ON run.id = s.scan_run_id WHERE s.file_id = r.file_id AND run.finished_at IS NOT NULL)), 0) AS not_scanned
         FROM records r JOIN files f ON f.id = r.file_id
        WHERE r.tenant_id = ? AND f.kind = 'log' AND f.state = 'complete'`,
    )
    .get(tenant) as {records: number; not_scanned: number}
}
