import {describe, expect, it} from 'vitest'
import {parseTimestamp} from '../../src/util/timestamps.js'

describe('parseTimestamp', () => {
  it('reads ISO with Z and keeps milliseconds', () => {
    expect(parseTimestamp('2026-11-02T06:48:30.289Z')).toEqual({iso: '2026-11-02T06:48:30.289Z', ms: Date.parse('2026-11-02T06:48:30.289Z')})
  })
  it('converts an offset to UTC', () => {
    expect(parseTimestamp('2026-10-23T10:00:00+02:00').iso).toBe('2026-10-23T08:00:00.000Z')
    expect(parseTimestamp('2026-10-23T10:00:00-0530').iso).toBe('2026-10-23T15:30:00.000Z')
  })
  it('keeps microseconds from Langfuse zone-less timestamps, read as UTC', () => {
    const t = parseTimestamp('2026-11-02 06:48:30.289123')
    expect(t.iso).toBe('2026-11-02T06:48:30.289123Z')
    expect(t.ms).toBe(Date.parse('2026-11-02T06:48:30.289Z'))
  })
  it('reads epoch milliseconds', () => {
    expect(parseTimestamp(1793608110289).iso).toBe(new Date(1793608110289).toISOString())
  })
  it('rejects epoch seconds, impossible dates and garbage', () => {
    expect(() => parseTimestamp(1793608110)).toThrow(/seconds/)
    expect(() => parseTimestamp('2026-02-30T00:00:00Z')).toThrow(/impossible/)
    expect(() => parseTimestamp('yesterday')).toThrow(/unrecognised/)
    expect(() => parseTimestamp(null)).toThrow()
  })
})

// RFC 3339 §5.6 lets 'T' and 'Z' be lower case; ` UTC` (BigQuery's TIMESTAMP text) names the zone;
// an RFC 9557 [suffix] after an offset annotates the time, the offset fixing the instant.
describe('parseTimestamp: the other ways a time states its zone', () => {
  it('reads a lower-case t and z as their upper-case forms', () => {
    expect(parseTimestamp('2026-10-25t00:30:00z').iso).toBe('2026-10-25T00:30:00.000Z')
    expect(parseTimestamp('2026-10-25t01:30:00.123+01:00').iso).toBe('2026-10-25T00:30:00.123Z')
  })
  it('reads "YYYY-MM-DD HH:MM:SS[.f] UTC" as UTC, keeping every fractional digit', () => {
    expect(parseTimestamp('2026-10-25 00:30:00.123456 UTC').iso).toBe('2026-10-25T00:30:00.123456Z')
    expect(parseTimestamp('2026-10-25 01:30:00 UTC').iso).toBe('2026-10-25T01:30:00.000Z')
  })
  it('reads an RFC 9557 suffix after an offset by the offset, and names the cause where no offset precedes it', () => {
    expect(parseTimestamp('2026-10-24T09:30:00+02:00[Europe/Paris]').iso).toBe('2026-10-24T07:30:00.000Z')
    expect(parseTimestamp('2026-10-24T07:30:00Z[!u-ca=iso8601][Europe/Paris]').iso).toBe('2026-10-24T07:30:00.000Z')
    expect(() => parseTimestamp('2026-10-24T07:30:00[Europe/Paris]')).toThrow(/\[zone\] with no offset before it/)
    expect(() => parseTimestamp('2026-10-24T07:30:00+02:00[]')).toThrow(/unrecognised/)
  })
})

describe('zone-less times', () => {
  it('a lower-case t without a zone is zone-less (read with --assume-tz); one ending UTC or with a suffix after an offset is not', async () => {
    const {isZoneless} = await import('../../src/extract/timestamps-zone.js')
    expect(isZoneless('2026-10-25t00:30:00')).toBe(true)
    expect(isZoneless('2026-10-25 00:30:00.123456 UTC')).toBe(false)
    expect(isZoneless('2026-10-25T00:30:00+01:00[Europe/Paris]')).toBe(false)
  })
})
