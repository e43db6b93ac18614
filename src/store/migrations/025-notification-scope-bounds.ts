import type {Database} from 'better-sqlite3'

// notification_scopes.sessions_low / source_tenants_low: where a canary marker cut short named
// none of the several sessions (or customers) whose markers it prefixes, the exposure's sessions
// and customers were lower bounds (scope's sessions_low / source_tenants_low): a notification
// stated "at least N", and what it was based on must be restated so. NULL: the named counts were
// the whole (or the scope was stored before this schema, when the bound was not kept).
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE notification_scopes ADD COLUMN sessions_low INTEGER;
    ALTER TABLE notification_scopes ADD COLUMN source_tenants_low INTEGER;
  `)
}
