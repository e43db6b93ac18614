// Timestamps arrive as ISO 8601 with Z or an offset, as epoch milliseconds, or in
// Langfuse's zone-less `YYYY-MM-DD HH:MM:SS.ffffff` (which Langfuse writes in UTC).
// They are stored as UTC ISO strings that keep every fractional digit given (microsecond
// precision survives), plus integer epoch milliseconds for ordering.

export interface Timestamp {
  /** UTC, `toISOString()` shape, with the original fractional digits when more than 3. */
  iso: string
  /** Milliseconds since the epoch, fraction truncated. */
  ms: number
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?$/
/** Before this, an epoch number is almost certainly seconds given where milliseconds were expected. */
const EPOCH_MS_FLOOR = Date.UTC(2000, 0, 1)

export class TimestampError extends Error {}

export function parseTimestamp(value: unknown): Timestamp {
  if (typeof value === 'number') return fromEpochMs(value)
  if (typeof value !== 'string') throw new TimestampError(`timestamp must be a string or epoch milliseconds, got ${typeName(value)}`)
  const text = value.trim()
  if (/^\d{12,16}(\.\d+)?$/.test(text)) return fromEpochMs(Number(text))
  const m = ISO.exec(text)
  if (!m) throw new TimestampError(`unrecognised timestamp ${JSON.stringify(value.slice(0, 64))}`)
  const [, y, mo, d, h, mi, s = '00', frac = '', zone] = m as unknown as string[]
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(s)
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year!, month) || hour > 23 || minute > 59 || second > 60) {
    throw new TimestampError(`impossible date or time ${JSON.stringify(text)}`)
  }
  let offsetMinutes = 0
  if (zone && zone !== 'Z' && zone !== 'z') {
    const sign = zone[0] === '-' ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    const oh = Number(digits.slice(0, 2)), om = Number(digits.slice(2) || '0')
    if (oh > 23 || om > 59) throw new TimestampError(`impossible UTC offset ${zone}`)
    offsetMinutes = sign * (oh * 60 + om)
  }
  // A leap second (:60) is folded onto :59.999… rather than rolling the minute.
  const wholeMs = utcMs(year!, month - 1, day, hour, minute, Math.min(second, 59)) - offsetMinutes * 60_000
  const fracMs = second === 60 ? 999 : Number((frac + '000').slice(0, 3))
  const ms = wholeMs + fracMs
  return {iso: isoWithFraction(wholeMs, second === 60 ? '999' : frac), ms}
}

function fromEpochMs(n: number): Timestamp {
  if (!Number.isFinite(n)) throw new TimestampError('timestamp is not a finite number')
  if (n < EPOCH_MS_FLOOR) throw new TimestampError(`epoch ${n} is before 2000: seconds given where milliseconds are expected?`)
  if (n > 8.64e15) throw new TimestampError(`epoch ${n} is out of range`)
  const ms = Math.floor(n)
  const sub = n - ms
  // Sub-millisecond epoch fractions (rare, but some exporters write them) are kept as digits.
  const subDigits = sub > 0 ? sub.toFixed(6).slice(2).replace(/0+$/, '') : ''
  const base = new Date(ms).toISOString()
  return {iso: subDigits ? base.replace('Z', `${subDigits}Z`) : base, ms}
}

function isoWithFraction(wholeSecondMs: number, frac: string): string {
  const base = new Date(wholeSecondMs).toISOString().slice(0, 19)
  const digits = frac.length <= 3 ? (frac + '000').slice(0, 3) : frac
  return `${base}.${digits}Z`
}

function daysIn(year: number, month: number): number {
  return new Date(utcMs(year, month, 0)).getUTCDate()
}

/**
 * Date.UTC for every year. Date.UTC (like the Date constructor) reads a year from 0 to 99 as
 * 1900-1999, so `0001-01-01` would become 1901; setUTCFullYear takes the year as given.
 */
export function utcMs(year: number, monthIndex: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const d = new Date(0)
  d.setUTCFullYear(year, monthIndex, day)
  d.setUTCHours(hour, minute, second, ms)
  return d.getTime()
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v
}
