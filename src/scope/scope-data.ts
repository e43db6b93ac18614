import {tableExists, type CaseDb} from '../store/open-case.js'

// The rows scope, the tenant view and the timeline are built from. Contamination is rare
// next to the records (thousands of sightings against millions of responses), so the
// contaminating sightings and provenance rows are read once and aggregated in memory;
// only the questions that range over every record (at risk, exposure) go to SQL, on
// indexes made for them.

export const CONTAMINATING = ['cross_session', 'cross_tenant'] as const
export type ContaminatingClass = (typeof CONTAMINATING)[number]

/** The recipient response a finding was made in, and where its content came from. */
interface Finding {
  record_id: number
  request_id: string
  source_session: string | null
  source_tenant: string | null
  recipient_session: string
  recipient_tenant: string
  ts_ms: number
  decode_node: string | null
  status: number | null
  prompt_tokens: number | null
}

/** A cross_session or cross_tenant sighting joined to the response it was found in. */
export interface ContaminationRow extends Finding {
  class: ContaminatingClass
  marker: string
}

/** A response whose content was attributed to another session's prompt or answer. */
export interface ProvenanceRow extends Finding {
  source_record_id: number | null
  overlap_words: number | null
}

export const HOUR_MS = 3_600_000

export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString()
}

export function hourStart(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS
}

/**
 * SQL condition keeping only records of files whose ingest completed (a file still
 * 'loading' was interrupted and its rows are not evidence yet). Empty when every file is
 * complete, so the common case costs nothing. Ids are integers read from the case.
 */
export function completeOnly(db: CaseDb, alias = 'r'): string {
  const ids = (db.prepare(`SELECT id FROM files WHERE state <> 'complete'`).all() as Array<{id: number}>).map((f) => Math.trunc(f.id))
  return ids.length === 0 ? '' : ` AND ${alias}.file_id NOT IN (${ids.join(',')})`
}

/**
 * Indexes the scope queries need, created after bulk loads (house style) rather than in a
 * migration, so ingest does not maintain them row by row. IF NOT EXISTS makes this free
 * once built; a read-only case just runs without them.
 */
export function ensureScopeIndexes(db: CaseDb): void {
  if (db.readonly) return
  const statements = [
    // at risk: status = 200 AND prompt_tokens >= pool, grouped by node and hour (covering:
    // is_error too, so that counting errors reads no table rows); v1 lacked is_error
    'DROP INDEX IF EXISTS records_scope_at_risk',
    'CREATE INDEX IF NOT EXISTS records_scope_at_risk_v2 ON records (status, prompt_tokens, decode_node, ts_ms, is_error)',
    // exposure: sessions served by a node inside a window
    'CREATE INDEX IF NOT EXISTS records_scope_node_ts ON records (decode_node, ts_ms, tenant_id, session_id)',
  ]
  if (tableExists(db, 'sightings')) statements.push('CREATE INDEX IF NOT EXISTS sightings_scope_class ON sightings (class, record_id)')
  if (tableExists(db, 'sightings')) statements.push('CREATE INDEX IF NOT EXISTS sightings_scope_record ON sightings (record_id, class)')
  if (tableExists(db, 'provenance')) statements.push('CREATE INDEX IF NOT EXISTS provenance_scope_record ON provenance (record_id)')
  if (tableExists(db, 'pii_findings')) statements.push('CREATE INDEX IF NOT EXISTS pii_findings_scope_record ON pii_findings (record_id)')
  db.transaction(() => {
    for (const sql of statements) db.exec(sql)
  })()
}

export function loadContamination(db: CaseDb): ContaminationRow[] {
  if (!tableExists(db, 'sightings')) return []
  return db
    .prepare(
      `SELECT s.record_id, r.request_id, s.class, s.marker, s.source_session, s.source_tenant,
              r.session_id AS recipient_session, r.tenant_id AS recipient_tenant, r.ts_ms,
              r.decode_node, r.status, r.prompt_tokens
         FROM sightings s JOIN records r ON r.id = s.record_id
        WHERE s.class IN ('cross_session', 'cross_tenant')${completeOnly(db)}
        ORDER BY r.ts_ms, s.record_id, s.id`,
    )
    .all() as ContaminationRow[]
}

/** Provenance rows that point at another session (a session's own earlier turn is not a leak). */
export function loadProvenance(db: CaseDb): ProvenanceRow[] {
  if (!tableExists(db, 'provenance')) return []
  const rows = db
    .prepare(
      `SELECT v.record_id, r.request_id, v.source_record_id, v.source_session, v.source_tenant,
              r.session_id AS recipient_session, r.tenant_id AS recipient_tenant, r.ts_ms,
              r.decode_node, r.status, r.prompt_tokens, v.overlap_words
         FROM provenance v JOIN records r ON r.id = v.record_id
        WHERE 1 = 1${completeOnly(db)}
        ORDER BY r.ts_ms, v.record_id, v.id`,
    )
    .all() as ProvenanceRow[]
  return rows.filter((p) => p.source_session !== p.recipient_session || p.source_tenant !== p.recipient_tenant)
}

/** A session is only unique within its tenant: count (tenant, session) pairs. */
export function sessionKey(tenant: string | null, session: string | null): string {
  return JSON.stringify([tenant, session])
}

export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Orders null last, then by code unit. */
export function byNullableText(a: string | null, b: string | null): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return byText(a, b)
}
