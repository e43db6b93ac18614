import type {Database} from 'better-sqlite3'

// Log formats other than native, and files that could not be read whole (issues 15 and 16).
//
// - An OTLP export line holds many spans, so several records can point at one line: `item` is
//   the record's position among the line's items (0 for formats with one record a line), and a
//   quarantined item of such a line says which one it was.
// - A record can be read from more than its own line: an OpenAI Batch output line is joined
//   with its input line, an OTLP span with the log records (and the parent span) that hold its
//   content and its tenant. record_companions lists those other lines, so that the record's
//   texts are decoded again from exactly the bytes ingest read and `verify` checks them too.
// - Per file: how its format was decided; how many records came out with no request text and
//   with no response text (a response that decodes to nothing cannot be judged, and a gate must
//   not read that as clean); items that are not model calls; and whether the file was read
//   whole (`unread` says what could not be read: damaged gzip, ...).
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE records ADD COLUMN item INTEGER NOT NULL DEFAULT 0 CHECK (item >= 0);

    CREATE TABLE record_companions (
      record_id   INTEGER NOT NULL REFERENCES records(id) ON DELETE CASCADE,
      seq         INTEGER NOT NULL,
      file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      line_no     INTEGER NOT NULL,
      byte_offset INTEGER NOT NULL,
      byte_len    INTEGER NOT NULL,
      raw_crc32   INTEGER NOT NULL,
      PRIMARY KEY (record_id, seq)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX record_companions_by_file ON record_companions (file_id, byte_offset);

    ALTER TABLE bad_lines ADD COLUMN item INTEGER CHECK (item IS NULL OR item >= 0);

    -- why the file was read as its log_format (auto: the sniff's reason; else 'given')
    ALTER TABLE files ADD COLUMN format_reason TEXT;
    -- records whose request / response decoded to no text (errors are not counted for responses)
    ALTER TABLE files ADD COLUMN no_request_text INTEGER;
    ALTER TABLE files ADD COLUMN no_response_text INTEGER;
    -- records that are errors (their response is an error, not an answer)
    ALTER TABLE files ADD COLUMN error_records INTEGER;
    -- items that are not model calls (non-GenAI spans, Batch input lines, Langfuse spans)
    ALTER TABLE files ADD COLUMN ignored_items INTEGER NOT NULL DEFAULT 0;
    -- NULL: read whole; otherwise what could not be read (the bytes after gzip damage, ...)
    ALTER TABLE files ADD COLUMN unread TEXT;
  `)
}
