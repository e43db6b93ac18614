import type {CaseDb} from './open-case.js'

// The log sources an ingest reached and did not read (migration 009): recorded open, settled
// by a later whole ingest of the same source or by an audited dismissal.

export interface UnreadSourceRow {
  id: number
  path: string
  name: string
  abs_path: string
  size: number | null
  sha256: string | null
  reason: string
  recorded_by: string
  recorded_at: string
  settled_at: string | null
  settled_by: 'ingest' | 'dismiss' | null
  settle_note: string | null
}

export type NewUnreadSource = Pick<UnreadSourceRow, 'path' | 'name' | 'abs_path' | 'size' | 'sha256' | 'reason' | 'recorded_by' | 'recorded_at'>

/** The open entry of this source (same resolved path and same bytes, or bytes unknown on both), if any. */
export function openUnreadSourceLike(db: CaseDb, s: Pick<UnreadSourceRow, 'abs_path' | 'sha256'>): UnreadSourceRow | undefined {
  return db
    .prepare(`SELECT * FROM unread_sources WHERE settled_at IS NULL AND abs_path = ? AND sha256 IS ? ORDER BY id LIMIT 1`)
    .get(s.abs_path, s.sha256) as UnreadSourceRow | undefined
}

export function insertUnreadSource(db: CaseDb, s: NewUnreadSource): UnreadSourceRow {
  const id = Number(
    db
      .prepare(`INSERT INTO unread_sources (path, name, abs_path, size, sha256, reason, recorded_by, recorded_at) VALUES (@path, @name, @abs_path, @size, @sha256, @reason, @recorded_by, @recorded_at)`)
      .run(s).lastInsertRowid,
  )
  return {...s, id, settled_at: null, settled_by: null, settle_note: null}
}

/**
 * The open entries a file read whole settles: the same bytes (its SHA-256), or, for an entry
 * whose bytes could not be read, the same resolved path.
 */
export function openUnreadSourcesReadBy(db: CaseDb, f: {abs_path: string; sha256: string}): UnreadSourceRow[] {
  return db
    .prepare(`SELECT * FROM unread_sources WHERE settled_at IS NULL AND (sha256 = ? OR (sha256 IS NULL AND abs_path = ?)) ORDER BY id`)
    .all(f.sha256, f.abs_path) as UnreadSourceRow[]
}

/** The open entries given as `path` (as recorded, or resolved to `absPath`). */
export function openUnreadSourcesAt(db: CaseDb, path: string, absPath: string): UnreadSourceRow[] {
  return db.prepare(`SELECT * FROM unread_sources WHERE settled_at IS NULL AND (path = ? OR abs_path = ?) ORDER BY id`).all(path, absPath) as UnreadSourceRow[]
}

export function settleUnreadSource(db: CaseDb, id: number, by: 'ingest' | 'dismiss', at: string, note: string): void {
  db.prepare(`UPDATE unread_sources SET settled_at = ?, settled_by = ?, settle_note = ? WHERE id = ? AND settled_at IS NULL`).run(at, by, note, id)
}

export function openUnreadSources(db: CaseDb): UnreadSourceRow[] {
  return db.prepare(`SELECT * FROM unread_sources WHERE settled_at IS NULL ORDER BY id`).all() as UnreadSourceRow[]
}

export function listUnreadSources(db: CaseDb): UnreadSourceRow[] {
  return db.prepare(`SELECT * FROM unread_sources ORDER BY id`).all() as UnreadSourceRow[]
}
