import type {Database} from 'better-sqlite3'

// The log sources an ingest reached and did not read (a directory entry it could not open, a
// compression it does not read, a file refused for its lines), kept so that a later command on
// the case knows they exist: a gate does not pass and no document says every log was searched
// while one is open. An entry is settled when the same source is later ingested whole
// (`settled_by` 'ingest'), or dismissed by the responder with a reason ('dismiss'). A file kept
// only partly read is not here: the files table holds it, with what was not read.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE unread_sources (
      id            INTEGER PRIMARY KEY,
      -- as given or reached (for the responder), its last component (for documents sent to
      -- others) and the resolved path (what a later ingest of the same source is matched on)
      path          TEXT NOT NULL,
      name          TEXT NOT NULL,
      abs_path      TEXT NOT NULL,
      -- NULL: not known (it could not be opened or read)
      size          INTEGER CHECK (size >= 0),
      sha256        TEXT,
      reason        TEXT NOT NULL,
      -- the command that reached it ('ingest logs', 'triage') and when
      recorded_by   TEXT NOT NULL,
      recorded_at   TEXT NOT NULL,
      settled_at    TEXT,
      settled_by    TEXT CHECK (settled_by IN ('ingest', 'dismiss')),
      -- 'ingest': the file that read it whole (its SHA-256); 'dismiss': the responder's reason
      settle_note   TEXT,
      CHECK ((settled_at IS NULL) = (settled_by IS NULL))
    ) STRICT;
    CREATE INDEX unread_sources_open ON unread_sources (abs_path) WHERE settled_at IS NULL;
  `)
}
