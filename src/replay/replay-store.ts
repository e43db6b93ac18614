import {InputError} from '../errors.js'
import {recordTextLoader} from '../evidence/record-texts.js'
import type {CaseDb} from '../store/open-case.js'
import {contaminatedRecordIds} from '../store/findings.js'
import {registryLookups} from '../store/canaries.js'
import type {ReplayMarkerOwner} from '../store/replay.js'
import {completeRecordsByRequestId, recordById, type StoredRecord} from '../store/records.js'
import {quoted} from '../util/sanitize.js'

export {finishReplayRun, insertReplayResult, insertReplayRun, listReplayResults, markReplayRunOriginalPrompt, type ReplayMarkerOwner, type ReplayPurpose, type ReplayResultRow, type ReplayRunRow, type ReplayTargetKind, type StoredReplayResult} from '../store/replay.js'

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

/**
 * Whose a marker is by the case's canary registry (a customer's session), or null where the
 * registry does not hold it (or the case has none): a marker a replay's answer carried that the
 * run gave no synthetic tenant may still be a real customer's.
 */
export function registryOwner(db: CaseDb): (marker: string) => ReplayMarkerOwner | null {
  const lookups = registryLookups(db)
  return (marker) => {
    // findMarkers gives `CANARY-` + lower-case hex: the registry's marker_key of a conventional marker.
    const row = lookups.exact(marker)
    return row ? {tenant: row.tenant_id, session: row.session_id} : null
  }
}
