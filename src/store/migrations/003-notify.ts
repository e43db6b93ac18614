import type {Database} from 'better-sqlite3'

// The incident under the GDPR clock: one incident per case, every change of the
// awareness time kept with its reason (Art. 33(1) runs from awareness, so that moment is
// evidence), each notification sent with the hash of what was sent, and each risk
// assessment with the human decision taken on it.
export function up(db: Database): void {
  db.exec(`
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

    CREATE TABLE incident_amendments (
      id           INTEGER PRIMARY KEY,
      field        TEXT NOT NULL,
      old_value    TEXT,
      new_value    TEXT,
      reason       TEXT NOT NULL,
      amended_by   TEXT,
      at           TEXT NOT NULL
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

    CREATE TABLE assessments (
      id            INTEGER PRIMARY KEY,
      at            TEXT NOT NULL,
      inputs        TEXT NOT NULL,
      dpc           REAL NOT NULL,
      ei            REAL NOT NULL,
      cb            REAL NOT NULL,
      se            REAL NOT NULL,
      band          TEXT NOT NULL,
      suggested     TEXT NOT NULL CHECK (suggested IN ('document', 'notify', 'notify-subjects')),
      decision      TEXT NOT NULL CHECK (decision IN ('document', 'notify', 'notify-subjects')),
      rationale     TEXT NOT NULL,
      decided_by    TEXT
    ) STRICT;
  `)
}
