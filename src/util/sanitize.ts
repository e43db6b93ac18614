// Anything that came from a log is attacker-influenced text: a leaked string can carry
// terminal escape sequences (cursor moves, OSC 8 hyperlinks, title changes) or bidi
// overrides that reorder what the responder reads. Everything printed from a log goes
// through here first.

// C0 controls except TAB and LF, DEL, C1 controls (U+009B is a one-byte CSI on some terminals).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g
// Bidi embeddings, overrides and isolates (CVE-2021-42574, "Trojan Source").
const BIDI = /[\u202a-\u202e\u2066-\u2069]/g
// Characters that show as nothing, or as a line break, and so hide or fake text: every
// default-ignorable code point (Unicode's Default_Ignorable_Code_Point: soft hyphen, combining
// grapheme joiner, Hangul fillers U+115F/U+1160/U+3164/U+FFA0, Khmer inherent vowels, Mongolian
// free variation selectors, zero-width space/non-joiner/joiner, left-to-right and right-to-left
// marks, word joiner and invisible operators, variation selectors U+FE00-FE0F and
// U+E0100-E01EF, byte-order mark, musical symbol formatting U+1D173-1D17A, tag characters
// U+E0000-E0FFF), every other format character (Cf: Arabic letter mark, interlinear annotations,
// Egyptian hieroglyph format controls), line and paragraph separators, and the Braille blank
// U+2800, which is no format character but prints as an empty cell. A tenant id followed by tag
// characters printed as that tenant; one made of Hangul fillers printed as a blank.
const INVISIBLE = /[\p{Default_Ignorable_Code_Point}\p{Cf}\u2028\u2029\u2800]/gu
// White space other than the ASCII space, at either end of a one-line value (an id): a
// no-break space after `tn-acme` printed as `tn-acme` followed by nothing visible. Inside a
// value it reads as a space, and is left as it is.
const EDGE_SPACE = /^\p{Zs}+|\p{Zs}+$/gu
const NON_ASCII_SPACE = /[^\P{Zs} ]/u

function visible(ch: string): string {
  const code = ch.codePointAt(0) ?? 0
  // Beyond U+FFFF the braced form, so that a tag character's escape cannot read as a shorter one and a digit.
  if (code > 0xffff) return `\\u{${code.toString(16)}}`
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
}

/** The non-ASCII white space of a run at a value's edge made visible (the ASCII space kept). */
function visibleEdge(run: string): string {
  return [...run].map((ch) => (ch === ' ' ? ch : visible(ch))).join('')
}

// What an escape written here looks like: a backslash before x, u, n, t or another backslash.
// Text that already holds such a sequence (the nine characters `acme\x85`) would print exactly
// as text holding the character itself (`acme` + U+0085). So whenever anything is escaped, or
// the text holds an escape-looking sequence, every backslash is written doubled first: the
// output is then either the text unchanged (it holds no escape-looking sequence) or wholly
// escaped (it does), and each output reads back to one text only.
const ESCAPE_LOOKING = /\\[xunt\\]/
const NEEDS_ESCAPE = new RegExp(`${CONTROL.source}|${BIDI.source}|${INVISIBLE.source}|${ESCAPE_LOOKING.source}`, 'u')
const LINE_BREAKS = /[\n\t]/
const EDGE_NON_ASCII_SPACE = /^[^\P{Zs} ]|[^\P{Zs} ]$|^ +[^\P{Zs} ]|[^\P{Zs} ] +$/u

function visibleText(text: string, line: boolean): string {
  const edge = line && EDGE_NON_ASCII_SPACE.test(text)
  if (!NEEDS_ESCAPE.test(text) && !(line && LINE_BREAKS.test(text)) && !edge) return text
  let out = text.replace(/\\/g, '\\\\').replace(CONTROL, visible).replace(BIDI, visible).replace(INVISIBLE, visible)
  if (line) out = out.replace(/\n/g, '\\n').replace(/\t/g, '\\t')
  if (edge) out = out.replace(EDGE_SPACE, (run) => (NON_ASCII_SPACE.test(run) ? visibleEdge(run) : run))
  return out
}

/** Multi-line text made safe for a terminal: controls, bidi and invisible marks shown as \xNN or \uNNNN, newlines and tabs kept; backslashes doubled where anything is escaped. */
export function safeText(text: string): string {
  return visibleText(text, false)
}

/** A single-line value (an id, a path): newlines and tabs are escaped too. */
export function safeLine(text: string): string {
  return visibleText(text, true)
}

/**
 * An identifier (a tenant id) on one line, as safeLine shows it, except that one not in Unicode
 * NFC has every character outside printable ASCII written as \uNNNN. Two ids that differ only by
 * normalisation (`café` precomposed, and `cafe` + U+0301) are two customers that a terminal or a
 * PDF prints alike: at most one of them is its own NFC, so they never print alike here. An id
 * in NFC prints as safeLine prints it.
 */
export function safeId(text: string): string {
  if (text === text.normalize('NFC')) return safeLine(text)
  let out = ''
  for (const ch of text.replace(/\\/g, '\\\\')) {
    const code = ch.codePointAt(0)!
    out += code >= 0x20 && code < 0x7f ? ch : code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`
  }
  return out
}

/** Ids of a set that differ yet read alike once normalised (NFC): each group sorted, the groups in order of their first id. */
export function idsAlike(ids: Iterable<string>): string[][] {
  const byForm = new Map<string, Set<string>>()
  for (const id of ids) {
    const form = id.normalize('NFC')
    let group = byForm.get(form)
    if (!group) byForm.set(form, (group = new Set()))
    group.add(id)
  }
  return [...byForm.values()].filter((g) => g.size > 1).map((g) => [...g].sort()).sort((a, b) => (a[0]! < b[0]! ? -1 : 1))
}

/**
 * Controls made visible on one line, backslashes left single: not unambiguous by itself, so only
 * for text that went through safeLine already (the drafts' facts hold ids in shown form; a second
 * safeLine would double their backslashes again) and for the form a quarantined line's reason has
 * been stored in since the first case (so that a case's reasons read the same when derived again).
 * On shown text it changes nothing; it only guarantees no raw control gets through.
 */
export function visibleControlsLine(text: string): string {
  return visibleControls(text).replace(/\n/g, '\\n').replace(/\t/g, '\\t')
}

/** visibleControlsLine with newlines and tabs kept (multi-line text in shown form). */
export function visibleControls(text: string): string {
  return text.replace(CONTROL, visible).replace(BIDI, visible).replace(INVISIBLE, visible)
}

// JSON.stringify escapes C0 controls, quotes and backslashes, nothing else: DEL, C1 controls,
// bidi and invisible marks would reach a terminal that shows the JSON raw.
// Each default-ignorable or format character (a tag character: two escapes, its UTF-16 pair).
// White space other than the ASCII space is escaped too (the same value: JSON has no edges to keep).
const JSON_UNSAFE = /[\u007f-\u009f\u2028-\u202e\u2060-\u2069\p{Default_Ignorable_Code_Point}\p{Cf}\u2800]|[^\P{Zs} ]/gu

/**
 * JSON text with those characters written as \uNNNN escapes. They can only occur inside
 * strings (JSON's structure is ASCII), where the escape means the same character: the
 * document parses to the same value.
 */
export function escapeJsonText(json: string): string {
  return json.replace(JSON_UNSAFE, (ch) => [...Array(ch.length).keys()].map((i) => `\\u${ch.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''))
}

/**
 * A quarantined line's reason with the excerpt of the line V8 quotes in a JSON error (`Unexpected
 * token 'J', ..."content":Jane Doe h"... is not valid JSON`) withheld: the line may be another
 * person's conversation, printed only where asked for (show --raw). The stored reason is kept
 * as V8 wrote it (verify compares it); this is what is shown.
 */
export function withoutLineExcerpt(reason: string): string {
  return (
    reason
      .replace(/, (?:\.\.\.)?".*"(?:\.\.\.)? is not valid JSON/s, ' (excerpt of the line withheld) is not valid JSON')
      // A field's value quoted in its reason (a timestamp that is none) may be someone's text, or a marker in full: withheld too.
      .replace(/^((?:field \S+: )?(?:unrecognised timestamp|impossible date or time)) ".*"$/s, '$1 (value withheld)')
      // A key given twice is named by its path; a key that is no plain name (a map keyed by an
      // e-mail address, a marker) is log content, withheld as `[<key withheld>]`.
      .replace(/^(duplicate key )"(.*)"(: the line gives it twice)/s, (_, head: string, path: string, tail: string) => `${head}"${withheldKeys(path)}"${tail}`)
  )
}

/**
 * A key path as a duplicate-key reason holds it (keyPath's `a.b[0]["x y"]`, written as a JSON
 * string) with each quoted key (`[\"…\"]`) replaced by `[<key withheld>]`: plain names, dotted
 * names and array indices are kept. A scan over the escapes, so a quote inside the key cannot end it early.
 */
const DOTTED_NAME = /^[A-Za-z_$][\w$]*(?:\.[\w$]+)*$/

function withheldKeys(path: string): string {
  let out = ''
  let i = 0
  while (i < path.length) {
    if (!path.startsWith('[\\"', i)) {
      out += path[i]
      i++
      continue
    }
    // Inside the key, read in two layers: the reason's escapes (`\\` a backslash, `\"` a quote,
    // any other escape one other character), and within them the key's own JSON, where a
    // backslash escapes the next character and a bare quote ends the key.
    let j = i + 3
    let escaped = false
    let end = -1
    while (j < path.length) {
      const isEscape = path[j] === '\\'
      const unit = isEscape ? path[j + 1] : path[j]
      j += isEscape ? 2 : 1
      if (escaped) escaped = false
      else if (isEscape && unit === '\\') escaped = true
      else if (isEscape && unit === '"') {
        end = j
        break
      }
    }
    if (end === -1 || path[end] !== ']') return out + path.slice(i)
    // A dotted field name (an OTel attribute's `gen_ai.completion.0.content`) is kept, as plain names are.
    const key = path.slice(i + 3, end - 2)
    out += DOTTED_NAME.test(key) ? path.slice(i, end + 1) : '[<key withheld>]'
    i = end + 1
  }
  return out
}

/**
 * A value quoted inside a message that is shown through safeLine (every error and warning is):
 * its controls are escaped there, once. JSON.stringify would escape them first, and safeLine
 * would then double the backslashes of those escapes, so that U+001B read as the six
 * characters \u001b.
 */
export function quoted(value: string): string {
  // A quote inside is written \" as JSON writes it, so that the value's edges stay plain.
  return `"${value.replace(/"/g, '\\"')}"`
}
