import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions, type LogFormat} from '../../../src/extract/formats/index.js'
import {completionFromMessages} from '../../../src/extract/formats/messages.js'
import {decodeResponse} from '../../../src/extract/decode.js'

// GenAI "parts" messages (gen_ai.output.messages, a gen_ai.choice's message, Langfuse's output,
// Gemini's Content) are read closed-world, as a chat answer is: a part type or member this
// release does not know is named as not read. Before, a reasoning part's `text`, a refusal part,
// a uri part, a text blob, Gemini's executableCode, and any member of the message besides role and
// parts were dropped without a word, and the gate passed.

const LEAK = 'CANARY-cccccccccccccccc3333'
const answer = (parts: unknown[], extra: Record<string, unknown> = {}) => decodeResponse(completionFromMessages([{role: 'assistant', parts: [{type: 'text', content: 'fine'}, ...parts], finish_reason: 'stop', ...extra}]))

describe('parts messages: every part read or named', () => {
  it.each([
    ['a reasoning part\'s text', {type: 'reasoning', text: `think ${LEAK}`}],
    ['a refusal part', {type: 'refusal', refusal: `no ${LEAK}`}],
    ['a uri part\'s address', {type: 'uri', modality: 'image', uri: `https://x.example/${LEAK}`}],
    ['a text blob (base64)', {type: 'blob', mime_type: 'text/plain', content: Buffer.from(`x ${LEAK}`).toString('base64')}],
    ['Gemini\'s executableCode', {executableCode: {language: 'PYTHON', code: `print('${LEAK}')`}}],
    ['Gemini\'s codeExecutionResult', {codeExecutionResult: {outcome: 'OUTCOME_OK', output: LEAK}}],
    ['a custom part\'s text', {type: 'citation_text', text: LEAK}],
  ])('reads %s', (_what, part) => {
    const d = answer([part])
    expect(d.text).toContain('fine')
    expect(d.text).toContain(LEAK)
    expect(d.unread).toEqual([])
  })

  it.each([
    ['a blob whose content is no base64 text', {type: 'blob', mime_type: 'text/plain', content: LEAK}, 'parts[1].content'],
    ['a member of a text part not known', {type: 'text', content: 'x', annotation: LEAK}, 'parts[1].annotation'],
    ['a Gemini part member not known', {text: 'x', groundingNote: LEAK}, 'parts[1].groundingNote'],
    ['a member of Gemini executable code not known', {executableCode: {code: 'x', comment: LEAK}}, 'parts[1].executableCode.comment'],
    ['a part that is a list', [LEAK], 'parts[1]'],
  ])('names %s as not read', (_what, part, name) => {
    expect(answer([part]).unread).toEqual([`chat message member ${JSON.stringify(name)}`])
  })

  it('names a member of the message besides role, parts, finish_reason and name', () => {
    expect(answer([], {extra_text: `x ${LEAK}`}).unread).toEqual(['chat message member "extra_text"'])
  })

  it('reads nothing from an image blob, a file part or Gemini\'s inline data, and names nothing', () => {
    const d = answer([
      {type: 'blob', mime_type: 'image/png', modality: 'image', content: 'iVBORw0KGgo='},
      {type: 'file', mime_type: 'application/pdf', modality: 'image', file_id: 'file-1'},
      {inlineData: {mimeType: 'image/png', data: 'iVBORw0KGgo='}, thoughtSignature: 'abc'},
    ])
    expect(d.text).toBe('fine')
    expect(d.unread).toEqual([])
  })
})

function adaptOne(format: LogFormat, line: unknown): unknown {
  const adapter = adapterFor(format)
  const options = resolveFormatOptions()
  const index = adapter.newIndex(options)
  index?.add(line, {file: 'f', line: 1})
  const r = adapter.adapt(line, {options, index, at: {file: 'f', line: 1}})
  expect(r.problems).toEqual([])
  expect(r.records).toHaveLength(1)
  return r.records[0]!.record.response
}

const kv = (key: string, v: string) => ({key, value: {stringValue: v}})
const oiSpan = (attributes: {key: string; value: unknown}[]) => ({resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tA')]}, scopeSpans: [{scope: {name: 'openinference'}, spans: [{
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', kind: 3, name: 'chat', startTimeUnixNano: '1793613600000000000', endTimeUnixNano: '1793613601000000000',
  attributes: [kv('openinference.span.kind', 'LLM'), kv('llm.model_name', 'm'), kv('session.id', 's1'), kv('llm.input_messages.0.message.role', 'user'), kv('llm.input_messages.0.message.content', 'hi'), ...attributes], status: {},
}]}]}]})

describe('OpenInference and Langfuse messages', () => {
  it('reads an OpenInference message\'s contents parts beside its content', () => {
    const d = decodeResponse(adaptOne('otel', oiSpan([
      kv('llm.output_messages.0.message.role', 'assistant'), kv('llm.output_messages.0.message.content', 'fine'),
      kv('llm.output_messages.0.message.contents.0.message_content.type', 'text'), kv('llm.output_messages.0.message.contents.0.message_content.text', `x ${LEAK}`),
    ])))
    expect(d.text).toContain('fine')
    expect(d.text).toContain(LEAK)
  })

  it('names an OpenInference message member it does not know', () => {
    const d = decodeResponse(adaptOne('otel', oiSpan([
      kv('llm.output_messages.0.message.role', 'assistant'), kv('llm.output_messages.0.message.content', 'fine'), kv('llm.output_messages.0.message.annotation', LEAK),
    ])))
    expect(d.unread).toEqual(['chat message member "llm.output_messages.0.message.annotation"'])
  })

  it.each([
    ['parts with a reasoning part\'s text', [{role: 'assistant', parts: [{type: 'text', content: 'fine'}, {type: 'reasoning', text: `x ${LEAK}`}]}]],
    ['Gemini Content with executableCode', {role: 'model', parts: [{text: 'fine'}, {executableCode: {language: 'PYTHON', code: `print('${LEAK}')`}}]}],
  ])('reads a Langfuse GENERATION output of %s', (_what, output) => {
    const d = decodeResponse(adaptOne('langfuse', {
      id: 'g1', traceId: 't1', type: 'GENERATION', name: 'chat', startTime: '2026-11-02T10:00:00.000Z', endTime: '2026-11-02T10:00:01.000Z', model: 'm',
      input: [{role: 'user', content: 'hi'}], output, sessionId: 's1', metadata: {tenant_id: 'tA'},
    }))
    expect(d.text).toContain('fine')
    expect(d.text).toContain(LEAK)
  })
})
