// The terminal views keep every line within WIDTH characters whatever the case holds: 200
// tenants, a 300-character node name from a hostile log, a long method sentence. Tables
// clip their cells; prose is wrapped at word boundaries.

/** No line of scope, triage or timeline text output is wider than this. */
export const WIDTH = 160

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
