import type {Database} from 'better-sqlite3'

// Detection, second step: the per-record facts provenance needs (time, tenant, session,
// decode node) stored beside each record's fingerprints, so that matching reads only the
// compact fingerprints table and never scans `records` (whose rows carry the full texts).
// Rows written before this migration have NULLs; they are refingerprinted (scheme v2).
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE fingerprints ADD COLUMN ts_ms INTEGER;
    ALTER TABLE fingerprints ADD COLUMN tenant_id TEXT;
    ALTER TABLE fingerprints ADD COLUMN session_id TEXT;
    ALTER TABLE fingerprints ADD COLUMN decode_node TEXT;
  `)
}
