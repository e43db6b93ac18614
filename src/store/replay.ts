import type {CaseDb} from './open-case.js'

// Replay runs against a serving stack and their per-record results: the evidence that the
// bug still reproduces (or not) under the recorded conditions, cited by the drafts.

export interface ReplayRunRow {
  startedAt: string
  target: string
  model: string
  trials: number
  primers: number
  originalPrompt: boolean
  targetPoolTokens: number | null
  targetMaxModelLen: number | null
  sourcePoolTokens: number | null
  scalingNote: string
  /** the built-in testbed (a simulator built to leak) or another serving stack */
  targetKind: ReplayTargetKind
  /** what the target's /version said, if anything */
  targetVersion: string | null
  purpose: ReplayPurpose
}

export type ReplayTargetKind = 'simulator' | 'external' | 'unrecorded'
export type ReplayPurpose = 'confirmation' | 'negative-control' | 'unrecorded'

/**
 * A run is stored as interrupted from its start, and finishReplayRun says how it really
 * ended: a replay killed mid-way (kill -9, a crash, a power cut) leaves its run marked
 * interrupted with the results it stored, never looking like a run that finished.
 */
export function insertReplayRun(db: CaseDb, run: ReplayRunRow): number {
  const info = db
    .prepare(
      `INSERT INTO replay_runs (started_at, target, model, trials, primers, original_prompt, target_pool_tokens, target_max_model_len, source_pool_tokens, scaling_note,
         target_kind, target_version, purpose, interrupted)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)`,
    )
    .run(
      run.startedAt, run.target, run.model, run.trials, run.primers, run.originalPrompt ? 1 : 0, run.targetPoolTokens, run.targetMaxModelLen, run.sourcePoolTokens, run.scalingNote,
      run.targetKind, run.targetVersion, run.purpose,
    )
  return Number(info.lastInsertRowid)
}

/** What a run learnt by its end: the purpose (defaulted from the outcome) and what the target said it is. */
export interface ReplayRunEnd {
  purpose: ReplayPurpose
  targetKind: ReplayTargetKind
  targetVersion: string | null
}

export function finishReplayRun(db: CaseDb, runId: number, finishedAt: string, interrupted: boolean, end?: ReplayRunEnd): void {
  if (end) {
    db.prepare(`UPDATE replay_runs SET finished_at = ?, interrupted = ?, purpose = ?, target_kind = ?, target_version = ? WHERE id = ?`).run(
      finishedAt, interrupted ? 1 : 0, end.purpose, end.targetKind, end.targetVersion, runId,
    )
  } else db.prepare(`UPDATE replay_runs SET finished_at = ?, interrupted = ? WHERE id = ?`).run(finishedAt, interrupted ? 1 : 0, runId)
}

export interface ReplayResultRow {
  record_id: number
  request_id: string
  endpoint: string
  stream: boolean
  original_prompt_tokens: number | null
  replay_prompt_tokens: number
  scaling: string
  trials: number
  reproduced: number
  rejected: number
  hung: number
  errors: number
  /** reproduced / judged triggers; null where none was judged (not known; stored as 0 before case schema 16) */
  rate: number | null
  wilson_low: number
  wilson_high: number
  /** inconclusive: no trigger was judged (each hung, errored, answered with no readable text or not read whole) */
  verdict: 'confirmed' | 'not_reproduced' | 'rejected' | 'inconclusive'
  /** triggers answered with no readable text: not judged, not in `trials`' judged count (null: stored before case schema 15, not recorded) */
  no_text: number | null
  /** triggers answered with a stream not read whole (cut off, no `data: [DONE]`) and no primer's marker in what was read: not judged (null: not recorded) */
  incomplete: number | null
  /** answers to the priming requests that carried another synthetic tenant's marker: the target leaked during the replay (null: stored before case schema 16, not recorded) */
  primer_leaks: number | null
  /** answers that carried a marker the run gave no one (or one cut short so that whose it is cannot be told), and none it did: a trigger's is not judged; a primer's is counted too from this release on (null: not recorded) */
  other_markers: number | null
  /** trials not run because no primer was served (null: not recorded) */
  unprimed: number | null
  /** the owners the case's canary registry names for those other markers, one per distinct marker it knows (null: not recorded) */
  other_owners: ReplayMarkerOwner[] | null
}

/** A session of the case's canary registry whose marker a replay's answer carried. */
export interface ReplayMarkerOwner {
  tenant: string
  session: string
}

/** A run re-sent at least one record's original prompt (the run is stored without, until one was). */
export function markReplayRunOriginalPrompt(db: CaseDb, runId: number): void {
  db.prepare('UPDATE replay_runs SET original_prompt = 1 WHERE id = ?').run(runId)
}

export function insertReplayResult(db: CaseDb, runId: number, row: ReplayResultRow): void {
  db.prepare(
    `INSERT INTO replay_results (run_id, record_id, request_id, endpoint, stream, original_prompt_tokens, replay_prompt_tokens, scaling, trials, reproduced, rejected, hung, errors, rate, wilson_low, wilson_high, verdict, no_text, incomplete,
       primer_leaks, other_markers, unprimed, other_owners)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    runId,
    row.record_id,
    row.request_id,
    row.endpoint,
    row.stream ? 1 : 0,
    row.original_prompt_tokens,
    row.replay_prompt_tokens,
    row.scaling,
    row.trials,
    row.reproduced,
    row.rejected,
    row.hung,
    row.errors,
    row.rate,
    row.wilson_low,
    row.wilson_high,
    row.verdict,
    row.no_text,
    row.incomplete,
    row.primer_leaks,
    row.other_markers,
    row.unprimed,
    row.other_owners === null ? null : JSON.stringify(row.other_owners),
  )
}

/** One stored replay result with its run, for the Article 33 draft's "measures taken" section. */
export interface StoredReplayResult extends ReplayResultRow {
  run_id: number
  started_at: string
  finished_at: string | null
  target: string
  model: string
  original_prompt: boolean
  target_kind: ReplayTargetKind
  target_version: string | null
  purpose: ReplayPurpose
  /** The run did not finish (stopped, or killed: finished_at is then null). */
  interrupted: boolean
}

export function listReplayResults(db: CaseDb): StoredReplayResult[] {
  const rows = db
    .prepare(
      `SELECT res.*, run.started_at, run.finished_at, run.target, run.model, run.original_prompt, run.target_kind, run.target_version, run.purpose, run.interrupted
       FROM replay_results res JOIN replay_runs run ON run.id = res.run_id ORDER BY run.id, res.id`,
    )
    .all() as Array<Omit<StoredReplayResult, 'stream' | 'original_prompt' | 'interrupted' | 'other_owners'> & {stream: number; original_prompt: number; interrupted: number; id: number; other_owners: string | null}>
  return rows.map(({id: _id, ...row}) => ({
    ...row,
    stream: row.stream === 1,
    original_prompt: row.original_prompt === 1,
    interrupted: row.interrupted === 1,
    other_owners: row.other_owners === null ? null : (JSON.parse(row.other_owners) as ReplayMarkerOwner[]),
  }))
}
