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

  it('keeps the GenAI metadata first where a span carries both, and the texts of both where they differ', () => {
    const r = adapt(doc([{spanId: '00000000000000a4', attributes: [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'genai-model'), kv('llm.model_name', 'oi-model'), kv('session.id', 's'),
      kv('gen_ai.usage.input_tokens', 3), kv('llm.token_count.prompt', 99),
      kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: 'from genai'}]}])),
      kv('llm.output_messages.0.message.content', 'from openinference'),
    ]}]))
    expect(r.records[0]!.record).toMatchObject({model: 'genai-model', prompt_tokens: 3})
    expect(texts(r).response).toBe('from genai\nfrom openinference')
  })

  it('reads every convention a span carries: a leak in the second is not dropped (prompts too); identical texts once', () => {
    const genaiOut = kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: 'sunny'}]}]))
    const genaiIn = kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: 'weather?'}]}]))
    const base = [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('session.id', 's'), genaiIn, genaiOut]
    const messages = adapt(doc([{spanId: '00000000000000a5', attributes: [...base, kv('llm.output_messages.0.message.content', 'leak CANARY-2233')]}]))
    expect(texts(messages).response).toBe('sunny\nleak CANARY-2233')
    const value = adapt(doc([{spanId: '00000000000000a6', attributes: [...base, kv('output.value', 'leak CANARY-2233'), kv('input.value', 'my CANARY-0011')]}]))
    expect(texts(value)).toEqual({request: expect.stringContaining('my CANARY-0011'), response: 'sunny\nleak CANARY-2233'})
    expect(texts(value).request).toContain('weather?')
    const same = adapt(doc([{spanId: '00000000000000a7', attributes: [...base, kv('output.value', 'sunny'), kv('llm.output_messages.0.message.content', 'sunny')]}]))
    expect(texts(same).response).toBe('sunny')
  })

  it('reads output.value beside llm.output_messages where it holds a choice they lack, and reasoning parts', () => {
    const completion = {object: 'chat.completion', choices: [
      {index: 0, message: {role: 'assistant', content: 'sunny'}, finish_reason: 'stop'},
      {index: 1, message: {role: 'assistant', content: 'leak CANARY-2233'}, finish_reason: 'stop'},
    ]}
    const r = adapt(doc([{spanId: '00000000000000a8', attributes: [
      kv('openinference.span.kind', 'LLM'), kv('session.id', 's'),
      kv('llm.output_messages.0.message.role', 'assistant'), kv('llm.output_messages.0.message.content', 'sunny'),
      kv('output.value', JSON.stringify(completion)), kv('output.mime_type', 'application/json'),
    ]}]))
    expect(texts(r).response).toContain('CANARY-2233')
    const reasoning = adapt(doc([{spanId: '00000000000000a9', attributes: [
      kv('openinference.span.kind', 'LLM'), kv('session.id', 's'),
      kv('llm.output_messages.0.message.role', 'assistant'),
      kv('llm.output_messages.0.message.contents.0.message_content.type', 'text'),
      kv('llm.output_messages.0.message.contents.0.message_content.text', 'sunny'),
      kv('llm.output_messages.0.message.contents.1.message_content.type', 'reasoning'),
      kv('llm.output_messages.0.message.contents.1.message_content.text', 'thinking CANARY-2233'),
    ]}]))
    expect(texts(reasoning).response).toContain('thinking CANARY-2233')
  })
})

describe('otel adapter: OpenInference redaction (__REDACTED__)', () => {
  const llm = (spanId: string, extra: Attr[]) => ({spanId, attributes: [kv('openinference.span.kind', 'LLM'), kv('session.id', 's'), ...extra]})

  it('reads a value that is only the placeholder as no text, with a note', () => {
    const r = adapt(doc([llm('00000000000000e1', [kv('input.value', '__REDACTED__'), kv('output.value', '__REDACTED__')])]))
    expect(r.records).toHaveLength(1)
    expect(r.records[0]!.record.request).toBeNull()
    expect(r.records[0]!.record.response).toBeNull()
    expect(r.records[0]!.notes).toEqual(expect.arrayContaining([
      'request text redacted at the source (OpenInference __REDACTED__): no text',
      'response text redacted at the source (OpenInference __REDACTED__): no text',
    ]))
  })

  it('reads output.value where the output messages\' content is redacted', () => {
    const completion = {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: 'leak CANARY-2233'}, finish_reason: 'stop'}]}
    const r = adapt(doc([llm('00000000000000e2', [
      kv('llm.output_messages.0.message.role', 'assistant'), kv('llm.output_messages.0.message.content', '__REDACTED__'),
      kv('output.value', JSON.stringify(completion)), kv('output.mime_type', 'application/json'),
    ])]))
    expect(texts(r).response).toBe('leak CANARY-2233')
  })

  it('counts a chain\'s answer text as unread where the call of its trace has its answer redacted', () => {
    const chain = {spanId: '00000000000000e3', attributes: [kv('openinference.span.kind', 'CHAIN'), kv('output.value', 'leak CANARY-2233')]}
    const r = adapt(doc([chain, llm('00000000000000e4', [kv('input.value', '__REDACTED__'), kv('output.value', '__REDACTED__')])]))
    expect(r.unread).toEqual({OpenInference: 1})
    // A call whose answer is read covers its chain, as before.
    expect(adapt(doc([chain, llm('00000000000000e5', [kv('output.value', 'fine')])])).unread).toBeUndefined()
  })
})

describe('otel adapter: older OpenLLMetry spans (llm.prompts.N / llm.completions.N)', () => {
  it('reads them as model calls, with their texts, model and tokens', () => {
    const r = adapt(doc([{spanId: '00000000000000f1', name: 'openai.chat', attributes: [
      kv('llm.request.type', 'chat'), kv('llm.vendor', 'OpenAI'), kv('llm.request.model', 'gpt-4'), kv('session.id', 's'),
      kv('llm.prompts.0.role', 'user'), kv('llm.prompts.0.content', 'hello CANARY-0011'),
      kv('llm.completions.0.role', 'assistant'), kv('llm.completions.0.content', 'sure CANARY-2233'),
      kv('llm.usage.prompt_tokens', 4), kv('llm.usage.completion_tokens', 2),
    ]}]))
    expect(r.records).toHaveLength(1)
    expect(r.unread).toBeUndefined()
    expect(r.records[0]!.record).toMatchObject({model: 'gpt-4', prompt_tokens: 4, completion_tokens: 2})
    expect(texts(r)).toEqual({request: 'hello CANARY-0011', response: 'sure CANARY-2233'})
    // Its embedding spans are no model answer.
    const embedding = adapt(doc([{spanId: '00000000000000f2', name: 'openai.embeddings', attributes: [kv('llm.request.type', 'embedding'), kv('llm.request.model', 'e'), kv('session.id', 's')]}]))
    expect(embedding.records).toHaveLength(0)
    expect(embedding.problems).toHaveLength(0)
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

describe('otel adapter: Vercel AI SDK reasoning and tool results', () => {
  const span = (spanId: string, attributes: Attr[]) => ({spanId, name: 'ai.generateText.doGenerate', attributes: [kv('ai.operationId', 'ai.generateText.doGenerate'), kv('ai.model.id', 'm'), kv('session.id', 's'), ...attributes]})

  it('reads ai.response.reasoning into the answer', () => {
    const r = adapt(doc([span('00000000000000b4', [kv('ai.prompt.messages', JSON.stringify([{role: 'user', content: 'q'}])), kv('ai.response.text', 'sunny'), kv('ai.response.reasoning', 'thinking CANARY-2233')])]))
    expect(texts(r).response).toContain('thinking CANARY-2233')
    expect(texts(r).response).toContain('sunny')
  })

  it('reads tool-result parts of ai.prompt.messages (v4 result, v5 output) into the prompt', () => {
    for (const part of [
      {type: 'tool-result', toolCallId: 'c1', toolName: 'db', result: {row: 'row CANARY-0011'}},
      {type: 'tool-result', toolCallId: 'c1', toolName: 'db', output: {type: 'text', value: 'row CANARY-0011'}},
      {type: 'tool-result', toolCallId: 'c1', toolName: 'db', output: {type: 'json', value: {row: 'row CANARY-0011'}}},
    ]) {
      const messages = [{role: 'user', content: [{type: 'text', text: 'look up'}]}, {role: 'tool', content: [part]}]
      const r = adapt(doc([span('00000000000000b5', [kv('ai.prompt.messages', JSON.stringify(messages)), kv('ai.response.text', 'found CANARY-0011')])]))
      expect(texts(r).request).toContain('row CANARY-0011')
    }
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
