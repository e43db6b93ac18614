import type {Database} from 'better-sqlite3'

// Every secondary index is defined once, in the migrations. A bulk load may drop some of
// them and rebuild them at its end (one sort builds an index much faster than inserting
// rows into it one by one in random key order); the definition of each dropped index is
// kept in `suspended_indexes` in the same transaction as the drop, so an ingest killed in
// between leaves nothing lost: the next opening of the case rebuilds it from there.

/** Keys arrive in random order (UUID request ids, value hashes): dropped for every bulk load. */
export const RANDOM_ORDER_INDEXES = ['records_by_source_request', 'pii_values_by_value'] as const
/** The other record indexes: dropped only for a case's first load, when there is nothing to keep up to date. */
export const FIRST_LOAD_INDEXES = ['records_by_file', 'records_by_ts', 'records_by_session', 'records_by_tenant', 'records_at_risk'] as const

export function suspendIndexes(db: Database, names: readonly string[]): void {
  const definition = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?`).pluck()
  const keep = db.prepare('INSERT OR IGNORE INTO suspended_indexes (name, sql) VALUES (?, ?)')
  db.transaction(() => {
    for (const name of names) {
      const sql = definition.get(name) as string | undefined
      if (sql === undefined) continue
      keep.run(name, sql)
      db.exec(`DROP INDEX ${quoteIdent(name)}`)
    }
  })()
}

/**
 * Rebuilds every suspended index; SQLite checks a UNIQUE one as it builds it. `onStart` hears
 * how many are missing before the first is built (each is a sort of the whole table).
 */
export function restoreSuspendedIndexes(db: Database, onStart?: (indexes: number) => void): void {
  const rows = db.prepare('SELECT name, sql FROM suspended_indexes ORDER BY name').all() as Array<{name: string; sql: string}>
  if (rows.length === 0) return
  const present = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?`).pluck()
  const missing = rows.filter((row) => present.get(row.name) === undefined).length
  if (missing > 0) onStart?.(missing)
  const done = db.prepare('DELETE FROM suspended_indexes WHERE name = ?')
  db.transaction(() => {
    for (const row of rows) {
      if (present.get(row.name) === undefined) db.exec(row.sql)
      done.run(row.name)
    }
  })()
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`
}
