import Database from 'better-sqlite3'
import {MIGRATIONS} from './migrations/index.js'
import {LATEST_SCHEMA, type CaseDb} from './open-case.js'

let expected: string[] | null = null

/** The tables every case of the latest schema holds: the migrations run once over an empty database in memory. */
export function caseSchemaTables(): string[] {
  if (expected !== null) return expected
  const mem = new Database(':memory:')
  try {
    for (const m of MIGRATIONS) m.up(mem)
    expected = (mem.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`).pluck().all() as string[])
  } finally {
    mem.close()
  }
  return expected
}

/**
 * The tables a case of the latest schema should hold and this one does not (dropped by hand, or
 * the file damaged): verify names each, instead of failing on the first statement that reads one.
 * Empty for a case of another schema (its open says what is wrong with it).
 */
export function missingCaseTables(db: CaseDb): string[] {
  if ((db.pragma('user_version', {simple: true}) as number) !== LATEST_SCHEMA) return []
  const present = new Set(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[])
  return caseSchemaTables().filter((t) => !present.has(t))
}
