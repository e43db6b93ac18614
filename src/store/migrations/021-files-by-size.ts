import type {Database} from 'better-sqlite3'

// Ingest looks up the log files of a new file's size (only a file of the same size can hold the
// same bytes): without an index each lookup read every row of files, so a case of many
// equal-sized logs took time quadratic in their number (2,000 one-record files: 137 s, measured).
export function up(db: Database): void {
  db.exec(`CREATE INDEX IF NOT EXISTS files_by_kind_size ON files (kind, size)`)
}
