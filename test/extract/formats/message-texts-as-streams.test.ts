import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions, type LogFormat} from '../../../src/extract/formats/index.js'
import {UNREAD_SHAPES, type RecordRow} from '../../../src/extract/parse-record.js'
import {decode} from './run-adapter.js'

// A streamed answer a converter copied into a message's text (a Langfuse output message's
// content, a list of such messages, an OTel output message's text part, a span event's message)
// is read as the stream it is, as the same text given as the whole output is
// (answer-texts-as-streams.test.ts): read as plain text, a marker split across two chunks was
// missed and the gate passed over another tenant's marker. A stream kept as NDJSON (Ollama's
// chunks, or chat chunks one per line) where an SSE text would be is read as the body reader
// reads such a body; a text that only looks like one stays text.

const LEAK = 'CANARY-0a1b2c3d4e5f60718293a4b5'
const chunkOf = (content: string): Record<string, unknown> => ({id: 'c1', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content}}]})
const PIECES = ['Here is your answer: ', LEAK.slice(0, 15), `${LEAK.slice(15)} end.`]
/** The answer "Here is your answer: <LEAK> end." streamed with the marker split across two chunks. */
const SSE = [...PIECES.map((p) => `data: ${JSON.stringify(chunkOf(p))}`), 'data: [DONE]'].join('\n\n') + '\n\n'
const WHOLE = `Here is your answer: ${LEAK} end.`
/** The same answer as chat chunks one per line (no `data: ` fields). */
const NDJSON_CHUNKS = PIECES.map((p) => JSON.stringify(chunkOf(p))).join('\n') + '\n'
/** The same answer as Ollama's /api/chat NDJSON stream. */
const OLLAMA = [
  ...PIECES.map((p) => JSON.stringify({model: 'llama3', created_at: '2026-11-01T10:00:02Z', message: {role: 'assistant', content: p}, done: false})),
  JSON.stringify({model: 'llama3', created_at: '2026-11-01T10:00:03Z', message: {role: 'assistant', content: ''}, done: true, done_reason: 'stop', eval_count: 9}),
].join('\n')

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})
const TRACE = '7690723d864da13b936d1bcd6697db0c'
const SPAN = '09fe69716e6acbc5'

function span(attributes: Attr[], events: unknown[] = []): unknown {
  const s = {
    traceId: TRACE, spanId: SPAN, parentSpanId: '', kind: 3, name: 'chat m',
    startTimeUnixNano: '1793539442363394714', endTimeUnixNano: '1793539443263394714',
    attributes: [kv('session.id', 'sess-b'), ...attributes], events, status: {},
  }
  return {resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tenant-b')]}, scopeSpans: [{scope: {name: 'app'}, spans: [s]}]}]}
}
const GENAI = [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.input.messages', JSON.stringify([{role: 'user', content: 'hi'}]))]
const genAi = (...attributes: Attr[]): unknown => span([...GENAI, ...attributes])
/** gen_ai.output.messages in the conventions' parts shape, its one text part holding `text`. */
const partsOutput = (text: string): Attr => kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: text}], finish_reason: 'stop'}]))

function generation(output: unknown): unknown {
  return {id: 'gen-b', traceId: 't2', type: 'GENERATION', startTime: '2026-11-01T10:00:02Z', endTime: '2026-11-01T10:00:03Z', sessionId: 'sess-b', metadata: {tenant_id: 'tenant-b'}, model: 'm', input: [{role: 'user', content: 'hi'}], output}
}

/** The one record a line gives, as ingest stores it (its row), with its notes. */
function rowOf(format: LogFormat, line: unknown): {row: RecordRow; notes: string[]} {
  const adapter = adapterFor(format)
  const options = resolveFormatOptions()
  const index = adapter.newIndex(options)
  index?.add(line, {file: 'f', line: 1})
  const out = adapter.adapt(line, {options, index, at: {file: 'f', line: 1}})
  expect(out.problems).toEqual([])
  expect(out.records).toHaveLength(1)
  const {row, bad} = decode(out.records[0]!.record)
  expect(bad).toBeNull()
  return {row: row!, notes: out.records[0]!.notes}
}

/** The places a stream's text may be kept in a message, each as a line of its format. */
function places(stream: string): [string, LogFormat, unknown][] {
  return [
    ['Langfuse output message content', 'langfuse', generation({role: 'assistant', content: stream})],
    ['Langfuse output message as v2 JSON text', 'langfuse', generation(JSON.stringify({role: 'assistant', content: stream}))],
    ['Langfuse output message content parts', 'langfuse', generation({role: 'assistant', content: [{type: 'text', text: stream}]})],
    ['Langfuse output choice {index, message}', 'langfuse', generation({index: 0, message: {role: 'assistant', content: stream}, finish_reason: 'stop'})],
    ['Langfuse output list of messages', 'langfuse', generation([{role: 'assistant', content: stream}])],
    ['Langfuse output list of OTel parts messages', 'langfuse', generation([{role: 'assistant', parts: [{type: 'text', content: stream}]}])],
    ['OTel gen_ai.output.messages text part', 'otel', genAi(partsOutput(stream))],
    ['OTel details span event, text part', 'otel', span(GENAI.slice(0, 2), [{name: 'gen_ai.client.inference.operation.details', timeUnixNano: '1793539443263394714', attributes: [partsOutput(stream)]}])],
    ['OTel gen_ai.choice span event, ADK content parts', 'otel', span(GENAI, [{name: 'gen_ai.choice', timeUnixNano: '1793539443263394714', attributes: [kv('gen_ai.event.content', JSON.stringify({index: 0, finish_reason: 'stop', content: {role: 'model', parts: [{text: stream}]}}))]}])],
    ['OTel gen_ai.content.completion span event, parts message', 'otel', span(GENAI.slice(0, 2), [{name: 'gen_ai.content.completion', timeUnixNano: '1793539443263394714', attributes: [kv('gen_ai.completion', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: stream}]}]))]}])],
  ]
}

describe('a streamed answer kept as its SSE text in a message is read as the stream', () => {
  for (const [name, format, line] of places(SSE)) {
    it(name, () => {
      expect(rowOf(format, line).row.response_text).toBe(WHOLE)
    })
  }

  it('a list of several messages: each read as its stream', () => {
    const {row} = rowOf('langfuse', generation([{role: 'assistant', content: SSE}, {role: 'assistant', content: 'second'}]))
    expect(row.response_text).toContain(WHOLE)
    expect(row.response_text).toContain('second')
    expect(row.response_text).not.toContain('data:')
  })

  it('an empty stream in a message is an answer with no text', () => {
    for (const [, format, line] of places('data: [DONE]\n\n')) {
      const {row} = rowOf(format, line)
      expect(row.response_text ?? '').toBe('')
      expect(row.is_error).toBe(0)
    }
  })

  it('a stream ending with an error in a message is an error record; a shape the decoder does not read is said', () => {
    const failed = [`data: ${JSON.stringify(chunkOf('partial '))}`, `data: ${JSON.stringify({error: {message: 'upstream overloaded', type: 'server_error'}})}`].join('\n\n')
    for (const [format, line] of [['langfuse', generation({role: 'assistant', content: failed})], ['otel', genAi(partsOutput(failed))]] as const) {
      const {row} = rowOf(format, line)
      expect(row.is_error).toBe(1)
      expect(row.error_message).toBe('upstream overloaded')
    }
    const odd = [`data: ${JSON.stringify(chunkOf('Hi '))}`, `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', choices: [{index: 0, delta: {x_new_member: 'text'}}]})}`, 'data: [DONE]'].join('\n\n')
    for (const [format, line] of [['langfuse', generation([{role: 'assistant', content: odd}])], ['otel', genAi(partsOutput(odd))]] as const) {
      expect(rowOf(format, line).notes.some((n) => n.startsWith(UNREAD_SHAPES))).toBe(true)
    }
  })

  it('a text in a message that only starts like a stream stays the text it is', () => {
    for (const [, format, line] of places('data: see below, CANARY-0a1b2c3d')) {
      expect(rowOf(format, line).row.response_text).toBe('data: see below, CANARY-0a1b2c3d')
    }
  })
})

describe('a streamed answer kept as NDJSON where an SSE text would be is read as the stream', () => {
  const whole = (stream: string): [string, LogFormat, unknown][] => [
    ['Langfuse output', 'langfuse', generation(stream)],
    ['OTel gen_ai.completion.0.content', 'otel', span([kv('gen_ai.operation.name', 'chat'), kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', 'hi'), kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', stream)])],
    ['OTel gen_ai.output.messages as text', 'otel', genAi(kv('gen_ai.output.messages', stream))],
    ['OpenInference output.value', 'otel', span([kv('openinference.span.kind', 'LLM'), kv('input.value', 'hi'), kv('output.value', stream), kv('output.mime_type', 'text/plain')])],
    ...places(stream),
  ]
  for (const [kind, stream] of [['chat chunks', NDJSON_CHUNKS], ['Ollama chunks', OLLAMA]] as const) {
    for (const [name, format, line] of whole(stream)) {
      it(`${kind}: ${name}`, () => {
        expect(rowOf(format, line).row.response_text).toBe(WHOLE)
      })
    }
  }

  it('lines of JSON objects of no stream shape stay the text they are', () => {
    const text = '{"name": "a", "note": "CANARY-0a1b2c3d"}\n{"name": "b"}'
    for (const [, format, line] of whole(text)) {
      expect(rowOf(format, line).row.response_text).toBe(text)
    }
  })
})
