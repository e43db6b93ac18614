// RFC 4180 CSV, streaming-free (registries are small): quoted fields, doubled quotes,
// CRLF or LF, a BOM at the start. Returns rows with their 1-based starting line numbers, and
// per cell whether it was quoted (white space inside quotes was written on purpose).
export function parseCsv(text: string): {line: number; cells: string[]; quoted: boolean[]}[] {
  const rows: {line: number; cells: string[]; quoted: boolean[]}[] = []
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  let line = 1
  let rowLine = 1
  let cells: string[] = []
  let wasQuoted: boolean[] = []
  let cellQuoted = false
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
      cellQuoted = true
      fieldStart = false
    } else if (c === ',') {
      cells.push(cell)
      wasQuoted.push(cellQuoted)
      cell = ''
      cellQuoted = false
      fieldStart = true
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      cells.push(cell)
      wasQuoted.push(cellQuoted)
      if (cells.length > 1 || cells[0] !== '') rows.push({line: rowLine, cells, quoted: wasQuoted})
      cells = []
      wasQuoted = []
      cell = ''
      cellQuoted = false
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
  wasQuoted.push(cellQuoted)
  if (cells.length > 1 || cells[0] !== '') rows.push({line: rowLine, cells, quoted: wasQuoted})
  return rows
}
