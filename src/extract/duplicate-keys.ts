import {visibleControlsLine} from '../util/sanitize.js'

// A JSON object may give a key twice; JSON.parse keeps the last value without a word, serde_json
// (native/src/) keeps the last too, and another reader (jq's `first`, a SIEM, a person reading
// the line) may show the first. A native line with two "response" members, a response body with
// two "choices" or a message with two "content"s, an OTLP span with two "attributes": each holds
// a text crosstalk never searched, or an attribution another tool would not make. The rule: a
// line whose reading depends on which copy of a repeated key is taken cannot be read with
// certainty, so it is refused as a bad line naming the key's path: it is quarantined and counted,
// and --fail-on-leak fails on it (gate.ts) until someone has looked. Searching every copy instead
// would still store one of them as the record's text and attribution, and let the gate pass on
// that choice.
//
// Where: ANY object key given twice, at any depth of the line and of every JSON text the line
// holds that a reader parses (a response body logged as a string, each event of a logged stream,
// a request as a string, message attributes in OTLP and Langfuse), whether or not a reader takes
// that key. Only keys on the path to a value a reader takes would spare some lines, but every
// reader (five formats, two decoders, --map paths into anything) would have to say which keys it
// takes, and one forgotten key is a missed leak. No JSON writer repeats a key (JSON.stringify,
// serde, protobuf's JSON mapping cannot): a line that does was written by hand or tampered with,
// and refusing it all is the right cost. OTLP's attribute lists (`[{key, value}]`, an array, not
// an object) are the exception, as SDKs do repeat an attribute: there a key given twice with the
// same value reads the same either way and is accepted (otel.ts, duplicateAttribute).
//
// Cost: one walk of the text's structure (strings skipped by indexOf, escaped quotes by a regular
// expression), each key compared with the keys of its object before it (a Set past 16 keys). On a
// generated incident (20k lines of 3 KB) it costs about one JSON.parse of each line, 10-15% more
// than the walk that compared only top-level keys; a whole `ingest logs` of it took 8% more CPU
// in TypeScript alone (CROSSTALK_NATIVE=0), 4% with the addon, which checks the lines it reads
// itself (native/src/dupkeys.rs) and leaves a line with a repeated key to this. Counting the
// text's members against the parsed value's keys was measured too: no faster.

/** A JSON text gives a key twice; `path` names the second copy (keyPath's notation). */
export class DuplicateKeyError extends Error {
  constructor(readonly path: string) {
    super(`duplicate key ${path}`)
  }
}

/** The bad-line reason for a key given twice at `path` (the path quoted as JSON, as a top-level key always was). */
export function duplicateKeyReason(path: string): string {
  return `duplicate key ${visibleControlsLine(JSON.stringify(path))}: the line gives it twice, and which value is the record's cannot be told`
}

/** JSON.parse, refusing a text that gives a key twice (DuplicateKeyError, its path inside the text). */
export function parseJsonUnique(text: string): unknown {
  return uniqueJson(text, JSON.parse(text) as unknown)
}

/** `value`, JSON.parse's reading of `text`, where the text gives no key twice; else throws DuplicateKeyError. */
export function uniqueJson<T>(text: string, value: T): T {
  const path = duplicateKeyPath(text)
  if (path !== null) throw new DuplicateKeyError(path)
  return value
}

/** Objects with more keys than this are checked with a Set; smaller ones by comparing each key with those before it. */
const LINEAR_KEYS = 16

/**
 * The path of the first key an object of `text` gives twice (read as JSON reads keys, escapes and
 * all), e.g. `response.choices[0].message.content`, or null. `text` is JSON that JSON.parse
 * accepted.
 */
export function duplicateKeyPath(text: string): string | null {
  const n = text.length
  // Per open container: whether it is an object, the key or index being read, where its keys start in `keys`.
  const isObject: boolean[] = []
  const at: Array<string | number> = []
  const from: number[] = []
  const sets: Array<Set<string> | null> = []
  const keys: string[] = []
  let depth = -1
  let atKey = false
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const end = stringEnd(text, i)
      if (atKey) {
        const raw = text.slice(i + 1, end)
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw
        at[depth] = key
        if (repeats(key, keys, from[depth]!, sets, depth)) return keyPath(isObject, at, depth)
        atKey = false
      }
      i = end + 1
      continue
    }
    if (c === 0x7b) {
      depth++
      isObject[depth] = true
      from[depth] = keys.length
      sets[depth] = null
      atKey = true
    } else if (c === 0x5b) {
      depth++
      isObject[depth] = false
      at[depth] = 0
      atKey = false
    } else if (c === 0x7d || c === 0x5d) {
      if (c === 0x7d) keys.length = from[depth]!
      depth--
      atKey = false
    } else if (c === 0x2c) {
      if (isObject[depth]) atKey = true
      else at[depth] = (at[depth] as number) + 1
    }
    i++
  }
  return null
}

/** Whether the object at `depth` (its keys from `start` in `keys`) gave `key` before; records it. */
function repeats(key: string, keys: string[], start: number, sets: Array<Set<string> | null>, depth: number): boolean {
  const set = sets[depth]
  if (set) {
    if (set.has(key)) return true
    set.add(key)
    return false
  }
  for (let k = start; k < keys.length; k++) if (keys[k] === key) return true
  keys.push(key)
  if (keys.length - start > LINEAR_KEYS) sets[depth] = new Set(keys.slice(start))
  return false
}

/** A path as a person writes it: `a.b[0].c`, a key that is no plain name quoted (`a["x.y"]`). */
export function keyPath(isObject: readonly boolean[], at: ReadonlyArray<string | number>, depth: number): string {
  let out = ''
  for (let d = 0; d <= depth; d++) {
    const step = at[d]!
    if (!isObject[d]) out += `[${step as number}]`
    else if (typeof step === 'string' && /^[A-Za-z_$][\w$]*$/.test(step)) out += d === 0 ? step : `.${step}`
    else out += `[${JSON.stringify(step)}]`
  }
  return out
}

/**
 * The closing quote of the string that opens at `quote`: the first quote after it with an even
 * run of backslashes before it (each pair is one escaped backslash). A scan, linear in the
 * string's length: a backtracking regex over a string of megabytes overflows the stack.
 */
function stringEnd(text: string, quote: number): number {
  let from = quote + 1
  for (;;) {
    const q = text.indexOf('"', from)
    if (q === -1) return text.length
    let slashes = 0
    while (q - slashes - 1 > quote && text.charCodeAt(q - slashes - 1) === 0x5c) slashes++
    if (slashes % 2 === 0) return q
    from = q + 1
  }
}

/** `path` inside the JSON text at `where` (a path itself, or a note such as `response(event 3)`). */
export function pathWithin(where: string, path: string): string {
  return path.startsWith('[') || path.startsWith('(') ? `${where}${path}` : `${where}.${path}`
}

/** `read()`, its DuplicateKeyError's path placed inside `where`. */
export function within<T>(where: string, read: () => T): T {
  try {
    return read()
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw new DuplicateKeyError(pathWithin(where, error.path))
    throw error
  }
}
