import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions, type FormatOptionsInput} from '../../../src/extract/formats/index.js'
import type {AdaptResult} from '../../../src/extract/formats/types.js'
import {decode} from './run-adapter.js'

// Shapes real producers write that the otel adapter dropped or refused:
//  - Semantic Kernel and Microsoft Agent Framework name their calls chat.streaming_completions,
//    text.completions, text.streaming_completions (only chat.completions was a call): the span,
//    answer in a gen_ai.content.completion event, was no call, and its event texts were no
//    texts of an unread item either, so the file passed the gate;
//  - an invoke_agent span's answer in gen_ai.choice span events was dropped the same way;
//  - LiteLLM's own OpenTelemetry callback writes its call type (acompletion, aresponses, ...) as
//    gen_ai.operation.name and llm.request.type: its spans were no call;
//  - a gen_ai.choice whose answer is under content (a text: LiveKit Agents; Gemini's Content
//    {role: 'model', parts: [{text}]}: Google ADK), or a message of Gemini parts, read as no text.

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string | number): Attr => ({key, value: typeof v === 'number' ? {intValue: String(v)} : {stringValue: v}})
const LEAK = 'CANARY-aaaa1111bbbb2222cccc'

interface SpanEvent {
  name: string
  attributes: Attr[]
}

function line(traceId: string, spanId: string, attributes: Attr[], events: SpanEvent[] = [], resource: Attr[] = [kv('tenant.id', 'tn-beta')]): unknown {
  const span = {
    traceId, spanId, parentSpanId: '', kind: 3, name: 'op',
    startTimeUnixNano: '1793539442363394714', endTimeUnixNano: '1793539443263394714',
    attributes: [kv('session.id', 'sess-b1'), ...attributes],
    events: events.map((e) => ({timeUnixNano: '1793539443263394714', ...e})),
    status: {code: 1},
  }
  return {resourceSpans: [{resource: {attributes: resource}, scopeSpans: [{scope: {name: 'app'}, spans: [span]}]}]}
}

function adapt(lines: unknown[], input: FormatOptionsInput = {}): AdaptResult {
  const adapter = adapterFor('otel')
  const options = resolveFormatOptions(input)
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

function answerOf(r: AdaptResult): string | null {
  expect(r.problems).toEqual([])
  expect(r.records).toHaveLength(1)
  const {row, bad} = decode(r.records[0]!.record)
  expect(bad).toBeNull()
  return row!.response_text
}

const skEvents = (answer: string): SpanEvent[] => [
  {name: 'gen_ai.content.prompt', attributes: [kv('gen_ai.prompt', JSON.stringify([{role: 'user', content: 'balance?'}]))]},
  {name: 'gen_ai.content.completion', attributes: [kv('gen_ai.completion', JSON.stringify([{role: 'assistant', content: answer}]))]},
]

describe('otel adapter: operation names of Semantic Kernel and LiteLLM', () => {
  for (const op of ['chat.completions', 'chat.streaming_completions', 'text.completions', 'text.streaming_completions']) {
    it(`reads a Semantic Kernel ${op} span as a model call, its answer from its gen_ai.content.completion event`, () => {
      const r = adapt([line('b'.repeat(32), '2'.repeat(16), [kv('gen_ai.operation.name', op), kv('gen_ai.system', 'openai'), kv('gen_ai.request.model', 'gpt-4o')], skEvents(`Here: ${LEAK}`))])
      expect(answerOf(r)).toContain(LEAK)
    })
  }

  for (const type of ['acompletion', 'completion', 'aresponses', 'atext_completion', 'aanthropic_messages']) {
    it(`reads a LiteLLM span of call type ${type} as a model call`, () => {
      const attrs = [
        kv('gen_ai.operation.name', type), kv('llm.request.type', type), kv('gen_ai.request.model', 'gpt-4o'), kv('gen_ai.system', 'openai'),
        kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: 'balance?'}]}])),
        kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: `Here: ${LEAK}`}], finish_reason: 'stop'}])),
      ]
      expect(answerOf(adapt([line('b'.repeat(32), '2'.repeat(16), attrs)]))).toContain(LEAK)
    })
  }

  it('still reads a LiteLLM embedding span as no call', () => {
    const r = adapt([line('b'.repeat(32), '2'.repeat(16), [kv('gen_ai.operation.name', 'aembedding'), kv('llm.request.type', 'aembedding'), kv('gen_ai.request.model', 'text-embedding-3-small')])])
    expect(r.records).toEqual([])
    expect(r.ignored).toBe(1)
  })
})

describe('otel adapter: GenAI texts in the span events of a span read as no call', () => {
  const agent = (events: SpanEvent[]): unknown =>
    line('c'.repeat(32), '3'.repeat(16), [kv('gen_ai.operation.name', 'invoke_agent'), kv('gen_ai.agent.name', 'support')], events)

  it('counts an invoke_agent span whose answer is in a gen_ai.choice span event as unread where its trace has no call', () => {
    const r = adapt([agent([
      {name: 'gen_ai.user.message', attributes: [kv('content', 'balance?')]},
      {name: 'gen_ai.choice', attributes: [kv('index', 0), kv('finish_reason', 'stop'), kv('message', JSON.stringify({role: 'assistant', content: `Here: ${LEAK}`}))]},
    ])])
    expect(r.records).toEqual([])
    expect(r.unread).toEqual({GenAI: 1})
  })

  it('counts a span of an operation not read whose answer is in a gen_ai.content.completion event as unread', () => {
    const r = adapt([line('c'.repeat(32), '3'.repeat(16), [kv('gen_ai.operation.name', 'some.future_completions')], skEvents(`Here: ${LEAK}`))])
    expect(r.records).toEqual([])
    expect(r.unread).toEqual({GenAI: 1})
  })

  it('reads such an answer with its trace\'s call where it is not among the call\'s texts', () => {
    const trace = 'd'.repeat(32)
    const call = line(trace, '4'.repeat(16), [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'),
      kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: 'balance?'}]}])),
      kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: 'one moment'}]}])),
    ])
    const wrapper = line(trace, '5'.repeat(16), [kv('gen_ai.operation.name', 'invoke_agent')], [
      {name: 'gen_ai.choice', attributes: [kv('index', 0), kv('message', JSON.stringify({role: 'assistant', content: `Here: ${LEAK}`}))]},
    ])
    const r = adapt([call, wrapper])
    expect(r.unread).toBeUndefined()
    const text = answerOf(r)
    expect(text).toContain('one moment')
    expect(text).toContain(LEAK)
  })

  it('leaves a span whose events carry only labels (no text) as an item ignored, not unread', () => {
    const r = adapt([agent([{name: 'gen_ai.choice', attributes: [kv('index', 0), kv('finish_reason', 'stop')]}])])
    expect(r.records).toEqual([])
    expect(r.unread).toBeUndefined()
  })
})

describe('otel adapter: gen_ai.choice answers under content, and Gemini parts', () => {
  const chat = (events: SpanEvent[]): unknown =>
    line('e'.repeat(32), '6'.repeat(16), [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.system', 'gcp.vertex.agent'), kv('gen_ai.request.model', 'gemini-2.0-flash')], events)
  const user: SpanEvent = {name: 'gen_ai.user.message', attributes: [kv('content', 'balance?')]}

  it('reads the answer given as the text of a gen_ai.choice span event\'s content attribute (LiveKit Agents)', () => {
    expect(answerOf(adapt([chat([user, {name: 'gen_ai.choice', attributes: [kv('content', `Here: ${LEAK}`)]}])]))).toContain(LEAK)
  })

  it('reads the answer given as Gemini Content JSON in content (Google ADK)', () => {
    const content = JSON.stringify({role: 'model', parts: [{text: `Here: ${LEAK}`}]})
    expect(answerOf(adapt([chat([user, {name: 'gen_ai.choice', attributes: [kv('index', 0), kv('finish_reason', 'STOP'), kv('content', content)]}])]))).toContain(LEAK)
  })

  it('reads a message of Gemini parts (no type)', () => {
    const message = JSON.stringify({role: 'model', parts: [{text: 'Here: '}, {text: LEAK}]})
    expect(answerOf(adapt([chat([user, {name: 'gen_ai.choice', attributes: [kv('index', 0), kv('message', message)]}])]))).toContain(LEAK)
  })

  it('reads a Gemini function call\'s arguments as answer text', () => {
    const message = JSON.stringify({role: 'model', parts: [{functionCall: {name: 'lookup', args: {ref: LEAK}}}]})
    expect(answerOf(adapt([chat([user, {name: 'gen_ai.choice', attributes: [kv('index', 0), kv('message', message)]}])]))).toContain(LEAK)
  })

  it('reads Google ADK\'s log records (bodies {content: {role, parts}}) joined to their generate_content span', () => {
    const trace = 'f'.repeat(32)
    const spanId = '7'.repeat(16)
    const spans = line(trace, spanId, [kv('gen_ai.operation.name', 'generate_content'), kv('gen_ai.system', 'gcp.vertex.agent'), kv('gen_ai.request.model', 'gemini-2.0-flash')])
    const body = (v: unknown): Record<string, unknown> => ({kvlistValue: {values: Object.entries(v as object).map(([key, x]) => ({key, value: anyValue(x)}))}})
    const record = (name: string, b: unknown) => ({timeUnixNano: '1793539443263615108', traceId: trace, spanId, eventName: name, severityNumber: 9, attributes: [kv('gen_ai.system', 'gcp.vertex.agent')], body: body(b)})
    const logs = {resourceLogs: [{resource: {attributes: []}, scopeLogs: [{scope: {name: 'gcp.vertex.agent'}, logRecords: [
      record('gen_ai.user.message', {content: {role: 'user', parts: [{text: 'my ref?'}]}}),
      record('gen_ai.choice', {index: 0, finish_reason: 'STOP', content: {role: 'model', parts: [{text: `Here: ${LEAK}`}]}}),
    ]}]}]}
    const r = adapt([spans, logs])
    const {row} = decode(r.records[0]!.record)
    expect(row!.request_text).toContain('my ref?')
    expect(answerOf(r)).toContain(LEAK)
  })
})

function anyValue(v: unknown): Record<string, unknown> {
  if (typeof v === 'string') return {stringValue: v}
  if (typeof v === 'number') return {intValue: String(v)}
  if (Array.isArray(v)) return {arrayValue: {values: v.map(anyValue)}}
  return {kvlistValue: {values: Object.entries(v as object).map(([key, x]) => ({key, value: anyValue(x)}))}}
}
