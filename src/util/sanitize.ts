// Anything that came from a log is attacker-influenced text: a leaked string can carry
// terminal escape sequences (cursor moves, OSC 8 hyperlinks, title changes) or bidi
// overrides that reorder what the responder reads. Everything printed from a log goes
// through here first.

// C0 controls except TAB and LF, DEL, C1 controls.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g
// Bidi embeddings, overrides and isolates (CVE-2021-42574, "Trojan Source").
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g

function visible(ch: string): string {
  const code = ch.codePointAt(0) ?? 0
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/** Multi-line text made safe for a terminal: controls shown as \xNN, newlines and tabs kept. */
export function safeText(text: string): string {
  return text.replace(CONTROL, visible).replace(BIDI, visible)
}

/** A single-line value (an id, a path): newlines and tabs are escaped too. */
export function safeLine(text: string): string {
  return safeText(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t')
}
