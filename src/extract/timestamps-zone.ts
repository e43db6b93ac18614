import {daysIn, utcMs} from '../util/timestamps.js'

// Zone-less timestamps. `2026-10-30 00:39:11` means nothing until someone says where the
// clock hung: LiteLLM's spend logs come out of a `timestamp without time zone` column, and
// plenty of gateways log local wall time. Reading such a value as UTC moves every event by the
// zone's offset without a word, so a zone-less value is refused unless the user names the zone
// (`--assume-tz Europe/Berlin` or `--assume-tz +02:00`), and the conversion is then done per
// instant: the offset of an IANA zone is looked up for that date (Intl), so a log that spans a
// daylight-saving change is converted right on both sides of it. A wall time that does not
// exist (the hour skipped in spring) or exists twice (the hour repeated in autumn) is refused
// by default: guessing would put an event an hour off in evidence.

export type AssumedZone = {kind: 'fixed'; offsetMinutes: number; label: string} | {kind: 'iana'; name: string; label: string}

export type Disambiguation = 'reject' | 'earlier' | 'later'

export class ZoneError extends Error {}

/**
 * Date and time with a T (or RFC 3339's lower-case t) or a space, optional seconds and fraction,
 * optional zone: Z, an offset (either with an RFC 9557 [suffix] after it), or ` UTC`
 * (util/timestamps.ts reads the same shapes).
 */
const ISO_LIKE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*((?:Z|z|[+-]\d{2}(?::?\d{2})?)(?:\[!?[A-Za-z0-9_+\-./=]{1,64}\])*|UTC)?$/

export interface WallTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  /** Fraction-of-second digits exactly as written ('' when none). */
  fraction: string
}

/** A zone-less ISO-like date-time, parsed; null for anything else (zoned, epoch numbers, garbage). */
export function zonelessWallTime(value: unknown): WallTime | null {
  if (typeof value !== 'string') return null
  const m = ISO_LIKE.exec(value.trim())
  if (!m || m[8] !== undefined) return null
  return {
    year: Number(m[1]),
    month: Number(m[2]),
    day: Number(m[3]),
    hour: Number(m[4]),
    minute: Number(m[5]),
    second: Number(m[6] ?? '0'),
    fraction: m[7] ?? '',
  }
}

/** True for an ISO-like date-time string that carries no `Z` and no offset. */
export function isZoneless(value: unknown): boolean {
  return zonelessWallTime(value) !== null
}

/** `--assume-tz` value: an IANA zone name (`Europe/Berlin`, `UTC`) or a fixed offset `±HH:MM` / `Z`. */
export function parseAssumeTz(spec: string): AssumedZone {
  const text = spec.trim()
  if (text === 'Z' || text === 'z') return {kind: 'fixed', offsetMinutes: 0, label: '+00:00'}
  const off = /^([+-])(\d{2}):?(\d{2})$/.exec(text)
  if (off) {
    const hours = Number(off[2])
    const minutes = Number(off[3])
    if (hours > 18 || minutes > 59) throw new ZoneError(`--assume-tz ${text}: offset out of range (at most ±18:00)`)
    const sign = off[1] === '-' ? -1 : 1
    return {kind: 'fixed', offsetMinutes: sign * (hours * 60 + minutes), label: `${off[1]}${off[2]}:${off[3]}`}
  }
  try {
    const name = new Intl.DateTimeFormat('en-US', {timeZone: text}).resolvedOptions().timeZone
    return {kind: 'iana', name, label: name}
  } catch {
    throw new ZoneError(`--assume-tz ${oneLine(text)}: not an IANA time zone (e.g. Europe/Berlin, UTC) or an offset like +02:00`)
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>()

/** Offset of an IANA zone from UTC, in minutes, at the instant `ms`. */
export function zoneOffsetMinutes(zone: string, ms: number): number {
  let f = formatters.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(zone, f)
  }
  const parts: Record<string, number> = {}
  for (const p of f.formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value)
  const wall = utcMs(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!)
  const whole = ms - (((ms % 1000) + 1000) % 1000)
  return Math.round((wall - whole) / 60_000)
}

export type ZonedInstant = {ok: true; ms: number; offsetMinutes: number} | {ok: false; reason: string}

/**
 * The UTC instant of a wall-clock time in a zone. Every offset the zone uses within a day of
 * the wall time is tried; the wall time is valid for those offsets that map back onto it. None:
 * the time was skipped (spring forward); two: it happened twice (autumn), and `disambiguation`
 * decides (`reject` by default).
 */
export function wallTimeToInstant(wall: WallTime, zone: AssumedZone, disambiguation: Disambiguation = 'reject'): ZonedInstant {
  const asUtc = utcMs(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, Math.min(wall.second, 59))
  if (zone.kind === 'fixed') return {ok: true, ms: asUtc - zone.offsetMinutes * 60_000, offsetMinutes: zone.offsetMinutes}
  const offsets = new Set<number>()
  for (const probe of [-36, -12, 0, 12, 36]) offsets.add(zoneOffsetMinutes(zone.name, asUtc + probe * 3_600_000))
  const valid = [...offsets]
    .filter((off) => zoneOffsetMinutes(zone.name, asUtc - off * 60_000) === off)
    .map((off) => ({ms: asUtc - off * 60_000, offsetMinutes: off}))
    .sort((a, b) => a.ms - b.ms)
  const text = formatWall(wall)
  if (valid.length === 0) return {ok: false, reason: `${text} does not exist in ${zone.name} (the clocks skipped it)`}
  if (valid.length > 1) {
    if (disambiguation === 'reject') {
      const options = valid.map((v) => new Date(v.ms).toISOString()).join(' or ')
      return {ok: false, reason: `${text} happened twice in ${zone.name} (${options}); the log does not say which: if every such time in the file is the first pass of that hour, give --assume-tz-ambiguous earlier (the second: later)`}
    }
    const pick = disambiguation === 'earlier' ? valid[0]! : valid[valid.length - 1]!
    return {ok: true, ...pick}
  }
  return {ok: true, ...valid[0]!}
}

export type ResolvedTimestamp = {ok: true; value: unknown; assumed: boolean} | {ok: false; reason: string}

/**
 * What the pipeline does with a record's `ts` before parsing it: a value with a zone (or an
 * epoch number) passes unchanged; a zone-less one is refused without `assumeTz`, and with it is
 * rewritten as UTC ISO keeping every fractional digit written.
 */
export function resolveZoneless(value: unknown, assumeTz: AssumedZone | null, disambiguation: Disambiguation = 'reject'): ResolvedTimestamp {
  const wall = zonelessWallTime(value)
  if (wall === null) return {ok: true, value, assumed: false}
  if (assumeTz === null) {
    return {ok: false, reason: `timestamp ${JSON.stringify(String(value).slice(0, 40))} has no zone; give --assume-tz ZONE (an IANA name such as Europe/Berlin or UTC, or an offset such as +02:00)`}
  }
  // A wall time no clock shows (February 30, 24:30, 10:99) is refused as a zoned one is, never carried over into the next day or hour.
  if (wall.month < 1 || wall.month > 12 || wall.day < 1 || wall.day > daysIn(wall.year, wall.month) || wall.hour > 23 || wall.minute > 59 || wall.second > 60) {
    return {ok: false, reason: `impossible date or time ${JSON.stringify(String(value).trim().slice(0, 40))}`}
  }
  const instant = wallTimeToInstant(wall, assumeTz, disambiguation)
  if (!instant.ok) return instant
  const base = new Date(instant.ms).toISOString().slice(0, 19)
  // A leap second (:60) is folded onto :59.999, as a zoned one is (util/timestamps.ts).
  const fraction = wall.second === 60 ? '999' : wall.fraction.length <= 3 ? (wall.fraction + '000').slice(0, 3) : wall.fraction
  return {ok: true, value: `${base}.${fraction}Z`, assumed: true}
}

function formatWall(w: WallTime): string {
  const p = (n: number, width = 2) => String(n).padStart(width, '0')
  return `${p(w.year, 4)}-${p(w.month)}-${p(w.day)} ${p(w.hour)}:${p(w.minute)}:${p(w.second)}${w.fraction ? `.${w.fraction}` : ''}`
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, ' ').slice(0, 80)
}
