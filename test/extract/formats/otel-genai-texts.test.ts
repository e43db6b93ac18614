import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions} from '../../../src/extract/formats/index.js'
import {UNDECODED_BYTES, type AdaptResult} from '../../../src/extract/formats/types.js'
import {decode} from './run-adapter.js'

// Every text the GenAI conventions give for one call is read: a span's own attributes, its span
// events and the companion log records of the span. Before, the first form found won, so a
// gen_ai.choice log record (the whole answer, where the span attribute was cut at
// OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT) was dropped without a word, and the message events written
// as span events (gen_ai.choice with index/message attributes; Azure AI Inference's
// gen_ai.event.content) were not read at all.

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string | number): Attr => ({key, value: typeof v === 'number' ? {intValue: String(v)} : {stringValue: v}})
const TRACE = '7690723d864da13b936d1bcd6697db0c'
const SPAN = '09fe69716e6acbc5'
const LEAK = 'CANARY-abb2946b4efda5df0cadf4a29595d1'

interface SpanEvent {
  name: string
  attributes: Attr[]
}

function traces(attributes: Attr[], events: SpanEvent[] = []): unknown {
  const span = {
    traceId: TRACE, spanId: SPAN, parentSpanId: '', kind: 3, name: 'chat m',
    startTimeUnixNano: '1793539442363394714', endTimeUnixNano: '1793539443263394714',
    attributes: [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('session.id', 'sess-b'), ...attributes],
    events: events.map((e) => ({timeUnixNano: '1793539443263394714', ...e})),
    status: {code: 1},
  }
  return {resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tn-beta')]}, scopeSpans: [{scope: {name: 'app'}, spans: [span]}]}]}
}

/** A gen_ai.choice log record of the span, as opentelemetry-instrumentation-openai-v2 writes it. */
function choiceLog(content: string): unknown {
  const body = {kvlistValue: {values: [
    {key: 'index', value: {intValue: '0'}},
    {key: 'finish_reason', value: {stringValue: 'stop'}},
    {key: 'message', value: {kvlistValue: {values: [{key: 'role', value: {stringValue: 'assistant'}}, {key: 'content', value: {stringValue: content}}]}}},
  ]}}
  return {resourceLogs: [{resource: {attributes: []}, scopeLogs: [{scope: {name: 'opentelemetry.instrumentation.openai_v2'}, logRecords: [{
    timeUnixNano: '1793539443263615108', traceId: TRACE, spanId: SPAN, eventName: 'gen_ai.choice',
    attributes: [kv('event.name', 'gen_ai.choice'), kv('gen_ai.system', 'openai')], body,
  }]}]}]}
}

/** The otel adapter over the given lines, as ingest runs it: every line offered to the index first. */
function adapt(...lines: unknown[]): AdaptResult {
  const adapter = adapterFor('otel')
  const options = resolveFormatOptions()
  const index = adapter.newIndex(options)!
  lines.forEach((l, i) => index.add(l, {file: 'f', line: i + 1}))
  const out: AdaptResult = {records: [], problems: [], ignored: 0}
  lines.forEach((l, i) => {
    const r = adapter.adapt(l, {options, index, at: {file: 'f', line: i + 1}})
    out.records.push(...r.records)
    out.problems.push(...r.problems)
    out.ignored += r.ignored
    for (const [k, n] of Object.entries(r.unread ?? {})) (out.unread ??= {})[k] = (out.unread[k] ?? 0) + n
  })
  return out
}

function only(r: AdaptResult): {request: string | null; response: string | null} {
  expect(r.problems).toEqual([])
  expect(r.records).toHaveLength(1)
  const {row, bad} = decode(r.records[0]!.record)
  expect(bad).toBeNull()
  return {request: row!.request_text, response: row!.response_text}
}

const count = (text: string | null, what: string): number => (text ?? '').split(what).length - 1

describe('otel adapter: a span\'s GenAI texts and its log records', () => {
  it('reads the gen_ai.choice log record of a span that carries its own completion text', () => {
    const span = traces([kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', 'All done.')])
    const t = only(adapt(span, choiceLog(`In with during ${LEAK} they not explain`)))
    expect(t.response).toContain('All done.')
    expect(t.response).toContain(LEAK)
  })

  it('reads the whole text of the log record where the span attribute was cut short', () => {
    const full = `Good question, here are the steps. ${'word '.repeat(40)}${LEAK} end`
    const span = traces([kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', full.slice(0, 64))])
    const t = only(adapt(span, choiceLog(full)))
    expect(count(t.response, LEAK)).toBe(1)
  })

  it('keeps a text the span and its log record both give once', () => {
    const text = `answer ${LEAK}`
    const span = traces([kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', text)])
    const t = only(adapt(span, choiceLog(text)))
    expect(t.response).toBe(text)
  })

  it('reads a completion span event beside a completion attribute that differs from it', () => {
    const span = traces([kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', `attr ${LEAK}`)], [
      {name: 'gen_ai.content.completion', attributes: [kv('gen_ai.completion', 'event text')]},
    ])
    const t = only(adapt(span))
    expect(t.response).toContain(LEAK)
    expect(t.response).toContain('event text')
  })
})

describe('otel adapter: GenAI message events written as span events', () => {
  it('reads gen_ai.choice span events with index / finish_reason / message attributes, every choice', () => {
    const choice = (index: number, content: string): SpanEvent => ({name: 'gen_ai.choice', attributes: [
      kv('gen_ai.system', 'openai'), kv('index', index), kv('finish_reason', 'stop'), kv('message', JSON.stringify({role: 'assistant', content})),
    ]})
    const t = only(adapt(traces([kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', 'hello')], [choice(1, `second ${LEAK}`), choice(0, 'All done.')])))
    expect(t.response).toContain('All done.')
    expect(t.response).toContain(`second ${LEAK}`)
    expect(t.response!.indexOf('All done.')).toBeLessThan(t.response!.indexOf('second'))
  })

  it("reads Azure AI Inference's gen_ai.event.content: prompt parts into the request, the choice into the response", () => {
    const event = (name: string, body: unknown): SpanEvent => ({name, attributes: [kv('gen_ai.system', 'az.ai.inference'), kv('gen_ai.event.content', JSON.stringify(body))]})
    const t = only(adapt(traces([], [
      event('gen_ai.system.message', {role: 'system', content: 'be brief'}),
      event('gen_ai.user.message', {role: 'user', content: 'my reference is ZEBRA-RIVET-7229'}),
      event('gen_ai.choice', {message: {content: `noted ZEBRA-RIVET-7229 and ${LEAK}`}, finish_reason: 'stop', index: 0}),
    ])))
    expect(t.request).toContain('be brief')
    expect(t.request).toContain('my reference is ZEBRA-RIVET-7229')
    expect(t.request).not.toContain(LEAK)
    expect(t.response).toContain(LEAK)
  })

  it('reads prompt span events beside completion attributes, so an echo of the prompt is in the request', () => {
    const t = only(adapt(traces([kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', 'The reference ZEBRA-RIVET-7229 is noted.')], [
      {name: 'gen_ai.user.message', attributes: [kv('gen_ai.event.content', JSON.stringify({role: 'user', content: 'Could you file ZEBRA-RIVET-7229?'}))]},
    ])))
    expect(t.request).toContain('Could you file ZEBRA-RIVET-7229?')
    expect(t.response).toContain('ZEBRA-RIVET-7229 is noted')
  })
})

describe('otel adapter: texts given as OTLP bytesValue', () => {
  const bytes = (key: string, data: Buffer | string): Attr => ({key, value: {bytesValue: Buffer.from(data).toString('base64')}})

  it('reads a bytesValue that is UTF-8 text as that text, never as its base64', () => {
    const r = adapt(traces([kv('gen_ai.completion.0.role', 'assistant'), bytes('gen_ai.completion.0.content', `In with ${LEAK} during`)]))
    expect(only(r).response).toBe(`In with ${LEAK} during`)
    expect(r.unread).toBeUndefined()
  })

  it('counts a call whose text is bytes that are no UTF-8 text as not read whole, with a note naming where, and reads none of it as text', () => {
    const binary = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10])
    const r = adapt(traces([kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', 'hello'), kv('gen_ai.completion.0.role', 'assistant'), bytes('gen_ai.completion.0.content', binary)]))
    const t = only(r)
    expect(t.response ?? '').not.toContain(binary.toString('base64'))
    expect(r.unread).toEqual({[UNDECODED_BYTES]: 1})
    expect(r.records[0]!.notes).toContain('model text given as an OTLP bytesValue that is not UTF-8 text (binary data), not read: gen_ai.completion.0.content')
  })

  it('counts such bytes in a span event or a companion log record too', () => {
    const event = adapt(traces([kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', 'ok')], [
      {name: 'gen_ai.choice', attributes: [kv('index', 0), bytes('message', Buffer.from([0x80, 0x81]))]},
    ]))
    expect(event.unread).toEqual({[UNDECODED_BYTES]: 1})
    const log = choiceLog('x') as {resourceLogs: Array<{scopeLogs: Array<{logRecords: Array<Record<string, unknown>>}>}>}
    log.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.body = {bytesValue: Buffer.from([0xfe, 0xff]).toString('base64')}
    const logged = adapt(traces([kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', 'ok')]), log)
    expect(logged.unread).toEqual({[UNDECODED_BYTES]: 1})
    expect(logged.records[0]!.notes.join(' ')).toMatch(/not read: log record gen_ai\.choice/)
  })

  it('does not count bytes that are no text in an attribute that holds no model text', () => {
    const r = adapt(traces([kv('gen_ai.completion.0.content', 'ok'), bytes('app.request.digest', Buffer.from([0xff, 0x00, 0x12]))]))
    expect(r.unread).toBeUndefined()
  })
})
