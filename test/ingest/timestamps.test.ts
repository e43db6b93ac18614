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
