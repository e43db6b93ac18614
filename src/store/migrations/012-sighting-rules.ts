import type {Database} from 'better-sqlite3'

// The rules each scan classified sightings under (SIGHTING_RULES, extract/markers.ts), so that a
// scan under other rules classifies every file again instead of keeping classes the old rules
// gave. NULL: a scan before this schema, under the rules before 2 (an echo was the marker's hex
// digits anywhere in the prompt, without `CANARY-`).
export function up(db: Database): void {
  db.exec('ALTER TABLE scan_runs ADD COLUMN sighting_rules INTEGER')
}
