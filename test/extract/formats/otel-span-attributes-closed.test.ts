import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions, type FormatOptionsInput} from '../../../src/extract/formats/index.js'
import {CONTENT_NOT_READ} from '../../../src/extract/formats/otel.js'
import type {AdaptResult} from '../../../src/extract/formats/types.js'
import {parseFieldMap} from '../../../src/extract/field-path.js'
import {rowFromRecord, UNREAD_SHAPES} from '../../../src/extract/parse-record.js'

// A model call's span attributes are read closed-world, as a chat answer is. Before, only the
// attributes the conventions' readers knew were looked at and every other one was dropped without
// a word: OpenLIT's gen_ai.content.reasoning (the answer's reasoning_content) and gen_ai.tool.args
// (the answer's tool-call arguments) held another tenant's marker and --fail-on-leak exited 0;
// LangSmith's gen_ai.prompt / gen_ai.completion and OpenLIT's gen_ai.content.prompt /
// .completion were refused as "content capture off", a cause and a fix both false, and the note
// stayed after --map read the text.

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string | number): Attr => ({key, value: typeof v === 'number' ? {intValue: String(v)} : {stringValue: v}})
const LEAK = 'CANARY-bbbbbbbbbbbbbbbb02'

function traces(attributes: Attr[], events: Array<{name: string; attributes: Attr[]}> = []): unknown {
  const span = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', kind: 3, name: 'chat gpt-4o',
    startTimeUnixNano: '1793320750100000000', endTimeUnixNano: '1793320751950567000',
    attributes: [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.system', 'openai'), kv('gen_ai.request.model', 'gpt-4o'),
      kv('gen_ai.response.id', 'chatcmpl-1'), kv('session.id', 's-acme-1'), kv('gen_ai.usage.input_tokens', 5), kv('gen_ai.usage.output_tokens', 9), ...attributes],
    events: events.map((e) => ({timeUnixNano: '1793320751950567000', ...e})),
    status: {code: 1},
  }
  return {resourceSpans: [{resource: {attributes: [kv('service.name', 'bot'), kv('tenant.id', 'acme')]}, scopeSpans: [{scope: {name: 'openlit.otel.tracing'}, spans: [span]}]}]}
}

function adapt(line: unknown, input: FormatOptionsInput = {}): AdaptResult {
  const adapter = adapterFor('otel')
  const options = resolveFormatOptions(input)
  const index = adapter.newIndex(options)!
  index.add(line, {file: 'f', line: 1})
  return adapter.adapt(line, {options, index, at: {file: 'f', line: 1}})
}

/** The one record's decoded texts and its notes, the adapter's and the decoder's. */
function only(line: unknown, input: FormatOptionsInput = {}): {request: string | null; response: string | null; notes: string[]} {
  const r = adapt(line, input)
  expect(r.problems).toEqual([])
  expect(r.records).toHaveLength(1)
  const decoded: string[] = []
  const out = rowFromRecord(r.records[0]!.record, decoded)
  if (!('row' in out)) throw new Error(out.bad)
  return {request: out.row.request_text, response: out.row.response_text, notes: [...r.records[0]!.notes, ...decoded]}
}

const unreadNamed = (notes: readonly string[]): string[] => notes.filter((n) => n.startsWith(UNREAD_SHAPES)).flatMap((n) => n.slice(UNREAD_SHAPES.length + 2).split(', '))
const messages = (role: string, text: string): string => JSON.stringify([{role, parts: [{type: 'text', content: text}], ...(role === 'assistant' ? {finish_reason: 'stop'} : {})}])

describe('otel adapter: OpenLIT answer attributes', () => {
  it("reads gen_ai.content.reasoning as answer text beside gen_ai.output.messages", () => {
    const t = only(traces([
      kv('gen_ai.input.messages', messages('user', 'hi')), kv('gen_ai.output.messages', messages('assistant', 'Here you go.')),
      kv('gen_ai.content.reasoning', `The earlier user gave ${LEAK}, I should use it.`),
    ]))
    expect(t.response).toContain('Here you go.')
    expect(t.response).toContain(LEAK)
    expect(unreadNamed(t.notes)).toEqual([])
  })

  it('reads gen_ai.tool.args as the answer\'s tool-call arguments', () => {
    const t = only(traces([
      kv('gen_ai.tool.name', 'lookup_customer'), kv('gen_ai.tool.call.id', 'call_1'), kv('gen_ai.tool.args', JSON.stringify({customer_ref: LEAK})),
      kv('gen_ai.content.prompt', 'user: hi'), kv('gen_ai.content.completion', 'Let me look that up.'),
    ], [{name: 'gen_ai.content.completion', attributes: [kv('gen_ai.completion', 'Let me look that up.')]}]))
    expect(t.response).toContain('Let me look that up.')
    expect(t.response).toContain(LEAK)
    expect(t.request).toContain('user: hi')
    expect(unreadNamed(t.notes)).toEqual([])
  })
})

describe('otel adapter: a call span\'s prompt and answer in one attribute', () => {
  it("reads LangSmith's gen_ai.prompt / gen_ai.completion (its run's inputs and outputs as JSON text)", () => {
    const t = only(traces([
      kv('gen_ai.prompt', JSON.stringify({messages: [{role: 'user', content: 'hi there'}], model: 'gpt-4o'})),
      kv('gen_ai.completion', JSON.stringify({id: 'chatcmpl-1', object: 'chat.completion', choices: [{index: 0, finish_reason: 'stop', message: {role: 'assistant', content: `x ${LEAK}`}}]})),
    ]))
    expect(t.request).toContain('hi there')
    expect(t.response).toBe(`x ${LEAK}`)
    expect(t.notes.join('\n')).not.toContain('content capture off')
  })

  it("names a member of LangSmith's completion body that it does not read, so the record is not read whole", () => {
    const t = only(traces([
      kv('gen_ai.completion', JSON.stringify({choices: [{index: 0, message: {role: 'assistant', content: 'ok'}, extra: `x ${LEAK}`}]})),
    ]))
    expect(unreadNamed(t.notes).join(' ')).toContain('gen_ai.completion.choices[0].extra')
  })

  it("reads OpenLIT's gen_ai.content.prompt / gen_ai.content.completion as the plain texts they are", () => {
    const t = only(traces([kv('gen_ai.content.prompt', 'user: hi'), kv('gen_ai.content.completion', `assistant: x ${LEAK}`)]))
    expect(t.request).toBe('user: hi')
    expect(t.response).toBe(`assistant: x ${LEAK}`)
  })

  it('reads a LangChain output that is no chat body as its JSON text, every string in it', () => {
    const t = only(traces([kv('gen_ai.completion', JSON.stringify({generations: [[{text: `x ${LEAK}`, generation_info: null}]], llm_output: null}))]))
    expect(t.response).toContain(LEAK)
  })
})

describe('otel adapter: every other string attribute of a call span is named as not read', () => {
  const withOutput = (...extra: Attr[]): unknown => traces([kv('gen_ai.output.messages', messages('assistant', 'ok')), ...extra])

  it('names a custom attribute, an unnumbered gen_ai.completion.*, traceloop.entity.output and ai.response.providerMetadata that hold text', () => {
    const t = only(withOutput(
      kv('app.answer', `x ${LEAK}`), kv('gen_ai.completion.extra', 'y'), kv('traceloop.entity.output', 'z'),
      kv('ai.response.providerMetadata', JSON.stringify({google: {groundingMetadata: {webSearchQueries: ['q']}}})),
    ))
    expect(unreadNamed(t.notes).sort()).toEqual([
      'span attribute "ai.response.providerMetadata"', 'span attribute "app.answer"', 'span attribute "gen_ai.completion.extra"', 'span attribute "traceloop.entity.output"',
    ])
  })

  it('names a span event of a name it does not read that carries text', () => {
    const t = only(traces([kv('gen_ai.output.messages', messages('assistant', 'ok'))], [{name: 'app.answer', attributes: [kv('text', LEAK)]}]))
    expect(unreadNamed(t.notes)).toEqual(['span event "app.answer"'])
  })

  it('names nothing for attributes known to hold no text of the answer, or holding no string', () => {
    const t = only(withOutput(
      kv('gen_ai.response.model', 'gpt-4o-2024'), kv('gen_ai.response.finish_reasons', 'stop'), kv('server.address', 'api.openai.com'), kv('server.port', 443),
      kv('gen_ai.request.temperature', 1), kv('http.response.status_code', 200), kv('url.full', 'https://api.openai.com/v1/chat/completions'),
      kv('ai.response.providerMetadata', JSON.stringify({openai: {reasoningTokens: 0, cachedPromptTokens: 0}})), kv('app.count', 3),
      kv('gen_ai.tool.definitions', JSON.stringify([{type: 'function', name: 'lookup', description: 'Look a customer up'}])),
    ), {})
    expect(unreadNamed(t.notes)).toEqual([])
  })
})

describe('otel adapter: a span whose content is in attributes it does not read', () => {
  it('says which attributes hold it, never "content capture off"', () => {
    const r = adapt(traces([kv('app.answer', `x ${LEAK}`)]))
    const notes = r.records[0]!.notes
    expect(notes.some((n) => n.startsWith(`${CONTENT_NOT_READ} (app.answer)`))).toBe(true)
    expect(notes.join('\n')).not.toContain('content capture off')
  })

  it('keeps no note that the content is missing once --map supplied the answer', () => {
    const map = parseFieldMap(['response=attributes["app.answer"]'])
    const t = only(traces([kv('app.answer', `x ${LEAK}`)]), {map})
    expect(t.response).toContain(LEAK)
    expect(t.notes.join('\n')).not.toContain('content capture off')
    expect(t.notes.join('\n')).not.toContain(CONTENT_NOT_READ)
    expect(unreadNamed(t.notes)).toEqual([])
  })

  it('still says content capture may be off where the span holds no text at all', () => {
    const notes = adapt(traces([])).records[0]!.notes
    expect(notes.join('\n')).toContain('content capture off')
  })
})
