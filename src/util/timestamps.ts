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

// RFC 3339 §5.6: 'T' and 'Z' may be lower case ('t', 'z'). `UTC` after a space (BigQuery's
// TIMESTAMP text, `date -u` exports) names the zone as plainly as Z. An RFC 9557 suffix after an
// offset (`+01:00[Europe/Paris]`, `Z[u-ca=iso8601]`, `[!Zone]`) annotates the time: the offset
// alone fixes the instant (RFC 9557 §3.4), so the suffix is checked for shape and set aside.
const ISO = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(?:(Z|z|[+-]\d{2}(?::?\d{2})?)(?:\[!?[A-Za-z0-9_+\-./=]{1,64}\])*|(UTC))?$/
/** An RFC 9557 `[...]` suffix with no offset before it: a zone name alone is no instant. */
export const SUFFIX_WITHOUT_OFFSET = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?\s*\[!?[^\]]{1,64}\]/

// A log of a model API call is written between 2000 and 2100. Outside that window a time is
// no time at all: an unset clock (0, 1970-01-01), or an epoch number in another unit than the
// one read (microseconds read as milliseconds are a time in the year 58209, seconds read as
// milliseconds one in January 1970). One rule for every reader of a record's time.
/** 2000-01-01T00:00:00Z and 2100-01-01T00:00:00Z, in epoch seconds. */
export const PLAUSIBLE_S = [946_684_800n, 4_102_444_800n] as const
/** The same window in epoch milliseconds: [from, to). */
export const PLAUSIBLE_MS = [946_684_800_000, 4_102_444_800_000] as const

export type EpochUnitName = 's' | 'ms' | 'us' | 'ns'
export const EPOCH_UNITS = [['s', 'seconds', 1n], ['ms', 'milliseconds', 1_000n], ['us', 'microseconds', 1_000_000n], ['ns', 'nanoseconds', 1_000_000_000n]] as const

/**
 * The unit of a bare epoch integer, by its magnitude: under 1e11 seconds, under 1e14
 * milliseconds, under 1e17 microseconds, else nanoseconds. Each unit's 2000-2100 window lies
 * inside its band, so a plausible time is read in one unit only.
 */
export function unitByMagnitude(n: bigint): EpochUnitName {
  if (n < 100_000_000_000n) return 's'
  if (n < 100_000_000_000_000n) return 'ms'
  if (n < 100_000_000_000_000_000n) return 'us'
  return 'ns'
}

const perSecondOf = (unit: EpochUnitName): bigint => EPOCH_UNITS.find(([u]) => u === unit)![2]

/** Whether an epoch integer read in `unit` is a time from 2000 to 2100. */
export function isPlausibleEpoch(whole: bigint, unit: EpochUnitName): boolean {
  const seconds = whole / perSecondOf(unit)
  return seconds >= PLAUSIBLE_S[0] && seconds < PLAUSIBLE_S[1]
}

/** Whether epoch milliseconds are a time from 2000 to 2100. */
export const isPlausibleMs = (ms: number): boolean => ms >= PLAUSIBLE_MS[0] && ms < PLAUSIBLE_MS[1]

export interface ImplausibleEpoch {
  /** Why it is no time in the unit read: `LABEL N is not UNIT of a plausible time (read so, …)` and the unit it reads right in, if one. */
  text: string
  /** The unit by magnitude, when in it the value is a plausible time. */
  fits: EpochUnitName | null
}

/**
 * Where an epoch integer read in `unit` falls outside 2000-2100: the refusal, naming the value
 * (after `label`) and the unit it reads right in by its magnitude, if any; null where plausible.
 */
export function implausibleEpoch(whole: bigint, unit: EpochUnitName, label: string): ImplausibleEpoch | null {
  if (isPlausibleEpoch(whole, unit)) return null
  const named = EPOCH_UNITS.find(([u]) => u === unit)!
  const read = epochToIso(String(whole), unit)
  const when = whole / named[2] < PLAUSIBLE_S[0] ? 'before 2000' : 'after 2100'
  // A year past 9999 has no ISO 8601 form anyone reads: only which side of the window it falls.
  const readSo = 'iso' in read && !read.iso.startsWith('+') ? `${read.iso}, ${when}` : 'past the year 9999'
  const head = `${label} ${whole} is not ${named[1]} of a plausible time (read so, it is ${readSo})`
  const byMagnitude = unitByMagnitude(whole)
  if (byMagnitude === unit || !isPlausibleEpoch(whole, byMagnitude)) {
    const others = EPOCH_UNITS.filter(([u]) => u !== unit).map(([, name]) => name)
    return {text: `${head}, nor ${others.slice(0, -1).join(', ')} or ${others[others.length - 1]} of one`, fits: null}
  }
  const asUnit = epochToIso(String(whole), byMagnitude)
  const name = EPOCH_UNITS.find(([u]) => u === byMagnitude)![1]
  return {text: `${head}: it reads as ${name}${'iso' in asUnit ? ` (${asUnit.iso})` : ''}`, fits: byMagnitude}
}

/**
 * An epoch number (or a string of digits, as OTLP writes nanoseconds) to an ISO string in UTC,
 * keeping sub-millisecond digits; 'auto' takes the unit by magnitude. Integer arithmetic on
 * strings of digits, so nanoseconds past 2^53 lose nothing.
 */
export function epochToIso(value: unknown, unit: EpochUnitName | 'auto'): {iso: string} | {error: string} {
  let digits: string
  let fraction = ''
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return {error: 'not a finite number'}
    const text = Math.abs(value) < 1e21 ? value.toFixed(Number.isInteger(value) ? 0 : 6) : String(value)
    ;[digits, fraction = ''] = text.split('.') as [string, string?]
  } else if (typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim())) {
    ;[digits, fraction = ''] = value.trim().split('.') as [string, string?]
  } else return {error: `expected an epoch number, got ${typeName(value)}${typeof value === 'string' ? ` ${JSON.stringify(value.slice(0, 40))}` : ''}`}
  if (digits.startsWith('-')) return {error: 'negative epoch'}
  const whole = BigInt(digits)
  const resolved = unit === 'auto' ? unitByMagnitude(whole) : unit
  const perSecond = perSecondOf(resolved)
  // Nanoseconds since the epoch, as an integer: the input's fraction is kept to the nanosecond.
  const scale = 1_000_000_000n / perSecond
  const fracNs = fraction === '' ? 0n : (BigInt((fraction + '000000000').slice(0, 9)) * scale) / 1_000_000_000n
  const ns = whole * scale + fracNs
  const seconds = ns / 1_000_000_000n
  if (seconds > 8_640_000_000_000n) return {error: `epoch ${digits} (${resolved}) is past the year 275760`}
  const sub = String(ns % 1_000_000_000n).padStart(9, '0').replace(/0+$/, '')
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19)
  return {iso: `${base}.${(sub + '000').slice(0, Math.max(3, sub.length))}Z`}
}

/** The integer part of an epoch number or string of digits. */
export function epochWhole(value: number | string): bigint {
  return BigInt(String(typeof value === 'number' ? Math.trunc(value) : value).trim().split('.')[0]!)
}

export class TimestampError extends Error {}

export function parseTimestamp(value: unknown): Timestamp {
  return (typeof value === 'string' && utcZulu(value)) || parseAnyTimestamp(value)
}

/**
 * A record's time: parseTimestamp, and a time a log of a model API call can give (2000-2100).
 * An epoch number (or a string of digits) is milliseconds; one that is no plausible time in
 * milliseconds is refused naming the unit its magnitude reads right in.
 */
export function parseRecordTimestamp(value: unknown): Timestamp {
  const epoch = (typeof value === 'number' && Number.isFinite(value) && value >= 0) || (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()))
  const bad = epoch && !(typeof value === 'number' && isPlausibleMs(value)) ? implausibleEpoch(epochWhole(value as number | string), 'ms', 'epoch') : null
  // PATH: where the time is (ts on a native line); ingest's refusal of a file gives that --map as its fix.
  if (bad !== null) throw new TimestampError(`${bad.text}${bad.fits === null ? '' : `: --map ts=epoch_${bad.fits}:PATH`}`)
  const t = parseTimestamp(value)
  if (!isPlausibleMs(t.ms)) {
    const when = t.ms < PLAUSIBLE_MS[0] ? 'before 2000 (1970-01-01 is a clock that was never set)' : 'after 2100'
    throw new TimestampError(`time ${t.iso} is ${when}: no log of a model API call is from then`)
  }
  return t
}

/** parseTimestamp without its shortcut: the reference the shortcut is tested against. */
export function parseAnyTimestamp(value: unknown): Timestamp {
  if (typeof value === 'number') return fromEpochMs(value)
  if (typeof value !== 'string') throw new TimestampError(`timestamp must be a string or epoch milliseconds, got ${typeName(value)}`)
  const text = value.trim()
  if (/^\d{12,16}(\.\d+)?$/.test(text)) return fromEpochMs(Number(text))
  const m = ISO.exec(text)
  if (!m) {
    if (SUFFIX_WITHOUT_OFFSET.test(text)) throw new TimestampError(`timestamp ${JSON.stringify(value.slice(0, 64))} gives a [zone] with no offset before it: RFC 9557 needs Z or an offset such as +02:00 before the [zone]`)
    throw new TimestampError(`unrecognised timestamp ${JSON.stringify(value.slice(0, 64))}`)
  }
  const [, y, mo, d, h, mi, s = '00', frac = '', offset, utc] = m as unknown as string[]
  const zone = offset ?? (utc ? 'Z' : undefined)
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

/**
 * `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`, the shape nearly every log writes, read by character codes
 * (the general path's regular expression, slices and number conversions cost microseconds a
 * record); undefined for anything else, a leap second or an impossible date included, which the
 * general path reads or refuses.
 */
function utcZulu(s: string): Timestamp | undefined {
  const n = s.length
  if (n < 20 || n > 30 || s.charCodeAt(n - 1) !== 90) return undefined // Z
  if (s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45 || s.charCodeAt(10) !== 84 || s.charCodeAt(13) !== 58 || s.charCodeAt(16) !== 58) return undefined
  const year = digitsAt(s, 0, 4), month = digitsAt(s, 5, 2), day = digitsAt(s, 8, 2)
  const hour = digitsAt(s, 11, 2), minute = digitsAt(s, 14, 2), second = digitsAt(s, 17, 2)
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return undefined
  let frac = ''
  if (n > 20) {
    if (s.charCodeAt(19) !== 46 || n === 21 || digitsAt(s, 20, n - 21) < 0) return undefined // .
    frac = s.slice(20, n - 1)
  }
  const wholeMs = utcMs(year, month - 1, day, hour, minute, second)
  const ms = wholeMs + (frac.length >= 3 ? digitsAt(frac, 0, 3) : frac ? Number((frac + '00').slice(0, 3)) : 0)
  return {iso: frac.length === 3 ? s : isoWithFraction(wholeMs, frac), ms}
}

/** The number the ASCII digits s[at, at + count) write, or -1 if any is not a digit. */
function digitsAt(s: string, at: number, count: number): number {
  let v = 0
  for (let i = at; i < at + count; i++) {
    const d = s.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    v = v * 10 + d
  }
  return v
}

function fromEpochMs(n: number): Timestamp {
  if (!Number.isFinite(n)) throw new TimestampError('timestamp is not a finite number')
  if (n < PLAUSIBLE_MS[0] && n >= 0) throw new TimestampError(implausibleEpoch(epochWhole(n), 'ms', 'epoch')!.text)
  if (n < 0) throw new TimestampError(`epoch ${n} is negative`)
  if (n > 8.64e15) throw new TimestampError(`epoch ${n} is out of range`)
  const ms = Math.floor(n)
  const sub = n - ms
  // Sub-millisecond epoch fractions (rare, but some exporters write them) are kept as digits.
  const subDigits = sub > 0 ? sub.toFixed(6).slice(2).replace(/0+$/, '') : ''
  const base = isoString(ms)
  return {iso: subDigits ? base.replace('Z', `${subDigits}Z`) : base, ms}
}

function isoWithFraction(wholeSecondMs: number, frac: string): string {
  const base = isoString(wholeSecondMs).slice(0, 19)
  const digits = frac.length <= 3 ? (frac + '000').slice(0, 3) : frac
  return `${base}.${digits}Z`
}

// Date arithmetic. Every timestamp of every record goes through here, and V8's Date setters and
// toISOString cost microseconds a call (a sixth of a markers-only parse): within years 0-9999
// the proleptic Gregorian calendar that Date implements is computed directly (H. Hinnant,
// "chrono-Compatible Low-Level Date Algorithms": days_from_civil, civil_from_days), and Date
// itself answers outside it. test/ingest/timestamps-arith.test.ts proves them equal to Date.

const DAY_MS = 86_400_000
/** 10000-01-01T00:00:00Z: toISOString writes six-digit signed years from here (and before year 0). */
const YEAR_10000_MS = 253_402_300_800_000
/** 0000-01-01T00:00:00Z */
const YEAR_0_MS = -62_167_219_200_000

/** `new Date(ms).toISOString()` */
export function isoString(ms: number): string {
  if (!(Number.isInteger(ms) && ms >= YEAR_0_MS && ms < YEAR_10000_MS)) return new Date(ms).toISOString()
  const days = Math.floor(ms / DAY_MS)
  const [y, m, d] = civilFromDays(days)
  let t = ms - days * DAY_MS
  const milli = t % 1000
  t = (t - milli) / 1000
  const sec = t % 60
  t = (t - sec) / 60
  const min = t % 60
  const hour = (t - min) / 60
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}T${pad(hour, 2)}:${pad(min, 2)}:${pad(sec, 2)}.${pad(milli, 3)}Z`
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}

/** Days since 1970-01-01 of a proleptic Gregorian date (month 1-12; any day, counted on from the month's first). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146_097 + doe - 719_468
}

/** The proleptic Gregorian [year, month 1-12, day] of a count of days since 1970-01-01. */
function civilFromDays(days: number): [number, number, number] {
  const z = days + 719_468
  const era = Math.floor(z / 146_097)
  const doe = z - era * 146_097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return [yoe + era * 400 + (month <= 2 ? 1 : 0), month, day]
}

/** Days in a month (1-12) of a proleptic Gregorian year. */
export function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

/**
 * Date.UTC for every year. Date.UTC (like the Date constructor) reads a year from 0 to 99 as
 * 1900-1999, so `0001-01-01` would become 1901; setUTCFullYear takes the year as given.
 * Arguments out of their ranges carry over as Date's do (month 12 is January of the next year,
 * day 0 the last of the month before).
 */
export function utcMs(year: number, monthIndex: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const small = (v: number): boolean => Number.isSafeInteger(v) && Math.abs(v) <= 100_000_000
  if (!(Number.isInteger(year) && year >= 0 && year <= 9999 && small(monthIndex) && small(day) && small(hour) && small(minute) && small(second) && small(ms))) {
    return utcMsByDate(year, monthIndex, day, hour, minute, second, ms)
  }
  const carry = Math.floor(monthIndex / 12)
  const t = daysFromCivil(year + carry, monthIndex - carry * 12 + 1, 1) * DAY_MS + (day - 1) * DAY_MS + hour * 3_600_000 + minute * 60_000 + second * 1000 + ms
  // Date's range (TimeClip): beyond it the arithmetic must not give a time Date would not (+ 0: never -0, as Date).
  return Math.abs(t) <= 8e15 ? t + 0 : utcMsByDate(year, monthIndex, day, hour, minute, second, ms)
}

/** utcMs through Date itself (the reference, and the answer outside utcMs's fast range). */
export function utcMsByDate(year: number, monthIndex: number, day: number, hour = 0, minute = 0, second = 0, ms = 0): number {
  const d = new Date(0)
  d.setUTCFullYear(year, monthIndex, day)
  d.setUTCHours(hour, minute, second, ms)
  return d.getTime()
}

function typeName(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v
}
