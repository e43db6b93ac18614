import type {Database} from 'better-sqlite3'

// Replay runs against a serving stack and their per-record results: the evidence that the bug
// still reproduces (or not) under the recorded conditions, cited by the Article 33 draft.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE replay_runs (
      id                INTEGER PRIMARY KEY,
      started_at        TEXT NOT NULL,
      finished_at       TEXT,
      target            TEXT NOT NULL,
      model             TEXT NOT NULL,
      trials            INTEGER NOT NULL,
      primers           INTEGER NOT NULL,
      -- 1 when the original prompts (personal data) were re-sent: an audited opt-in.
      original_prompt   INTEGER NOT NULL CHECK (original_prompt IN (0, 1)),
      target_pool_tokens      INTEGER,
      target_max_model_len    INTEGER,
      source_pool_tokens      INTEGER,
      scaling_note      TEXT NOT NULL,
      interrupted       INTEGER NOT NULL DEFAULT 0
    ) STRICT;

    CREATE TABLE replay_results (
      id                     INTEGER PRIMARY KEY,
      run_id                 INTEGER NOT NULL REFERENCES replay_runs(id) ON DELETE CASCADE,
      record_id              INTEGER NOT NULL REFERENCES records(id),
      request_id             TEXT NOT NULL,
      endpoint               TEXT NOT NULL,
      stream                 INTEGER NOT NULL,
      original_prompt_tokens INTEGER,
      replay_prompt_tokens   INTEGER NOT NULL,
      scaling                TEXT NOT NULL,
      trials                 INTEGER NOT NULL,
      reproduced             INTEGER NOT NULL,
      rejected               INTEGER NOT NULL,
      hung                   INTEGER NOT NULL,
      errors                 INTEGER NOT NULL,
      rate                   REAL NOT NULL,
      wilson_low             REAL NOT NULL,
      wilson_high            REAL NOT NULL,
      verdict                TEXT NOT NULL CHECK (verdict IN ('confirmed', 'not_reproduced', 'rejected'))
    ) STRICT;
    CREATE INDEX replay_results_by_record ON replay_results (record_id);
  `)
}
