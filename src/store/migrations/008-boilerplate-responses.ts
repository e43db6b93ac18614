import type {Database} from 'better-sqlite3'

// The responses each scan's provenance set aside as boilerplate (text an earlier prompt of
// another session holds, found in the sessions of boilerplate_tenants or more tenants), so that
// no statement reads as an all-clear over them. NULL: not known (a scan before this schema, a
// scan that did not compute provenance, or findings brought in from the Spark job).
export function up(db: Database): void {
  db.exec('ALTER TABLE scan_runs ADD COLUMN provenance_boilerplate_responses INTEGER CHECK (provenance_boilerplate_responses >= 0)')
}
