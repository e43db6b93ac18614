import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions, type FormatOptionsInput} from '../../../src/extract/formats/index.js'
import type {AdaptResult} from '../../../src/extract/formats/types.js'
import {parseFieldMap} from '../../../src/extract/field-path.js'

// OTLP writes times as nanoseconds. A hand-rolled exporter that wrote Date.now() milliseconds
// gave a span read as a time in January 1970, without a word, and scope's first_seen and bug
// window then began in 1970. Such a value is no time: the span's other time stands in, said in
// a note, or the item is refused, its reason naming the unit the value reads right in.

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})
const TRACE = '7690723d864da13b936d1bcd6697db0c'

function span(start: string | number | undefined, end: string | number | undefined): unknown {
  return {resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tn-a')]}, scopeSpans: [{scope: {name: 'app'}, spans: [{
    traceId: TRACE, spanId: '09fe69716e6acbc5', kind: 3, name: 'chat m',
    ...(start === undefined ? {} : {startTimeUnixNano: start}), ...(end === undefined ? {} : {endTimeUnixNano: end}),
    attributes: [kv('gen_ai.operation.name', 'chat'), kv('session.id', 's'), kv('gen_ai.completion.0.content', 'ok')],
  }]}]}]}
}

function logRecord(time: string): unknown {
  return {resourceLogs: [{resource: {attributes: [kv('tenant.id', 'tn-a'), kv('session.id', 's')]}, scopeLogs: [{scope: {name: 'x'}, logRecords: [{
    timeUnixNano: time, traceId: TRACE, spanId: '00000000000000b1', eventName: 'gen_ai.choice',
    attributes: [kv('event.name', 'gen_ai.choice')], body: {kvlistValue: {values: [{key: 'message', value: {kvlistValue: {values: [{key: 'content', value: {stringValue: 'ok'}}]}}}]}},
  }]}]}]}
}

function adapt(line: unknown, input: FormatOptionsInput = {}): AdaptResult {
  const adapter = adapterFor('otel')
  const options = resolveFormatOptions(input)
  const index = adapter.newIndex(options)!
  index.add(line, {file: 'f', line: 1})
  return adapter.adapt(line, {options, index, at: {file: 'f', line: 1}})
}

const NS = '1793539442363394714' // 2026-11-01T13:24:02.363394714Z
const MS = '1793539443263' // 2026-11-01T13:24:03.263Z, in milliseconds

describe('otel adapter: *UnixNano values that cannot be nanoseconds', () => {
  it('reads nanoseconds, as strings or numbers, as they are', () => {
    expect(adapt(span(NS, '1793539443263394714')).records[0]!.record.ts).toBe('2026-11-01T13:24:03.263394714Z')
    expect(adapt(span(undefined, 1793539443263000000)).records[0]!.record.ts).toMatch(/^2026-11-01T13:24:03\.263/)
  })

  it('takes the start time, with a note, where the end time is milliseconds', () => {
    const r = adapt(span(NS, MS))
    expect(r.problems).toEqual([])
    expect(r.records[0]!.record.ts).toBe('2026-11-01T13:24:02.363394714Z')
    expect(r.records[0]!.notes).toContain('ts from startTimeUnixNano: endTimeUnixNano is not nanoseconds of a plausible time (it reads as milliseconds)')
  })

  it('refuses the item where no time of the span is nanoseconds, naming the unit and the --map that reads it', () => {
    const r = adapt(span(undefined, MS))
    expect(r.records).toEqual([])
    expect(r.problems).toEqual([{item: 0, reason: 'bad ts: endTimeUnixNano 1793539443263 is not nanoseconds of a plausible time (read so, it is 1970-01-01T00:29:53.539443263Z, before 2000): it reads as milliseconds (2026-11-01T13:24:03.263Z), which OTLP never writes; --map ts=epoch_ms:span.endTimeUnixNano reads it so'}])
    const s = adapt(span('1793539442', '1793539443'))
    expect(s.problems[0]!.reason).toMatch(/^bad ts: endTimeUnixNano 1793539443 is not nanoseconds .*: it reads as seconds \(2026-11-01T13:24:03\.000Z\)/)
    const odd = adapt(span(undefined, '12345'))
    expect(odd.problems[0]!.reason).toMatch(/^bad ts: endTimeUnixNano 12345 is not nanoseconds of a plausible time \(read so, it is 1970-01-01T00:00:00\.000012345Z, before 2000\), nor seconds, milliseconds or microseconds of one$/)
  })

  it('reads the time as --map ts says, where one is given', () => {
    const r = adapt(span(undefined, MS), {map: parseFieldMap(['ts=epoch_ms:span.endTimeUnixNano'])})
    expect(r.problems).toEqual([])
    expect(r.records[0]!.record.ts).toBe('2026-11-01T13:24:03.263Z')
  })

  it('refuses log records read alone whose timeUnixNano is milliseconds', () => {
    const r = adapt(logRecord(MS))
    expect(r.records).toEqual([])
    expect(r.problems[0]!.reason).toMatch(/^bad ts: timeUnixNano 1793539443263 is not nanoseconds of a plausible time .*it reads as milliseconds/)
    expect(adapt(logRecord(NS)).records[0]!.record.ts).toBe('2026-11-01T13:24:02.363394714Z')
  })
})
