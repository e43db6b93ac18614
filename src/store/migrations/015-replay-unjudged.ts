import type {Database} from 'better-sqlite3'

// replay_results: a record whose triggers were answered but never judged (a stream cut off
// before `data: [DONE]`, an answer with no text) was not stored, and the counts of such triggers
// of a stored record were dropped: the drafts' account of the replay ("N of M trials reproduced")
// left them out without saying so. A result is now stored whatever its verdict ('inconclusive'
// too), with `no_text` and `incomplete`: its triggers answered with no readable text, and with an
// answer not read whole. Rows stored before this schema have both NULL: how many of their
// triggers could not be judged was not recorded (not none). SQLite cannot change a CHECK in
// place, so the table is copied into one with the wider CHECK.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE replay_results_015 (
      id                     INTEGER PRIMARY KEY,
      run_id                 INTEGER NOT NULL REFERENCES replay_runs(id) ON DELETE CASCADE,
      record_id              INTEGER NOT NULL REFERENCES records(id),
      request_id             TEXT NOT NULL,
      endpoint               TEXT NOT NULL,
      stream                 INTEGER NOT NULL CHECK (stream IN (0, 1)),
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
      verdict                TEXT NOT NULL CHECK (verdict IN ('confirmed', 'not_reproduced', 'rejected', 'inconclusive')),
      no_text                INTEGER,
      incomplete             INTEGER
    ) STRICT;
    INSERT INTO replay_results_015 (id, run_id, record_id, request_id, endpoint, stream, original_prompt_tokens, replay_prompt_tokens, scaling, trials, reproduced, rejected, hung, errors, rate, wilson_low, wilson_high, verdict)
      SELECT id, run_id, record_id, request_id, endpoint, stream, original_prompt_tokens, replay_prompt_tokens, scaling, trials, reproduced, rejected, hung, errors, rate, wilson_low, wilson_high, verdict FROM replay_results;
    DROP TABLE replay_results;
    ALTER TABLE replay_results_015 RENAME TO replay_results;
    CREATE INDEX replay_results_by_record ON replay_results (record_id);
  `)
}
