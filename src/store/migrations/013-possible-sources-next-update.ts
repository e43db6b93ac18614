import type {Database} from 'better-sqlite3'

// Two facts the processor notices need and no earlier case recorded.
//
// provenance.source_candidates: the possible sources of a finding whose source is ambiguous (the
// same verbatim run in the texts of several tenants' sessions alike), as a JSON array of
// {"tenant_id", "session_id"}. NULL: not recorded (rows of scans before this schema, findings
// imported from the Spark job): the notices then say so as an open item, never "none".
// incident.next_update_at: when the next update (a follow-up notice, Art. 33(4)) will be sent, as
// the responder set it (incident set --next-update). NULL: not set, an open item of each notice.
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE provenance ADD COLUMN source_candidates TEXT CHECK (source_candidates IS NULL OR json_valid(source_candidates));
    ALTER TABLE incident ADD COLUMN next_update_at TEXT;
  `)
}
