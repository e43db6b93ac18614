// Pseudo-natural prose and the personal data it sometimes carries. Every value is drawn from the
// caller's rng; check digits are real (IBAN mod-97, Luhn) so PII detectors that validate them fire.

import type {Rng} from './rng.js'
import {CONTENT_WORDS, FUNCTION_WORDS} from './vocabulary.js'

export type PiiKind = 'email' | 'phone' | 'iban' | 'card' | 'ipv4' | 'ipv6'
export const PII_KINDS: readonly PiiKind[] = ['email', 'phone', 'iban', 'card', 'ipv4', 'ipv6']

export interface Prose {
  /** Single-space-separated words; `text === words.join(' ')`. */
  words: string[]
  /** Word indexes holding a PII value, and which kind. */
  pii: {index: number; kind: PiiKind}[]
}

/** One draw per word: the low byte chooses function vs content word, the high bits the word. */
export function word(rng: Rng): string {
  const r = rng.u32()
  return (r & 0xff) < 102 ? FUNCTION_WORDS[(r >>> 8) % FUNCTION_WORDS.length]! : CONTENT_WORDS[(r >>> 8) % CONTENT_WORDS.length]!
}

/** About `count` words of sentences; with probability `piiChance` per sentence, one PII value mid-sentence. */
export function prose(rng: Rng, count: number, piiChance = 0): Prose {
  const words: string[] = []
  const pii: Prose['pii'] = []
  while (words.length < count) {
    const len = rng.range(6, 18)
    // A PII value never ends a sentence, so no punctuation sticks to it.
    const withPii = piiChance > 0 && rng.next() < piiChance ? rng.range(2, len - 2) : -1
    for (let i = 0; i < len; i++) {
      if (i === withPii) {
        const kind = PII_KINDS[rng.int(PII_KINDS.length)]!
        pii.push({index: words.length, kind})
        words.push(piiValue(rng, kind))
        continue
      }
      let w = word(rng)
      if (i === 0) w = w.charAt(0).toUpperCase() + w.slice(1)
      if (i === len - 1) w += rng.next() < 0.9 ? '.' : '?'
      else if (i > 1 && i !== withPii - 1 && rng.next() < 0.06) w += ','
      words.push(w)
    }
  }
  return {words, pii}
}

const FIRST = ['anna', 'bruno', 'carla', 'daniel', 'elena', 'felix', 'greta', 'hugo', 'ines', 'jonas', 'klara', 'lukas', 'marta', 'nils', 'olga', 'paul']
const LAST = ['schmidt', 'dubois', 'rossi', 'garcia', 'jansen', 'novak', 'larsen', 'silva', 'weber', 'moreau', 'kowalski', 'berg']
const DOMAINS = ['example.com', 'mail.example.org', 'example.net', 'corp.example.eu']

export function piiValue(rng: Rng, kind: PiiKind): string {
  switch (kind) {
    case 'email':
      return `${rng.pick(FIRST)}.${rng.pick(LAST)}${rng.int(100)}@${rng.pick(DOMAINS)}`
    case 'phone':
      return rng.pick([
        () => `+49-30-${rng.digits(4)}-${rng.digits(4)}`,
        () => `+44-20-7946-${rng.digits(4)}`,
        () => `+33-1-${rng.digits(2)}-${rng.digits(2)}-${rng.digits(2)}-${rng.digits(2)}`,
        () => `+31-20-${rng.digits(3)}-${rng.digits(4)}`,
      ])()
    case 'iban':
      return rng.pick([() => iban('DE', rng.digits(18)), () => iban('ES', rng.digits(20)), () => iban('NL', `${rng.pick(['ABNA', 'INGB', 'RABO'])}${rng.digits(10)}`)])()
    case 'card': {
      const prefix = rng.pick(['4', '51', '52', '55', '37'])
      const length = prefix === '37' ? 15 : 16
      const body = prefix + rng.digits(length - prefix.length - 1)
      const full = body + luhnDigit(body)
      return length === 16 && rng.next() < 0.4 ? full.replace(/(\d{4})(?=\d)/g, '$1-') : full
    }
    // Ordinary public addresses only: private, loopback, link-local, documentation and other
    // special-purpose blocks identify no one, so the detector does not count them (extract/pii.ts).
    // A first octet that could start such a block is moved one up (the draws stay the same).
    case 'ipv4': {
      const first = rng.range(11, 223)
      return `${[100, 127, 169, 172, 192, 198, 203].includes(first) ? first + 1 : first}.${rng.int(256)}.${rng.int(256)}.${rng.range(1, 254)}`
    }
    case 'ipv6': {
      const groups = Array.from({length: 6}, () => rng.u32().toString(16).slice(0, rng.range(1, 4)))
      return rng.next() < 0.5 ? `2a02:c7f:${groups.join(':')}` : `2a02:c7f:${groups.slice(0, 3).join(':')}::${groups[5]}`
    }
  }
}

/** ISO 13616 check digits: 98 - (BBAN + country + "00" as digits) mod 97. */
export function iban(country: string, bban: string): string {
  const check = 98 - mod97(toDigits(bban + country + '00'))
  return `${country}${String(check).padStart(2, '0')}${bban}`
}

export function mod97(digits: string): number {
  let r = 0
  for (let i = 0; i < digits.length; i += 7) r = Number(String(r) + digits.slice(i, i + 7)) % 97
  return r
}

export function toDigits(s: string): string {
  let out = ''
  for (const ch of s) out += /[A-Z]/.test(ch) ? String(ch.charCodeAt(0) - 55) : ch
  return out
}

export function luhnDigit(body: string): string {
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i])
    if (i % 2 === 0) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return String((10 - (sum % 10)) % 10)
}

export function luhnValid(number: string): boolean {
  const digits = number.replace(/\D/g, '')
  return luhnDigit(digits.slice(0, -1)) === digits.slice(-1)
}

/** Lower-case letters and digits only: how word-overlap comparisons see a word. */
export function normWord(w: string): string {
  return w.toLowerCase().replace(/[^a-z0-9]/g, '')
}
