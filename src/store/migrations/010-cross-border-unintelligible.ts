import type {Database} from 'better-sqlite3'

// Two answers of the authorities' forms that no other recorded fact gives (EDPB common template
// row numbers in brackets). NULL: not recorded, so the drafts keep them as open items.
//
// cross_border: whether the processing is cross-border in the sense of Art. 4(23) (establishments
// in more than one Member State, or data subjects substantially affected in more than one) [113].
// A lead authority does not say it: the one-stop shop (Art. 56) follows from it, not the reverse.
// data_unintelligible: whether the exposed data was unintelligible to whoever received it
// (encryption or pseudonymisation still effective) [57]; the ground of Art. 34(3)(a).
export function up(db: Database): void {
  db.exec(`
    ALTER TABLE incident ADD COLUMN cross_border        TEXT CHECK (cross_border IN ('yes', 'no'));
    ALTER TABLE incident ADD COLUMN data_unintelligible TEXT CHECK (data_unintelligible IN ('protection-intact', 'protection-likely-subvertible', 'no', 'cannot-assess'));
  `)
}
