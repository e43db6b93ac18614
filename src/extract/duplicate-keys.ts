// A JSON object may give a key twice; JSON.parse keeps the last value without a word, serde_json
// (native/src/lib.rs) kept the last too, and another reader (jq's `first`, a SIEM, a person
// reading the line) may show the first. A native line with two "response" members holds a text
// that crosstalk never searched, and two "session_id"s attribute the record to a session that
// another tool would not. Such a line cannot be read as one record with certainty, so it is
// refused as a bad line naming the key: it is quarantined and counted, and --fail-on-leak fails
// on it (gate.ts) until someone has looked. Searching every copy instead would still store one
// of them as the record's text and attribution, and let the gate pass on that choice.
//
// Cost: the native addon reads most native lines and checks their keys as it walks them (at no
// measurable cost); this is the check of the lines TypeScript reads. A prefilter of two
// String.indexOf calls per key was measured first, on a generated incident (3 KB lines): 13 keys
// cost 2.5 times the JSON.parse of the line, and it cleared only a tenth of the lines, since
// `model` and `prompt_tokens` are also keys inside most bodies. One walk of the line's
// structure costs less than the JSON.parse (strings are skipped by indexOf, escaped quotes by a
// regular expression): that is the check, on every line. A whole ingest of that incident in
// TypeScript alone (CROSSTALK_NATIVE=0) took 3-5% more CPU with it.

/** Top-level keys a line must not give twice, prepared for duplicatedKey. */
export interface UniqueKeys {
  readonly bits: ReadonlyMap<string, number>
}

export function uniqueKeys(keys: Iterable<string>): UniqueKeys {
  const bits = new Map<string, number>()
  for (const k of keys) if (!bits.has(k)) bits.set(k, bits.size)
  if (bits.size > 31) throw new Error('uniqueKeys: at most 31 keys')
  return {bits: new Map([...bits].map(([k, n]) => [k, 1 << n]))}
}

/** The first of `keys` the top-level object of `text` gives twice (read as JSON reads keys, escapes and all), or null. `text` is JSON that JSON.parse accepted. */
export function duplicatedKey(text: string, keys: UniqueKeys): string | null {
  const n = text.length
  let seen = 0
  let i = spaces(text, 0)
  if (text.charCodeAt(i) !== 0x7b) return null // not an object: no member to repeat
  i++
  let depth = 1
  let atKey = true
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const end = stringEnd(text, i)
      if (depth === 1 && atKey) {
        const raw = text.slice(i + 1, end)
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw
        const bit = keys.bits.get(key)
        if (bit !== undefined) {
          if ((seen & bit) !== 0) return key
          seen |= bit
        }
        atKey = false
      }
      i = end + 1
      continue
    }
    if (c === 0x7b || c === 0x5b) depth++
    else if (c === 0x7d || c === 0x5d) depth--
    else if (c === 0x2c && depth === 1) atKey = true
    i++
  }
  return null
}

function spaces(text: string, i: number): number {
  for (let c = text.charCodeAt(i); c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d; c = text.charCodeAt(++i));
  return i
}

/** The rest of a string after its opening quote, to its closing one (escapes skipped whole). */
const STRING_REST = /(?:[^"\\]|\\.)*"/y

/** The closing quote of the string that opens at `quote`. */
function stringEnd(text: string, quote: number): number {
  const first = text.indexOf('"', quote + 1)
  if (first === -1) return text.length
  if (text.charCodeAt(first - 1) !== 0x5c) return first
  STRING_REST.lastIndex = quote + 1
  return STRING_REST.test(text) ? STRING_REST.lastIndex - 1 : text.length
}
