import {InputError, UsageError} from '../errors.js'
import {parseTimestamp, TimestampError} from '../util/timestamps.js'
import {quoted} from '../util/sanitize.js'
import {isZoneless} from '../extract/timestamps-zone.js'

/** The forms of a time with its zone that every --*-at flag reads (util/timestamps.ts). */
export const READ_FORMS = 'give ISO 8601 / RFC 3339 with Z or an offset (2026-11-03T09:00:00Z, 2026-11-03T10:00:00+01:00, optionally followed by an RFC 9557 [zone]) or 2026-11-03 09:00:00 UTC'

/**
 * A moment the user types (awareness, notification time). Unlike log timestamps, a
 * zone-less value is refused: "10:00" in which zone is exactly the ambiguity that moves
 * a statutory deadline by hours.
 */
export function parseInstant(value: string, what: string, given: 'flag' | 'data' = 'flag'): Date {
  // A flag's bad value is a usage error (exit 2, as oclif's own); a time read from the case is bad input (exit 1).
  const Refusal = given === 'flag' ? UsageError : InputError
  const text = value.trim()
  // Only a date and time can lack a zone: anything else is not a timestamp at all (epoch numbers included).
  if (!/^[+-]?\d{4,6}-\d{2}-\d{2}/.test(text)) {
    throw new Refusal(`${what}: ${quoted(value)} is not a timestamp; give a date and time with its zone (ISO 8601), e.g. 2026-11-03T09:00:00Z or 2026-11-03T10:00:00+01:00`)
  }
  // Only a date and time that names no zone at all is called zone-less (not one with a zone this does not read).
  if (isZoneless(text)) {
    throw new Refusal(`${what}: ${quoted(value)} has no time zone; add Z or an offset such as +02:00`)
  }
  try {
    return new Date(parseTimestamp(text).ms)
  } catch (error) {
    if (!(error instanceof TimestampError)) throw error
    if (/^unrecognised timestamp/.test(error.message)) throw new Refusal(`${what}: ${quoted(value)} is not a time in a form crosstalk reads; ${READ_FORMS}`)
    throw new Refusal(`${what}: ${error.message}`)
  }
}

/** Throws a usage error (exit 2) for a zone Intl does not know. */
export function checkTimeZone(tz: string): string {
  try {
    new Intl.DateTimeFormat('en-GB', {timeZone: tz})
  } catch {
    throw new UsageError(`--tz: unknown time zone ${quoted(tz)} (use an IANA name such as Europe/Dublin)`)
  }
  return tz
}

/**
 * The system's zone, for local renderings; UTC where it has none Intl can use. `TZ=` (set but
 * empty, as containers often have it) resolves to ICU's "Etc/Unknown", which is truthy but no
 * zone: it falls back to UTC as glibc reads it, like any other zone Intl does not know.
 */
export function systemTimeZone(): string {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone
  if (!tz || tz === 'Etc/Unknown') return 'UTC'
  try {
    new Intl.DateTimeFormat('en-GB', {timeZone: tz})
    return tz
  } catch {
    return 'UTC'
  }
}

/** `2026-10-26 09:00:00 GMT+1` in the given zone (wall clock, with the offset in force then). */
export function formatInZone(date: Date, tz: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: tz,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'shortOffset',
  }).formatToParts(date)
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? ''
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}:${get('second')} ${get('timeZoneName')} (${tz})`
}

/** 75600 -> "21h 00m 00s"; negative values are rendered as "overdue by ...". */
export function formatDuration(seconds: number): string {
  const abs = Math.abs(Math.trunc(seconds))
  const h = Math.floor(abs / 3600)
  const m = Math.floor((abs % 3600) / 60)
  const s = abs % 60
  const text = `${h}h ${String(m).padStart(2, '0')}m ${String(s).padStart(2, '0')}s`
  return seconds < 0 ? `overdue by ${text}` : text
}

/**
 * A window's bounds to the minute, for a letter to people: the start cut down and the end
 * rounded up, so the window said always holds every answer in it (an end at 04:46:59 read
 * "04:46", a minute before the last answer). ISO in, "YYYY-MM-DD HH:MM" (UTC) out.
 */
export function minuteDown(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ')
}

export function minuteUp(iso: string): string {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms) || ms % 60_000 === 0) return minuteDown(iso)
  return minuteDown(new Date(Math.ceil(ms / 60_000) * 60_000).toISOString())
}
