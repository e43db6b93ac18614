import {describe, expect, it} from 'vitest'
import {findPii, piiInternals} from '../../src/extract/pii.js'

// E-mail and IPv6 addresses are matched only inside runs of the characters they are made
// of that hold an '@' or a ':x:' (most prose has neither). That must find exactly what the
// same pattern finds over the whole text: compared here on random texts rich in the
// characters that make near-misses.

const {EMAIL, AT, isEmailChar, IPV6, IPV6_HINT, isIpv6Char, matchesInRuns, emailMatches} = piiInternals

function rng(seed: number): () => number {
  let x = seed >>> 0
  return () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32)
}

const ALPHABET = ['a', 'f', 'G', 'z', '0', '7', '9', ':', '::', '.', '@', '-', '_', '+', '%', ' ', '\n', ',', '(', ')', '[', ']', 'é', '1.2.3.4', 'fe80', 'ab:cd', 'x@y.io', '.com', '12:30:45']

function randomText(next: () => number): string {
  const n = Math.floor(next() * 80)
  let s = ''
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(next() * ALPHABET.length)]!
  return s
}

const whole = (text: string, re: RegExp): Array<{value: string; index: number}> => [...text.matchAll(re)].map((m) => ({value: m[0], index: m.index}))

describe('run-restricted PII matching', () => {
  it('finds exactly the whole-text matches of the e-mail and IPv6 patterns', () => {
    const next = rng(7)
    let emails = 0
    let ipv6 = 0
    for (let i = 0; i < 20_000; i++) {
      const text = randomText(next)
      const e = whole(text, EMAIL)
      const v = whole(text, IPV6)
      emails += e.length
      ipv6 += v.length
      expect([...matchesInRuns(text, EMAIL, AT, isEmailChar)], text).toEqual(e)
      expect([...emailMatches(text)], text).toEqual(e)
      expect([...matchesInRuns(text, IPV6, IPV6_HINT, isIpv6Char)], text).toEqual(v)
    }
    // The comparison saw plenty of matches of both kinds.
    expect(emails).toBeGreaterThan(1000)
    expect(ipv6).toBeGreaterThan(1000)
  })

  it('finds e-mail addresses from each @ as the pattern does from every start, and in linear time on a long run after an @', () => {
    // Texts dense in @ and in local-part characters, where the two ways of matching could part.
    const next = rng(11)
    const parts = ['a', 'Z', '9', '.', '-', '_', '%', '+', '@', '@', 'x.io', '.co', '.uk', 'b-c', '--', '..', ' ', 'é', 'ü', '.de', '中', 'ß', '\u0308', '𝒜']
    let found = 0
    for (let i = 0; i < 20_000; i++) {
      let text = ''
      for (let n = Math.floor(next() * 40); n > 0; n--) text += parts[Math.floor(next() * parts.length)]!
      const e = whole(text, EMAIL)
      found += e.length
      expect([...emailMatches(text)], text).toEqual(e)
    }
    expect(found).toBeGreaterThan(2000)
    // 'token@' and a 400 KB base64url blob: every start after the @ made the pattern scan the rest
    // of the run (a 160 KB run took 97 s); from each @ it is one pass. No timing: the test's
    // default timeout is the bound, three orders of magnitude above what the pass takes.
    let blob = ''
    const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
    for (let i = 0; i < 400_000; i++) blob += b64[Math.floor(next() * 64)]
    expect(findPii(`session-token@${blob} and write to ana@example.org`).map((f) => f.value)).toEqual(['ana@example.org'])
  })

  it('still finds addresses in prose', () => {
    const found = findPii('Write to Ana.Lopez+hr@example.co.uk or ping 2a02:c7f::1ff:fe23:4567:890a at 12:30:45; not a@b.')
    expect(found.map((f) => [f.kind, f.value])).toEqual([
      ['email', 'ana.lopez+hr@example.co.uk'],
      ['ipv6', '2a02:c7f::1ff:fe23:4567:890a'],
    ])
  })
})
