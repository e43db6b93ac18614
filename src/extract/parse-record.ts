import {isUtf8} from 'node:buffer'
import {decodeRequestBody, decodeResponse, type DecodedRequest, type DecodedResponse} from './decode.js'
import {duplicateKeyPath, duplicateKeyReason, DuplicateKeyError, within} from './duplicate-keys.js'
import {parseJsonExact} from './json-text.js'
import {placeholderOf} from './redaction.js'
import type {RecordFields} from '../util/record-fields.js'
import {blankId, firstInvisible} from '../util/invisible.js'
import {count} from '../util/plural.js'
import {visibleControlsLine} from '../util/sanitize.js'
import {parseRecordTimestamp, TimestampError} from '../util/timestamps.js'
import {notUnicodeField} from '../util/unicode-text.js'

// One record in the native log format → one record row, or the reason it is a bad line. This
// is the hot path of ingest (hundreds of thousands of lines a second), so fields are checked by
// hand rather than through a zod schema; the rules are the contract's native log format. Other
// formats reach rowFromRecord through their adapters (formats/), so every format is decoded by
// the same rules.

export const NATIVE_FIELDS = [
  'ts', 'request_id', 'tenant_id', 'session_id', 'status', 'endpoint', 'model', 'prefill_node', 'decode_node',
  'prompt_tokens', 'completion_tokens', 'request', 'response',
] as const
export type NativeField = (typeof NATIVE_FIELDS)[number]

/** A decoded record: its fields and the texts that are decoded from its line, never stored. */
export interface RecordRow extends RecordFields {
  request_text: string | null
  response_text: string | null
  /**
   * The answer holds no text by design (decode.ts noTextByDesign: an embedding answer's vectors):
   * counted as such (its note), not as an answer that decoded to no text. Not stored: decoded again
   * with the texts.
   */
  no_text_by_design?: boolean
}

/**
 * A record's request and response as decodeRequest, streamRequested and decodeResponse read
 * them, decoded elsewhere (the native decoder, src/ingest/native-ingest.ts): rowFromRecord then
 * reads the rest of the record, which holds no request or response, as it reads any other.
 */
export interface DecodedBodies {
  requestText: string | null
  /** The request members not read (decode.ts DecodedRequest.unread); absent where none (the native decoder leaves such requests to TypeScript). */
  requestUnread?: string[]
  streamRequested: boolean
  response: DecodedResponse
}

export type LineResult = {kind: 'blank'} | {kind: 'bad'; reason: string} | {kind: 'record'; row: RecordRow}

/** A line's text as JSON: blank, bad (why), or the parsed value (integers past 2^53 as strings of their digits). */
/** `bom`: the line opened with a UTF-8 byte-order mark, skipped (readLineJson). */
export type LineJson = {kind: 'blank'} | {kind: 'bad'; reason: string} | {kind: 'json'; value: unknown; bom?: true}

/**
 * The note of a record whose line, not the file's first, opened with a UTF-8 byte-order mark:
 * files joined together (`cat a.jsonl b.jsonl`) each bring theirs. The mark is skipped as the
 * file's first line's is; the line's bytes are kept whole (its offset and length as found).
 */
export const LINE_BOM_NOTE = 'UTF-8 byte-order mark at the start of its line skipped (files joined together?)'

const REQUIRED = ['ts', 'request_id', 'tenant_id', 'session_id'] as const

/** The HTTP status range a response can carry; anything else is not a status (unknown). */
const STATUS_MIN = 100
const STATUS_MAX = 999

/** How the reason of a line refused for a key given twice starts (verify and re-extraction tell such lines by it). */
export const DUPLICATE_KEY = 'duplicate key'

/** A line that gives a key twice, at any depth, is bad (duplicate-keys.ts): JSON.parse would keep only the last value. */
export function readLineJson(bytes: Buffer): LineJson {
  let end = bytes.length
  if (end > 0 && bytes[end - 1] === 13) end-- // CRLF
  // A byte-order mark opening a line (a file joined after another) is no part of its JSON.
  const bom = end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf
  const body = bytes.subarray(bom ? 3 : 0, end)
  if (isBlank(body)) return {kind: 'blank'}
  if (!isUtf8(body)) return {kind: 'bad', reason: `invalid UTF-8 at byte ${firstInvalidUtf8(body)}`}
  const text = body.toString('utf8')
  let value: unknown
  try {
    value = parseJsonExact(text)
  } catch (error) {
    // V8's message quotes the start of the line: controls in it are made visible before the reason is stored or printed.
    return {kind: 'bad', reason: `not valid JSON (${visibleControlsLine((error as Error).message.split('\n')[0]!)})`}
  }
  const twice = duplicateKeyPath(text)
  if (twice !== null) return {kind: 'bad', reason: duplicateKeyReason(twice)}
  return bom ? {kind: 'json', value, bom} : {kind: 'json', value}
}

/** One native log line (no field mapping, timestamps read as given): the contract's native format. */
export function parseLine(bytes: Buffer): LineResult {
  const json = readLineJson(bytes)
  if (json.kind !== 'json') return json
  const out = rowFromRecord(json.value)
  return 'row' in out ? {kind: 'record', row: out.row} : {kind: 'bad', reason: out.bad}
}

/**
 * A record in the native log format (a parsed line, or what a format adapter made of one) to
 * a row, or why it is a bad line. `notes` collects what was read as unknown and why (a count
 * no integer column can hold, a status outside HTTP's range).
 */
export function rowFromRecord(value: unknown, notes: string[] = [], bodies?: DecodedBodies): {row: RecordRow} | {bad: string} {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {bad: `not a JSON object (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`}
  }
  const obj = value as Record<string, unknown>
  for (const f of REQUIRED) {
    const v = obj[f]
    if (v === undefined || v === null || v === '') return {bad: `missing required field ${f}`}
  }
  const ids: string[] = []
  for (const f of ['request_id', 'tenant_id', 'session_id'] as const) {
    const v = obj[f]
    if (typeof v === 'string') {
      if (v.trim() === '') return {bad: `field ${f} is only white space`}
      // Hangul fillers, the Braille blank, tag characters: an id of nothing else prints as a blank.
      if (blankId(v)) return {bad: `field ${f} is only invisible characters (${firstInvisible(v)} and the like), which print as nothing`}
      ids.push(v)
    } else if (typeof v === 'number' && Number.isSafeInteger(v)) ids.push(String(v))
    else if (typeof v === 'number') return {bad: `field ${f} is the number ${v}, which has lost digits; log it as a string`}
    else return {bad: `field ${f} must be a string`}
  }
  // An id holding a lone surrogate cannot be stored as written: two such ids would be one
  // (util/unicode-text.ts). Every format and --map reaches here, so the rule is kept once.
  // The nodes too: the per-node table groups records by them, so two such nodes would be one.
  const nodes = {prefill_node: strOrNull(obj.prefill_node), decode_node: strOrNull(obj.decode_node)}
  const notText = notUnicodeField({
    request_id: ids[0]!, tenant_id: ids[1]!, session_id: ids[2]!,
    ...Object.fromEntries(Object.entries(nodes).filter((e): e is [string, string] => e[1] !== null)),
  })
  if (notText !== null) return {bad: notText}
  let ts
  try {
    ts = parseRecordTimestamp(obj.ts)
  } catch (error) {
    if (error instanceof TimestampError) return {bad: `field ts: ${error.message}`}
    throw error
  }
  let response: DecodedResponse
  let request: DecodedRequest
  try {
    response = bodies?.response ?? within('response', () => decodeResponse(obj.response))
    request = bodies ? {text: bodies.requestText, unread: bodies.requestUnread ?? []} : within('request', () => decodeRequestBody(obj.request))
  } catch (error) {
    // A JSON text in the body (a response logged as a string, a stream's event) that gives a key twice.
    if (error instanceof DuplicateKeyError) return {bad: duplicateKeyReason(error.path)}
    throw error
  }
  const requestText = request.text
  // A body holding a shape this release does not read: the record is not read whole (fileUnread counts it).
  if (response.unread.length > 0) notes.push(unreadShapesNote(response.unread))
  // A request read in part: the echo check cannot rule out a marker absent from what was read.
  if (request.unread.length > 0) notes.push(unreadRequestNote(request.unread))
  // Parts that hold no text by their nature (an image): said, and counted per file by their note.
  if (response.notSearched !== undefined && response.notSearched.length > 0) notes.push(notSearchedNote(response.notSearched))
  if (response.noTextByDesign !== undefined) notes.push(response.noTextByDesign)
  return {
    row: {
      request_id: ids[0]!,
      tenant_id: ids[1]!,
      session_id: ids[2]!,
      ts: ts.iso,
      ts_ms: ts.ms,
      status: checkedInt(obj.status, 'status', STATUS_MIN, STATUS_MAX, notes),
      endpoint: strOrNull(obj.endpoint),
      model: strOrNull(obj.model),
      prefill_node: nodes.prefill_node,
      decode_node: nodes.decode_node,
      prompt_tokens: checkedInt(obj.prompt_tokens, 'prompt_tokens', 0, Number.MAX_SAFE_INTEGER, notes) ?? response.promptTokens,
      completion_tokens: checkedInt(obj.completion_tokens, 'completion_tokens', 0, Number.MAX_SAFE_INTEGER, notes) ?? response.completionTokens,
      cached_tokens: response.cachedTokens,
      stream: response.stream || (bodies ? bodies.streamRequested : streamRequested(obj.request)) ? 1 : 0,
      response_kind: response.kind,
      is_error: response.isError ? 1 : 0,
      error_message: response.errorMessage,
      request_text: unlessPlaceholder(requestText, 'request', notes),
      response_text: unlessPlaceholder(response.kind === 'none' ? null : response.text, 'response', notes),
      ...(response.noTextByDesign !== undefined ? {no_text_by_design: true} : {}),
    },
  }
}

/**
 * How the note of a record whose answer holds parts no text search can read (decode.ts
 * DecodedResponse.notSearched: an image) starts; the parts follow it. The rest of the answer is
 * searched; these parts are not, and the file's notes say how many records hold such parts.
 */
export const NOT_SEARCHED = 'its response holds a part that cannot be searched for a marker (it holds no text), not searched'

/** The note of a record whose answer holds these parts not searched. */
export function notSearchedNote(parts: readonly string[]): string {
  return `${NOT_SEARCHED}: ${parts.join(', ')}`
}

/**
 * How the note of a record whose response body holds a shape this release does not read (decode.ts
 * DecodedResponse.unread) starts; the shapes follow it. A file with such records is not read whole
 * (ingest-file.ts fileUnread), so no gate passes on it.
 */
export const UNREAD_SHAPES = 'its response body holds what this release does not read, so that part was not searched'

/** The note of a record whose response body holds these shapes not read. */
export function unreadShapesNote(shapes: readonly string[]): string {
  return `${UNREAD_SHAPES}: ${shapes.join(', ')}`
}

/**
 * How the note of a record whose request body holds a member this release does not read (decode.ts
 * DecodedRequest.unread) starts; the members follow it. Its prompt was read in part: a marker in its
 * answer that is not in what was read may still be one the user sent (an echo), so such a sighting
 * is counted as received from the other session with the echo not ruled out (scope's
 * contaminated_prompt_in_part), never as an echo and never as a confirmed leak.
 */
export const UNREAD_REQUEST = 'its request body holds what this release does not read, so the echo check read the prompt in part'

/** The note of a record whose request body holds these members not read. */
export function unreadRequestNote(members: readonly string[]): string {
  return `${UNREAD_REQUEST}: ${members.join(', ')}`
}

/**
 * The records whose response body holds a shape this release does not read (their notes:
 * parse-record.ts unreadShapesNote), with the shapes and, where known, the first such record's
 * line, e.g. "2 records hold in their response body what this release does not read (Responses
 * API output item \"x_call\"), the first on line 7, so ..."; null for none.
 */
export function unreadShapesPhrase(notes: Readonly<Record<string, number>>, firstLine: number | null = null): string | null {
  let records = 0
  const shapes = new Set<string>()
  for (const [note, n] of Object.entries(notes)) {
    if (!note.startsWith(`${UNREAD_SHAPES}: `)) continue
    records += n
    for (const shape of note.slice(UNREAD_SHAPES.length + 2).split(', ')) shapes.add(shape)
  }
  if (records === 0) return null
  const named = [...shapes]
  const list = named.length > 5 ? `${named.slice(0, 5).join(', ')}, and ${named.length - 5} more` : named.join(', ')
  const where = firstLine === null ? '' : records === 1 ? `, on line ${firstLine}` : `, the first on line ${firstLine}`
  return `${count(records, 'record')} ${records === 1 ? 'holds' : 'hold'} in ${records === 1 ? 'its' : 'their'} response body what this release does not read (${list})${where}, so their texts there were not searched for markers`
}

/**
 * A decoded text, or null where it is nothing but a placeholder for a text the source did not
 * log (LiteLLM's, OpenInference's, a Langfuse SDK's: redaction.ts), with that placeholder's
 * note. The adapters drop a body that holds only a placeholder before it is decoded
 * (formats/common.ts); this catches it on every road, the plain native format's (the
 * TypeScript decoder's and the native extractor's texts alike) included.
 */
function unlessPlaceholder(text: string | null, part: 'request' | 'response', notes: string[]): string | null {
  const placeholder = text === null ? null : placeholderOf(text)
  if (placeholder === null) return text
  notes.push(placeholder.note(part))
  return null
}

function isBlank(buf: Buffer): boolean {
  for (let i = 0; i < buf.length; i++) {
    const c = buf[i]
    if (c !== 32 && c !== 9 && c !== 13 && c !== 10 && c !== 11 && c !== 12) return false
  }
  return true
}

/** Offset of the first byte that breaks UTF-8 (only called on lines isUtf8 rejected). */
export function firstInvalidUtf8(buf: Buffer): number {
  let i = 0
  while (i < buf.length) {
    const b = buf[i]!
    const need = b < 0x80 ? 0 : b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1
    if (need < 0) return i
    if (need > 0 && !isUtf8(buf.subarray(i, i + need + 1))) return i
    i += need + 1
  }
  return buf.length
}

/**
 * An integer field: a safe integer in [min, max] (or a string of up to 15 digits), else
 * unknown. A value given but unusable (2^63, -1 tokens, status 70000) is noted, never stored:
 * an INTEGER column cannot hold it, and a rounded double would be a fact nobody logged.
 */
function checkedInt(v: unknown, field: string, min: number, max: number, notes: string[]): number | null {
  if (v === undefined || v === null) return null
  let n: number | null = null
  if (typeof v === 'number' && Number.isSafeInteger(v)) n = v
  else if (typeof v === 'string' && /^\d{1,15}$/.test(v)) n = Number(v)
  if (n !== null && n >= min && n <= max) return n
  notes.push(`${field} ${describeValue(v)} is not an integer in [${min}, ${max === Number.MAX_SAFE_INTEGER ? '2^53' : max}]: stored as unknown`)
  return null
}

function describeValue(v: unknown): string {
  const text = typeof v === 'string' ? JSON.stringify(v) : typeof v === 'number' || typeof v === 'boolean' ? String(v) : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v
  return text.length > 40 ? `${text.slice(0, 40)}…` : text
}

function strOrNull(v: unknown): string | null {
  if (typeof v === 'string') return v
  if (typeof v === 'number') return String(v)
  return null
}

function streamRequested(request: unknown): boolean {
  return typeof request === 'object' && request !== null && (request as {stream?: unknown}).stream === true
}
