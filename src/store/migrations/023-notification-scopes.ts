import type {Database} from 'better-sqlite3'

// notification_scopes: the scope a notification was based on, stored when it is recorded
// (notify record). A later scan that grows the scope changes every figure the case gives now;
// a follow-up, a correction or the register must still say what was notified ("7 then, 17
// now"), never today's figures as if they were those notified. A notification recorded before
// this migration has no row: its scope was not recorded, and is said so (unknown), never filled
// in from today's. `known` 0: recorded, but the case gave no scope then (never scanned, or its
// findings did not cover it); each figure NULL is unknown, never 0. No foreign key: a row
// of notifications altered or deleted behind crosstalk's back is verify's to name (from the audit
// log), never an error here.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS notification_scopes (
      notification_id   INTEGER PRIMARY KEY,
      known             INTEGER NOT NULL CHECK (known IN (0, 1)),
      detection_complete INTEGER NOT NULL CHECK (detection_complete IN (0, 1)),
      responses         INTEGER,
      sessions          INTEGER,
      source_tenants    INTEGER,
      recipient_tenants INTEGER,
      controllers       INTEGER,
      data_subjects_low INTEGER,
      data_subjects_high INTEGER,
      records_low       INTEGER,
      records_high      INTEGER,
      first_seen        TEXT,
      last_seen         TEXT,
      scan_finished_at  TEXT,
      sighting_rules    INTEGER,
      extract_scheme    TEXT
    ) STRICT;
  `)
}
