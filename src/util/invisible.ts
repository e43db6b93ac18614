// Characters that print as nothing: Unicode's Default_Ignorable_Code_Point set (tag characters,
// variation selectors, Hangul fillers, the combining grapheme joiner, zero-width and bidi marks),
// every other format character (Cf), and the Braille blank U+2800, which prints as an empty cell.
// An id made only of them (and white space) identifies nobody a reader can see; an id holding
// them prints as another id. sanitize.ts shows each as an escape.

const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]/gu
const INVISIBLE_ONE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]/u

/** `text` with its invisible characters removed. */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE, '')
}

/** Whether an id is empty once its invisible characters and white space are removed. */
export function blankId(text: string): boolean {
  return withoutInvisible(text).trim() === ''
}

/** The first invisible character of `text` as `U+XXXX`, or null where it holds none. */
export function firstInvisible(text: string): string | null {
  const m = INVISIBLE_ONE.exec(text)
  return m === null ? null : `U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`
}
