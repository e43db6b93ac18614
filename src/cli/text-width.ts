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
