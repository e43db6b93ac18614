import type {CaseDb} from '../store/open-case.js'
import {tableExists} from '../store/open-case.js'
import {InputError} from '../errors.js'
import {recordTextLoader} from '../ingest/record-texts.js'

// Queries for replay: the records to replay, and the replay tables (migration 004).

export interface ReplayRecord {
  id: number
  request_id: string
  endpoint: string | null
  stream: number
  prompt_tokens: number | null
  request_text: string | null
}

const RECORD_COLUMNS = `r.id, r.request_id, r.endpoint, r.stream, r.prompt_tokens`

export function selectRecords(db: CaseDb, selection: {requestIds: readonly string[]; fromSightings: boolean}): ReplayRecord[] {
  const byId = new Map<number, ReplayRecord>()
  const lookup = db.prepare<[string], ReplayRecord>(
    `SELECT ${RECORD_COLUMNS} FROM records r JOIN files f ON f.id = r.file_id AND f.state = 'complete' WHERE r.request_id = ? ORDER BY r.id`,
  )
  for (const requestId of selection.requestIds) {
    const rows = lookup.all(requestId)
    if (rows.length === 0) throw new InputError(`no record with request_id ${JSON.stringify(requestId)} in the case`, 'E_NO_RECORD')
    for (const row of rows) byId.set(row.id, row)
  }
  if (selection.fromSightings) {
    if (!tableExists(db, 'sightings')) throw new InputError('the case has no sightings yet: run detection first, or pass --request-id', 'E_NO_SIGHTINGS')
    const rows = db
      .prepare<[], ReplayRecord>(
        `SELECT ${RECORD_COLUMNS} FROM records r JOIN files f ON f.id = r.file_id AND f.state = 'complete'
         WHERE r.id IN (SELECT record_id FROM sightings WHERE class IN ('cross_session', 'cross_tenant')) ORDER BY r.ts_ms, r.id`,
      )
      .all()
    for (const row of rows) byId.set(row.id, row)
  }
  // The request texts are decoded from the evidence (ingest does not store them).
  const texts = recordTextLoader(db)
  return [...byId.values()].map((row) => ({...row, request_text: texts(row.id).request_text}))
}

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
}

export function insertReplayRun(db: CaseDb, run: ReplayRunRow): number {
  const info = db
    .prepare(
      `INSERT INTO replay_runs (started_at, target, model, trials, primers, original_prompt, target_pool_tokens, target_max_model_len, source_pool_tokens, scaling_note)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(run.startedAt, run.target, run.model, run.trials, run.primers, run.originalPrompt ? 1 : 0, run.targetPoolTokens, run.targetMaxModelLen, run.sourcePoolTokens, run.scalingNote)
  return Number(info.lastInsertRowid)
}

export function finishReplayRun(db: CaseDb, runId: number, finishedAt: string, interrupted: boolean): void {
  db.prepare(`UPDATE replay_runs SET finished_at = ?, interrupted = ? WHERE id = ?`).run(finishedAt, interrupted ? 1 : 0, runId)
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
  rate: number
  wilson_low: number
  wilson_high: number
  verdict: 'confirmed' | 'not_reproduced' | 'rejected'
}

export function insertReplayResult(db: CaseDb, runId: number, row: ReplayResultRow): void {
  db.prepare(
    `INSERT INTO replay_results (run_id, record_id, request_id, endpoint, stream, original_prompt_tokens, replay_prompt_tokens, scaling, trials, reproduced, rejected, hung, errors, rate, wilson_low, wilson_high, verdict)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
}

export function listReplayResults(db: CaseDb): StoredReplayResult[] {
  if (!tableExists(db, 'replay_results')) return []
  const rows = db
    .prepare(
      `SELECT res.*, run.started_at, run.finished_at, run.target, run.model, run.original_prompt
       FROM replay_results res JOIN replay_runs run ON run.id = res.run_id ORDER BY run.id, res.id`,
    )
    .all() as Array<Omit<StoredReplayResult, 'stream' | 'original_prompt'> & {stream: number; original_prompt: number; id: number}>
  return rows.map(({id: _id, ...row}) => ({...row, stream: row.stream === 1, original_prompt: row.original_prompt === 1}))
}
