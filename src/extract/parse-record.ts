import {isUtf8} from 'node:buffer'
import {decodeRequest, decodeResponse} from './decode.js'
import {parseTimestamp, TimestampError} from '../util/timestamps.js'

// One log line → one record row, or the reason it is a bad line. This is the hot path of
// ingest (hundreds of thousands of lines a second), so fields are checked by hand rather
// than through a zod schema; the rules are the contract's native log format.

export const NATIVE_FIELDS = [
  'ts', 'request_id', 'tenant_id', 'session_id', 'status', 'endpoint', 'model', 'prefill_node', 'decode_node',
  'prompt_tokens', 'completion_tokens', 'request', 'response',
] as const
export type NativeField = (typeof NATIVE_FIELDS)[number]
export type FieldMap = Partial<Record<NativeField, string[]>>

export interface RecordRow {
  request_id: string
  ts: string
  ts_ms: number
  tenant_id: string
  session_id: string
  status: number | null
  endpoint: string | null
  model: string | null
  prefill_node: string | null
  decode_node: string | null
  prompt_tokens: number | null
  completion_tokens: number | null
  cached_tokens: number | null
  stream: number
  response_kind: string
  is_error: number
  error_message: string | null
  request_text: string | null
  response_text: string | null
}

export type LineResult = {kind: 'blank'} | {kind: 'bad'; reason: string} | {kind: 'record'; row: RecordRow}

const REQUIRED = ['ts', 'request_id', 'tenant_id', 'session_id'] as const

export function parseFieldMap(specs: readonly string[]): FieldMap {
  const map: FieldMap = {}
  for (const spec of specs) {
    const eq = spec.indexOf('=')
    const field = spec.slice(0, eq) as NativeField
    const path = spec.slice(eq + 1)
    if (eq <= 0 || !path || !(NATIVE_FIELDS as readonly string[]).includes(field)) {
      throw new Error(`--map ${spec}: expected FIELD=dotted.path with FIELD one of ${NATIVE_FIELDS.join(', ')}`)
    }
    map[field] = path.split('.')
  }
  return map
}

export function parseLine(bytes: Buffer, map: FieldMap): LineResult {
  let end = bytes.length
  if (end > 0 && bytes[end - 1] === 13) end-- // CRLF
  const body = end === bytes.length ? bytes : bytes.subarray(0, end)
  if (isBlank(body)) return {kind: 'blank'}
  if (!isUtf8(body)) return {kind: 'bad', reason: `invalid UTF-8 at byte ${firstInvalidUtf8(body)}`}
  let value: unknown
  try {
    value = JSON.parse(body.toString('utf8'))
  } catch (error) {
    return {kind: 'bad', reason: `not valid JSON (${(error as Error).message.split('\n')[0]})`}
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {kind: 'bad', reason: `not a JSON object (got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`}
  }
  const obj = value as Record<string, unknown>
  const get = (f: NativeField): unknown => {
    const path = map[f]
    return path ? dig(obj, path) : obj[f]
  }
  for (const f of REQUIRED) {
    const v = get(f)
    if (v === undefined || v === null || v === '') return {kind: 'bad', reason: `missing required field ${f}${map[f] ? ` (mapped from ${map[f]!.join('.')})` : ''}`}
  }
  const ids: string[] = []
  for (const f of ['request_id', 'tenant_id', 'session_id'] as const) {
    const v = get(f)
    if (typeof v === 'string') ids.push(v)
    else if (typeof v === 'number' && Number.isFinite(v)) ids.push(String(v))
    else return {kind: 'bad', reason: `field ${f} must be a string`}
  }
  let ts
  try {
    ts = parseTimestamp(get('ts'))
  } catch (error) {
    if (error instanceof TimestampError) return {kind: 'bad', reason: `field ts: ${error.message}`}
    throw error
  }
  const response = decodeResponse(get('response'))
  const request = get('request')
  return {
    kind: 'record',
    row: {
      request_id: ids[0]!,
      tenant_id: ids[1]!,
      session_id: ids[2]!,
      ts: ts.iso,
      ts_ms: ts.ms,
      status: intOrNull(get('status')),
      endpoint: strOrNull(get('endpoint')),
      model: strOrNull(get('model')),
      prefill_node: strOrNull(get('prefill_node')),
      decode_node: strOrNull(get('decode_node')),
      prompt_tokens: intOrNull(get('prompt_tokens')) ?? response.promptTokens,
      completion_tokens: intOrNull(get('completion_tokens')) ?? response.completionTokens,
      cached_tokens: response.cachedTokens,
      stream: response.stream || streamRequested(request) ? 1 : 0,
      response_kind: response.kind,
      is_error: response.isError ? 1 : 0,
      error_message: response.errorMessage,
      request_text: decodeRequest(request),
      response_text: response.kind === 'none' ? null : response.text,
    },
  }
}

function dig(obj: unknown, path: readonly string[]): unknown {
  let cur = obj
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[key]
  }
  return cur
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

function intOrNull(v: unknown): number | null {
  if (typeof v === 'number' && Number.isInteger(v)) return v
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v)
  return null
}

function strOrNull(v: unknown): string | null {
  if (typeof v === 'string') return v
  if (typeof v === 'number') return String(v)
  return null
}

function streamRequested(request: unknown): boolean {
  return typeof request === 'object' && request !== null && (request as {stream?: unknown}).stream === true
}
