import {InputError} from '../errors.js'
import {recordTextLoader} from '../evidence/record-texts.js'
import type {CaseDb} from '../store/open-case.js'
import {contaminatedRecordIds} from '../store/findings.js'
import {completeRecordsByRequestId, recordById, type StoredRecord} from '../store/records.js'
import {quoted} from '../util/sanitize.js'

export {finishReplayRun, insertReplayResult, insertReplayRun, listReplayResults, type ReplayPurpose, type ReplayResultRow, type ReplayRunRow, type ReplayTargetKind, type StoredReplayResult} from '../store/replay.js'

// The records a replay sends again: those named, or every response with a contaminating
// sighting; with their request texts decoded from the evidence.

export interface ReplayRecord {
  id: number
  request_id: string
  endpoint: string | null
  stream: number
  prompt_tokens: number | null
  request_text: string | null
}

export function selectRecords(db: CaseDb, selection: {requestIds: readonly string[]; fromSightings: boolean}): ReplayRecord[] {
  const byId = new Map<number, StoredRecord>()
  for (const requestId of selection.requestIds) {
    const rows = completeRecordsByRequestId(db, requestId)
    if (rows.length === 0) throw new InputError(`no record with request_id ${quoted(requestId)} in the case`, 'E_NO_RECORD')
    for (const row of rows) byId.set(row.id, row)
  }
  if (selection.fromSightings) {
    for (const id of contaminatedRecordIds(db)) {
      const row = recordById(db, id)
      if (row) byId.set(id, row)
    }
  }
  // The request texts are decoded from the evidence (ingest does not store them).
  const texts = recordTextLoader(db)
  return [...byId.values()].map((row) => ({
    id: row.id,
    request_id: row.request_id,
    endpoint: row.endpoint,
    stream: row.stream,
    prompt_tokens: row.prompt_tokens,
    request_text: texts(row.id).request_text,
  }))
}
