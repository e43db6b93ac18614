import {canonicalJson} from '../util/canonical-json.js'
import {LOG_FORMATS, type LogFormat} from './formats/types.js'
import {NATIVE_FIELDS, type NativeField} from './parse-record.js'

// How a file's lines are decoded into records: kept with the file (files.parse_spec) so that a
// record's texts can be decoded again from its bytes exactly as ingest did, and so that a reader
// of the case sees which format and which options made each record. Everything is kept as the
// user typed it (the --map specs as text, the pattern as its source): the decoder is rebuilt
// from these by lineDecoder() (line-decoder.ts), in ingest's workers and at every later read.

export interface ParseSpec {
  /** The log format the file was read as (absent in cases written before formats: native). */
  format?: LogFormat
  /** --map FIELD=SPEC, the spec text per field (field-path.ts). */
  map?: Partial<Record<NativeField, string>>
  /** otel: attribute keys tried in order for the tenant. */
  tenant_attributes?: string[]
  /** openai-batch: the pattern with (?<tenant>) / (?<session>) groups applied to custom_id. */
  custom_id_pattern?: string
  /** openai-batch: the time given to lines without body.created. */
  batch_ts?: string
  /** --assume-tz: the zone zone-less timestamps were read in. */
  assume_tz?: string
  /** --assume-tz-ambiguous: which of a wall time that happened twice (the hour repeated in autumn) it is. */
  assume_tz_ambiguous?: 'earlier' | 'later'
}

/** Canonical JSON of the spec, leaving out what is unset. */
export function encodeParseSpec(spec: ParseSpec): string {
  const out: ParseSpec = {format: spec.format ?? 'native'}
  if (spec.map && Object.keys(spec.map).length > 0) out.map = spec.map
  if (spec.tenant_attributes && spec.tenant_attributes.length > 0) out.tenant_attributes = [...spec.tenant_attributes]
  if (spec.custom_id_pattern !== undefined) out.custom_id_pattern = spec.custom_id_pattern
  if (spec.batch_ts !== undefined) out.batch_ts = spec.batch_ts
  if (spec.assume_tz !== undefined) out.assume_tz = spec.assume_tz
  if (spec.assume_tz_ambiguous !== undefined) out.assume_tz_ambiguous = spec.assume_tz_ambiguous
  return canonicalJson(out)
}

/**
 * The spec of a file. Cases written before log formats kept `{"map": {"field": ["a", "b"]}}`
 * (a path split on dots, nothing else): that reads as the dotted path it was, under `native`.
 */
export function decodeParseSpec(json: string): ParseSpec {
  // A spec this version does not understand is refused, never read as another: the lines it
  // describes would be decoded by rules they were not ingested with.
  const value = JSON.parse(json) as Record<string, unknown> | null
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`parse spec ${json.slice(0, 80)} is not an object`)
  if (value.format !== undefined && !LOG_FORMATS.includes(value.format as LogFormat)) throw new Error(`parse spec names an unknown log format ${JSON.stringify(value.format)}`)
  const spec: ParseSpec = {format: (value.format as LogFormat | undefined) ?? 'native'}
  if (value.map && typeof value.map === 'object') {
    const map: Partial<Record<NativeField, string>> = {}
    for (const [field, v] of Object.entries(value.map as Record<string, unknown>)) {
      if (!(NATIVE_FIELDS as readonly string[]).includes(field)) throw new Error(`parse spec maps an unknown field ${JSON.stringify(field)}`)
      if (typeof v === 'string') map[field as NativeField] = v
      else if (Array.isArray(v)) map[field as NativeField] = v.map((k) => (/^[\w$-]+$/.test(String(k)) ? String(k) : JSON.stringify(String(k)))).join('.')
    }
    spec.map = map
  }
  if (Array.isArray(value.tenant_attributes)) spec.tenant_attributes = value.tenant_attributes.map(String)
  if (typeof value.custom_id_pattern === 'string') spec.custom_id_pattern = value.custom_id_pattern
  if (typeof value.batch_ts === 'string') spec.batch_ts = value.batch_ts
  if (typeof value.assume_tz === 'string') spec.assume_tz = value.assume_tz
  if (value.assume_tz_ambiguous === 'earlier' || value.assume_tz_ambiguous === 'later') spec.assume_tz_ambiguous = value.assume_tz_ambiguous
  else if (value.assume_tz_ambiguous !== undefined) throw new Error(`parse spec names an unknown assume_tz_ambiguous ${JSON.stringify(value.assume_tz_ambiguous)}`)
  return spec
}

/** `--map` as given on a command line, from the spec (for messages: "read as langfuse with --map ..."). */
export function describeParseSpec(spec: ParseSpec): string {
  const parts: string[] = [spec.format ?? 'native']
  for (const [field, text] of Object.entries(spec.map ?? {})) parts.push(`--map ${field}=${text}`)
  if (spec.tenant_attributes) parts.push(`--tenant-attribute ${spec.tenant_attributes.join(',')}`)
  if (spec.custom_id_pattern !== undefined) parts.push(`--custom-id-pattern ${spec.custom_id_pattern}`)
  if (spec.batch_ts !== undefined) parts.push(`--batch-ts ${spec.batch_ts}`)
  if (spec.assume_tz !== undefined) parts.push(`--assume-tz ${spec.assume_tz}`)
  if (spec.assume_tz_ambiguous !== undefined) parts.push(`--assume-tz-ambiguous ${spec.assume_tz_ambiguous}`)
  return parts.join(' ')
}
