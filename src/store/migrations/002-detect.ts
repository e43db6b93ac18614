import type {Database} from 'better-sqlite3'

// Detection: what the scan found in the records (sightings of canary markers, canary-less
// provenance, personal data the recipient never sent, over-pool risk flags) and the state
// that makes the next scan incremental. Everything here is derived from `records` and
// `canaries` and can be rebuilt by a full rescan.
export function up(db: Database): void {
  db.exec(`
    -- One row per (record, marker); for orphans per (record, token lower-cased).
    -- marker: the registered marker in full, or the token found for orphans.
    CREATE TABLE sightings (
      id             INTEGER PRIMARY KEY,
      record_id      INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      marker         TEXT NOT NULL,
      marker_key     TEXT,
      class          TEXT NOT NULL CHECK (class IN ('own', 'echo', 'cross_session', 'cross_tenant', 'orphan')),
      partial        INTEGER NOT NULL CHECK (partial IN (0, 1)),
      source_session TEXT,
      source_tenant  TEXT,
      position       INTEGER NOT NULL,
      token          TEXT NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX sightings_by_record_marker ON sightings (record_id, marker);
    CREATE INDEX sightings_by_class ON sightings (class);

    -- Winnowed word k-gram fingerprints of each record's prompt and response, packed as
    -- little-endian uint32 pairs (h1, h2) per fingerprint. Stored per record so that an
    -- incremental scan only fingerprints new records; the hash -> record index is built
    -- in memory from these at match time.
    CREATE TABLE fingerprints (
      record_id      INTEGER PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
      scheme         TEXT NOT NULL,
      prompt_words   INTEGER NOT NULL,
      response_words INTEGER NOT NULL,
      prompt_fp      BLOB NOT NULL,
      response_fp    BLOB NOT NULL
    ) STRICT;

    -- One row per attributed response: its best-ranked earlier source in another session.
    CREATE TABLE provenance (
      id               INTEGER PRIMARY KEY,
      record_id        INTEGER NOT NULL UNIQUE REFERENCES records(id) ON DELETE CASCADE,
      source_record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      source_session   TEXT NOT NULL,
      source_tenant    TEXT NOT NULL,
      overlap_words    INTEGER NOT NULL,
      overlap_sha256   TEXT NOT NULL,
      matched          TEXT NOT NULL CHECK (matched IN ('prompt', 'response')),
      word_start       INTEGER NOT NULL,
      candidates       INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX provenance_by_source ON provenance (source_record_id);

    -- Every personal-data value found in any prompt (part 0) or response (part 1), hashed.
    CREATE TABLE pii_values (
      record_id    INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      part         INTEGER NOT NULL CHECK (part IN (0, 1)),
      kind         TEXT NOT NULL,
      value_sha256 TEXT NOT NULL,
      PRIMARY KEY (record_id, part, kind, value_sha256)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX pii_values_by_value ON pii_values (value_sha256);

    -- Values in a response that its session never sent, attributed where another session
    -- sent the same value earlier.
    CREATE TABLE pii_findings (
      id               INTEGER PRIMARY KEY,
      record_id        INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      kind             TEXT NOT NULL CHECK (kind IN ('email', 'phone', 'iban', 'card', 'ipv4', 'ipv6')),
      value_sha256     TEXT NOT NULL,
      source_record_id INTEGER REFERENCES records(id) ON DELETE CASCADE,
      source_session   TEXT,
      source_tenant    TEXT
    ) STRICT;
    CREATE INDEX pii_findings_by_record ON pii_findings (record_id);

    -- Status-200, non-error responses whose prompt reached the KV pool: the requests that
    -- can have been decoded from stale pages, whether or not anything was detected.
    CREATE TABLE at_risk (
      record_id         INTEGER PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
      prompt_tokens     INTEGER NOT NULL,
      pool_tokens       INTEGER NOT NULL,
      advertised_tokens INTEGER,
      above_advertised  INTEGER NOT NULL CHECK (above_advertised IN (0, 1))
    ) STRICT;

    -- Which evidence files the marker/PII/fingerprint passes have covered. Files are
    -- immutable once 'complete', so a file id is an exact watermark (a record id is not:
    -- a file still loading during one scan may hold ids below a later maximum).
    CREATE TABLE scanned_files (
      file_id    INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
      scanned_at TEXT NOT NULL
    ) STRICT;

    -- key/value: registry version at the last scan, parameters of the last scan.
    CREATE TABLE scan_state (
      key   TEXT PRIMARY KEY,
      value TEXT NOT NULL
    ) STRICT;

    -- Every change to the canary registry bumps registry_version, so a scan knows in O(1)
    -- whether earlier classifications may be stale without reading the registry.
    INSERT INTO scan_state (key, value) VALUES ('registry_version', '0');
    CREATE TRIGGER canaries_version_insert AFTER INSERT ON canaries BEGIN
      UPDATE scan_state SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'registry_version';
    END;
    CREATE TRIGGER canaries_version_update AFTER UPDATE ON canaries BEGIN
      UPDATE scan_state SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'registry_version';
    END;
    CREATE TRIGGER canaries_version_delete AFTER DELETE ON canaries BEGIN
      UPDATE scan_state SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT) WHERE key = 'registry_version';
    END;

    -- Registered markers outside the CANARY-<8+ hex> convention: the only ones a scan
    -- loads (into its Aho-Corasick automaton). Conventional ones are looked up per token.
    CREATE INDEX canaries_unconventional ON canaries (marker_key)
      WHERE NOT (marker_key GLOB 'CANARY-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]*' AND substr(marker_key, 8) NOT GLOB '*[^0-9a-f]*');
  `)
}
