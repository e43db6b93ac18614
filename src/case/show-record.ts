import {InputError} from '../errors.js'
import {readEvidence} from '../evidence/evidence-store.js'
import {recordTextLoader} from '../evidence/record-texts.js'
import type {CaseDb} from '../store/open-case.js'
import {findRecordsByRequestId, type RecordFields, type StoredRecord} from '../store/records.js'

/** A stored record as `show --json` prints it: the ingested row, flags as booleans, plus where it came from. */
export interface RecordView extends Omit<RecordFields, 'ts' | 'ts_ms' | 'stream' | 'is_error'> {
  source: string
  /** UTC, toISOString() form (contract). */
  ts: string
  /** The same instant with every fractional digit the log gave (e.g. microseconds). */
  ts_precise: string
  stream: boolean
  is_error: boolean
  request_text: string | null
  response_text: string | null
  evidence: {file: string; file_sha256: string; line: number; byte_offset: number; byte_len: number}
}

function findRecord(db: CaseDb, requestId: string, source?: string): StoredRecord {
  const rows = findRecordsByRequestId(db, requestId, source, 2)
  if (rows.length === 0) throw new InputError(`no record with request_id ${JSON.stringify(requestId)}${source ? ` in source ${source}` : ''}`, 'E_NOT_FOUND')
  if (rows.length > 1) throw new InputError(`request_id ${JSON.stringify(requestId)} exists in several sources; pass --source`, 'E_AMBIGUOUS')
  return rows[0]!
}

export function showRecord(db: CaseDb, requestId: string, source?: string): RecordView {
  const r = findRecord(db, requestId, source)
  const texts = recordTextLoader(db)(r.id)
  return {
    request_id: r.request_id, source: r.source, ts: new Date(r.ts_ms).toISOString(), ts_precise: r.ts, tenant_id: r.tenant_id, session_id: r.session_id, status: r.status,
    endpoint: r.endpoint, model: r.model, prefill_node: r.prefill_node, decode_node: r.decode_node, prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens, cached_tokens: r.cached_tokens, stream: r.stream === 1, response_kind: r.response_kind,
    is_error: r.is_error === 1, error_message: r.error_message, request_text: texts.request_text, response_text: texts.response_text,
    evidence: {file: r.path, file_sha256: r.sha256, line: r.line_no, byte_offset: r.byte_offset, byte_len: r.byte_len},
  }
}

/** The record's original line, byte for byte, from the case's evidence store. */
export function rawRecord(db: CaseDb, requestId: string, source?: string): Buffer {
  const r = findRecord(db, requestId, source)
  return readEvidence(db, r.file_id, r.byte_offset, r.byte_len)
}
