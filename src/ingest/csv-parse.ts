// RFC 4180 CSV, streaming-free (registries are small): quoted fields, doubled quotes,
// CRLF or LF, a BOM at the start. Returns rows with their 1-based starting line numbers.
export function parseCsv(text: string): {line: number; cells: string[]}[] {
  const rows: {line: number; cells: string[]}[] = []
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  let line = 1
  let rowLine = 1
  let cells: string[] = []
  let cell = ''
  let quoted = false
  let fieldStart = true
  for (; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') (cell += '"'), i++
        else quoted = false
      } else {
        if (c === '\n') line++
        cell += c
      }
      continue
    }
    if (c === '"' && fieldStart) {
      quoted = true
      fieldStart = false
    } else if (c === ',') {
      cells.push(cell)
      cell = ''
      fieldStart = true
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      cells.push(cell)
      if (cells.length > 1 || cells[0] !== '') rows.push({line: rowLine, cells})
      cells = []
      cell = ''
      fieldStart = true
      line++
      rowLine = line
    } else {
      cell += c
      fieldStart = false
    }
  }
  if (quoted) throw new Error(`line ${rowLine}: unterminated quoted field`)
  cells.push(cell)
  if (cells.length > 1 || cells[0] !== '') rows.push({line: rowLine, cells})
  return rows
}
