import type {Database} from 'better-sqlite3'

// The whole case schema, as one migration (docs/data-model.md explains every table, column
// and index). Conventions: STRICT tables; an enumeration is TEXT with a CHECK listing its
// values; a yes/no fact is an INTEGER 0/1 with a CHECK and a predicate name (is_error,
// partial, in_response); instants are ISO 8601 UTC text, with an `_ms` twin where queries
// order or range over them. Changes start at 002; this file is never edited once released.
export function up(db: Database): void {
  db.exec(`
    -- ------------------------------------------------------------------ the case itself

    -- One row: what the case knows about itself, as typed, recorded facts.
    CREATE TABLE case_settings (
      id                INTEGER PRIMARY KEY CHECK (id = 1),
      case_id           TEXT NOT NULL,
      created_at        TEXT NOT NULL,
      -- Bumped by triggers on every change to the canary registry, so a scan knows in O(1)
      -- whether earlier classifications may be stale.
      registry_version  INTEGER NOT NULL DEFAULT 0,
      -- The prefill KV pool and the advertised context window of the incident's serving stack,
      -- as the responder gave them (scan --pool-tokens); NULL until given.
      pool_tokens       INTEGER CHECK (pool_tokens IS NULL OR pool_tokens > 0),
      advertised_tokens INTEGER CHECK (advertised_tokens IS NULL OR (pool_tokens IS NOT NULL AND advertised_tokens >= pool_tokens)),
      pool_set_at       TEXT,
      -- Key of the keyed references under which personal-data values are shown (HMAC-SHA256).
      pii_ref_key       BLOB CHECK (pii_ref_key IS NULL OR length(pii_ref_key) = 32),
      -- The process that is ingesting into this case (one ingest at a time), or NULL.
      ingest_pid        INTEGER
    ) STRICT;
    INSERT INTO case_settings (id, case_id, created_at)
      VALUES (1, lower(hex(randomblob(16))), strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));

    -- Append-only and hash-chained: hash = SHA-256 of the canonical JSON of the other columns,
    -- prev_hash = the previous entry's hash (64 zeros for the first).
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

    -- Secondary indexes that a bulk load dropped and has not rebuilt yet (an ingest killed
    -- mid-way): the next opening of the case rebuilds them from the definition kept here.
    CREATE TABLE suspended_indexes (
      name TEXT PRIMARY KEY,
      sql  TEXT NOT NULL
    ) STRICT;

    -- ------------------------------------------------------------------ evidence

    -- One row per evidence file. sha256 is over the file exactly as received (a .gz stays
    -- compressed); content_sha256 over the decompressed bytes that records point into.
    CREATE TABLE files (
      id                    INTEGER PRIMARY KEY,
      kind                  TEXT NOT NULL CHECK (kind IN ('log', 'canaries')),
      -- as given on the command line (for the responder) and its last component (for documents sent to others)
      path                  TEXT NOT NULL,
      name                  TEXT NOT NULL,
      abs_path              TEXT NOT NULL,
      sha256                TEXT NOT NULL UNIQUE,
      size                  INTEGER NOT NULL,
      compression           TEXT NOT NULL CHECK (compression IN ('none', 'gzip')),
      -- how the lines are read: a log format ('native', ...) or a registry format ('csv', 'jsonl')
      log_format            TEXT NOT NULL,
      -- the decoder's parameters (canonical JSON: field mapping, format options): records are
      -- decoded again from their bytes with exactly these
      parse_spec            TEXT NOT NULL DEFAULT '{}',
      source                TEXT NOT NULL,
      state                 TEXT NOT NULL CHECK (state IN ('loading', 'complete')),
      started_at            TEXT NOT NULL,
      completed_at          TEXT,
      content_sha256        TEXT,
      content_size          INTEGER,
      lines                 INTEGER NOT NULL DEFAULT 0,
      blank_lines           INTEGER NOT NULL DEFAULT 0,
      records               INTEGER NOT NULL DEFAULT 0,
      duplicates            INTEGER NOT NULL DEFAULT 0,
      bad_lines             INTEGER NOT NULL DEFAULT 0,
      first_ts              TEXT,
      last_ts               TEXT,
      -- JSON array of notes about the file (byte-order mark skipped, truncated gzip, ...)
      notes                 TEXT,
      -- the detection-extract scheme ingest applied to this file's records (extract/extract.ts)
      extract_scheme        TEXT,
      -- SHA-256 of the registry's unconventional markers that ingest matched in this file's
      -- responses ('' when there were none); a scan under another set matches them again
      unconventional_sha256 TEXT
    ) STRICT;

    -- The decompressed bytes of every file, in blocks encoded one by one so that any line can
    -- be read back without inflating the whole file. The CRC locates damage; the file's
    -- content_sha256 over all blocks is the cryptographic check.
    CREATE TABLE evidence_blocks (
      file_id    INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      seq        INTEGER NOT NULL,
      raw_offset INTEGER NOT NULL,
      raw_len    INTEGER NOT NULL,
      crc32      INTEGER NOT NULL,
      codec      TEXT NOT NULL CHECK (codec IN ('raw', 'deflate')),
      data       BLOB NOT NULL,
      PRIMARY KEY (file_id, seq)
    ) STRICT;

    -- One row per request/response line. The texts are not stored: they are decoded again
    -- from the line's bytes (file, byte_offset, byte_len; raw_crc32 checks them) with the
    -- file's parse_spec.
    CREATE TABLE records (
      id                INTEGER PRIMARY KEY,
      file_id           INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      line_no           INTEGER NOT NULL,
      byte_offset       INTEGER NOT NULL,
      byte_len          INTEGER NOT NULL,
      raw_crc32         INTEGER NOT NULL,
      source            TEXT NOT NULL,
      request_id        TEXT NOT NULL,
      -- ts: as the log gave it (every fractional digit kept), normalised to UTC; ts_ms: the same in ms
      ts                TEXT NOT NULL,
      ts_ms             INTEGER NOT NULL,
      tenant_id         TEXT NOT NULL,
      session_id        TEXT NOT NULL,
      -- NULL: the log did not say (never read as 200 or 0)
      status            INTEGER,
      endpoint          TEXT,
      model             TEXT,
      prefill_node      TEXT,
      decode_node       TEXT,
      prompt_tokens     INTEGER,
      completion_tokens INTEGER,
      cached_tokens     INTEGER,
      stream            INTEGER NOT NULL CHECK (stream IN (0, 1)),
      response_kind     TEXT NOT NULL CHECK (response_kind IN ('none', 'chat', 'completion', 'error', 'sse', 'json', 'text')),
      is_error          INTEGER NOT NULL CHECK (is_error IN (0, 1)),
      error_message     TEXT
    ) STRICT;
    CREATE UNIQUE INDEX records_by_source_request ON records (source, request_id);
    CREATE INDEX records_by_file ON records (file_id, line_no);
    CREATE INDEX records_by_ts ON records (ts_ms);
    CREATE INDEX records_by_session ON records (session_id, ts_ms);
    CREATE INDEX records_by_tenant ON records (tenant_id);
    -- scope: status-200 responses at or over the pool, by node and hour (covering, is_error included)
    CREATE INDEX records_at_risk ON records (status, prompt_tokens, decode_node, ts_ms, is_error);
    -- scope: the sessions a decode node served inside a time window (covering)
    CREATE INDEX records_by_node_ts ON records (decode_node, ts_ms, tenant_id, session_id);

    -- A request_id seen again within its source: not a second record, but kept.
    CREATE TABLE duplicate_lines (
      id          INTEGER PRIMARY KEY,
      file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      line_no     INTEGER NOT NULL,
      byte_offset INTEGER NOT NULL,
      byte_len    INTEGER NOT NULL,
      request_id  TEXT NOT NULL,
      -- the line's bytes equal the first occurrence's (CRC-32)
      identical   INTEGER NOT NULL CHECK (identical IN (0, 1))
    ) STRICT;

    -- Lines that could not be read as a record, with why; the first 64 KiB of each is kept
    -- here, all of it in the evidence blocks.
    CREATE TABLE bad_lines (
      id            INTEGER PRIMARY KEY,
      file_id       INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      line_no       INTEGER NOT NULL,
      byte_offset   INTEGER NOT NULL,
      byte_len      INTEGER NOT NULL,
      reason        TEXT NOT NULL,
      raw           BLOB NOT NULL,
      raw_truncated INTEGER NOT NULL CHECK (raw_truncated IN (0, 1))
    ) STRICT;
    CREATE INDEX bad_lines_by_file ON bad_lines (file_id, line_no);

    -- ------------------------------------------------------------------ the canary registry

    -- marker_key: the marker as matched; for CANARY-<hex> markers the hex in lower case.
    CREATE TABLE canaries (
      marker_key TEXT PRIMARY KEY,
      marker     TEXT NOT NULL,
      tenant_id  TEXT NOT NULL,
      session_id TEXT NOT NULL,
      issued_at  TEXT,
      file_id    INTEGER REFERENCES files(id)
    ) STRICT;
    CREATE INDEX canaries_by_session ON canaries (session_id);
    -- Registered markers outside the CANARY-<8+ hex> convention: the only ones a scan loads
    -- (into an Aho-Corasick automaton); conventional ones are looked up per token found.
    CREATE INDEX canaries_unconventional ON canaries (marker_key)
      WHERE NOT (marker_key GLOB 'CANARY-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]*' AND substr(marker_key, 8) NOT GLOB '*[^0-9a-f]*');
    CREATE TRIGGER canaries_version_insert AFTER INSERT ON canaries BEGIN
      UPDATE case_settings SET registry_version = registry_version + 1 WHERE id = 1;
    END;
    CREATE TRIGGER canaries_version_update AFTER UPDATE ON canaries BEGIN
      UPDATE case_settings SET registry_version = registry_version + 1 WHERE id = 1;
    END;
    CREATE TRIGGER canaries_version_delete AFTER DELETE ON canaries BEGIN
      UPDATE case_settings SET registry_version = registry_version + 1 WHERE id = 1;
    END;

    -- ------------------------------------------------------------------ per-record extracts
    -- Made by ingest while it parses each line (files.extract_scheme), independent of the
    -- registry and of every other record, so a scan never reads the texts again.

    -- Every CANARY-<8+ hex> token of a response, as found (case kept), by position.
    CREATE TABLE marker_tokens (
      record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      position  INTEGER NOT NULL,
      token     TEXT NOT NULL,
      PRIMARY KEY (record_id, position)
    ) STRICT, WITHOUT ROWID;

    -- The first occurrence of each registered unconventional marker in a response (matched
    -- under the set files.unconventional_sha256 names), the marker as registered.
    CREATE TABLE unconventional_hits (
      record_id INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      position  INTEGER NOT NULL,
      marker    TEXT NOT NULL,
      PRIMARY KEY (record_id, marker)
    ) STRICT, WITHOUT ROWID;

    -- Every personal-data value found in a prompt or a response, as SHA-256 of "kind:value".
    CREATE TABLE pii_values (
      record_id    INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      in_response  INTEGER NOT NULL CHECK (in_response IN (0, 1)),
      kind         TEXT NOT NULL CHECK (kind IN ('email', 'phone', 'iban', 'card', 'ipv4', 'ipv6')),
      value_sha256 TEXT NOT NULL,
      PRIMARY KEY (record_id, in_response, kind, value_sha256)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX pii_values_by_value ON pii_values (value_sha256);

    -- Winnowed word k-gram fingerprints of the prompt and the response (little-endian uint32
    -- pairs h1, h2 per fingerprint), with the record facts provenance needs beside them, so
    -- that matching reads this compact table and never the records.
    CREATE TABLE fingerprints (
      record_id      INTEGER PRIMARY KEY REFERENCES records(id) ON DELETE CASCADE,
      prompt_words   INTEGER NOT NULL,
      response_words INTEGER NOT NULL,
      prompt_fp      BLOB NOT NULL,
      response_fp    BLOB NOT NULL,
      ts_ms          INTEGER NOT NULL,
      tenant_id      TEXT NOT NULL,
      session_id     TEXT NOT NULL,
      decode_node    TEXT
    ) STRICT;

    -- ------------------------------------------------------------------ findings
    -- Derived by scan from the extracts and the registry; a full rescan rebuilds them.

    -- One row per (record, marker); for orphans per (record, token lower-cased).
    CREATE TABLE sightings (
      id             INTEGER PRIMARY KEY,
      record_id      INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      -- the registered marker in full, or the token found (orphans)
      marker         TEXT NOT NULL,
      marker_key     TEXT,
      class          TEXT NOT NULL CHECK (class IN ('own', 'echo', 'cross_session', 'cross_tenant', 'orphan')),
      partial        INTEGER NOT NULL CHECK (partial IN (0, 1)),
      source_session TEXT,
      source_tenant  TEXT,
      position       INTEGER NOT NULL,
      -- the text as found in the response
      token          TEXT NOT NULL
    ) STRICT;
    CREATE UNIQUE INDEX sightings_by_record_marker ON sightings (record_id, marker);
    CREATE INDEX sightings_by_class ON sightings (class, record_id);

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

    -- Each scan, as a recorded fact: when, under which registry version and extract scheme,
    -- with which parameters, and what provenance was left as.
    CREATE TABLE scan_runs (
      id                  INTEGER PRIMARY KEY,
      started_at          TEXT NOT NULL,
      finished_at         TEXT,
      registry_version    INTEGER NOT NULL,
      extract_scheme      TEXT NOT NULL,
      full_rescan         INTEGER NOT NULL CHECK (full_rescan IN (0, 1)),
      records_total       INTEGER,
      records_scanned     INTEGER,
      records_new         INTEGER,
      -- 'current': provenance covers every scanned file with these parameters; 'stale': skipped
      provenance_state    TEXT NOT NULL CHECK (provenance_state IN ('current', 'stale')),
      min_words           INTEGER NOT NULL,
      boilerplate_tenants INTEGER NOT NULL,
      pool_tokens         INTEGER,
      advertised_tokens   INTEGER
    ) STRICT;

    -- Which evidence files detection has covered, and in which run. Files are immutable once
    -- 'complete', so a file id is an exact watermark.
    CREATE TABLE scanned_files (
      file_id     INTEGER PRIMARY KEY REFERENCES files(id) ON DELETE CASCADE,
      scan_run_id INTEGER NOT NULL REFERENCES scan_runs(id)
    ) STRICT;

    -- ------------------------------------------------------------------ the incident

    -- One incident per case. EDPB Guidelines 9/2022 separate detection, the start of the
    -- investigation and awareness (which starts the 72 hours); all three are kept.
    CREATE TABLE incident (
      id                       INTEGER PRIMARY KEY CHECK (id = 1),
      title                    TEXT NOT NULL,
      role                     TEXT NOT NULL CHECK (role IN ('controller', 'processor')),
      aware_at                 TEXT NOT NULL,
      aware_at_ms              INTEGER NOT NULL,
      awareness_basis          TEXT,
      awareness_decided_by     TEXT,
      detected_at              TEXT,
      investigation_started_at TEXT,
      breach_started_at        TEXT,
      breach_ended_at          TEXT,
      discovery                TEXT,
      controller_name          TEXT,
      controller_contact       TEXT,
      processor_name           TEXT,
      dpo_name                 TEXT,
      dpo_contact              TEXT,
      lead_authority           TEXT,
      countries                TEXT,
      systems                  TEXT,
      measures_taken           TEXT,
      measures_proposed        TEXT,
      internal_reference       TEXT,
      created_at               TEXT NOT NULL,
      updated_at               TEXT NOT NULL
    ) STRICT;

    -- The awareness time changes only through an amendment with its reason.
    CREATE TABLE incident_amendments (
      id         INTEGER PRIMARY KEY,
      field      TEXT NOT NULL,
      old_value  TEXT,
      new_value  TEXT,
      reason     TEXT NOT NULL,
      amended_by TEXT,
      at         TEXT NOT NULL
    ) STRICT;

    -- recipient: 'authority', or the controller tenant a processor notified (Art. 33(2)).
    CREATE TABLE notifications (
      id          INTEGER PRIMARY KEY,
      phase       TEXT NOT NULL CHECK (phase IN ('initial', 'follow-up')),
      at          TEXT NOT NULL,
      at_ms       INTEGER NOT NULL,
      reference   TEXT NOT NULL,
      recipient   TEXT NOT NULL,
      file_path   TEXT,
      file_sha256 TEXT,
      file_size   INTEGER,
      recorded_at TEXT NOT NULL
    ) STRICT;
    CREATE INDEX notifications_by_phase ON notifications (phase, recipient);

    -- Each risk assessment with the human decision taken on it; the latest is in force.
    CREATE TABLE assessments (
      id         INTEGER PRIMARY KEY,
      at         TEXT NOT NULL,
      inputs     TEXT NOT NULL,
      dpc        REAL NOT NULL,
      ei         REAL NOT NULL,
      cb         REAL NOT NULL,
      se         REAL NOT NULL,
      band       TEXT NOT NULL,
      suggested  TEXT NOT NULL CHECK (suggested IN ('document', 'notify', 'notify-subjects')),
      decision   TEXT NOT NULL CHECK (decision IN ('document', 'notify', 'notify-subjects')),
      rationale  TEXT NOT NULL,
      decided_by TEXT
    ) STRICT;

    -- ------------------------------------------------------------------ replay

    CREATE TABLE replay_runs (
      id                   INTEGER PRIMARY KEY,
      started_at           TEXT NOT NULL,
      finished_at          TEXT,
      target               TEXT NOT NULL,
      model                TEXT NOT NULL,
      trials               INTEGER NOT NULL,
      primers              INTEGER NOT NULL,
      -- the original prompts (personal data) were re-sent: an audited opt-in
      original_prompt      INTEGER NOT NULL CHECK (original_prompt IN (0, 1)),
      target_pool_tokens   INTEGER,
      target_max_model_len INTEGER,
      source_pool_tokens   INTEGER,
      scaling_note         TEXT NOT NULL,
      interrupted          INTEGER NOT NULL DEFAULT 0 CHECK (interrupted IN (0, 1))
    ) STRICT;

    CREATE TABLE replay_results (
      id                     INTEGER PRIMARY KEY,
      run_id                 INTEGER NOT NULL REFERENCES replay_runs(id) ON DELETE CASCADE,
      record_id              INTEGER NOT NULL REFERENCES records(id),
      request_id             TEXT NOT NULL,
      endpoint               TEXT NOT NULL,
      stream                 INTEGER NOT NULL CHECK (stream IN (0, 1)),
      original_prompt_tokens INTEGER,
      replay_prompt_tokens   INTEGER NOT NULL,
      scaling                TEXT NOT NULL,
      trials                 INTEGER NOT NULL,
      reproduced             INTEGER NOT NULL,
      rejected               INTEGER NOT NULL,
      hung                   INTEGER NOT NULL,
      errors                 INTEGER NOT NULL,
      rate                   REAL NOT NULL,
      wilson_low             REAL NOT NULL,
      wilson_high            REAL NOT NULL,
      verdict                TEXT NOT NULL CHECK (verdict IN ('confirmed', 'not_reproduced', 'rejected'))
    ) STRICT;
    CREATE INDEX replay_results_by_record ON replay_results (record_id);
  `)
}
