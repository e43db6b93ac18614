import {PHRASES, type Language} from './phrases.js'
import type {OpenItem} from './statements.js'

// A final document goes to a regulator, a controller or the data subjects: never a crosstalk
// command, a flag or an internal field name in it. A draft is the DPO's worksheet: it names, for
// each open item, what records it ("to be completed: X (Art. 33(3)(d); crosstalk incident set
// --measures-taken ...)"). A document finalised with open items accepted (--accept-open-items)
// says each instead as what is not yet known and that it will follow: GDPR Art. 33(4) allows the
// information to be provided in phases without undue further delay.

/** How a document states its open items: a draft's worksheet lines, a final document's, or a final letter to the data subjects. */
export type OpenItemMode = 'draft' | 'final' | 'letter'

/** The crosstalk commands (src/commands), as a text names them ("crosstalk scan", "crosstalk incident set"). */
const COMMAND = /\bcrosstalk (?:assess|clock|demo|drop|extract|generate|pii|probe|provenance|registry-export|relocate|replay|scan|scope|show|sightings|status|timeline|triage|verify|incident|ingest|notify|report|testbed)\b/
/** A command-line flag (--measures-taken), never a dash in prose. */
const FLAG = /(?:^|[\s(`"])--[a-z]/

export function namesCommand(text: string): boolean {
  return COMMAND.test(text) || FLAG.test(text)
}

/**
 * The text without what names a crosstalk command or flag: a parenthesis, or a clause of one
 * (split at ";", ":" and ","), that names one is left out; a clause of the sentence itself that
 * names one too. What remains is the text's own statement, never reworded.
 */
export function withoutCommands(text: string): string {
  if (!namesCommand(text)) return text
  return dropClauses(withoutCommandGroups(text)).replace(/\s+([,.)])/g, '$1').replace(/\s{2,}/g, ' ').trim()
}

/** Each parenthesis, innermost first: kept where it names no command, else only its clauses that name none (none left: the parenthesis goes). */
function withoutCommandGroups(text: string): string {
  let out = ''
  let i = 0
  while (i < text.length) {
    const c = text[i]!
    if (c !== '(') {
      out += c
      i++
      continue
    }
    const end = closing(text, i)
    if (end < 0) {
      out += text.slice(i)
      break
    }
    const inner = withoutCommandGroups(text.slice(i + 1, end))
    const kept = namesCommand(inner) ? dropClauses(inner) : inner
    if (kept.trim() !== '') out += `(${kept.trim()})`
    else out = out.replace(/\s+$/, '')
    i = end + 1
  }
  return out
}

function closing(text: string, open: number): number {
  let depth = 0
  for (let j = open; j < text.length; j++) {
    if (text[j] === '(') depth++
    else if (text[j] === ')' && --depth === 0) return j
  }
  return -1
}

/** The clauses (outside parentheses) that name no command, joined by the separators they had. */
function dropClauses(text: string): string {
  if (!namesCommand(text)) return text
  const parts = splitTopLevel(text)
  const kept: string[] = []
  for (let k = 0; k < parts.length; k += 2) {
    if (namesCommand(parts[k]!)) continue
    if (kept.length > 0) kept.push(parts[k - 1] ?? ' ')
    kept.push(parts[k]!)
  }
  return kept.join('')
}

/** [clause, separator, clause, ...], split at ";", ": " and ", " outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = []
  let depth = 0
  let start = 0
  for (let j = 0; j < text.length; j++) {
    const c = text[j]!
    if (c === '(') depth++
    else if (c === ')') depth--
    else if (depth === 0 && (c === ';' || ((c === ':' || c === ',') && text[j + 1] === ' '))) {
      let sepEnd = j + 1
      while (text[sepEnd] === ' ') sepEnd++
      parts.push(text.slice(start, j), text.slice(j, sepEnd))
      start = sepEnd
      j = sepEnd - 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

/** An open item's line as the document shows it (not escaped): the draft's "to be completed: X (ref; command)", or a final document's statement that X is not yet known and will follow. */
export function openItemLine(o: OpenItem, lang: Language, mode: OpenItemMode): string {
  const P = PHRASES[lang]
  if (mode === 'letter') return P.a34.notYetKnown(withoutCommands(o.item))
  if (mode === 'final') return `${P.toFollow(withoutCommands(o.item))} (${localRef(o.ref, lang)})`
  return `${P.toComplete(o.item)} (${localRef(o.ref, lang)}${o.record_with ? `${P.join}${o.record_with}` : ''})`
}

/** A value the document does not have yet, said in place (a form cell, a time): "to be completed: X" in a draft, "not yet known: X" in a final document. */
export function gapText(item: string, lang: Language, final: boolean): string {
  const P = PHRASES[lang]
  return final ? P.notYetKnown(withoutCommands(item)) : P.toComplete(item)
}

/** A text a builder wrote with "to be completed: X" (a form answer, a note), as a final document says it. */
export function restateGaps(text: string, lang: Language): string {
  const P = PHRASES[lang]
  const prefix = P.toComplete('')
  if (!text.includes(prefix) && !namesCommand(text)) return text
  return withoutCommands(text.split(prefix).join(P.notYetKnown('')))
}

/** A citation in the document's language: "Art. 33(3)(d); template 94-95" -> "art. 33.3.d ; modèle du CEPD 94-95". */
export function localRef(ref: string, lang: Language): string {
  if (lang === 'en') return ref
  return ref
    .replace(/EDPB template/g, 'modèle du CEPD')
    .replace(/\b([A-Z]+) form: /g, 'formulaire $1 : ')
    .replace(/\btemplate\b/g, 'modèle du CEPD')
    .replace(/EDPB (\d+\/\d+)/g, 'CEPD $1')
    .replace(/Art\. (\d+)\((\d+)\)\(([a-z])\)/g, 'art. $1.$2.$3')
    .replace(/Art\. (\d+)\((\d+)\)/g, 'art. $1.$2')
    .replace(/Art\. /g, 'art. ')
    .replace(/, (\d+)\((\d+)\)/g, ', $1.$2')
    .replace(/Recital/g, 'considérant')
    .replace(/; /g, ' ; ')
}

/** Keys of a document whose strings are the sender's or the machine's, never restated: what each statement rests on, the open items (each given its line), the acceptance. */
const KEPT = new Set(['statements', 'open_items', 'finalised_with_open_items', 'rests_on', 'record_with'])

/**
 * A document as built, with each open item's line (`text`) as the document shows it; a final
 * document's own values that a builder wrote as "to be completed: X" (a form answer, a personal-data
 * cell) said as not yet known, without any command (its JSON is a document too).
 */
export function withOpenItemLines<T extends {open_items: OpenItem[]}>(doc: T, lang: Language, mode: OpenItemMode): T {
  const restated = mode === 'draft' ? doc : (restateDeep(doc, lang) as T)
  return {...restated, open_items: doc.open_items.map((o) => ({...o, text: openItemLine(o, lang, mode)}))}
}

/** Keys whose text is the scope's method ("high: not bounded; give --pool-tokens to bound it"): said without its flag. Other strings may be log-derived (a tenant id), never cut. */
const METHOD = new Set(['method', 'data_subjects', 'records'])

function restateDeep(value: unknown, lang: Language, method = false): unknown {
  if (typeof value === 'string') return value.includes(PHRASES[lang].toComplete('')) ? restateGaps(value, lang) : method ? withoutCommands(value) : value
  if (Array.isArray(value)) return value.map((v) => restateDeep(v, lang, method))
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[k] = KEPT.has(k) ? v : restateDeep(v, lang, method || METHOD.has(k))
    return out
  }
  return value
}
