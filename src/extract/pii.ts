import {hash} from 'node:crypto'
import {isIPv4, isIPv6} from 'node:net'

// Personal data in text: e-mail addresses, phone numbers, IBANs (ISO 13616 mod-97),
// payment card numbers (Luhn), IPv4 and IPv6 addresses. Values are normalised so the same
// value written two ways is one value, and only their SHA-256 is ever stored.

export const PII_KINDS = ['email', 'phone', 'iban', 'card', 'ipv4', 'ipv6'] as const
export type PiiKind = (typeof PII_KINDS)[number]

export interface PiiValue {
  kind: PiiKind
  /** Normalised value (never stored; hashed). */
  value: string
  start: number
  end: number
}

const AT = /@/g
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}/g
// Standing alone like a card number: not the tail of a longer token (a marker's upper-case hex after "CANARY-").
// Either letter case (ISO 13616's paper form may be written in lower case), its characters
// single spaces or dashes apart; where it ends is found by its check digits (ibanAt).
const IBAN = /(?<![\w-])[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]){11,30}\b/g
/**
 * Countries whose account numbers take the IBAN form: those in the ISO 13616 registry SWIFT keeps,
 * and those that publish a national IBAN format outside it (much of West and Central Africa, Iran,
 * Morocco, Algeria). A two-letter prefix outside this set is not an IBAN, whatever its check digits
 * say (one random string in 97 passes mod-97). Lengths are not checked: the registry changes them.
 */
const IBAN_COUNTRIES = new Set(
  ('AD AE AL AT AZ BA BE BG BH BI BR BY CH CR CY CZ DE DJ DK DO EE EG ES FI FK FO FR GB GE GI GL GR GT HN HR HU IE IL IQ IS IT ' +
    'JO KW KZ LB LC LI LT LU LV LY MC MD ME MK MN MR MT MU NI NL NO OM PK PL PS PT QA RO RS RU SA SC SD SE SI SK SM SO ST SV TL TN ' +
    'TR UA VA VG XK YE AO BF BJ CF CG CI CM CV DZ GA GQ GW IR KM MA MG ML MZ NE SN TD TG').split(' '),
)
// 13-19 digits, single spaces or dashes between them, standing alone: a run of digits inside a
// longer token (a hex id, a canary marker's hex) is not a card number, though one in 10 passes Luhn.
const CARD = /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g
const IPV4 = /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![\d.]*\d)/g
const IPV6 = /(?<![0-9A-Fa-f:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{0,4}|(?:\d{1,3}\.){3}\d{1,3})(?![0-9A-Fa-f:])/g
// International (+), a bracketed area code, a leading trunk 0, or the NANP 3-3-4 shape;
// 8-15 digits in all (E.164 allows 15).
const PHONE = /(?<![\w+-])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d(?:[ .-]?\d){5,13}|\(\d{2,4}\)[ .-]?\d(?:[ .-]?\d){5,11}|0\d(?:[ .-]?\d){7,12}|\d{3}[.-]\d{3}[.-]\d{4})(?![\w])/g

export function luhnValid(digits: string): boolean {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (d < 0 || d > 9) return false
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return digits.length > 0 && sum % 10 === 0
}

/** ISO 13616: a country that uses IBANs; the first four characters moved to the end, letters to 10..35, mod 97 == 1. */
export function ibanValid(raw: string): boolean {
  const iban = raw.replace(/[ -]/g, '').toUpperCase()
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban) || !IBAN_COUNTRIES.has(iban.slice(0, 2))) return false
  const moved = iban.slice(4) + iban.slice(0, 4)
  let rem = 0
  for (const ch of moved) {
    const code = ch.charCodeAt(0)
    const n = code >= 65 ? code - 55 : code - 48
    rem = n >= 10 ? (rem * 100 + n) % 97 : (rem * 10 + n) % 97
  }
  return rem === 1
}

/**
 * The IBAN an IBAN-shaped match starts with, or null: the longest prefix ending at a separator
 * (or the match's end) that is valid, so that words after an IBAN (", IBAN DE89 ... 00 and
 * more") do not hide it. Written with lower-case letters it must be grouped as the paper form
 * groups it (fours), or not at all: prose ("at10 a m then") would otherwise pass mod-97 once in 97.
 */
function ibanAt(match: string): string | null {
  for (let end = match.length; end >= 15; end = match.slice(0, end).search(/[ -][^ -]*$/)) {
    const raw = match.slice(0, end)
    if (!ibanValid(raw)) continue
    if (/[a-z]/.test(raw)) {
      const groups = raw.split(/[ -]/)
      if (groups.length > 1 && groups.some((g, i) => (i < groups.length - 1 ? g.length !== 4 : g.length < 1 || g.length > 4))) continue
    }
    return raw
  }
  return null
}

/**
 * Phone numbers compare by their national significant number (ITU-T E.164): the digits after
 * the country code, without the trunk prefix. "+49 30 1234 5678", "+49 (0)30 1234 5678",
 * "0049 30 1234 5678" and "030 1234 5678" are one number; so are "+44 7700 900123" and "07700
 * 900123". A national number gives no country, so the same digits under two countries are
 * one value (rare at 8 digits and more).
 */
function phoneValue(written: string): string {
  let digits = written.replace(/\(0\)/, '').replace(/\D/g, '')
  const international = written.trimStart().startsWith('+') || digits.startsWith('00')
  if (international) {
    if (!written.trimStart().startsWith('+')) digits = digits.slice(2)
    digits = digits.slice(countryCodeLength(digits))
  }
  return digits.startsWith('0') ? digits.slice(1) : digits
}

/**
 * The length of the E.164 country code a number starts with: codes are prefix-free, 1 (NANP) and 7
 * one digit; 20, 27, 30-34, 36, 39, 40, 41, 43-49, 51-58, 60-66, 81, 82, 84, 86, 90-95 and 98 two;
 * every other three.
 */
function countryCodeLength(digits: string): number {
  if (digits[0] === '1' || digits[0] === '7') return 1
  return TWO_DIGIT_CODES.has(digits.slice(0, 2)) ? 2 : 3
}
const TWO_DIGIT_CODES = new Set(
  '20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 64 65 66 81 82 84 86 90 91 92 93 94 95 98'.split(' '),
)

/**
 * Full-width forms (U+FF01-FF5E: digits, Latin letters, '+', '@', '-'...) and the ideographic space
 * as their ASCII twins, one UTF-16 unit for one, so that positions stay those of the text: a
 * number typed on a CJK keyboard is the same number.
 */
function asciiForms(text: string): string {
  if (!/[\uFF01-\uFF5E\u3000]/.test(text)) return text
  return text.replace(/[\uFF01-\uFF5E\u3000]/g, (c) => (c === '\u3000' ? ' ' : String.fromCharCode(c.charCodeAt(0) - 0xfee0)))
}

function overlaps(taken: ReadonlyArray<[number, number]>, start: number, end: number): boolean {
  return taken.some(([s, e]) => start < e && end > s)
}

/** Every IPv6 candidate has two colons with at most four hex digits between them. */
const IPV6_HINT = /:[0-9A-Fa-f]{0,4}:/g
const isIpv6Char = (c: number): boolean => (c >= 48 && c <= 58) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102) || c === 46 // 0-9 : A-F a-f .
const isEmailChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 64 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45 // 0-9 @ A-Z a-z . _ % + -

/**
 * `re`'s matches in `text`, found only inside the maximal runs of `inRun` characters that
 * contain an `anchor` match. Exact when every match of `re` consists of run characters and
 * contains an anchor match, and its look-arounds only test run characters: then no match
 * crosses a run's edge, a run's edges look the same from inside the run as from the whole
 * text, and leftmost matching within each run equals leftmost matching over the text. E-mail
 * and IPv6 patterns can start at almost any position of prose, so this skips most of it.
 */
function* matchesInRuns(text: string, re: RegExp, anchor: RegExp, inRun: (c: number) => boolean): Generator<{value: string; index: number}> {
  anchor.lastIndex = 0
  let done = 0 // the text before this is already searched
  for (let a = anchor.exec(text); a !== null; a = anchor.exec(text)) {
    if (a.index < done) continue
    let start = a.index
    while (start > done && inRun(text.charCodeAt(start - 1))) start--
    let end = a.index + a[0].length
    while (end < text.length && inRun(text.charCodeAt(end))) end++
    done = end
    anchor.lastIndex = Math.max(anchor.lastIndex, end)
    for (const m of text.slice(start, end).matchAll(re)) yield {value: m[0], index: start + m.index}
  }
}

/** EMAIL's domain part alone, tried where an '@' stands (emailMatches). */
const EMAIL_DOMAIN = /[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}/y
/** A character of EMAIL's local part: 0-9 A-Z a-z . _ % + - */
const isLocalChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45

/**
 * EMAIL's matches in `text`, in linear time. Run as a regular expression, EMAIL tries every start
 * position: after an '@' followed by a long run of local-part characters (a token, a base64url
 * blob) each start scans the rest of the run for an '@' that never comes, so a 160 KB run took 97
 * s to ingest (and a 1 MB one about an hour). The same matches are found from each '@' instead: an
 * '@' is no local-part character, so the local part of a match ending at it is the whole run of
 * local-part characters before it (back to the previous match's end), and its domain is the
 * pattern's own domain part tried right after it. A failed domain leaves no match at that '@', as
 * every shorter local part would end before another local-part character, not an '@'.
 */
function* emailMatches(text: string): Generator<{value: string; index: number}> {
  let done = 0 // the text before this is taken by a match
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    if (at < done) continue
    let start = at
    while (start > done && isLocalChar(text.charCodeAt(start - 1))) start--
    if (start === at) continue
    EMAIL_DOMAIN.lastIndex = at + 1
    const domain = EMAIL_DOMAIN.exec(text)
    if (domain === null) continue
    done = at + 1 + domain[0].length
    yield {value: text.slice(start, done), index: start}
  }
}

/** Every PII value in a text, deduplicated per (kind, value). */

export function findPii(written: string): PiiValue[] {
  const out: PiiValue[] = []
  if (written.length === 0) return out
  const text = asciiForms(written)
  const taken: Array<[number, number]> = []
  const add = (kind: PiiKind, value: string, start: number, end: number): void => {
    out.push({kind, value, start, end})
    taken.push([start, end])
  }
  if (text.includes('@')) {
    for (const m of emailMatches(text)) add('email', m.value.toLowerCase(), m.index, m.index + m.value.length)
  }
  // Every kind but e-mail and IPv6 needs a digit: most prose has none, and skipping four
  // regex passes over it is most of the cost on large prompts.
  const digits = /\d/.test(text)
  for (const m of digits ? text.matchAll(IBAN) : []) {
    const iban = ibanAt(m[0])
    if (iban !== null) add('iban', iban.replace(/[ -]/g, '').toUpperCase(), m.index, m.index + iban.length)
  }
  for (const m of digits ? text.matchAll(CARD) : []) {
    const digits = m[0].replace(/[ -]/g, '')
    if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits) && !overlaps(taken, m.index, m.index + m[0].length)) {
      add('card', digits, m.index, m.index + m[0].length)
    }
  }
  if (digits && text.includes('.')) {
    for (const m of text.matchAll(IPV4)) {
      if (isIPv4(m[0]) && !overlaps(taken, m.index, m.index + m[0].length)) add('ipv4', m[0], m.index, m.index + m[0].length)
    }
  }
  if (text.includes(':')) {
    for (const m of matchesInRuns(text, IPV6, IPV6_HINT, isIpv6Char)) {
      const v = m.value
      // Clock times (12:30:45) and bare "::" are not addresses.
      if (!isIPv6(v) || v.replace(/[^0-9A-Fa-f]/g, '').length < 2 || !v.includes('::') && v.split(':').length < 8) continue
      if (overlaps(taken, m.index, m.index + v.length)) continue
      add('ipv6', new URL(`http://[${v}]/`).hostname.slice(1, -1), m.index, m.index + v.length)
    }
  }
  for (const m of digits ? text.matchAll(PHONE) : []) {
    if (overlaps(taken, m.index, m.index + m[0].length)) continue
    const digits = m[0].replace(/\D/g, '')
    if (digits.length < 8 || digits.length > 15) continue
    add('phone', phoneValue(m[0]), m.index, m.index + m[0].length)
  }
  if (out.length < 2) return out
  const seen = new Set<string>()
  return out.filter((v) => {
    const k = `${v.kind}:${v.value}`
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

/** What is stored: SHA-256 over kind and normalised value (kind-separated so an IP never equals a phone). */
export function hashPii(kind: PiiKind, value: string): string {
  return hash('sha256', `${kind}:${value}`, 'hex') // one-shot: 2.5x createHash's speed on short values
}

/** For tests: the run-restricted matching and what it must equal. */
export const piiInternals = {EMAIL, AT, isEmailChar, IPV6, IPV6_HINT, isIpv6Char, matchesInRuns, emailMatches}
