import {safeText, visibleControls} from '../util/sanitize.js'

// CSV export with the OWASP guard against formula injection: a cell a spreadsheet would
// evaluate (leading = + - @ TAB CR, also after white space, which spreadsheets skip: " =1+1",
// "\u00a0@SUM(A1)") is prefixed with a single quote so it opens as text. A spreadsheet in a
// locale whose list separator is ";" (most of the EU's Excel) splits the file's lines on ";"
// instead of ",", and a tab-split import or a paste splits on TAB: a cell `tn-b;=1+1` then opens
// as the cells `tn-b` and `=1+1`. So the guard's quote goes before each part that follows a ";"
// or a TAB and would start a formula too, and every cell holding `,` `;` TAB `"` CR or LF is
// quoted.
// Cells come from logs: controls (ESC, BEL, OSC 8, CSI as U+009B, CR), bidi overrides and
// invisible marks are written as \xNN / \uNNNN, as on the terminal, so that a CSV shown with
// `cat` or opened in an editor neither drives the terminal nor hides or reorders text.

const FORMULA_START = /^\s*[=+\-@\t\r]/
// A part after a ";" or a TAB that starts a formula (white space and quotes skipped, as a
// spreadsheet's reader skips them).
const FORMULA_AFTER_SEPARATOR = /([;\t])(\s*"*\s*[=+\-@\r])/g

/** `shown`: the values went through safeLine already (a draft's facts): not escaped a second time. */
export function csvCell(value: unknown, shown = false): string {
  if (value === null || value === undefined) return ''
  let text = (shown ? visibleControls : safeText)(typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value))
  if (typeof value === 'string') {
    text = text.replace(FORMULA_AFTER_SEPARATOR, "$1'$2")
    if (FORMULA_START.test(text)) text = `'${text}`
  }
  return /[",;\t\r\n]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text
}

export function toCsv(columns: readonly string[], rows: ReadonlyArray<Record<string, unknown>>, options: {shown?: boolean} = {}): string {
  const lines = [columns.map((c) => csvCell(c)).join(',')]
  for (const row of rows) lines.push(columns.map((c) => csvCell(row[c], options.shown ?? false)).join(','))
  return lines.join('\r\n') + '\r\n'
}
