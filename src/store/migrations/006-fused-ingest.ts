import type {Database} from 'better-sqlite3'

// Ingest extracts what detection needs while it parses each line (in worker threads), so
// that nothing reads the texts twice and the case does not store them twice:
// - records no longer carry request_text/response_text for new files (the columns stay,
//   for cases written before; texts are re-derived from the evidence bytes on demand,
//   which is why the field mapping used at ingest is kept with the file);
// - the marker-shaped tokens of every response are stored, registry-independent, so a
//   scan (and a rescan after the registry changed) classifies without the texts.
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE files ADD COLUMN field_map TEXT;
    -- The extraction scheme ingest applied to this file's records (tokens, PII values,
    -- fingerprints); NULL: a scan derives them from the texts.
    ALTER TABLE files ADD COLUMN extracted TEXT;
    -- SHA-256 of the registry's unconventional markers (sorted, newline-joined) that ingest
    -- matched in this file's responses; '' when there were none. A scan under another set
    -- matches them again from the texts.
    ALTER TABLE files ADD COLUMN extracted_unconventional TEXT;

    -- kind 0: every CANARY-<8+ hex> token in a response, as found (case kept), by position.
    -- kind 1: the first occurrence of each registered unconventional marker (see
    -- files.extracted_unconventional), the marker as registered.
    CREATE TABLE response_tokens (
      record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      kind      INTEGER NOT NULL CHECK (kind IN (0, 1)),
      position  INTEGER NOT NULL,
      token     TEXT NOT NULL,
      PRIMARY KEY (record_id, kind, position, token)
    ) STRICT, WITHOUT ROWID;
  `)
}
