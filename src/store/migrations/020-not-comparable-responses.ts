import type {Database} from 'better-sqlite3'

// The answers each scan found the verbatim-text search could not compare: fewer words than it
// needs, in a script written without spaces between words (Chinese, Japanese, Thai, ...), so that
// no statement reads as an all-clear over them. NULL: not known (a scan before this schema, a scan
// that did not compute provenance, or findings brought in from the Spark job).
export function up(db: Database): void {
  db.exec('ALTER TABLE scan_runs ADD COLUMN provenance_not_comparable_responses INTEGER CHECK (provenance_not_comparable_responses >= 0)')
}
