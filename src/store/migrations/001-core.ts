import type {Database} from 'better-sqlite3'

// The evidence layer: files as received, their raw bytes, the records decoded from them,
// lines that could not be decoded, the canary registry and the audit chain.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE meta (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT;

    -- One row per evidence file. sha256 is over the file exactly as received (a .gz stays
    -- compressed); content_sha256 is over the decompressed bytes that records point into.
    CREATE TABLE files (
      id             INTEGER PRIMARY KEY,
      kind           TEXT NOT NULL CHECK (kind IN ('log', 'canaries')),
      path           TEXT NOT NULL,
      abs_path       TEXT NOT NULL,
      sha256         TEXT NOT NULL UNIQUE,
      size           INTEGER NOT NULL,
      format         TEXT NOT NULL,
      source         TEXT NOT NULL,
      state          TEXT NOT NULL CHECK (state IN ('loading', 'complete')),
      started_at     TEXT NOT NULL,
      completed_at   TEXT,
      content_sha256 TEXT,
      content_size   INTEGER,
      lines          INTEGER NOT NULL DEFAULT 0,
      blank_lines    INTEGER NOT NULL DEFAULT 0,
      records        INTEGER NOT NULL DEFAULT 0,
      duplicates     INTEGER NOT NULL DEFAULT 0,
      bad_lines      INTEGER NOT NULL DEFAULT 0,
      first_ts       TEXT,
      last_ts        TEXT,
      notes          TEXT
    ) STRICT;

    -- The decompressed bytes of every file, in blocks compressed one by one so that any
    -- line can be read back without inflating the whole file. The block CRC locates damage;
    -- the file's content_sha256 over all blocks is the cryptographic check.
    CREATE TABLE evidence_blocks (
      file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      seq        INTEGER NOT NULL,
      raw_offset INTEGER NOT NULL,
      raw_len    INTEGER NOT NULL,
      crc32      INTEGER NOT NULL,
      codec      TEXT NOT NULL,
      data       BLOB NOT NULL,
      PRIMARY KEY (file_id, seq)
    ) STRICT;

    CREATE TABLE records (
      id                INTEGER PRIMARY KEY,
      file_id           INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      line_no           INTEGER NOT NULL,
      byte_offset       INTEGER NOT NULL,
      byte_len          INTEGER NOT NULL,
      raw_crc32         INTEGER NOT NULL,
      source            TEXT NOT NULL,
      request_id        TEXT NOT NULL,
      ts                TEXT NOT NULL,
      ts_ms             INTEGER NOT NULL,
      tenant_id         TEXT NOT NULL,
      session_id        TEXT NOT NULL,
      status            INTEGER,
      endpoint          TEXT,
      model             TEXT,
      prefill_node      TEXT,
      decode_node       TEXT,
      prompt_tokens     INTEGER,
      completion_tokens INTEGER,
      cached_tokens     INTEGER,
      stream            INTEGER NOT NULL,
      response_kind     TEXT NOT NULL,
      is_error          INTEGER NOT NULL,
      error_message     TEXT,
      request_text      TEXT,
      response_text     TEXT
    ) STRICT;
    CREATE UNIQUE INDEX records_by_source_request ON records (source, request_id);

    -- A request_id seen again within its source: not a second record, but kept.
    CREATE TABLE duplicate_lines (
      id          INTEGER PRIMARY KEY,
      file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      line_no     INTEGER NOT NULL,
      byte_offset INTEGER NOT NULL,
      byte_len    INTEGER NOT NULL,
      request_id  TEXT NOT NULL,
      identical   INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE bad_lines (
      id            INTEGER PRIMARY KEY,
      file_id       INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      line_no       INTEGER NOT NULL,
      byte_offset   INTEGER NOT NULL,
      byte_len      INTEGER NOT NULL,
      reason        TEXT NOT NULL,
      raw           BLOB NOT NULL,
      raw_truncated INTEGER NOT NULL
    ) STRICT;

    -- marker_key is the marker as matched: for CANARY-<hex> markers the hex in lower case.
    CREATE TABLE canaries (
      marker_key TEXT PRIMARY KEY,
      marker     TEXT NOT NULL,
      tenant_id  TEXT NOT NULL,
      session_id TEXT NOT NULL,
      issued_at  TEXT,
      file_id    INTEGER REFERENCES files(id)
    ) STRICT;
    CREATE INDEX canaries_by_session ON canaries (session_id);

    -- Append-only, hash-chained: hash = sha256(canonical JSON of every other column).
    CREATE TABLE audit_log (
      seq       INTEGER PRIMARY KEY,
      at        TEXT NOT NULL,
      command   TEXT NOT NULL,
      args      TEXT NOT NULL,
      version   TEXT NOT NULL,
      summary   TEXT NOT NULL,
      prev_hash TEXT NOT NULL,
      hash      TEXT NOT NULL
    ) STRICT;
    CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log
      BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
    CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log
      BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
  `)
}
