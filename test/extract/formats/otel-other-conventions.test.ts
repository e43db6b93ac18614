import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions} from '../../../src/extract/formats/index.js'
import type {AdaptResult} from '../../../src/extract/formats/types.js'
import {decode} from './run-adapter.js'

// OTLP spans written with the LLM conventions besides the GenAI one: OpenInference (Arize
// Phoenix and its instrumentations) and the Vercel AI SDK. A model-call span of either is a
// record with its texts; a span that is no call but carries model texts is counted as unread
// unless a model call of its trace is read (a chain or workflow wrapping it).

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string | number): Attr => ({key, value: typeof v === 'number' ? {intValue: String(v)} : {stringValue: v}})
const TRACE = '0af7651916cd43dd8448eb211c80319c'

function doc(spans: Array<{spanId: string; attributes: Attr[]; traceId?: string; name?: string}>): unknown {
  return {resourceSpans: [{resource: {attributes: [kv('service.name', 'app'), kv('tenant.id', 'tn-a')]}, scopeSpans: [{scope: {name: 'openinference.instrumentation.openai'}, spans: spans.map((s) => ({
    traceId: s.traceId ?? TRACE, spanId: s.spanId, parentSpanId: '', kind: 1, name: s.name ?? 'ChatCompletion',
    startTimeUnixNano: '1793404940000000000', endTimeUnixNano: '1793404941000000000', attributes: s.attributes, status: {},
  }))}]}]}
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

const texts = (r: AdaptResult, i = 0) => {
  const {row, bad} = decode(r.records[i]!.record)
  expect(bad).toBeNull()
  return {request: row!.request_text, response: row!.response_text}
}

describe('otel adapter: OpenInference LLM spans', () => {
  it('reads the flattened messages (content, contents parts, tool calls), model, tokens and session', () => {
    const r = adapt(doc([{spanId: '00000000000000a1', attributes: [
      kv('openinference.span.kind', 'llm'),
      kv('llm.model_name', 'gpt-4o-mini'),
      kv('session.id', 'sess-1'),
      kv('llm.input_messages.0.message.role', 'system'),
      kv('llm.input_messages.0.message.content', 'be brief'),
      kv('llm.input_messages.1.message.role', 'user'),
      kv('llm.input_messages.1.message.contents.0.message_content.type', 'text'),
      kv('llm.input_messages.1.message.contents.0.message_content.text', 'hello CANARY-0011'),
      kv('llm.output_messages.0.message.role', 'assistant'),
      kv('llm.output_messages.0.message.content', 'answer with CANARY-2233'),
      kv('llm.output_messages.0.message.tool_calls.0.tool_call.id', 'call_1'),
      kv('llm.output_messages.0.message.tool_calls.0.tool_call.function.name', 'lookup'),
      kv('llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments', '{"q":"CANARY-4455"}'),
      kv('llm.token_count.prompt', 12),
      kv('llm.token_count.completion', 7),
    ]}]))
    expect(r.problems).toEqual([])
    expect(r.records).toHaveLength(1)
    expect(r.unread).toBeUndefined()
    const rec = r.records[0]!.record
    expect(rec).toMatchObject({session_id: 'sess-1', tenant_id: 'tn-a', model: 'gpt-4o-mini', prompt_tokens: 12, completion_tokens: 7, request_id: '00000000000000a1'})
    const t = texts(r)
    expect(t.request).toContain('be brief')
    expect(t.request).toContain('hello CANARY-0011')
    expect(t.response).toContain('answer with CANARY-2233')
    expect(t.response).toContain('CANARY-4455')
  })

  it('reads input.value / output.value: OpenAI JSON bodies as such, anything else as plain text', () => {
    const json = adapt(doc([{spanId: '00000000000000a2', attributes: [
      kv('openinference.span.kind', 'LLM'), kv('session.id', 's'),
      kv('input.mime_type', 'application/json'),
      kv('input.value', JSON.stringify({model: 'm', messages: [{role: 'user', content: 'question CANARY-0011'}]})),
      kv('output.mime_type', 'application/json'),
      kv('output.value', JSON.stringify({id: 'chatcmpl-1', object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: 'reply CANARY-2233'}, finish_reason: 'stop'}]})),
    ]}]))
    expect(json.records).toHaveLength(1)
    expect(texts(json)).toEqual({request: expect.stringContaining('question CANARY-0011'), response: 'reply CANARY-2233'})
    const plain = adapt(doc([{spanId: '00000000000000a3', attributes: [
      kv('openinference.span.kind', 'LLM'), kv('session.id', 's'),
      kv('input.value', 'plain question'), kv('input.mime_type', 'text/plain'),
      kv('output.value', '{"not": "a completion", "says": "CANARY-2233"}'), kv('output.mime_type', 'application/json'),
    ]}]))
    expect(texts(plain).request).toBe('plain question')
    expect(texts(plain).response).toContain('CANARY-2233')
  })

  it('keeps the GenAI conventions first where a span carries both', () => {
    const r = adapt(doc([{spanId: '00000000000000a4', attributes: [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'genai-model'), kv('llm.model_name', 'oi-model'), kv('session.id', 's'),
      kv('gen_ai.usage.input_tokens', 3), kv('llm.token_count.prompt', 99),
      kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: 'from genai'}]}])),
      kv('llm.output_messages.0.message.content', 'from openinference'),
    ]}]))
    expect(r.records[0]!.record).toMatchObject({model: 'genai-model', prompt_tokens: 3})
    expect(texts(r).response).toBe('from genai')
  })
})

describe('otel adapter: Vercel AI SDK provider-call spans', () => {
  it('reads ai.prompt.messages and ai.response.text (and tool calls) on a span with gen_ai.* metadata', () => {
    const r = adapt(doc([{spanId: '00000000000000b1', name: 'ai.generateText.doGenerate', attributes: [
      kv('ai.operationId', 'ai.generateText.doGenerate'), kv('gen_ai.system', 'openai.chat'), kv('gen_ai.request.model', 'gpt-4o'), kv('session.id', 's'),
      kv('ai.prompt.messages', JSON.stringify([{role: 'system', content: 'sys'}, {role: 'user', content: [{type: 'text', text: 'ask CANARY-0011'}]}])),
      kv('ai.response.text', 'said CANARY-2233'),
      kv('ai.response.toolCalls', JSON.stringify([{toolCallId: 't1', toolName: 'find', args: '{"x":"CANARY-4455"}'}])),
    ]}]))
    expect(r.records).toHaveLength(1)
    const t = texts(r)
    expect(t.request).toContain('ask CANARY-0011')
    expect(t.response).toContain('said CANARY-2233')
    expect(t.response).toContain('CANARY-4455')
  })
})

describe('otel adapter: Vercel AI SDK spans without gen_ai.* attributes', () => {
  it('reads a provider-call span by its ai.operationId, with ai.model.id and ai.usage.*', () => {
    const r = adapt(doc([{spanId: '00000000000000b2', name: 'ai.streamText.doStream', attributes: [
      kv('ai.operationId', 'ai.streamText.doStream'), kv('ai.model.id', 'gpt-4o'), kv('session.id', 's'),
      kv('ai.prompt.messages', JSON.stringify([{role: 'user', content: 'ask'}])), kv('ai.response.text', 'said CANARY-2233'),
      kv('ai.usage.promptTokens', 5), kv('ai.usage.completionTokens', 2),
    ]}, {spanId: '00000000000000b3', name: 'ai.streamText', attributes: [kv('ai.operationId', 'ai.streamText'), kv('ai.prompt', '{"prompt":"ask"}'), kv('ai.response.text', 'said CANARY-2233')]}]))
    expect(r.records).toHaveLength(1)
    expect(r.records[0]!.record).toMatchObject({model: 'gpt-4o', prompt_tokens: 5, completion_tokens: 2})
    expect(texts(r).response).toBe('said CANARY-2233')
    // The outer span wraps the call read in its trace: not counted.
    expect(r.unread).toBeUndefined()
  })
})

describe('otel adapter: items carrying model texts in a convention not read', () => {
  const chain = (spanId: string, traceId?: string) => ({spanId, traceId, attributes: [kv('openinference.span.kind', 'CHAIN'), kv('input.value', 'q'), kv('output.value', 'CANARY-2233')]})
  const workflow = (spanId: string, traceId?: string) => ({spanId, traceId, attributes: [kv('traceloop.span.kind', 'workflow'), kv('traceloop.entity.output', 'CANARY-2233')]})
  const outer = (spanId: string) => ({spanId, name: 'ai.generateText', attributes: [kv('ai.prompt', '{"prompt":"q"}'), kv('ai.response.text', 'a')]})
  const call = (spanId: string, traceId?: string) => ({spanId, traceId, attributes: [kv('openinference.span.kind', 'LLM'), kv('session.id', 's'), kv('output.value', 'CANARY-2233')]})

  it('counts them by convention where no model call of their trace is read', () => {
    const r = adapt(doc([chain('00000000000000c1'), workflow('00000000000000c2'), outer('00000000000000c3'), {spanId: '00000000000000c4', attributes: [kv('http.route', '/x')]}]))
    expect(r.records).toHaveLength(0)
    expect(r.ignored).toBe(4)
    expect(r.unread).toEqual({'OpenInference': 1, 'Traceloop (OpenLLMetry)': 1, 'Vercel AI SDK': 1})
  })

  it('does not count a wrapper of a model call read in its trace, on the same line or another', () => {
    expect(adapt(doc([chain('00000000000000d1'), call('00000000000000d2')])).unread).toBeUndefined()
    const other = 'ffffffffffffffffffffffffffffffff'
    const r = adapt(doc([chain('00000000000000d3'), workflow('00000000000000d4', other)]), doc([call('00000000000000d5')]))
    expect(r.records).toHaveLength(1)
    expect(r.unread).toEqual({'Traceloop (OpenLLMetry)': 1})
  })
})
