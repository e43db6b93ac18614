import {DuplicateKeyError} from './duplicate-keys.js'
import {NATIVE_FIELDS, type NativeField} from './parse-record.js'
import {epochToIso, epochWhole, implausibleEpoch, isPlausibleEpoch, unitByMagnitude} from '../util/timestamps.js'

// The `--map FIELD=SPEC` language. The old mapping split paths on every `.`, so an
// OpenTelemetry key such as `gen_ai.response.id` could not be named, and a path that matched
// nothing mapped to "absent" without a word. Here every spec either parses or is refused with
// one line naming it, and every evaluation either yields a value or says where it stopped.
//
//   SPEC     := PATH | 'const:' TEXT | 'regex:' PATH ':' PATTERN | UNIT ':' PATH
//   UNIT     := 'epoch_s' | 'epoch_ms' | 'epoch_us' | 'epoch_ns' | 'epoch'      (ts only)
//   PATH     := STEP ( '.' STEP | '[' INDEX ']' | '[' QUOTED ']' )*
//   STEP     := NAME | QUOTED        NAME: any characters but . [ ] ' " : and white space
//   QUOTED   := '…' | "…"            backslash escapes the quote and itself
//   INDEX    := -?DIGITS             negative counts from the end
//
// A spec without brackets or quotes that this grammar refuses (a key with a colon or a space,
// `meta.tenant:id`) is read as the contract's dotted path always read it: split on dots.
// `metadata.tenant` means what it always meant; `attributes["gen_ai.response.id"]` and
// `'gen_ai.response.id'` name a key that holds dots. A NAME of digits indexes an array (the old
// `choices.0`). A string step applied to a list of `{key, value}` pairs (OTLP attribute lists)
// picks the pair with that key and unwraps its AnyValue, so raw OTLP lines can be addressed too.
//
// `regex:custom_id:^(?<v>[^/]+)/` takes the group named `v`, else the first group, else the
// whole match. `epoch` picks the unit by magnitude of the absolute value: below 1e11 seconds,
// below 1e14 milliseconds, below 1e17 microseconds, else nanoseconds. Every instant from
// March 1973 to the year 5138 is read right in each unit; outside that, name the unit.

export type PathStep = {kind: 'key'; key: string} | {kind: 'index'; index: number}

export type EpochUnit = 's' | 'ms' | 'us' | 'ns' | 'auto'

export type FieldSpec =
  | {kind: 'path'; text: string; path: PathStep[]}
  | {kind: 'const'; text: string; value: string | number}
  | {kind: 'regex'; text: string; path: PathStep[]; pattern: RegExp}
  | {kind: 'epoch'; text: string; unit: EpochUnit; path: PathStep[]}

export type FieldMap = Partial<Record<NativeField, FieldSpec>>

/** `present`: the path holds a value, but not one the spec can read (an epoch that is no plausible time). */
export type Evaluated = {ok: true; value: unknown} | {ok: false; reason: string; present?: true}

export class FieldSpecError extends Error {}

const UNITS: Record<string, EpochUnit> = {epoch_s: 's', epoch_ms: 'ms', epoch_us: 'us', epoch_ns: 'ns', epoch: 'auto'}
const CONVERSIONS = ['const', 'regex', ...Object.keys(UNITS)]
const INTEGER_FIELDS: ReadonlySet<NativeField> = new Set(['status', 'prompt_tokens', 'completion_tokens'])
/** The fields whose value is a text a scan reads (what was sent, what was answered). */
const TEXT_FIELDS: ReadonlySet<NativeField> = new Set(['request', 'response'])
/** Keys that name a record's metadata (the native fields but the texts, and common ids): never a request or response text. */
const METADATA_KEYS: ReadonlySet<string> = new Set([
  ...NATIVE_FIELDS.filter((f) => !TEXT_FIELDS.has(f)), 'id', 'custom_id', 'status_code', 'timestamp', 'created_at',
])

/** Parses repeated `--map FIELD=SPEC` values; a later spec for the same field replaces an earlier one. */
export function parseFieldMap(specs: readonly string[]): FieldMap {
  const map: FieldMap = {}
  for (const spec of specs) {
    const [field, parsed] = parseFieldSpec(spec)
    map[field] = parsed
  }
  return map
}

/**
 * A `--map` given on the command line: parseFieldSpec, and a request or response text mapped to
 * a constant or to a key that names a record's metadata (its id, tenant, session, model, status,
 * token counts, time) is refused: such a value is no prompt or answer, and a scan of it finds
 * nothing in every record. (Specs stored in a case are read with parseFieldSpec as they were.)
 */
export function parseMapFlag(spec: string): [NativeField, FieldSpec] {
  const [field, parsed] = parseFieldSpec(spec)
  if (!TEXT_FIELDS.has(field)) return [field, parsed]
  const fail = (why: string): never => {
    throw new FieldSpecError(`--map ${oneLine(spec)}: ${why}`)
  }
  // The same words for every record are no one's prompt or answer: a scan would judge them, not the logs.
  if (parsed.kind === 'const') fail(`const: cannot give the ${field} text (it would be the same words in every record, not what was sent or answered); name the field that holds the ${field} with a path`)
  const path = parsed.kind === 'const' ? [] : parsed.path
  const last = path[path.length - 1]
  if (last?.kind === 'key' && METADATA_KEYS.has(last.key.toLowerCase())) {
    fail(`"${last.key}" holds a record's metadata, not the ${field} text; name the field that holds what was ${field === 'response' ? 'answered' : 'sent'}`)
  }
  return [field, parsed]
}

export function parseFieldSpec(spec: string): [NativeField, FieldSpec] {
  const fail = (why: string): never => {
    throw new FieldSpecError(`--map ${oneLine(spec)}: ${why}`)
  }
  const eq = spec.indexOf('=')
  if (eq <= 0) fail(`expected FIELD=PATH with FIELD one of ${NATIVE_FIELDS.join(', ')}`)
  const field = spec.slice(0, eq).trim()
  const text = spec.slice(eq + 1)
  if (!(NATIVE_FIELDS as readonly string[]).includes(field)) fail(`unknown field "${field}" (expected one of ${NATIVE_FIELDS.join(', ')})`)
  const f = field as NativeField
  if (text.trim() === '') fail('empty path')
  try {
    return [f, parseSpecText(f, text)]
  } catch (error) {
    if (error instanceof PathSyntaxError) return fail(error.message)
    throw error
  }
}

class PathSyntaxError extends Error {}

function parseSpecText(field: NativeField, text: string): FieldSpec {
  const prefix = /^([A-Za-z_][A-Za-z0-9_]*):/.exec(text)
  if (!prefix || !CONVERSIONS.includes(prefix[1]!)) {
    try {
      return {kind: 'path', text, path: parsePath(text, 0, false).steps}
    } catch (error) {
      // The contract's `--map FIELD=dotted.path` split on dots and nothing else: a key with a
      // colon or a space (`meta.tenant:id`) still means what it meant then.
      const legacy = dottedPath(text)
      if (legacy) return {kind: 'path', text, path: legacy}
      throw error
    }
  }
  const name = prefix[1]!
  const rest = text.slice(prefix[0].length)
  if (name === 'const') {
    if (INTEGER_FIELDS.has(field)) {
      if (!/^-?\d{1,15}$/.test(rest)) throw new PathSyntaxError(`const for ${field} must be an integer, got ${JSON.stringify(rest)}`)
      return {kind: 'const', text, value: Number(rest)}
    }
    if (rest === '') throw new PathSyntaxError('const: needs a value')
    return {kind: 'const', text, value: rest}
  }
  if (name === 'regex') {
    const {steps, end} = parsePath(rest, 0, true)
    if (rest[end] !== ':') throw new PathSyntaxError('regex: expected regex:PATH:PATTERN')
    const source = rest.slice(end + 1)
    if (source === '') throw new PathSyntaxError('regex: empty pattern')
    let pattern: RegExp
    try {
      pattern = new RegExp(source, 'u')
    } catch (error) {
      throw new PathSyntaxError(`regex: ${(error as Error).message}`)
    }
    return {kind: 'regex', text, path: steps, pattern}
  }
  const unit = UNITS[name]
  if (unit !== undefined) {
    if (field !== 'ts') throw new PathSyntaxError(`${name}: converts timestamps and applies to ts only`)
    return {kind: 'epoch', text, unit, path: parsePath(rest, 0, false).steps}
  }
  throw new PathSyntaxError(
    `unknown conversion "${name}:" (expected one of ${CONVERSIONS.map((c) => `${c}:`).join(', ')}); quote a key that holds a colon, e.g. '${name}:…'`,
  )
}


/** The path as the old mapping read it (split on dots), for text without brackets or quotes. */
function dottedPath(text: string): PathStep[] | null {
  if (/[[\]'"]/.test(text)) return null
  const parts = text.split('.')
  return parts.every((p) => p !== '') ? parts.map((key) => ({kind: 'key', key})) : null
}

/** Reads a path from `text` at `start`; with `stopAtColon` an unquoted `:` ends it (regex specs). */
function parsePath(text: string, start: number, stopAtColon: boolean): {steps: PathStep[]; end: number} {
  const steps: PathStep[] = []
  let i = start
  let expectStep = true
  while (i < text.length) {
    const c = text[i]!
    if (stopAtColon && c === ':') break
    if (c === '[') {
      const close = bracketEnd(text, i)
      const inner = text.slice(i + 1, close).trim()
      if (inner.startsWith("'") || inner.startsWith('"')) {
        const q = readQuoted(inner, 0)
        if (q.end !== inner.length) throw new PathSyntaxError(`unexpected text after the quoted key at column ${i + 1}`)
        steps.push({kind: 'key', key: q.value})
      } else if (/^-?\d+$/.test(inner)) steps.push({kind: 'index', index: Number(inner)})
      else throw new PathSyntaxError(`[${inner}] at column ${i + 1}: expected an array index or a quoted key`)
      i = close + 1
      expectStep = false
      continue
    }
    if (c === '.') {
      if (expectStep) throw new PathSyntaxError(`empty step at column ${i + 1}`)
      expectStep = true
      i++
      continue
    }
    if (c === ':') throw new PathSyntaxError(`unquoted ":" at column ${i + 1}: quote a key that holds a colon`)
    if (!expectStep) throw new PathSyntaxError(`expected . or [ at column ${i + 1}`)
    if (c === "'" || c === '"') {
      const q = readQuoted(text, i)
      steps.push({kind: 'key', key: q.value})
      i = q.end
    } else {
      let j = i
      while (j < text.length && !/[.[\]'"\s:]/.test(text[j]!)) j++
      if (j === i) throw new PathSyntaxError(`unexpected ${JSON.stringify(c)} at column ${i + 1}`)
      steps.push({kind: 'key', key: text.slice(i, j)})
      i = j
    }
    expectStep = false
  }
  if (expectStep) throw new PathSyntaxError(steps.length === 0 ? 'empty path' : 'path ends with "."')
  return {steps, end: i}
}

function bracketEnd(text: string, open: number): number {
  let i = open + 1
  while (i < text.length && text[i] === ' ') i++
  if (text[i] === "'" || text[i] === '"') i = readQuoted(text, i).end
  while (i < text.length && text[i] !== ']') {
    if (text[i] === '[') break
    i++
  }
  if (text[i] !== ']') throw new PathSyntaxError(`unclosed [ at column ${open + 1}`)
  return i
}

function readQuoted(text: string, start: number): {value: string; end: number} {
  const quote = text[start]!
  let out = ''
  let i = start + 1
  while (i < text.length) {
    const c = text[i]!
    if (c === '\\' && i + 1 < text.length) {
      out += text[i + 1]
      i += 2
      continue
    }
    if (c === quote) return {value: out, end: i + 1}
    out += c
    i++
  }
  throw new PathSyntaxError(`unclosed ${quote} at column ${start + 1}`)
}

/** The path written back in the canonical form, for messages. */
export function formatPath(path: readonly PathStep[]): string {
  let out = ''
  for (const step of path) {
    if (step.kind === 'index') out += `[${step.index}]`
    else if (/^[\w$][\w$-]*$/.test(step.key)) out += out === '' ? step.key : `.${step.key}`
    else out += `[${JSON.stringify(step.key)}]`
  }
  return out
}

/** Follows a path; on a miss says which step found nothing, and in what. */
export function evaluatePath(root: unknown, path: readonly PathStep[]): Evaluated {
  let cur = root
  for (let n = 0; n < path.length; n++) {
    const step = path[n]!
    // Named only when a step misses: evaluating runs on every line.
    const where = (): string => (n === 0 ? 'the line' : formatPath(path.slice(0, n)))
    if (step.kind === 'index') {
      if (!Array.isArray(cur)) return {ok: false, reason: `[${step.index}]: ${where()} is ${typeName(cur)}, not an array`}
      const i = step.index < 0 ? cur.length + step.index : step.index
      if (i < 0 || i >= cur.length) return {ok: false, reason: `[${step.index}]: ${where()} has ${cur.length} elements`}
      cur = cur[i]
      continue
    }
    if (Array.isArray(cur)) {
      if (/^\d+$/.test(step.key)) {
        const i = Number(step.key)
        if (i >= cur.length) return {ok: false, reason: `${step.key}: ${where()} has ${cur.length} elements`}
        cur = cur[i]
        continue
      }
      const pairs = cur.filter((e) => isObj(e) && e.key === step.key && 'value' in e) as Array<{value: unknown}>
      const pair = pairs[0]
      if (pair === undefined) return {ok: false, reason: `no key ${JSON.stringify(step.key)} in ${where()} (a list without that key)`}
      // A list giving the key twice with different values: which one the field is cannot be told (duplicate-keys.ts).
      if (pairs.some((p) => JSON.stringify(p.value) !== JSON.stringify(pair.value))) throw new DuplicateKeyError(`${formatPath(path.slice(0, n))}[${JSON.stringify(step.key)}]`)
      let undecoded = false
      cur = unwrapAnyValue(pair.value, () => (undecoded = true))
      if (undecoded) return {ok: false, reason: `${step.key}: ${where()} holds a bytesValue that is not UTF-8 text (binary data, not read)`}
      continue
    }
    if (!isObj(cur)) return {ok: false, reason: `no key ${JSON.stringify(step.key)}: ${where()} is ${typeName(cur)}`}
    if (!Object.prototype.hasOwnProperty.call(cur, step.key)) return {ok: false, reason: `no key ${JSON.stringify(step.key)} in ${where()}`}
    cur = cur[step.key]
  }
  return {ok: true, value: cur}
}

/** Evaluates one spec against a source object. */
export function evaluateField(spec: FieldSpec, source: unknown): Evaluated {
  switch (spec.kind) {
    case 'const':
      return {ok: true, value: spec.value}
    case 'path':
      return evaluatePath(source, spec.path)
    case 'regex': {
      const got = evaluatePath(source, spec.path)
      if (!got.ok) return got
      if (typeof got.value !== 'string' && typeof got.value !== 'number') return {ok: false, reason: `${formatPath(spec.path)} is ${typeName(got.value)}, not text`}
      const m = spec.pattern.exec(String(got.value))
      if (!m) return {ok: false, reason: `${formatPath(spec.path)} ${JSON.stringify(String(got.value).slice(0, 80))} does not match /${spec.pattern.source}/`}
      const value = m.groups?.v ?? m[1] ?? m[0]
      return {ok: true, value}
    }
    case 'epoch': {
      const got = evaluatePath(source, spec.path)
      if (!got.ok) return got
      const converted = epochToIso(got.value, spec.unit)
      if (!('iso' in converted)) return {ok: false, reason: `${formatPath(spec.path)}: ${converted.error}`, present: true}
      const wrong = wrongUnit(got.value, spec.unit, spec.path)
      return wrong === null ? {ok: true, value: converted.iso} : {ok: false, reason: wrong, present: true}
    }
  }
}

export {epochToIso}

/**
 * Where an epoch read in the unit --map names falls outside 2000-2100: the refusal, naming the
 * value as the line holds it and the unit it reads right in (with the --map that says so); null
 * where the time is plausible. `auto` (epoch:) takes the unit by magnitude and refuses a value
 * that is no plausible time in any.
 */
function wrongUnit(value: unknown, unit: EpochUnit, path: PathStep[]): string | null {
  const whole = epochWhole(value as number | string)
  const at = formatPath(path)
  if (unit === 'auto') {
    const byMagnitude = unitByMagnitude(whole)
    return isPlausibleEpoch(whole, byMagnitude) ? null : `${at} ${whole} is not a plausible time (2000 to 2100) in seconds, milliseconds, microseconds or nanoseconds`
  }
  const bad = implausibleEpoch(whole, unit, at)
  if (bad === null) return null
  return bad.fits === null ? bad.text : `${bad.text}: --map ts=epoch_${bad.fits}:${at}`
}

/**
 * The JSON value of an OTLP AnyValue (`{stringValue}`, `{intValue}`, `{arrayValue: {values}}`, …).
 * A `bytesValue` is its bytes read as UTF-8 text (bytesValueText); bytes that are no such text
 * are null, never their base64 digits (no one's words, where a marker would never be found), and
 * `onUndecoded` is told, so the caller can count what it could not read.
 */
export function unwrapAnyValue(v: unknown, onUndecoded?: () => void): unknown {
  if (!isObj(v)) return v
  if ('stringValue' in v) return v.stringValue
  if ('boolValue' in v) return v.boolValue
  if ('intValue' in v) {
    const n = v.intValue
    if (typeof n === 'string' && /^-?\d+$/.test(n)) return Number.isSafeInteger(Number(n)) ? Number(n) : n
    return n
  }
  if ('doubleValue' in v) return typeof v.doubleValue === 'string' ? Number(v.doubleValue) : v.doubleValue
  if ('bytesValue' in v) {
    const text = bytesValueText(v.bytesValue)
    if (text === null) onUndecoded?.()
    return text
  }
  if ('arrayValue' in v) {
    const values = isObj(v.arrayValue) && Array.isArray(v.arrayValue.values) ? v.arrayValue.values : []
    return values.map((e) => unwrapAnyValue(e, onUndecoded))
  }
  if ('kvlistValue' in v) {
    const values = isObj(v.kvlistValue) && Array.isArray(v.kvlistValue.values) ? v.kvlistValue.values : []
    const out: Record<string, unknown> = {}
    for (const kv of values) if (isObj(kv) && typeof kv.key === 'string') out[kv.key] = unwrapAnyValue(kv.value, onUndecoded)
    return out
  }
  return null
}

/**
 * The text an OTLP/JSON bytesValue holds: base64 (the protobuf JSON mapping accepts standard and
 * URL-safe alphabets, with or without padding) of bytes that are UTF-8 text, without control
 * characters but tab, line feed and carriage return; null for anything else (binary data,
 * not base64 at all).
 */
export function bytesValueText(v: unknown): string | null {
  if (typeof v !== 'string') return null
  const b64 = v.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '')
  if (!/^[A-Za-z0-9+/]*$/.test(b64) || b64.length % 4 === 1) return null
  let text: string
  try {
    text = new TextDecoder('utf-8', {fatal: true}).decode(Buffer.from(b64, 'base64'))
  } catch {
    return null
  }
  return /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(text) ? null : text
}

export interface MapOutcome<T> {
  /** The record with every mapped field replaced. */
  record: T
  /** One line per mapped field that found nothing: a mapping never fails silently. */
  problems: string[]
  /** The mapped fields whose value is there but cannot be read (not missing: bad). */
  invalid: string[]
}

/** Applies `--map` overrides to a record, each evaluated against the record's source object. */
export function applyFieldMap<T extends object>(record: T, source: unknown, map: FieldMap): MapOutcome<T> {
  const out = {...record} as Record<string, unknown>
  const problems: string[] = []
  const invalid: string[] = []
  for (const field of NATIVE_FIELDS) {
    const spec = map[field]
    if (!spec) continue
    const got = evaluateField(spec, source)
    if (got.ok && TEXT_FIELDS.has(field) && (typeof got.value === 'number' || typeof got.value === 'boolean')) {
      // A number or a yes/no is no text anyone sent or was answered: the record counts as having no such text.
      out[field] = null
      problems.push(`--map ${field}=${spec.text}: ${typeName(got.value)}, not the ${field} text`)
    } else if (got.ok) out[field] = got.value
    else {
      out[field] = null
      problems.push(`--map ${field}=${spec.text}: ${got.reason}`)
      if (got.present) invalid.push(field)
    }
  }
  return {record: out as T, problems, invalid}
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function typeName(v: unknown): string {
  return v === null ? 'null' : v === undefined ? 'absent' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').slice(0, 200)
}
