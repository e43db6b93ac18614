import {withoutInvisible} from './invisible.js'

// Ids that print alike: `tn-acme` and `tn-аcme` (Cyrillic а, U+0430), `tn-acme` and `tn-acme`
// followed by a tag character, `pay1` and `payl`. Each prints as itself (the sanitizer escapes
// what prints as nothing), yet a reader takes one for the other. The skeleton is Unicode TS #39's
// (decomposed, default-ignorable code points removed, each confusable mapped to its prototype),
// over a small table of the common Latin, Cyrillic and Greek confusables rather than the whole of
// confusables.txt: two ids with one skeleton are named together in a warning.

const PROTOTYPE: Record<string, string> = {
  // Cyrillic
  'а': 'a', 'в': 'B', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'l', 'ї': 'l', 'ј': 'j', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'һ': 'h', 'ӏ': 'l', 'ɡ': 'g',
  'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'У': 'Y', 'Ѕ': 'S', 'І': 'l', 'Ј': 'J', 'Ԛ': 'Q', 'Ԝ': 'W', 'Һ': 'h', 'Ӏ': 'l', 'З': '3',
  // Greek
  'α': 'a', 'ο': 'o', 'ρ': 'p', 'ν': 'v', 'υ': 'u', 'ι': 'l', 'κ': 'k', 'γ': 'y',
  'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'l', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X',
  // Latin and ASCII look-alikes (TS #39 maps each to l or O)
  '1': 'l', 'I': 'l', '|': 'l', 'ı': 'l', '0': 'O',
}

/** The TS #39-style skeleton of an id (see above): ids with one skeleton print alike. */
export function skeleton(id: string): string {
  let out = ''
  for (const ch of withoutInvisible(id).normalize('NFKD')) out += PROTOTYPE[ch] ?? (/\p{Zs}/u.test(ch) ? ' ' : ch)
  // White space at an id's edges, or a run of it, prints as a space or as nothing.
  return withoutInvisible(out.replace(/rn/g, 'm')).replace(/\s+/g, ' ').trim().normalize('NFD')
}

/** Groups (two or more) of distinct ids that share a skeleton, each group sorted, in the order of their first id. */
export function lookAlikeGroups(ids: Iterable<string>): string[][] {
  const by = new Map<string, Set<string>>()
  for (const id of ids) {
    const key = skeleton(id)
    const set = by.get(key) ?? new Set<string>()
    set.add(id)
    by.set(key, set)
  }
  return [...by.values()].filter((s) => s.size > 1).map((s) => [...s].sort())
}

/** The code points of `id` outside printable ASCII, as `U+XXXX` (what tells it from its look-alikes). */
export function nonAsciiCodePoints(id: string): string[] {
  return [...new Set([...id].filter((ch) => !/^[\x20-\x7e]$/.test(ch)))].map((ch) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`)
}
