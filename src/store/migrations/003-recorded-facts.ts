import type {Database} from 'better-sqlite3'

// What the drafts may state only once someone recorded it (issue 14: every statement in every
// output rests on a recorded fact or is shown as an open item). Columns only: 001 is never edited.
//
// incident: the remaining items of the supervisory authorities' forms (sa-forms.md; EDPB
// common template row numbers in brackets), the cause once established, the reasons for a
// delay, and a processor's contractual deadline towards its controllers (Art. 28(3)(f)).
// replay_runs: which target a run measured (the built-in simulator or an external stack, its
// version) and why (a confirmation or a negative control), so drafts never pool a positive
// with a negative control or present a simulator as the production stack.
// notifications: the reasons for the delay given with a late notification (Art. 33(1)).
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE incident ADD COLUMN cause                     TEXT;   -- [62] description and root cause, as established
    ALTER TABLE incident ADD COLUMN cause_category            TEXT CHECK (cause_category IN ('internal-non-malicious', 'internal-malicious', 'external-non-malicious', 'external-malicious', 'unknown')); -- [61]
    ALTER TABLE incident ADD COLUMN reporting_person          TEXT;   -- [21-22] name and contact
    ALTER TABLE incident ADD COLUMN reporting_person_role     TEXT;   -- [23-24] DPO / legal representative / other
    ALTER TABLE incident ADD COLUMN sector                    TEXT CHECK (sector IN ('private', 'public')); -- [14]
    ALTER TABLE incident ADD COLUMN organisation_size         TEXT CHECK (organisation_size IN ('micro', 'sme', 'large', 'other')); -- [15-16]
    ALTER TABLE incident ADD COLUMN economic_activity         TEXT;   -- [17] e.g. a NACE code
    ALTER TABLE incident ADD COLUMN eea_representative        TEXT;   -- [18-19] Art. 27 representative, or 'not applicable (established in the EEA)'
    ALTER TABLE incident ADD COLUMN informed_by               TEXT;   -- [50-51] the party that told the controller (processor, data subject, researcher ...)
    ALTER TABLE incident ADD COLUMN informed_at               TEXT;   -- [52] when that party told the controller
    ALTER TABLE incident ADD COLUMN measures_before           TEXT;   -- [75-76] protection in place before the breach
    ALTER TABLE incident ADD COLUMN police_report             TEXT;   -- [109] reported to police / judicial authorities, or why not
    ALTER TABLE incident ADD COLUMN other_authorities         TEXT;   -- [110-111] CSIRT, sector regulators, with case ids
    ALTER TABLE incident ADD COLUMN establishment_countries   TEXT;   -- [115]
    ALTER TABLE incident ADD COLUMN subjects_per_country      TEXT;   -- [117]
    ALTER TABLE incident ADD COLUMN authorities_notified      TEXT;   -- [118]
    ALTER TABLE incident ADD COLUMN delay_reason              TEXT;   -- [49] reasons for a notification later than 72 hours
    ALTER TABLE incident ADD COLUMN controller_deadline_hours INTEGER CHECK (controller_deadline_hours > 0); -- processor: contractual notice period to each controller

    ALTER TABLE replay_runs ADD COLUMN target_kind    TEXT NOT NULL DEFAULT 'unrecorded' CHECK (target_kind IN ('simulator', 'external', 'unrecorded'));
    ALTER TABLE replay_runs ADD COLUMN target_version TEXT;
    ALTER TABLE replay_runs ADD COLUMN purpose        TEXT NOT NULL DEFAULT 'unrecorded' CHECK (purpose IN ('confirmation', 'negative-control', 'unrecorded'));

    ALTER TABLE notifications ADD COLUMN delay_reason TEXT;
  `)
}
