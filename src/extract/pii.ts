import {hash} from 'node:crypto'
import {isIPv4, isIPv6} from 'node:net'
import {domainToASCII, domainToUnicode} from 'node:url'

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
/**
 * Scripts written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Burmese):
 * an address written in such text stands right against the words around it, so a letter of
 * these scripts ends an address instead of joining its local part or domain (where such a text
 * holds "请联系zhang@example.com", the address is "zhang@example.com").
 */
const SPACELESS = String.raw`\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}`
/** A letter, mark or digit of any script written with spaces (RFC 6531 local parts, IDNA labels). */
const WORD = String.raw`(?![${SPACELESS}])[\p{L}\p{M}\p{Nd}]`
/** A domain: IDNA labels (letters of any script written with spaces, digits, inner hyphens), then a top-level label of letters. */
const DOMAIN = String.raw`(?![${SPACELESS}])[\p{L}\p{Nd}](?:(?:${WORD}|-)*${WORD})?(?:\.(?![${SPACELESS}])[\p{L}\p{Nd}](?:(?:${WORD}|-)*${WORD})?)*\.(?:[A-Za-z]{2,}|(?![${SPACELESS}])\p{L}(?:(?![${SPACELESS}])[\p{L}\p{M}])+)`
// An address (RFC 5322's dot-atom as people write it, with RFC 6531's non-ASCII letters in the
// local part and an internationalised domain): read whole, never from its last ASCII letter on.
// (WORD holds the ASCII letters and digits: the two alternatives must not overlap, or a run of
// letters with no '@' after it backtracks exponentially.)
const EMAIL = new RegExp(String.raw`(?:[._%+-]|${WORD})+@${DOMAIN}`, 'gu')
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
const IPV6 = /(?<![0-9A-Fa-f:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{0,4}|(?:\d{1,3}\.){3}\d{1,3})(?![0-9A-Fa-f:]|\.\d)/g
// International (+, or "(+44)"), a bracketed area code, a leading trunk 0, or the NANP 3-3-4
// shape (with its country code 1 before it, or spaced where its area code and exchange are
// NANP's: neither starts with 0 or 1); 8-15 digits in all (E.164 allows 15). Groups are apart by
// a space, dot, hyphen or slash ("+49 30/1234567"); every no-break or thin space and every dash
// is read as a space or hyphen first (numericForms). A date is no phone number (notDate).
const PHONE = /(?<![\w+\/-])(?:\+\d{1,3}[ .\/-]?(?:\(\d{1,4}\)[ .\/-]?)?\d(?:[ .\/-]?\d){5,13}|\(\+\d{1,3}\)[ .\/-]?\d(?:[ .\/-]?\d){5,13}|\(\d{2,4}\)[ .\/-]?\d(?:[ .\/-]?\d){5,11}|0\d(?:[ .\/-]?\d){7,12}|1[ .-]\d{3}[ .-]\d{3}[ .-]\d{4}|\d{3}[.-]\d{3}[.-]\d{4}|[2-9]\d\d [2-9]\d\d \d{4})(?![\w\/])/g
/** A calendar date (day, month, year in either order, or ISO 8601's), which PHONE's trunk-0 and international shapes can take in: "01.12.2024 10". */
const DATE = /(?:^|\D)(?:\d{1,2}([./-])\d{1,2}\1(?:19|20)\d\d|(?:19|20)\d\d([./-])\d{1,2}\2\d{1,2})(?!\d)/
/** A phone-shaped match that is a number written some other way: a date, or two slashes ("0/12/2024"). */
const notPhone = (m: string): boolean => DATE.test(m) || m.indexOf('/') !== m.lastIndexOf('/')

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
  const iban = numericForms(asciiForms(raw)).replace(/[ -]/g, '').toUpperCase()
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
  const plus = /^\(?\+/.test(written)
  if (plus || digits.startsWith('00')) {
    if (!plus) digits = digits.slice(2)
    digits = digits.slice(countryCodeLength(digits))
  } else if (written.startsWith('1') && digits.length === 11) {
    // "1-415-555-0132": NANP's country code written without its '+'.
    digits = digits.slice(1)
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
 * Full-width forms (U+FF01-FF5E: digits, Latin letters, '+', '@', '-'...) as their ASCII twins,
 * and every other space (no-break U+00A0, the spaces U+2000-200A with figure and thin space,
 * narrow no-break U+202F, medium mathematical U+205F, ideographic U+3000) as a space, one UTF-16
 * unit for one, so that positions stay those of the text: a number typed on a CJK keyboard, or
 * grouped as French typography and word processors group it ("+33 6 12 34 56 78" with no-break
 * spaces), is the same number.
 */
function asciiForms(text: string): string {
  if (!/[\uFF01-\uFF5E\u00A0\u2000-\u200A\u202F\u205F\u3000]/.test(text)) return text
  return text.replace(/[\uFF01-\uFF5E\u00A0\u2000-\u200A\u202F\u205F\u3000]/g, (c) => (c.charCodeAt(0) >= 0xff01 ? String.fromCharCode(c.charCodeAt(0) - 0xfee0) : ' '))
}

/** Every dash (U+2010-2015: hyphens, figure dash, en and em dash; U+2212 minus) as '-', one unit for one: "+44–20–7946–0958" is grouped as "+44-20-7946-0958". Numbers only: an address keeps its own characters. */
function numericForms(text: string): string {
  return /[\u2010-\u2015\u2212]/.test(text) ? text.replace(/[\u2010-\u2015\u2212]/g, '-') : text
}

/**
 * IPv4 blocks that identify no person: this network 0/8 (RFC 1122), private 10/8, 172.16/12 and
 * 192.168/16 (RFC 1918), shared address space 100.64/10 (RFC 6598), loopback 127/8 (RFC 1122),
 * link-local 169.254/16 (RFC 3927), IETF protocol assignments 192.0.0/24 (RFC 6890),
 * documentation 192.0.2/24, 198.51.100/24 and 203.0.113/24 (RFC 5737), benchmarking 198.18/15
 * (RFC 2544), multicast 224/4 (RFC 5771) and reserved 240/4 with broadcast (RFC 1112). Each is
 * [first address as a 32-bit number, prefix length].
 */
const IPV4_NOT_PERSONAL: ReadonlyArray<[number, number]> = (
  [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24],
    ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const
).map(([a, bits]) => [ipv4Number(a), bits])
/**
 * Public DNS resolvers every assistant and manual names (Google, Cloudflare, Quad9, OpenDNS, the
 * old Level 3 pair): a service's address, the same for everyone who uses it.
 */
const PUBLIC_RESOLVERS = new Set([
  '8.8.8.8', '8.8.4.4', '1.1.1.1', '1.0.0.1', '9.9.9.9', '149.112.112.112', '208.67.222.222', '208.67.220.220', '4.2.2.1', '4.2.2.2',
  '2001:4860:4860::8888', '2001:4860:4860::8844', '2606:4700:4700::1111', '2606:4700:4700::1001', '2620:fe::fe', '2620:fe::9', '2620:119:35::35', '2620:119:53::53',
])

function ipv4Number(a: string): number {
  return a.split('.').reduce((n, octet) => n * 256 + Number(octet), 0)
}

/**
 * Whether an IP address (IPv4 dotted, or IPv6 in its URL-normalised form) identifies no one:
 * an address of the special-purpose blocks above or of IPv6's unspecified and loopback (::,
 * ::1, RFC 4291), link-local fe80::/10 (RFC 4291), unique local fc00::/7 (RFC 4193),
 * documentation 2001:db8::/32 (RFC 3849) and 3fff::/20 (RFC 9637) and multicast ff00::/8, an
 * IPv4-mapped address of such a block, or a public resolver. Every device behind a home router
 * has 192.168.1.1 as its gateway and every developer 127.0.0.1: such an address in an answer is
 * what an assistant tells everyone, never another session's personal data (GDPR Recital 30 is
 * about addresses that single out a device or its user).
 */
export function identifiesNoOne(address: string): boolean {
  if (PUBLIC_RESOLVERS.has(address)) return true
  if (isIPv4(address)) {
    const n = ipv4Number(address)
    return n === 0xffffffff || IPV4_NOT_PERSONAL.some(([base, bits]) => Math.floor(n / 2 ** (32 - bits)) === Math.floor(base / 2 ** (32 - bits)))
  }
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address)
  if (mapped) return identifiesNoOne(mapped.length === 2 ? mapped[1]! : [parseInt(mapped[1]!, 16) >> 8, parseInt(mapped[1]!, 16) & 255, parseInt(mapped[2]!, 16) >> 8, parseInt(mapped[2]!, 16) & 255].join('.'))
  if (address === '::' || address === '::1') return true
  const first = address.startsWith('::') ? 0 : parseInt(address.split(':')[0]!, 16)
  const second = address.startsWith('::') ? 0 : parseInt(address.split(':')[1] || '0', 16)
  return (first & 0xffc0) === 0xfe80 || (first & 0xfe00) === 0xfc00 || (first & 0xff00) === 0xff00 || (first === 0x2001 && second === 0x0db8) || (first & 0xfff0) === 0x3ff0
}

function overlaps(taken: ReadonlyArray<[number, number]>, start: number, end: number): boolean {
  return taken.some(([s, e]) => start < e && end > s)
}

/** Every IPv6 candidate has two colons with at most four hex digits between them. */
const IPV6_HINT = /:[0-9A-Fa-f]{0,4}:/g
const isIpv6Char = (c: number): boolean => (c >= 48 && c <= 58) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102) || c === 46 // 0-9 : A-F a-f .
/** A UTF-16 unit an address may hold: 0-9 @ A-Z a-z . _ % + -, a non-ASCII letter, mark or digit, or half of a surrogate pair. */
const isEmailChar = (c: number): boolean =>
  c === 64 || (c >= 0xd800 && c <= 0xdfff) || isLocalCodePoint(c)

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
const EMAIL_DOMAIN = new RegExp(DOMAIN, 'yu')
const LOCAL_WORD = new RegExp(`^${WORD}$`, 'u')
/** Whether the code point is a character of EMAIL's local part: 0-9 A-Z a-z . _ % + -, or a non-ASCII letter, mark or digit of a script written with spaces. */
const isLocalCodePoint = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45 ||
  (c > 127 && LOCAL_WORD.test(String.fromCodePoint(c)))
/** How many UTF-16 units of a local-part character end at `i` in `text` (2: a surrogate pair), 0 where none does. */
function localCharBefore(text: string, i: number): number {
  const c = text.charCodeAt(i - 1)
  if (c >= 0xdc00 && c <= 0xdfff && i >= 2) {
    const hi = text.charCodeAt(i - 2)
    if (hi >= 0xd800 && hi <= 0xdbff) return isLocalCodePoint(text.codePointAt(i - 2)!) ? 2 : 0
  }
  return isLocalCodePoint(c) ? 1 : 0
}

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
    while (start > done) {
      const w = localCharBefore(text, start)
      if (w === 0 || start - w < done) break
      start -= w
    }
    if (start === at) continue
    EMAIL_DOMAIN.lastIndex = at + 1
    const domain = EMAIL_DOMAIN.exec(text)
    if (domain === null) continue
    done = at + 1 + domain[0].length
    yield {value: text.slice(start, done), index: start}
  }
}

/**
 * An address as one value however it is written: in lower case, its local part in Unicode NFC
 * (a letter and its accent typed as one character or two), its domain in its IDNA Unicode form
 * ("info@xn--mller-kva.de" is "info@müller.de"). Null where the domain is no valid IDNA name.
 * ASCII addresses keep the value they always had (lower case), so their stored hashes stand.
 */
function emailValue(written: string): string | null {
  const at = written.lastIndexOf('@')
  const local = written.slice(0, at).normalize('NFC').toLowerCase()
  const domain = written.slice(at + 1)
  if (/^[\x00-\x7f]*$/.test(domain) && !/(?:^|\.)xn--/i.test(domain)) return `${local}@${domain.toLowerCase()}`
  const ascii = domainToASCII(domain.normalize('NFC'))
  return ascii === '' ? null : `${local}@${domainToUnicode(ascii)}`
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
    for (const m of emailMatches(text)) {
      const value = emailValue(m.value)
      if (value !== null) add('email', value, m.index, m.index + m.value.length)
    }
  }
  // Every kind but e-mail and IPv6 needs a digit: most prose has none, and skipping four
  // regex passes over it is most of the cost on large prompts.
  const digits = /\d/.test(text)
  // Numbers grouped with dashes of any kind: read with '-' for each (positions unchanged).
  const numeric = digits ? numericForms(text) : text
  for (const m of digits ? numeric.matchAll(IBAN) : []) {
    const iban = ibanAt(m[0])
    if (iban !== null) add('iban', iban.replace(/[ -]/g, '').toUpperCase(), m.index, m.index + iban.length)
  }
  for (const m of digits ? numeric.matchAll(CARD) : []) {
    const digits = m[0].replace(/[ -]/g, '')
    if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits) && !overlaps(taken, m.index, m.index + m[0].length)) {
      add('card', digits, m.index, m.index + m[0].length)
    }
  }
  if (digits && text.includes('.')) {
    for (const m of text.matchAll(IPV4)) {
      if (isIPv4(m[0]) && !identifiesNoOne(m[0]) && !overlaps(taken, m.index, m.index + m[0].length)) add('ipv4', m[0], m.index, m.index + m[0].length)
    }
  }
  if (text.includes(':')) {
    for (const m of matchesInRuns(text, IPV6, IPV6_HINT, isIpv6Char)) {
      const v = m.value
      // Clock times (12:30:45) and bare "::" are not addresses.
      if (!isIPv6(v) || v.replace(/[^0-9A-Fa-f]/g, '').length < 2 || !v.includes('::') && v.split(':').length < 8) continue
      if (overlaps(taken, m.index, m.index + v.length)) continue
      const address = new URL(`http://[${v}]/`).hostname.slice(1, -1)
      if (!identifiesNoOne(address)) add('ipv6', address, m.index, m.index + v.length)
    }
  }
  for (const m of digits ? numeric.matchAll(PHONE) : []) {
    if (overlaps(taken, m.index, m.index + m[0].length) || notPhone(m[0])) continue
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
