import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {daysIn, isoString, parseAnyTimestamp, parseTimestamp, utcMs, utcMsByDate} from '../../src/util/timestamps.js'

// util/timestamps.ts computes dates itself (Hinnant's civil-day algorithms) instead of through
// Date's setters and toISOString, which cost microseconds a timestamp. Property: the answers are
// Date's, to the millisecond and the character, inside the fast range and across its edges
// (years 0 and 9999, Date's limits), where Date itself answers.

const SEED = 180_020
const MAX_MS = 8.64e15

describe('timestamp arithmetic', () => {
  it('isoString is toISOString for every time Date can hold', () => {
    const edges = [0, -1, 1, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000, MAX_MS, -MAX_MS, 951_782_400_000, 946_684_800_000]
    for (const ms of edges) expect(isoString(ms)).toBe(new Date(ms).toISOString())
    fc.assert(
      fc.property(fc.oneof(fc.integer({min: -MAX_MS, max: MAX_MS}), fc.integer({min: -62_167_219_200_000 - 1e10, max: 253_402_300_800_000 + 1e10}), fc.integer({min: 9e11, max: 2e12})), (ms) => {
        expect(isoString(ms)).toBe(new Date(ms).toISOString())
      }),
      {seed: SEED, numRuns: 20_000},
    )
  })

  it('utcMs is Date\'s, with its carries (month 12, day 0, hour 24) and its range', () => {
    const small = fc.integer({min: -1000, max: 1000})
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({min: 0, max: 9999}), fc.integer({min: -300_000, max: 300_000})),
        fc.oneof(fc.integer({min: 0, max: 11}), small), fc.oneof(fc.integer({min: 0, max: 32}), small, fc.integer({min: -2e8, max: 2e8})),
        fc.oneof(fc.integer({min: 0, max: 24}), small), fc.oneof(fc.integer({min: 0, max: 60}), small), fc.oneof(fc.integer({min: 0, max: 60}), small), fc.oneof(fc.constant(0), small),
        (y, mo, d, h, mi, s, ms) => {
          expect(utcMs(y, mo, d, h, mi, s, ms)).toBe(utcMsByDate(y, mo, d, h, mi, s, ms))
        },
      ),
      {seed: SEED, numRuns: 20_000},
    )
    expect(utcMs(275_760, 8, 13)).toBe(utcMsByDate(275_760, 8, 13))
    expect(utcMs(275_760, 8, 14)).toBeNaN()
    expect(utcMs(1970, 0, 1)).toBe(0)
    expect(Object.is(utcMs(1970, 0, 1), 0)).toBe(true)
  })

  it('daysIn is Date\'s for every month of years 0-9999', () => {
    for (let y = 0; y <= 9999; y++) for (let m = 1; m <= 12; m++) if (daysIn(y, m) !== new Date(utcMsByDate(y, m, 0)).getUTCDate()) expect([y, m, daysIn(y, m)]).toBe('Date\'s')
  })

  it('parseTimestamp keeps its answers at the edges of the fast range', () => {
    expect(parseTimestamp('0000-01-01T00:00:00+01:00').iso).toBe(new Date(utcMsByDate(0, 0, 1) - 3_600_000).toISOString().slice(0, 19) + '.000Z')
    expect(parseTimestamp('9999-12-31T23:59:59.5-01:00')).toEqual({iso: '+010000-01-01T00:59:59.500Z'.slice(0, 19) + '.500Z', ms: utcMsByDate(9999, 11, 31, 23, 59, 59) + 3_600_000 + 500})
    expect(parseTimestamp('2024-02-29T12:00:00Z').iso).toBe('2024-02-29T12:00:00.000Z')
    expect(() => parseTimestamp('2023-02-29T12:00:00Z')).toThrow(/impossible/)
    expect(() => parseTimestamp('1900-02-29T12:00:00Z')).toThrow(/impossible/)
    expect(parseTimestamp('2000-02-29T12:00:00Z').iso).toBe('2000-02-29T12:00:00.000Z')
    expect(parseTimestamp(253_402_300_800_000).iso).toBe('+010000-01-01T00:00:00.000Z')
    expect(parseTimestamp(1_793_608_110_289.25).iso).toBe(new Date(1_793_608_110_289).toISOString().replace('Z', '25Z'))
  })
})

describe('the YYYY-MM-DDTHH:MM:SS[.f]Z shortcut', () => {
  const outcome = (f: (v: unknown) => unknown, v: string) => {
    try {
      return {ok: f(v)}
    } catch (error) {
      return {error: (error as Error).message}
    }
  }
  // Each position a digit or, now and then, something else that the general path might read.
  const digit = fc.integer({min: 0, max: 9}).map(String)
  const odd = fc.constantFrom('', ' ', 'z', 'Z', 't', '+', '.', ',', ':', '-', '٣', 'a', '00', '9')
  const at = (arb: fc.Arbitrary<string>) => fc.oneof({weight: 12, arbitrary: arb}, {weight: 1, arbitrary: odd})
  const sep = (c: string) => at(fc.constant(c))
  const num = (n: number, max?: number) =>
    max === undefined ? fc.array(at(digit), {minLength: n, maxLength: n}).map((a) => a.join('')) : at(fc.integer({min: 0, max}).map((v) => String(v).padStart(n, '0')))
  const stamp = fc
    .tuple(
      fc.oneof(num(4), at(fc.constantFrom('0000', '0001', '1900', '2000', '2024', '2100', '9999'))),
      sep('-'), num(2, 13), sep('-'), num(2, 32), sep('T'), num(2, 24), sep(':'), num(2, 60), sep(':'), num(2, 61),
      fc.oneof(fc.constant(''), fc.array(digit, {minLength: 0, maxLength: 11}).map((d) => `.${d.join('')}`)),
      fc.constantFrom('Z', 'Z', 'Z', 'z', '+00:00', '', ' Z'),
    )
    .map((parts) => parts.join(''))

  it('reads exactly what the general path reads, and leaves it everything else', () => {
    let read = 0
    fc.assert(
      fc.property(stamp, (v) => {
        const fast = outcome(parseTimestamp, v)
        expect(fast).toEqual(outcome(parseAnyTimestamp, v))
        if ('ok' in fast) read++
      }),
      {seed: SEED, numRuns: 20_000},
    )
    // Enough of them are timestamps at all (the rest test the refusals).
    expect(read).toBeGreaterThan(2000)
  })

  it('keeps every fractional digit and the exact millisecond', () => {
    expect(parseTimestamp('2026-10-30T01:02:03.456789Z')).toEqual({iso: '2026-10-30T01:02:03.456789Z', ms: Date.UTC(2026, 9, 30, 1, 2, 3, 456)})
    expect(parseTimestamp('2024-02-29T23:59:59.9Z')).toEqual({iso: '2024-02-29T23:59:59.900Z', ms: Date.UTC(2024, 1, 29, 23, 59, 59, 900)})
    expect(parseTimestamp('0001-01-01T00:00:00Z').iso).toBe('0001-01-01T00:00:00.000Z')
  })
})
