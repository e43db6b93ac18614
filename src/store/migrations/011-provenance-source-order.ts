import type {Database} from 'better-sqlite3'

// Whether a provenance source was logged before the response it was found in. A record holds
// one time, when its response was returned: a prompt logged later may still have arrived first
// (a request in flight while the other response was decoded), so such a source is kept with its
// order unknown instead of being dropped. Rows of scans before this schema are all 'earlier'
// (only earlier sources were looked for then).
// source_status: whether the text's holder is named as the source (named), or the same run is in
// the texts of source_tenants tenants alike (ambiguous), or only in answers whose prompts were not
// logged (unknown: such an answer may be a copy itself). Rows before this schema read 'named'.
export function up(db: Database): void {
  db.exec(`ALTER TABLE provenance ADD COLUMN source_order TEXT NOT NULL DEFAULT 'earlier' CHECK (source_order IN ('earlier', 'unknown'))`)
  db.exec(`ALTER TABLE provenance ADD COLUMN source_status TEXT NOT NULL DEFAULT 'named' CHECK (source_status IN ('named', 'ambiguous', 'unknown'))`)
  db.exec('ALTER TABLE provenance ADD COLUMN source_tenants INTEGER NOT NULL DEFAULT 1 CHECK (source_tenants >= 1)')
}
