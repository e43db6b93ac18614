// A JSON string may spell a UTF-16 surrogate on its own (`"\ud800"`): JSON.parse keeps it, but
// it is no Unicode character, and UTF-8 (SQLite's TEXT, a Buffer, a file) has no way to write it.
// Written anyway, each becomes the same replacement characters when read back, so two ids that
// differ only there ("tn-\ud800", "tn-\udc00") would be stored, grouped and compared as one:
// two tenants read as one, another tenant's marker read as the recipient's own. An identifying
// field that holds one is refused where it is read, naming the field.

/** Any surrogate code unit, paired or not (no `u` flag: the pattern is read a code unit at a time). */
const SURROGATE = /[\ud800-\udfff]/

/** The first lone surrogate in a text (a UTF-16 code unit of a high surrogate not followed by a low one, or a low one not after a high one), or null where the text is Unicode text throughout. */
export function loneSurrogate(text: string): number | null {
  if (!SURROGATE.test(text)) return null
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0xd800 || c > 0xdfff) continue
    if (c <= 0xdbff) {
      const next = text.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++
        continue
      }
    }
    return c
  }
  return null
}

/** Why an identifying field holding this lone surrogate is refused, e.g. `tenant_id holds a lone surrogate (\ud800): not Unicode text`. */
export function loneSurrogateReason(field: string, unit: number): string {
  return `${field} holds a lone surrogate (\\u${unit.toString(16).padStart(4, '0')}): not Unicode text`
}

/** loneSurrogateReason for the first identifying field that holds a lone surrogate, or null where none does. */
export function notUnicodeField(fields: Readonly<Record<string, string>>): string | null {
  for (const [field, value] of Object.entries(fields)) {
    const unit = loneSurrogate(value)
    if (unit !== null) return loneSurrogateReason(field, unit)
  }
  return null
}
