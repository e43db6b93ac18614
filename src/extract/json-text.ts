// JSON.parse reads every number as a double: an integer above 2^53 loses digits (two request
// ids 12345678901234567891 and ...892 become the same number), and one of 2^63 or more is
// a double SQLite will not take into an INTEGER column. So a line whose text holds an integer
// literal longer than 15 digits is parsed again with such literals turned into strings of
// their exact digits: an id keeps every digit, and a count or a status that is no plausible
// integer is read as unknown by the field checks (which accept only safe integers).
//
// Node 20's JSON.parse has no access to the source text of a value (the reviver `context`
// argument arrived in V8 11.4 / Node 21), hence the scan. It runs only on lines whose parsed
// value holds a number that is an integer outside the safe range (a literal that lost digits
// is always such a number): a walk over the parsed value, which is far cheaper than a pass of
// a regular expression over the text (that also matched card numbers and IBANs inside strings).

/** JSON.parse, with integer literals outside the safe range read as strings of their digits. */
export function parseJsonExact(text: string): unknown {
  const value = JSON.parse(text) as unknown
  if (!hasUnsafeInteger(value)) return value
  const quoted = quoteUnsafeIntegers(text)
  return quoted === text ? value : (JSON.parse(quoted) as unknown)
}

/** Whether a parsed JSON value holds, anywhere, a number that is an integer beyond ±(2^53 - 1). */
export function hasUnsafeInteger(value: unknown): boolean {
  const stack: unknown[] = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === 'number') {
      if (!Number.isSafeInteger(v) && Number.isInteger(v)) return true
    } else if (Array.isArray(v)) {
      for (const item of v) if (typeof item === 'object' ? item !== null : typeof item === 'number') stack.push(item)
    } else if (typeof v === 'object' && v !== null) {
      for (const key in v) {
        const item = (v as Record<string, unknown>)[key]
        if (typeof item === 'object' ? item !== null : typeof item === 'number') stack.push(item)
      }
    }
  }
  return false
}

/**
 * The JSON text with every integer literal whose value is not a safe integer wrapped in
 * quotes. Strings are skipped (their escapes honoured); everything else is copied as is.
 * Only called on text JSON.parse accepted.
 */
export function quoteUnsafeIntegers(text: string): string {
  let out = ''
  let copied = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // a string: skip to its closing quote
      i++
      while (i < n) {
        const d = text.charCodeAt(i)
        if (d === 0x5c) i += 2
        else if (d === 0x22) break
        else i++
      }
      i++
      continue
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i
      i++
      while (i < n) {
        const d = text.charCodeAt(i)
        if ((d >= 0x30 && d <= 0x39) || d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) i++
        else break
      }
      const token = text.slice(start, i)
      if (/^-?\d{16,}$/.test(token) && !Number.isSafeInteger(Number(token))) {
        out += text.slice(copied, start) + '"' + token + '"'
        copied = i
      }
      continue
    }
    i++
  }
  return copied === 0 ? text : out + text.slice(copied)
}
