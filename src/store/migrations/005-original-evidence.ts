import type {Database} from 'better-sqlite3'

// Evidence by reference for `ingest logs` (issue 18): a provider auditing months of logs may
// not want a second copy of every byte in the case. The file is then read where it lies: the
// case keeps its SHA-256 and size, and each record's byte offset, length and CRC-32 (records
// and record_companions already do), so every read of a line is checked against its CRC-32 and
// `verify` reads the whole original again against its SHA-256. Which lines a file's evidence
// blocks hold is said per file, so that no reader guesses it from the case's other tables.
export function up(db: Database): void {
  db.exec(`
    -- 'all': every byte of the file's (decompressed) stream is in evidence_blocks (ingest logs,
    -- the default). 'findings': only the lines findings rest on (ingest findings: evidence
    -- 'reference'). 'none': no line is; every read goes to the original at abs_path and is
    -- checked against the record's CRC-32 (ingest logs --evidence reference).
    ALTER TABLE files ADD COLUMN lines_held TEXT NOT NULL DEFAULT 'all' CHECK (lines_held IN ('all', 'findings', 'none'));
    UPDATE files SET lines_held = 'findings' WHERE evidence = 'reference';

    -- Files of ingest logs may be kept either way in one case (every record is in the case
    -- either way: a gzip file, which cannot be read at a record's offset, is copied beside
    -- plain files kept by reference). Spark findings still keep to a case of their own: their
    -- counts are the job's, over every shard.
    DROP TRIGGER files_one_evidence_kind;
    CREATE TRIGGER files_one_evidence_kind BEFORE INSERT ON files
      WHEN NEW.kind = 'log' AND EXISTS (SELECT 1 FROM files WHERE kind = 'log' AND (lines_held = 'findings') <> (NEW.lines_held = 'findings'))
      BEGIN SELECT RAISE(ABORT, 'this case holds log evidence of the other kind (read by ingest logs, or by reference from ingest findings): use a new case'); END;

    -- Nothing but a file by reference may hold no line: a copy without its blocks would read as
    -- evidence that was never stored.
    CREATE TRIGGER files_lines_held_kind BEFORE INSERT ON files
      WHEN (NEW.lines_held = 'all' AND NEW.evidence <> 'copy') OR (NEW.lines_held <> 'all' AND NEW.evidence <> 'reference')
      BEGIN SELECT RAISE(ABORT, 'files.lines_held does not agree with files.evidence'); END;
  `)
}
