import type {Database} from 'better-sqlite3'

// replay_results: what a record's run saw besides its triggers' verdict was counted and then
// dropped before the row was stored: answers to the priming requests that carried another
// synthetic tenant's marker (the target leaked during the replay, whatever the triggers showed),
// triggers whose answer carried a marker the run gave no one, and trials not run because no
// primer was served. They are now stored: `primer_leaks`, `other_markers`, `unprimed`, and
// `other_owners` (a JSON array of the owners the case's canary registry names for those other
// markers, `{"tenant": ..., "session": ...}`, one per owner it knows; markers it does not know
// are not listed). Rows stored before this schema have them NULL: not recorded (not none).
// `rate` may now be NULL: where no trigger was judged there is no rate (it was stored as 0).
// SQLite cannot drop a NOT NULL in place, so the table is copied.
export function up(db: Database): void {
  db.exec(`
    CREATE TABLE replay_results_017 (
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
      rate                   REAL,
      wilson_low             REAL NOT NULL,
      wilson_high            REAL NOT NULL,
      verdict                TEXT NOT NULL CHECK (verdict IN ('confirmed', 'not_reproduced', 'rejected', 'inconclusive')),
      no_text                INTEGER,
      incomplete             INTEGER,
      primer_leaks           INTEGER,
      other_markers          INTEGER,
      unprimed               INTEGER,
      other_owners           TEXT
    ) STRICT;
    INSERT INTO replay_results_017 (id, run_id, record_id, request_id, endpoint, stream, original_prompt_tokens, replay_prompt_tokens, scaling, trials, reproduced, rejected, hung, errors, rate, wilson_low, wilson_high, verdict, no_text, incomplete)
      SELECT id, run_id, record_id, request_id, endpoint, stream, original_prompt_tokens, replay_prompt_tokens, scaling, trials, reproduced, rejected, hung, errors,
        CASE WHEN trials - hung - errors > 0 THEN rate END, wilson_low, wilson_high, verdict, no_text, incomplete FROM replay_results;
    DROP TABLE replay_results;
    ALTER TABLE replay_results_017 RENAME TO replay_results;
    CREATE INDEX replay_results_by_record ON replay_results (record_id);
  `)
}
