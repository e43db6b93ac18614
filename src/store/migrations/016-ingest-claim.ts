import type {Database} from 'better-sqlite3'

// case_settings.ingest_pid alone could not be judged outside the claimant's PID namespace (an
// ingest killed in a container left its pid 2, alive on the host for ever). ingest_claim holds
// who claimed the case, as JSON (util/process-identity.ts: pid, host, boot id, PID namespace,
// start time); NULL with ingest_pid set is a claim made before this schema, judged by its pid.
export function up(db: Database): void {
  db.exec(`ALTER TABLE case_settings ADD COLUMN ingest_claim TEXT`)
}
