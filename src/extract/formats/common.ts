import {applyFieldMap, epochToIso} from '../field-path.js'
import {epochWhole, implausibleEpoch} from '../../util/timestamps.js'
import {decodeRequest, decodeResponse} from '../decode.js'
import {PLACEHOLDERS, placeholderOf, REDACTED, type Placeholder} from '../redaction.js'
import {isObj, type Obj} from './messages.js'
import {FormatOptionError, type AdaptResult, type FormatOptions, type FormatOptionsInput, type LogFormat, type NativeRecord, type SniffResult} from './types.js'

// What every adapter shares: option checking, the last step that turns a candidate record into
// a record or a bad item (applying --map overrides and naming what is missing and why), value
// coercions that never invent a value, and the arithmetic of a sniff.

/**
 * otel: the attribute read as the tenant where --tenant-attribute is not given. Not
 * service.namespace: a resource attribute naming a group of services (OpenTelemetry resource
 * conventions: "A namespace for service.name", e.g. a deployment's "prod"), not a customer; read
 * as one, a whole export became one tenant and a leak between customers read as cross-session.
 */
export const DEFAULT_TENANT_ATTRIBUTES = ['tenant.id'] as const
/**
 * What an otel file's parse spec without tenant_attributes meant: the default of the versions that
 * wrote such specs (this one writes the attributes it read with into every otel spec), so that
 * a record of an earlier case is decoded again exactly as it was read.
 */
export const EARLIER_DEFAULT_TENANT_ATTRIBUTES = ['tenant.id', 'service.namespace'] as const

/** Said of a file that is JSON but not JSON Lines (a JSON array, pretty-printed JSON, a saved API page). */
export const NOT_JSON_LINES = 'not JSON Lines (one JSON object a line)'
/** The fix for it: no --log-format or --map reads such a file. */
export const JSON_LINES_FIX = "convert it to JSON Lines first, e.g. jq -c '.[]' FILE > FILE.jsonl for a JSON array (a saved API page: jq -c '.data[]'; a single JSON object, such as a pretty-printed OTLP export request: jq -c . FILE > FILE.jsonl)"

/** How a JSON file that is not JSON Lines is wrapped: one array, one (pretty-printed) object, a saved API page ({data: [...]}) a line. */
export type WrappedJson = 'array' | 'object' | 'page'

/**
 * The conversion that makes a wrapped JSON file JSON Lines: an array's items, a page's data, each
 * a line; a single object written on one line (jq -c '.[]' would split it into its members' values).
 */
export function jsonLinesFix(kind: WrappedJson | null): string {
  if (kind === 'object') return "convert it to JSON Lines first: jq -c . FILE > FILE.jsonl writes the JSON object on one line (not jq -c '.[]', which would split it into its members; a saved API page: jq -c '.data[]')"
  if (kind === 'page') return "convert it to JSON Lines first, e.g. jq -c '.data[]' FILE > FILE.jsonl (the page's records, one a line)"
  if (kind === 'array') return "convert it to JSON Lines first, e.g. jq -c '.[]' FILE > FILE.jsonl (the array's items, one a line)"
  return JSON_LINES_FIX
}

export function resolveFormatOptions(input: FormatOptionsInput = {}): FormatOptions {
  let pattern: RegExp | null = null
  if (input.customIdPattern !== undefined) {
    try {
      pattern = new RegExp(input.customIdPattern, 'u')
    } catch (error) {
      throw new FormatOptionError(`--custom-id-pattern ${input.customIdPattern}: ${(error as Error).message}`)
    }
    const groups = /\(\?<(tenant|session)>/g
    const names = new Set([...input.customIdPattern.matchAll(groups)].map((m) => m[1]))
    if (names.size === 0) {
      throw new FormatOptionError(`--custom-id-pattern ${input.customIdPattern}: needs a named group (?<tenant>...) and/or (?<session>...)`)
    }
  }
  const tenantAttributes = input.tenantAttributes && input.tenantAttributes.length > 0 ? [...input.tenantAttributes] : [...DEFAULT_TENANT_ATTRIBUTES]
  return {tenantAttributes, customIdPattern: pattern, fallbackTs: input.fallbackTs ?? null, map: input.map ?? {}, zoneAssumed: input.zoneAssumed ?? false}
}

/** A record being built: every field may still be missing. */
export type Candidate = {[K in keyof NativeRecord]: NativeRecord[K] | null | undefined}

/** Why a required field may be missing in this format, and what to do about it. */
export type MissingHints = Partial<Record<'ts' | 'request_id' | 'tenant_id' | 'session_id', string>>

const REQUIRED = ['ts', 'request_id', 'tenant_id', 'session_id'] as const

/**
 * Applies the user's --map overrides (evaluated against `source`, the format's view of the
 * item), then checks the required fields. A missing one makes the item a bad item whose reason
 * names the field, why this format lacks it, and the flag that supplies it.
 */
export function finishRecord(
  candidate: Candidate,
  source: unknown,
  options: FormatOptions,
  hints: MissingHints,
): {record: NativeRecord; notes: string[]} | {problem: string} {
  const mapped = applyFieldMap(candidate, source, options.map)
  const r = mapped.record
  const missing = REQUIRED.filter((f) => r[f] === undefined || r[f] === null || r[f] === '')
  if (missing.length > 0) {
    const f = missing[0]!
    const mapNote = mapped.problems.find((p) => p.startsWith(`--map ${f}=`))
    // A value --map found but could not read (an epoch that is no plausible time) is there: bad, not missing.
    const how = mapNote !== undefined && mapped.invalid.includes(f) ? 'bad' : 'missing'
    return {problem: `${how} ${f}: ${mapNote ?? hints[f] ?? `the ${f} field is absent`}${missing.length > 1 ? ` (also missing: ${missing.slice(1).join(', ')})` : ''}`}
  }
  for (const f of ['request_id', 'tenant_id', 'session_id'] as const) {
    const v = r[f]
    // An integer id is its digits, as on a native line; any other number (1.5, 1e300) is no id
    // anyone wrote: the native decoder refuses it, and so does every adapter.
    if (typeof v === 'number' && Number.isSafeInteger(v)) (r as Obj)[f] = String(v)
    else if (typeof v === 'number') return {problem: `${f} is the number ${v}, not an integer; log it as a string`}
    else if (typeof v !== 'string') return {problem: `${f} must be text, got ${describe(v)}`}
  }
  const notes = [...mapped.problems]
  // A body whose every text is a placeholder (LiteLLM's redaction marker with message logging
  // turned off, which it hands to every logger, Langfuse and OpenTelemetry included;
  // OpenInference's __REDACTED__ wherever a processor copied it; a Langfuse SDK's mask-failure
  // text) carries no text: read as text, every prompt and answer would be those same words, and
  // an answer read with no marker in it would pass a gate.
  for (const part of ['request', 'response'] as const) {
    const placeholder = r[part] === undefined || r[part] === null ? null : placeholderBody(r[part], part)
    if (placeholder !== null) {
      ;(r as Obj)[part] = null
      notes.push(placeholder.note(part))
    }
  }
  const record: NativeRecord = {
    ts: r.ts as string | number,
    request_id: r.request_id as string,
    tenant_id: r.tenant_id as string,
    session_id: r.session_id as string,
    status: r.status ?? null,
    endpoint: r.endpoint ?? null,
    model: r.model ?? null,
    prefill_node: r.prefill_node ?? null,
    decode_node: r.decode_node ?? null,
    prompt_tokens: r.prompt_tokens ?? null,
    completion_tokens: r.completion_tokens ?? null,
    request: r.request ?? null,
    response: r.response ?? null,
  }
  return {record, notes}
}

export {REDACTED}

/**
 * The placeholder a body's texts are nothing but (redaction.ts), or null: LiteLLM's in every
 * `content` and `text` (it keeps the messages' and choices' shape and replaces each text), or
 * any placeholder as the whole of the text the decoder reads from the body. An error answer
 * stays: what failed is a fact, whatever its body held. Bodies without a placeholder anywhere
 * in them (nearly all) are not decoded here.
 */
export function placeholderBody(v: unknown, part: 'request' | 'response'): Placeholder | null {
  if (!holdsPlaceholder(v, 0)) return null
  if (onlyRedacted(v)) return PLACEHOLDERS.find((p) => p.text === REDACTED)!
  if (part === 'request') {
    const text = decodeRequest(v)
    return text === null ? null : placeholderOf(text)
  }
  const d = decodeResponse(v)
  return d.isError ? null : placeholderOf(d.text)
}

/** Whether any string in a value is nothing but placeholders. */
function holdsPlaceholder(v: unknown, depth: number): boolean {
  if (typeof v === 'string') return placeholderOf(v) !== null
  if (depth > 32 || typeof v !== 'object' || v === null) return false
  for (const x of Array.isArray(v) ? v : Object.values(v)) if (holdsPlaceholder(x, depth + 1)) return true
  return false
}

/**
 * Whether a body's texts are all LiteLLM's redaction marker: the marker itself, or a body whose
 * every `content` or `text` string is the marker (LiteLLM keeps the messages' and choices' shape
 * and replaces each text).
 */
export function onlyRedacted(v: unknown): boolean {
  if (v === REDACTED) return true
  let redacted = 0
  let other = 0
  const walk = (x: unknown, depth: number): void => {
    if (depth > 32 || other > 0) return
    if (Array.isArray(x)) for (const item of x) walk(item, depth + 1)
    else if (typeof x === 'object' && x !== null) {
      for (const [k, val] of Object.entries(x)) {
        if ((k === 'content' || k === 'text') && typeof val === 'string') {
          if (val === REDACTED) redacted++
          else if (val !== '') other++
        } else walk(val, depth + 1)
      }
    }
  }
  walk(v, 0)
  return redacted > 0 && other === 0
}

/** Builds a one-record AdaptResult from finishRecord's answer. */
export function single(out: ReturnType<typeof finishRecord>, notes: string[] = []): AdaptResult {
  if ('problem' in out) return {records: [], problems: [{item: null, reason: out.problem}], ignored: 0}
  return {records: [{item: 0, record: out.record, notes: [...notes, ...out.notes]}], problems: [], ignored: 0}
}

export function notAnObject(value: unknown): AdaptResult {
  return {records: [], problems: [{item: null, reason: `not a JSON object (got ${describe(value)})`}], ignored: 0}
}

/** A non-negative integer from a number or a string of digits; anything else is unknown (null). */
export function intOrNull(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v
  if (typeof v === 'string' && /^\d{1,15}$/.test(v)) return Number(v)
  return null
}

export function strOrNull(v: unknown): string | null {
  if (typeof v === 'string') return v === '' ? null : v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  return null
}

/**
 * The first of several keys present (export tools vary in key case: startTime / start_time).
 * An empty string is no value (an export's empty column), so the next key is tried.
 */
export function pick(obj: Obj, ...keys: string[]): unknown {
  for (const k of keys) if (obj[k] !== undefined && obj[k] !== null && obj[k] !== '') return obj[k]
  return undefined
}

/** Whether a time value is unset: absent, empty, or 0 (an epoch 0 is a clock never set, not 1970). */
export const unsetTime = (v: unknown): boolean => v === undefined || v === null || v === '' || v === 0 || v === '0'

/** The first of several time keys that is set (unsetTime skips 0 and ''). */
export function pickTime(obj: Obj, ...keys: string[]): unknown {
  for (const k of keys) if (!unsetTime(obj[k])) return obj[k]
  return undefined
}

/**
 * An epoch-seconds time (a number, or a string of digits) as ISO, or why it is no time: read in
 * seconds it must fall in 2000-2100; else the refusal names `label`, the value and the unit it
 * reads right in (a value in milliseconds), with the --map that reads it so.
 */
export function epochSecondsTime(v: unknown, label: string, mapPath: string): {iso: string} | {bad: string} {
  const out = epochToIso(v, 's')
  if (!('iso' in out)) return {bad: `bad ts: ${label}: ${out.error}`}
  const bad = implausibleEpoch(epochWhole(v as number | string), 's', label)
  if (bad === null) return out
  return {bad: `bad ts: ${bad.text}${bad.fits === null ? '' : `: --map ts=epoch_${bad.fits}:${mapPath}`}`}
}

export function describe(v: unknown): string {
  return v === null ? 'null' : v === undefined ? 'nothing' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`
}

/**
 * Confidence from the share of sampled values that match: all of them is certain, none is
 * zero. Non-objects count against; an empty sample decides nothing.
 */
export function sniffByShare(format: LogFormat, first: readonly unknown[], test: (o: Obj) => boolean, what: string): SniffResult {
  const n = first.length
  if (n === 0) return {format, confidence: 0, reason: 'no readable lines to look at'}
  const hits = first.filter((v) => isObj(v) && test(v)).length
  return {format, confidence: hits / n, reason: `${hits} of ${n} first readable lines ${what}`}
}
