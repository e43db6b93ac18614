// The terminal views keep every line within WIDTH characters whatever the case holds: 200
// tenants, a 300-character node name from a hostile log, a long method sentence. Tables
// clip their cells; prose is wrapped at word boundaries.

/** No line of scope, triage or timeline text output is wider than this. */
export const WIDTH = 160

/**
 * Columns `text` takes in a terminal: a wide or fullwidth character (CJK, Hangul, fullwidth
 * forms, most emoji: East Asian Width W or F) two, a combining mark or a zero-width character
 * none, any other one. Tables pad by this, not by code points: a tenant named in Chinese or
 * with an accent written as a combining mark pushed every later column of its row. A
 * default-ignorable or format character (a tag character, a variation selector, a Hangul
 * filler) takes none, as the terminal draws it; safeLine shows each as an escape anyway.
 */
export function displayWidth(text: string): number {
  let width = 0
  for (const ch of text) {
    const cp = ch.codePointAt(0)!
    if (COMBINING.test(ch) || ZERO_WIDTH.test(ch)) continue
    width += isWide(cp) ? 2 : 1
  }
  return width
}

const COMBINING = /^\p{M}$/u
const ZERO_WIDTH = /^[\p{Default_Ignorable_Code_Point}\p{Cf}]$/u

function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1f64f) ||
    (cp >= 0x1f900 && cp <= 0x1f9ff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
}

/** `text` padded with spaces on the right to `width` terminal columns (displayWidth). */
export function padEndWidth(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - displayWidth(text)))
}

/** `text` padded with spaces on the left to `width` terminal columns (displayWidth). */
export function padStartWidth(text: string, width: number): string {
  return ' '.repeat(Math.max(0, width - displayWidth(text))) + text
}

/** `text` cut to `max` characters (code points), the cut marked with an ellipsis. */
export function clip(text: string, max: number): string {
  const chars = [...text]
  return chars.length <= max ? text : `${chars.slice(0, Math.max(0, max - 1)).join('')}…`
}

/**
 * An id (tenant, session, request) cut to `max` characters in the middle: ids often share a long
 * prefix and differ at the end (`...-division-A`, `...-division-B`), so both ends are kept.
 */
export function clipMiddle(text: string, max: number): string {
  const chars = [...text]
  if (chars.length <= max) return text
  const head = Math.ceil((max - 1) / 3)
  return `${chars.slice(0, head).join('')}…${chars.slice(chars.length - (max - 1 - head)).join('')}`
}

/**
 * How the ids of one view are shown so that no two different ids read alike: each cut in the
 * middle to `max` (clipMiddle), except ids that would then read as another id of the view,
 * which are shown whole. An id outside `ids` is cut in the middle.
 */
export function idNames(ids: Iterable<string>, max: number): (id: string) => string {
  const shownAs = new Map<string, Set<string>>()
  for (const id of ids) {
    const shown = clipMiddle(id, max)
    const same = shownAs.get(shown) ?? new Set<string>()
    same.add(id)
    shownAs.set(shown, same)
  }
  return (id) => {
    const shown = clipMiddle(id, max)
    const same = shownAs.get(shown)
    return same !== undefined && (same.size > 1 || !same.has(id)) ? id : shown
  }
}

/** Prose wrapped to `width`, continuation lines indented by `indent` spaces; a word longer than a line is clipped. */
export function wrap(text: string, width = WIDTH, indent = 2): string {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const prefix = lines.length === 0 ? '' : ' '.repeat(indent)
    const room = width - prefix.length
    if (line === '') line = clip(word, room)
    else if ([...line].length + 1 + [...word].length <= room) line += ` ${word}`
    else {
      lines.push(prefix + line)
      line = clip(word, width - indent)
    }
  }
  if (line !== '') lines.push((lines.length === 0 ? '' : ' '.repeat(indent)) + line)
  return lines.join('\n')
}
