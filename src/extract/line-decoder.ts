import {parseFieldSpec, type FieldMap, type FieldSpec} from './field-path.js'
import {adapterFor, checkFormatOptions, EARLIER_DEFAULT_TENANT_ATTRIBUTES, resolveFormatOptions, type CompanionIndex, type FormatAdapter, type FormatOptions, type LinePosition, type LineProblem} from './formats/index.js'
import {DuplicateKeyError, duplicateKeyReason} from './duplicate-keys.js'
import {parseJsonExact} from './json-text.js'
import {LINE_BOM_NOTE, readLineJson, rowFromRecord, type DecodedBodies, type RecordRow} from './parse-record.js'
import type {ParseSpec} from './parse-spec.js'
import {parseAssumeTz, resolveZoneless, type AssumedZone, type Disambiguation} from './timestamps-zone.js'

// One line of a log file, in any format, to record rows: the JSON text is read (blank, bad
// UTF-8, bad JSON are decided here), the format's adapter turns the value into records of the
// native log format, a zone-less timestamp is refused or read in the --assume-tz zone, and every
// record then goes through the same native checks and decoding (rowFromRecord). Ingest runs this
// for every line; the evidence layer runs it again to decode a record's texts from its bytes.

export interface LineDecoder {
  spec: ParseSpec
  adapter: FormatAdapter
  options: FormatOptions
  assumeTz: AssumedZone | null
  /** Which of a wall time that happened twice in the zone (the autumn hour): refused unless the user said. */
  ambiguous: Disambiguation
  /** Native lines without --map: read as they are, without the adapter's copy. */
  plainNative: boolean
}

/** The decoder a spec describes. Throws FieldSpecError, FormatOptionError or ZoneError (usage errors) for options that do not parse. */
export function lineDecoder(spec: ParseSpec): LineDecoder {
  const format = spec.format ?? 'native'
  const map: FieldMap = {}
  for (const [field, text] of Object.entries(spec.map ?? {})) {
    const [f, parsed] = parseFieldSpec(`${field}=${text}`)
    map[f] = parsed
  }
  const options = resolveFormatOptions({
    map,
    // An otel spec without the attributes was written when the default read service.namespace too.
    tenantAttributes: spec.tenant_attributes ?? (format === 'otel' ? [...EARLIER_DEFAULT_TENANT_ATTRIBUTES] : undefined),
    customIdPattern: spec.custom_id_pattern,
    fallbackTs: spec.batch_ts,
    zoneAssumed: spec.assume_tz !== undefined,
  })
  checkFormatOptions(format, options)
  return {
    spec,
    adapter: adapterFor(format),
    options,
    assumeTz: spec.assume_tz === undefined ? null : parseAssumeTz(spec.assume_tz),
    ambiguous: spec.assume_tz_ambiguous ?? 'reject',
    plainNative: format === 'native' && Object.keys(map).length === 0,
  }
}

/** One record a line yielded: its position among the line's items, its row, what it lacks, and the other lines it was read from. */
export interface DecodedRecord {
  item: number
  row: RecordRow
  notes: string[]
  companions: LinePosition[]
}

export type DecodedLine =
  | {kind: 'blank'}
  | {kind: 'bad'; reason: string}
  | {kind: 'items'; records: DecodedRecord[]; problems: LineProblem[]; ignored: number; unread?: Record<string, number>}

export function decodeLine(bytes: Buffer, decoder: LineDecoder, index: CompanionIndex | null, at: LinePosition): DecodedLine {
  const json = readLineJson(bytes)
  if (json.kind !== 'json') return json
  const out = decodeValue(json.value, decoder, index, at)
  if (json.bom) for (const r of out.records) r.notes.push(LINE_BOM_NOTE)
  // A line that is one bad item and nothing else is a bad line, with the item's reason.
  if (out.records.length === 0 && out.ignored === 0 && out.problems.length === 1 && (out.problems[0]!.item ?? 0) === 0) {
    return {kind: 'bad', reason: out.problems[0]!.reason}
  }
  return {kind: 'items', ...out}
}

/** A parsed line's value through the adapter, the zone rule and the native checks. */
export function decodeValue(
  value: unknown, decoder: LineDecoder, index: CompanionIndex | null, at: LinePosition,
): {records: DecodedRecord[]; problems: LineProblem[]; ignored: number; unread?: Record<string, number>} {
  if (decoder.plainNative) {
    const notes: string[] = []
    const one = toRow(value, 0, decoder, notes)
    return 'row' in one ? {records: [{item: 0, row: one.row, notes, companions: []}], problems: [], ignored: 0} : {records: [], problems: [{item: null, reason: one.bad}], ignored: 0}
  }
  let adapted: ReturnType<FormatAdapter['adapt']>
  try {
    adapted = decoder.adapter.adapt(value, {options: decoder.options, index, at})
  } catch (error) {
    // A key given twice where an adapter reads (a JSON text inside the line, a --map list lookup): the line cannot be read with certainty.
    if (error instanceof DuplicateKeyError) return {records: [], problems: [{item: null, reason: duplicateKeyReason(error.path)}], ignored: 0}
    throw error
  }
  const records: DecodedRecord[] = []
  const problems: LineProblem[] = [...adapted.problems]
  for (const r of adapted.records) {
    const notes = [...r.notes]
    const one = toRow(r.record, r.item, decoder, notes)
    if ('row' in one) records.push({item: r.item, row: one.row, notes, companions: r.companions ?? []})
    else problems.push({item: r.item, reason: one.bad})
  }
  return {records, problems, ignored: adapted.ignored, ...(adapted.unread ? {unread: adapted.unread} : {})}
}

function toRow(value: unknown, _item: number, decoder: LineDecoder, notes: string[], bodies?: DecodedBodies): {row: RecordRow} | {bad: string} {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const ts = (value as {ts?: unknown}).ts
    const zone = resolveZoneless(ts, decoder.assumeTz, decoder.ambiguous)
    if (!zone.ok) return {bad: `field ts: ${zone.reason}`}
    if (zone.assumed) value = {...value, ts: zone.value}
  }
  return rowFromRecord(value, notes, bodies)
}

/**
 * A plain native line (decoder.plainNative) whose request and response were decoded elsewhere:
 * `rest` is the line's other members as a JSON text of their own, read here as the line would
 * be. The same answer decodeLine gives for the whole line; null where `rest` is not JSON to
 * JavaScript (the caller then reads the line with decodeLine).
 */
export function decodeNativeRest(rest: string, bodies: DecodedBodies, decoder: LineDecoder): DecodedLine | null {
  let value: unknown
  try {
    value = parseJsonExact(rest)
  } catch {
    return null
  }
  const notes: string[] = []
  const one = toRow(value, 0, decoder, notes, bodies)
  return 'row' in one ? {kind: 'items', records: [{item: 0, row: one.row, notes, companions: []}], problems: [], ignored: 0} : {kind: 'bad', reason: one.bad}
}
