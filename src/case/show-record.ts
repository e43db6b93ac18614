import {InputError} from '../errors.js'
import {evidenceReader} from '../evidence/evidence-store.js'
import {readCheckedLine, recordTextLoader} from '../evidence/record-texts.js'
import {unconventionalMarkers} from '../store/canaries.js'
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
  /** The texts, only when asked for (showText): they are other people's data. */
  request_text?: string | null
  response_text?: string | null
  /** Length of each text in characters (null: the line has none), so a hidden text is not mistaken for an empty one. */
  request_chars: number | null
  response_chars: number | null
  /** Whether the texts are included, and whether canary markers in them are in full or shortened (CANARY-3f9a…). */
  texts: 'hidden' | 'shown'
  markers: 'shortened' | 'full'
  evidence: {file: string; file_sha256: string; line: number; byte_offset: number; byte_len: number}
}

export interface ShowOptions {
  /** Include the request and response texts (default: hidden). */
  showText?: boolean
  /** Markers in full in the texts and the error message (default: shortened; they identify sessions). */
  showMarkers?: boolean
}

function findRecord(db: CaseDb, requestId: string, source?: string): StoredRecord {
  const rows = findRecordsByRequestId(db, requestId, source, 2)
  if (rows.length === 0) throw new InputError(`no record with request_id ${JSON.stringify(requestId)}${source ? ` in source ${source}` : ''}`, 'E_NOT_FOUND')
  if (rows.length > 1) throw new InputError(`request_id ${JSON.stringify(requestId)} exists in several sources; pass --source`, 'E_AMBIGUOUS')
  return rows[0]!
}

/**
 * One record for a person to look at. Its texts are someone's prompt and, in an incident,
 * someone else's leaked answer: they are left out unless asked for, and the canary markers in
 * them (and in an error message, which servers fill with the request) are shortened unless
 * asked for in full. `show --raw` is the explicit way to the original bytes.
 */
export function showRecord(db: CaseDb, requestId: string, source?: string, options: ShowOptions = {}): RecordView {
  const r = findRecord(db, requestId, source)
  const texts = recordTextLoader(db)(r.id)
  const shorten = options.showMarkers ? (t: string) => t : markerShortener(unconventionalMarkers(db))
  const chars = (t: string | null): number | null => (t === null ? null : [...t].length)
  return {
    request_id: r.request_id, source: r.source, ts: new Date(r.ts_ms).toISOString(), ts_precise: r.ts, tenant_id: r.tenant_id, session_id: r.session_id, status: r.status,
    endpoint: r.endpoint, model: r.model, prefill_node: r.prefill_node, decode_node: r.decode_node, prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens, cached_tokens: r.cached_tokens, stream: r.stream === 1, response_kind: r.response_kind,
    is_error: r.is_error === 1, error_message: r.error_message === null ? null : shorten(r.error_message),
    ...(options.showText
      ? {request_text: texts.request_text === null ? null : shorten(texts.request_text), response_text: texts.response_text === null ? null : shorten(texts.response_text)}
      : {}),
    request_chars: chars(texts.request_text), response_chars: chars(texts.response_text),
    texts: options.showText ? 'shown' : 'hidden', markers: options.showMarkers ? 'full' : 'shortened',
    evidence: {file: r.path, file_sha256: r.sha256, line: r.line_no, byte_offset: r.byte_offset, byte_len: r.byte_len},
  }
}

/** CANARY-<hex> cut to its first four hex digits (as the sightings table shows it), registered unconventional markers to their first four characters. */
function markerShortener(unconventional: readonly string[]): (text: string) => string {
  const others = [...unconventional].filter((m) => m.length > 4).sort((a, b) => b.length - a.length)
  return (text) => {
    let out = text.replace(/CANARY-([0-9a-fA-F]{4})[0-9a-fA-F]{4,}/g, 'CANARY-$1…')
    for (const m of others) if (out.includes(m)) out = out.split(m).join(`${m.slice(0, 4)}…`)
    return out
  }
}

/** The record's original line, byte for byte, from the case's evidence store. */
export function rawRecord(db: CaseDb, requestId: string, source?: string): Buffer {
  const r = findRecord(db, requestId, source)
  return readCheckedLine(evidenceReader(db), r)
}
