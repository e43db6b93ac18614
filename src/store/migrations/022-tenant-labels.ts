import type {Database} from 'better-sqlite3'

// tenant_labels: the opaque label (tenant#N) each customer's documents give every other
// customer, stored once given so that phased notices name the same customer by the same label
// for the case's life. Ordering by the first record of contact on each read did not hold: a
// record held since day 1 gains a new source when older logs arrive, and renumbered them all.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS tenant_labels (
      tenant TEXT NOT NULL,
      other TEXT NOT NULL,
      label INTEGER NOT NULL,
      given_at TEXT NOT NULL,
      PRIMARY KEY (tenant, other),
      UNIQUE (tenant, label)
    ) WITHOUT ROWID;
  `)
}
