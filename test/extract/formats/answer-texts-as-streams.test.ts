import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions, type LogFormat} from '../../../src/extract/formats/index.js'
import {UNREAD_SHAPES, type RecordRow} from '../../../src/extract/parse-record.js'
import {decode} from './run-adapter.js'

// An answer a converter copied from a gateway's body into a text field (a Langfuse output, an
// OTel completion's content, OpenInference's output.value) may be the stream's SSE text: it is
// read as the stream it is, as the native adapter reads such a body, so a marker split across
// two chunks is whole (read as plain text, it was missed, the gate passed and its first piece was
// taken for a marker registered to nobody). An empty answer there ({}, "", {"choices":[]}) is an
// answer with no text, never the text "{}": the gate cannot pass on it.

const LEAK = 'CANARY-0a1b2c3d4e5f60718293a4b5'
const chunk = (content: string): string => `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content}}]})}`
/** The answer "Here is your answer: <LEAK> end." streamed with the marker split across two chunks. */
const SSE = [chunk('Here is your answer: '), chunk(LEAK.slice(0, 15)), chunk(`${LEAK.slice(15)} end.`), 'data: [DONE]'].join('\n\n') + '\n\n'
const WHOLE = `Here is your answer: ${LEAK} end.`

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})
const TRACE = '7690723d864da13b936d1bcd6697db0c'
const SPAN = '09fe69716e6acbc5'

function span(attributes: Attr[]): unknown {
  const s = {
    traceId: TRACE, spanId: SPAN, parentSpanId: '', kind: 3, name: 'chat m',
    startTimeUnixNano: '1793539442363394714', endTimeUnixNano: '1793539443263394714',
    attributes: [kv('session.id', 'sess-b'), ...attributes], status: {},
  }
  return {resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tenant-b')]}, scopeSpans: [{scope: {name: 'app'}, spans: [s]}]}]}
}
const genAi = (...attributes: Attr[]): unknown => span([kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.input.messages', JSON.stringify([{role: 'user', content: 'hi'}])), ...attributes])
const openInference = (...attributes: Attr[]): unknown => span([kv('openinference.span.kind', 'LLM'), kv('input.value', 'hi'), ...attributes])

/** A gen_ai.choice log record of the span whose message content is `content`, alone in its file. */
function choiceLog(content: string): unknown {
  const body = {kvlistValue: {values: [
    {key: 'index', value: {intValue: '0'}},
    {key: 'message', value: {kvlistValue: {values: [{key: 'role', value: {stringValue: 'assistant'}}, {key: 'content', value: {stringValue: content}}]}}},
  ]}}
  return {resourceLogs: [{resource: {attributes: [kv('tenant.id', 'tenant-b')]}, scopeLogs: [{scope: {name: 'app'}, logRecords: [{
    timeUnixNano: '1793539443263615108', traceId: TRACE, spanId: SPAN, eventName: 'gen_ai.choice',
    attributes: [kv('event.name', 'gen_ai.choice'), kv('session.id', 'sess-b')], body,
  }]}]}]}
}

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

describe('a streamed answer kept as its SSE text in a text field is read as the stream', () => {
  const cases: [string, LogFormat, unknown][] = [
    ['Langfuse output', 'langfuse', generation(SSE)],
    ['Langfuse output as v2 JSON text', 'langfuse', generation(JSON.stringify(SSE))],
    ['OTel gen_ai.completion.0.content', 'otel', span([kv('gen_ai.operation.name', 'chat'), kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', 'hi'), kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', SSE)])],
    ['OTel gen_ai.output.messages as text', 'otel', genAi(kv('gen_ai.output.messages', SSE))],
    ['OTel gen_ai.output.messages as a JSON string', 'otel', genAi(kv('gen_ai.output.messages', JSON.stringify(SSE)))],
    ['OpenInference output.value', 'otel', openInference(kv('output.value', SSE), kv('output.mime_type', 'text/plain'))],
    ['OTel gen_ai.choice log record alone', 'otel', choiceLog(SSE)],
  ]
  for (const [name, format, line] of cases) {
    it(name, () => {
      const {row} = rowOf(format, line)
      expect(row.response_text).toBe(WHOLE)
    })
  }

  it('OpenInference: output.value holding the SSE text beside the output messages adds no piece of a marker', () => {
    const {row} = rowOf('otel', openInference(kv('output.value', SSE), kv('llm.output_messages.0.message.role', 'assistant'), kv('llm.output_messages.0.message.content', WHOLE)))
    expect(row.response_text).toBe(WHOLE)
  })

  it('a stream ending with an error is an error record; a shape the decoder does not read is said', () => {
    const failed = [chunk('partial '), `data: ${JSON.stringify({error: {message: 'upstream overloaded', type: 'server_error'}})}`].join('\n\n')
    const {row} = rowOf('otel', genAi(kv('gen_ai.output.messages', failed)))
    expect(row.is_error).toBe(1)
    expect(row.error_message).toBe('upstream overloaded')
    const odd = [chunk('Hi '), `data: ${JSON.stringify({id: 'c1', object: 'chat.completion.chunk', choices: [{index: 0, delta: {x_new_member: 'text'}}]})}`, 'data: [DONE]'].join('\n\n')
    const read = rowOf('otel', genAi(kv('gen_ai.output.messages', odd)))
    expect(read.notes.some((n) => n.startsWith(UNREAD_SHAPES))).toBe(true)
  })

  it('a text that only starts like a stream stays the text it is', () => {
    for (const [format, line] of [['langfuse', generation('data: see below, CANARY-0a1b2c3d')], ['otel', genAi(kv('gen_ai.output.messages', 'data: see below, CANARY-0a1b2c3d'))]] as const) {
      expect(rowOf(format, line).row.response_text).toBe('data: see below, CANARY-0a1b2c3d')
    }
  })
})

describe('an empty answer in a text field is an answer with no text', () => {
  const cases: [string, LogFormat, unknown][] = [
    ['Langfuse output {}', 'langfuse', generation({})],
    ['Langfuse output "{}" (v2 JSON text)', 'langfuse', generation('{}')],
    ['Langfuse output {"choices":[]}', 'langfuse', generation('{"choices":[]}')],
    ['Langfuse output "\\"\\""', 'langfuse', generation('""')],
    ['OTel gen_ai.output.messages "\\"\\""', 'otel', genAi(kv('gen_ai.output.messages', '""'))],
    ['OpenInference output.value {}', 'otel', openInference(kv('output.value', '{}'), kv('output.mime_type', 'application/json'))],
    ['OpenInference output.value {"choices":[]}', 'otel', openInference(kv('output.value', '{"choices":[]}'), kv('output.mime_type', 'application/json'))],
  ]
  for (const [name, format, line] of cases) {
    it(name, () => {
      const {row} = rowOf(format, line)
      // No text (null or ''): ingest counts it in no_response_text, so no gate passes on it.
      expect(row.response_text ?? '').toBe('')
      expect(row.is_error).toBe(0)
    })
  }
})
