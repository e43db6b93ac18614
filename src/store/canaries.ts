import type {CaseDb} from './open-case.js'
import {setSortCache} from './session.js'

// The canary registry. A registry can hold hundreds of thousands of markers (one per
// session): it is staged line by line in a temporary table and checked with SQL, and a scan
// looks markers up one token at a time (primary-key point and range searches), never
// loading the whole registry.

export interface CanaryRow {
  marker_key: string
  marker: string
  tenant_id: string
  session_id: string
}

export interface StagedCanary {
  line: number
  marker_key: string
  marker: string
  tenant_id: string
  session_id: string
  issued_at: string | null
}

/** Must stay identical to the WHERE of the partial index canaries_unconventional (migration 001). */
export const UNCONVENTIONAL_WHERE =
  "NOT (marker_key GLOB 'CANARY-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]*' AND substr(marker_key, 8) NOT GLOB '*[^0-9a-f]*')"

/** The registry's statements (tests check that each is an index search, never a registry scan). */
export const REGISTRY_SQL = {
  exact: 'SELECT marker_key, marker, tenant_id, session_id FROM canaries WHERE marker_key = ?',
  range: 'SELECT marker_key, marker, tenant_id, session_id FROM canaries WHERE marker_key > ? AND marker_key < ? ORDER BY marker_key LIMIT ?',
  unconventional: `SELECT marker_key, marker, tenant_id, session_id FROM canaries WHERE ${UNCONVENTIONAL_WHERE}`,
}

export interface RegistryLookups {
  exact(key: string): CanaryRow | undefined
  /** Up to `limit` keys in (key, key + U+FFFF), in key order. */
  range(key: string, limit: number): CanaryRow[]
  unconventional(): CanaryRow[]
}

export function registryLookups(db: CaseDb): RegistryLookups {
  const exact = db.prepare(REGISTRY_SQL.exact)
  const range = db.prepare(REGISTRY_SQL.range)
  const unconventional = db.prepare(REGISTRY_SQL.unconventional)
  return {
    exact: (key) => exact.get(key) as CanaryRow | undefined,
    range: (key, limit) => range.all(key, `${key}\uffff`, limit) as CanaryRow[],
    unconventional: () => unconventional.all() as CanaryRow[],
  }
}

export function unconventionalMarkers(db: CaseDb): string[] {
  return db.prepare(`SELECT marker FROM canaries WHERE ${UNCONVENTIONAL_WHERE}`).pluck().all() as string[]
}

export function countCanaries(db: CaseDb): number {
  return db.prepare('SELECT COUNT(*) FROM canaries').pluck().get() as number
}

/** Whether the case's registry gives `tenant` a marker (a controller whose data may have leaked though it sent nothing logged). */
export function tenantRegistered(db: CaseDb, tenant: string): boolean {
  return db.prepare('SELECT 1 FROM canaries WHERE tenant_id = ? LIMIT 1').get(tenant) !== undefined
}

/** Every tenant id the registry names, exactly as written. */
export function registeredTenantIds(db: CaseDb): string[] {
  return db.prepare('SELECT DISTINCT tenant_id FROM canaries').pluck().all() as string[]
}

/** Whether the case holds any registered marker (one row looked at, where a count reads them all). */
export function hasCanaries(db: CaseDb): boolean {
  return (db.prepare('SELECT EXISTS (SELECT 1 FROM canaries)').pluck().get() as number) === 1
}

/** A staging area for one registry file, checked before anything reaches `canaries`. */
export interface RegistryStaging {
  add(entry: StagedCanary): void
  /** Markers the file gives to two sessions, and markers it gives to another session than the case does (at most `limit` each). */
  conflicts(limit: number): {inFile: Array<{marker: string; line_a: number; tenant_a: string; session_a: string; line_b: number; tenant_b: string; session_b: string}>; inCase: Array<{marker: string; line: number; session_id: string; stored_session: string; stored_tenant: string}>}
  /** Copies the staged entries into the registry (first registration of a key wins); returns how many were new. */
  commit(fileId: number): number
  /** The distinct markers (keys) staged: a marker the file gives twice is one. */
  distinctMarkers(): number
  drop(): void
}

const STAGE_BATCH = 64

/**
 * The staging table's page cache, KiB. Without a bound the temporary database held the whole
 * staged registry in memory: 120 MB of 126 for a 930,000-marker registry (measured; 8 MB with
 * this bound, the rest spilled to SQLite's temporary file).
 */
const STAGING_CACHE_KIB = 4000

export function stageRegistry(db: CaseDb): RegistryStaging {
  const tempCache = db.pragma('temp.cache_size', {simple: true}) as number
  db.pragma(`temp.cache_size = -${STAGING_CACHE_KIB}`)
  // Its index and its copy into the registry are sorts of the whole file.
  const restoreCache = setSortCache(db)
  db.exec('DROP TABLE IF EXISTS temp.canary_staging')
  db.exec('CREATE TEMP TABLE canary_staging (line INTEGER NOT NULL, marker_key TEXT NOT NULL, marker TEXT NOT NULL, tenant_id TEXT NOT NULL, session_id TEXT NOT NULL, issued_at TEXT)')
  // Rows go in STAGE_BATCH to a statement: one call into SQLite instead of one a row.
  const row = '(?, ?, ?, ?, ?, ?)'
  const stageMany = db.prepare(`INSERT INTO temp.canary_staging VALUES ${Array(STAGE_BATCH).fill(row).join(', ')}`)
  const stageOne = db.prepare(`INSERT INTO temp.canary_staging VALUES ${row}`)
  let batch: unknown[] = []
  const flush = () => {
    for (let i = 0; i < batch.length; i += 6) stageOne.run(batch.slice(i, i + 6))
    batch = []
  }
  let indexed = false
  return {
    add: (e) => {
      batch.push(e.line, e.marker_key, e.marker, e.tenant_id, e.session_id, e.issued_at)
      if (batch.length === STAGE_BATCH * 6) {
        stageMany.run(batch)
        batch = []
      }
    },
    conflicts: (limit) => {
      flush()
      if (!indexed) db.exec('CREATE INDEX temp.canary_staging_by_key ON canary_staging (marker_key, line)')
      indexed = true
      const inFile = db
        .prepare(
          `SELECT a.marker, a.line AS line_a, a.tenant_id AS tenant_a, a.session_id AS session_a, b.line AS line_b, b.tenant_id AS tenant_b, b.session_id AS session_b
           FROM temp.canary_staging a JOIN temp.canary_staging b ON b.marker_key = a.marker_key AND b.line > a.line
           WHERE a.session_id <> b.session_id OR a.tenant_id <> b.tenant_id
           ORDER BY a.line LIMIT ?`,
        )
        .all(limit) as Array<{marker: string; line_a: number; tenant_a: string; session_a: string; line_b: number; tenant_b: string; session_b: string}>
      const inCase = db
        .prepare(
          `SELECT s.marker, s.line, s.session_id, c.session_id AS stored_session, c.tenant_id AS stored_tenant
           FROM temp.canary_staging s JOIN canaries c ON c.marker_key = s.marker_key
           WHERE c.session_id <> s.session_id OR c.tenant_id <> s.tenant_id
           ORDER BY s.line LIMIT ?`,
        )
        .all(limit) as Array<{marker: string; line: number; session_id: string; stored_session: string; stored_tenant: string}>
      return {inFile, inCase}
    },
    // In key order (the same rows as in line order: of a key given twice, its first line still
    // comes first and wins), so the registry's key B-trees grow at their right edge.
    commit: (fileId) => {
      flush()
      return db
        .prepare(
          `INSERT INTO canaries (marker_key, marker, tenant_id, session_id, issued_at, file_id)
           SELECT marker_key, marker, tenant_id, session_id, issued_at, ? FROM temp.canary_staging WHERE true ORDER BY marker_key, line
           ON CONFLICT (marker_key) DO NOTHING`,
        )
        .run(fileId).changes
    },
    distinctMarkers: () => {
      flush()
      return db.prepare('SELECT COUNT(DISTINCT marker_key) FROM temp.canary_staging').pluck().get() as number
    },
    drop: () => {
      db.exec('DROP TABLE IF EXISTS temp.canary_staging')
      db.pragma(`temp.cache_size = ${Math.trunc(tempCache)}`)
      restoreCache()
    },
  }
}

/** Deletes the markers registered from file `fileId` (a registry withdrawn by `drop`); returns their keys. */
export function withdrawRegistryMarkers(db: CaseDb, fileId: number): string[] {
  return db.prepare('DELETE FROM canaries WHERE file_id = ? RETURNING marker_key').pluck().all(fileId) as string[]
}

/** Whether a marker key is registered (one prepared lookup for many keys). */
export function keyRegistered(db: CaseDb): (key: string) => boolean {
  const present = db.prepare('SELECT 1 FROM canaries WHERE marker_key = ?').pluck()
  return (key) => present.get(key) !== undefined
}

export interface CanaryStored extends CanaryRow {
  issued_at: string | null
  file_id: number | null
}

/** The whole registry in key order (verify compares it with the registry files re-read). */
export function iterateCanaries(db: CaseDb): IterableIterator<CanaryStored> {
  return db.prepare('SELECT marker_key, marker, tenant_id, session_id, issued_at, file_id FROM canaries ORDER BY marker_key').iterate() as IterableIterator<CanaryStored>
}
