import type {CaseDb} from './open-case.js'

// SQLite's own check of the case file: its b-tree pages, free list and (full) every index
// against its table. A case can hold rows that every other check of verify re-derives and still
// be malformed underneath (bytes flipped in an index page): SQLite then answers some queries
// wrongly or fails them part-way, so verify must not call it sound.

/**
 * What SQLite finds wrong with the case file, at most `limit` lines; empty when it is sound.
 * `full`: PRAGMA integrity_check (also each index against its table: reads every row and index
 * entry); else PRAGMA quick_check (the pages and their structure, no index cross-check).
 */
export function databaseProblems(db: CaseDb, full: boolean, limit = 10): string[] {
  const rows = db.pragma(`${full ? 'integrity_check' : 'quick_check'}(${Math.max(1, Math.trunc(limit))})`) as Array<Record<string, string>>
  const lines = rows.map((r) => Object.values(r)[0] ?? '')
  return lines.length === 1 && lines[0] === 'ok' ? [] : lines
}
