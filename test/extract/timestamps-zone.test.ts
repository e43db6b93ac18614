import {describe, expect, it} from 'vitest'
import {
  isZoneless,
  parseAssumeTz,
  resolveZoneless,
  wallTimeToInstant,
  zonelessWallTime,
  ZoneError,
  zoneOffsetMinutes,
} from '../../src/extract/timestamps-zone.js'

const berlin = parseAssumeTz('Europe/Berlin')
const at = (text: string, zone = berlin, d: 'reject' | 'earlier' | 'later' = 'reject') => resolveZoneless(text, zone, d)

describe('zone-less detection', () => {
  it('tells zone-less ISO date-times from zoned ones and from everything else', () => {
    expect(isZoneless('2026-10-30 00:39:11.950567')).toBe(true)
    expect(isZoneless('2026-10-30T00:39:11')).toBe(true)
    expect(isZoneless('2026-10-30T00:39')).toBe(true)
    expect(isZoneless('2026-10-30T00:39:11Z')).toBe(false)
    expect(isZoneless('2026-10-30T00:39:11+02:00')).toBe(false)
    expect(isZoneless('2026-10-30T00:39:11.1-0530')).toBe(false)
    expect(isZoneless(1793320751950)).toBe(false)
    expect(isZoneless('1793320751950')).toBe(false)
    expect(isZoneless('yesterday')).toBe(false)
    expect(zonelessWallTime('2026-10-30 00:39:11.950567')).toEqual({year: 2026, month: 10, day: 30, hour: 0, minute: 39, second: 11, fraction: '950567'})
  })
})

describe('--assume-tz', () => {
  it('takes IANA names and fixed offsets', () => {
    expect(parseAssumeTz('Europe/Berlin')).toEqual({kind: 'iana', name: 'Europe/Berlin', label: 'Europe/Berlin'})
    expect(parseAssumeTz('UTC').kind).toBe('iana')
    expect(parseAssumeTz('+02:00')).toEqual({kind: 'fixed', offsetMinutes: 120, label: '+02:00'})
    expect(parseAssumeTz('-0530')).toEqual({kind: 'fixed', offsetMinutes: -330, label: '-05:30'})
    expect(parseAssumeTz('Z')).toEqual({kind: 'fixed', offsetMinutes: 0, label: '+00:00'})
  })
  it('refuses anything else in one line', () => {
    expect(() => parseAssumeTz('Mars/Olympus')).toThrow(ZoneError)
    expect(() => parseAssumeTz('Mars/Olympus')).toThrow(/^--assume-tz Mars\/Olympus: not an IANA time zone/)
    expect(() => parseAssumeTz('+25:00')).toThrow(/out of range/)
  })
})

describe('resolveZoneless', () => {
  it('refuses a zone-less value without --assume-tz, naming the flag', () => {
    const r = resolveZoneless('2026-10-30 00:39:11', null)
    expect(r.ok).toBe(false)
    expect(!r.ok && r.reason).toMatch(/has no zone; give --assume-tz ZONE/)
  })
  it('passes zoned values and epoch numbers through untouched', () => {
    expect(resolveZoneless('2026-10-30T00:39:11+02:00', null)).toEqual({ok: true, value: '2026-10-30T00:39:11+02:00', assumed: false})
    expect(resolveZoneless(1793320751950, null)).toEqual({ok: true, value: 1793320751950, assumed: false})
  })
  it('applies a fixed offset and keeps every fractional digit', () => {
    expect(resolveZoneless('2026-10-30 02:39:11.950567', parseAssumeTz('+02:00'))).toEqual({ok: true, value: '2026-10-30T00:39:11.950567Z', assumed: true})
    expect(resolveZoneless('2026-10-30T00:39', parseAssumeTz('UTC'))).toEqual({ok: true, value: '2026-10-30T00:39:00.000Z', assumed: true})
  })

  // Europe/Berlin: CET (+01:00) until 2026-03-29 02:00 local, then CEST (+02:00) until
  // 2026-10-25 03:00 local, when 02:00-02:59 happens a second time in CET.
  it('uses the offset in force on each side of the spring change', () => {
    expect(at('2026-03-29 01:59:59.5')).toEqual({ok: true, value: '2026-03-29T00:59:59.500Z', assumed: true})
    expect(at('2026-03-29 03:00:00')).toEqual({ok: true, value: '2026-03-29T01:00:00.000Z', assumed: true})
    // One elapsed second apart on the wall clock's two sides of the jump:
    const before = Date.parse((at('2026-03-29 01:59:59') as {value: string}).value)
    const after = Date.parse((at('2026-03-29 03:00:00') as {value: string}).value)
    expect(after - before).toBe(1000)
  })
  it('refuses a wall time the spring change skipped', () => {
    const r = at('2026-03-29 02:30:00')
    expect(r.ok).toBe(false)
    expect(!r.ok && r.reason).toMatch(/does not exist in Europe\/Berlin/)
  })
  it('refuses an autumn wall time that happened twice, unless told which', () => {
    const r = at('2026-10-25 02:30:00')
    expect(r.ok).toBe(false)
    expect(!r.ok && r.reason).toMatch(/happened twice in Europe\/Berlin \(2026-10-25T00:30:00.000Z or 2026-10-25T01:30:00.000Z\)/)
    expect(at('2026-10-25 02:30:00', berlin, 'earlier')).toEqual({ok: true, value: '2026-10-25T00:30:00.000Z', assumed: true})
    expect(at('2026-10-25 02:30:00', berlin, 'later')).toEqual({ok: true, value: '2026-10-25T01:30:00.000Z', assumed: true})
    // Outside the repeated hour there is one answer, on the right side of the change.
    expect(at('2026-10-25 01:59:00')).toEqual({ok: true, value: '2026-10-24T23:59:00.000Z', assumed: true})
    expect(at('2026-10-25 03:00:00')).toEqual({ok: true, value: '2026-10-25T02:00:00.000Z', assumed: true})
  })
  it('handles a zone west of UTC and its own change dates', () => {
    const ny = parseAssumeTz('America/New_York')
    expect(at('2026-03-08 01:30:00', ny)).toEqual({ok: true, value: '2026-03-08T06:30:00.000Z', assumed: true})
    expect(at('2026-03-08 03:30:00', ny)).toEqual({ok: true, value: '2026-03-08T07:30:00.000Z', assumed: true})
    expect(at('2026-03-08 02:30:00', ny).ok).toBe(false)
    // Berlin has not changed yet on the day New York does.
    expect(at('2026-03-08 02:30:00')).toEqual({ok: true, value: '2026-03-08T01:30:00.000Z', assumed: true})
  })
  it('looks offsets up per instant', () => {
    expect(zoneOffsetMinutes('Europe/Berlin', Date.parse('2026-01-15T12:00:00Z'))).toBe(60)
    expect(zoneOffsetMinutes('Europe/Berlin', Date.parse('2026-07-15T12:00:00Z'))).toBe(120)
    expect(zoneOffsetMinutes('Asia/Kolkata', Date.parse('2026-07-15T12:00:00Z'))).toBe(330)
    expect(wallTimeToInstant({year: 2026, month: 7, day: 15, hour: 14, minute: 0, second: 0, fraction: ''}, berlin)).toEqual({
      ok: true,
      ms: Date.parse('2026-07-15T12:00:00Z'),
      offsetMinutes: 120,
    })
  })
})
