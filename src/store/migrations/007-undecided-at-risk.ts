import type {Database} from 'better-sqlite3'

// The Spark job's count of records whose missing status or prompt size leaves open whether they
// were at risk at the job's pool (no status and a prompt at or over the pool or of unrecorded
// size; status 200 and no prompt size). Before, the drafts had only the records lacking either
// field, which also counts records known not to be at risk (refused, or a prompt below the pool).
// NULL: findings brought in before this schema, or a job run without --pool-tokens.
export function up(db: Database): void {
  db.exec('ALTER TABLE corpus_facts ADD COLUMN undecided_at_risk INTEGER CHECK (undecided_at_risk >= 0)')
}
