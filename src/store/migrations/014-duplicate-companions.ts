import type {Database} from 'better-sqlite3'

// duplicate_companions: the other lines a duplicate's item was read with at ingest (an OTLP
// retry span's parent span on a later export line, its content in log records of the logs
// file), as record_companions lists them for a record. The gate reads a duplicate again to judge
// its answer (conflicting-duplicates.ts); with only its own line and its neighbours' companions
// it could not: a retry whose parent was elsewhere decoded to no record (judged nothing, so every
// gate failed closed on a readable case), and one whose content was elsewhere to an answer of no
// text (judged clean). Duplicates ingested before this schema have none listed and are read as
// they were.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE duplicate_companions (
      duplicate_id INTEGER NOT NULL REFERENCES duplicate_lines(id) ON DELETE CASCADE,
      seq          INTEGER NOT NULL,
      file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
      line_no      INTEGER NOT NULL,
      byte_offset  INTEGER NOT NULL,
      byte_len     INTEGER NOT NULL,
      raw_crc32    INTEGER NOT NULL,
      PRIMARY KEY (duplicate_id, seq)
    ) STRICT, WITHOUT ROWID;
    CREATE INDEX duplicate_companions_by_file ON duplicate_companions (file_id, byte_offset);
  `)
}
