import type {Database} from 'better-sqlite3'

// A log that grew after it was ingested (appended to) is stored again as a new version, and the
// case keeps each stored file as it was (its SHA-256, its bytes). The new version's lines up to
// where the earlier one's whole lines end are the earlier version's, already stored there: they
// are not read again, so no record, duplicate or bad line is counted twice. `continues_file_id`
// names that earlier version (NULL: a file of its own); `read_from` is the offset in the
// (decompressed) content where this version's own lines begin (0: all of them). A file the
// case holds in several versions counts once among its log files; `drop` takes an earlier version
// only with every later one (a plain column, not a foreign key: an older schema stays reachable by
// dropping the columns, as the migration tests do, and verify names a version whose earlier one is gone). `head_sha256` (SHA-256 of the
// file's first 4096 bytes as stored, or of all of it when shorter; NULL for files stored before)
// finds the version a file grew from under any path or name without reading it further.
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE files ADD COLUMN continues_file_id INTEGER;
    ALTER TABLE files ADD COLUMN read_from INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE files ADD COLUMN head_sha256 TEXT;
    CREATE INDEX files_by_continued ON files (continues_file_id) WHERE continues_file_id IS NOT NULL;
    CREATE INDEX files_by_head ON files (head_sha256) WHERE head_sha256 IS NOT NULL;
  `)
}
