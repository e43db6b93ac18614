import {visibleControlsLine} from '../util/sanitize.js'

// A leaked string can hold Markdown or HTML ("[click](javascript:...)", "<img onerror>",
// "# Heading", "| fake | row |") or terminal escapes. Every value placed into a Markdown
// report goes through escapeMd: controls made visible (facts.ts has done it: this only checks), one line, the characters that open
// HTML (&, <, >) as entities, and the Markdown characters that build links, emphasis,
// headings, tables or code backslash-escaped so they render as themselves. GFM autolinks are
// broken too. A double quote is left as it is: with no tag or link able to open it is plain
// text, and a draft a DPO reads as text said 'or &quot;not applicable&quot;'.

const MD_SPECIAL = /[\\`*_[\]#|~]/g

export function escapeMd(value: unknown): string {
  if (value === null || value === undefined) return ''
  // Values reach a draft in shown form (facts.ts made them visible with safeLine, backslashes
  // doubled where that was needed to keep them unambiguous): not escaped a second time here.
  let text = visibleControlsLine(String(value))
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(MD_SPECIAL, (c) => `\\${c}`)
    .replace(/:\/\//g, ':\\/\\/')
    .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}\\.`)
    // GFM links an e-mail address (`help@evil-phish.example` became a mailto: link in a draft for
    // the regulator) from the text after escapes and entities are read, so `\@` or `&#64;` is
    // linked all the same: a zero-width space, written as its entity, between the address's
    // local part and the `@` is what ends it. The rendered text reads the same.
    .replace(/(?<!^)@/g, '&#8203;@')
  // At the start of a line these would open a list, a rule or a heading.
  if (/^[-+=]/.test(text)) text = `\\${text}`
  text = text.replace(/^(\d+)([.)])/, '$1\\$2')
  return text
}

/**
 * escapeMd with e-mail addresses left to be linked (GFM's mailto:): only for text the responder
 * recorded for the reader to write to (a letter's contact point); every value from a log has its
 * addresses unlinked.
 */
export function escapeMdLinkingMail(value: unknown): string {
  return escapeMd(value).replace(/&#8203;@/g, '@')
}

/** Undo escapeMd for formats that draw text literally (PDF): backslashes and entities. */
export function unescapeMd(text: string): string {
  return text
    .replace(/&#8203;@/g, '@')
    .replace(/\\([\\`*_[\]#|~\-+=./)])/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
}
