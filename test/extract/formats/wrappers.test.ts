import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions, type AdaptResult, type LinePosition, type LogFormat} from '../../../src/extract/formats/index.js'
import {textLeaves, textsBeyond, withAnswerTexts} from '../../../src/extract/formats/wrapper-texts.js'
import {unreadShapesNote} from '../../../src/extract/parse-record.js'
import {decodeResponse} from '../../../src/extract/decode.js'
import {decode} from './run-adapter.js'

// A wrapper of a model call read holds that call's texts, except where the application changed
// them on the way: a wrapper's answer that is not among its call's texts is read with the call
// (the last of its trace to end) as a further choice, its input as further prompt text, and its
// line becomes one the record is read from, so the record decodes again the same from its lines.

const options = resolveFormatOptions()

/** Every line offered to the index, then each adapted: as ingest runs a joined set. */
function adaptAll(format: LogFormat, lines: readonly unknown[], at = (i: number): LinePosition => ({file: 'f', line: i + 1})): AdaptResult[] {
  const adapter = adapterFor(format)
  const index = adapter.newIndex(options)
  lines.forEach((l, i) => index?.add(l, at(i)))
  return lines.map((l, i) => adapter.adapt(l, {options, index, at: at(i)}))
}

/** One line decoded again from itself and the companions its record named, as the evidence layer does. */
function again(format: LogFormat, lines: readonly unknown[], line: number, companions: readonly LinePosition[]): AdaptResult {
  const adapter = adapterFor(format)
  const index = adapter.newIndex(options)
  index?.add(lines[line - 1], {file: 'f', line})
  for (const c of companions) index?.add(lines[c.line - 1], {file: 'f', line: c.line})
  return adapter.adapt(lines[line - 1], {options, index, at: {file: 'f', line}})
}

const texts = (r: AdaptResult) => {
  const {row} = decode(r.records[0]!.record)
  return {request: row!.request_text, response: row!.response_text}
}

describe('langfuse: a wrapping observation', () => {
  const obs = (id: string, type: string, extra: Record<string, unknown>) => ({
    id, traceId: 't1', type, sessionId: 's1', metadata: {tenant_id: 'ta'}, startTime: '2026-11-02T10:00:00Z', endTime: '2026-11-02T10:00:01Z', ...extra,
  })
  const gen = (id: string, answer: string, endTime = '2026-11-02T10:00:01Z') => obs(id, 'GENERATION', {input: [{role: 'user', content: 'q'}], output: {role: 'assistant', content: answer}, endTime})

  it('reads a SPAN\'s output that is not the call\'s as a further choice, its input with it, and names its line', () => {
    const lines = [gen('g1', 'fine'), obs('s1', 'SPAN', {input: {args: ['q', 'context CANARY-0011'], kwargs: {}}, output: 'composed CANARY-2233'})]
    const [g, s] = adaptAll('langfuse', lines)
    expect(texts(g!)).toEqual({request: 'q\ncontext CANARY-0011', response: 'fine\ncomposed CANARY-2233'})
    expect(g!.records[0]!.companions).toEqual([{file: 'f', line: 2}])
    expect(g!.records[0]!.notes).toContain('the output of a wrapping Langfuse SPAN observation is not among the call\'s texts: read as a further choice of its answer')
    expect(s!.unread).toBeUndefined()
    expect(texts(again('langfuse', lines, 1, g!.records[0]!.companions!))).toEqual(texts(g!))
  })

  it('changes nothing where the SPAN passes the call\'s texts on (in another shape, white space aside)', () => {
    const [g] = adaptAll('langfuse', [gen('g1', 'fine  answer'), obs('s1', 'SPAN', {input: {args: ['q']}, output: {role: 'assistant', content: 'fine answer'}})])
    expect(texts(g!)).toEqual({request: 'q', response: 'fine  answer'})
    expect(g!.records[0]!.companions).toBeUndefined()
  })

  it('reads it with the last GENERATION of the trace to end, and only there', () => {
    const lines = [gen('g2', 'second', '2026-11-02T10:00:05Z'), gen('g1', 'first'), obs('s1', 'SPAN', {output: 'final CANARY-2233'})]
    const [late, early] = adaptAll('langfuse', lines)
    expect(texts(late!).response).toBe('second\nfinal CANARY-2233')
    expect(texts(early!).response).toBe('first')
  })

  it('leaves a SPAN beside a GENERATION without an id (a bad item, no record to read it with) as before: not counted', () => {
    const {id: _none, ...noId} = gen('g1', 'fine')
    const [g, s] = adaptAll('langfuse', [noId, obs('s1', 'SPAN', {output: 'composed CANARY-2233'})])
    expect(g!.problems.map((p) => p.reason)).toEqual([expect.stringMatching(/^missing request_id/)])
    expect(s!.unread).toBeUndefined()
  })

  it('does not read a SPAN that names another session with the call: it is counted as unread', () => {
    const [g, s] = adaptAll('langfuse', [gen('g1', 'fine'), obs('s1', 'SPAN', {sessionId: 's2', output: 'composed CANARY-2233'})])
    expect(texts(g!).response).toBe('fine')
    expect(s!.unread).toEqual({'Langfuse SPAN': 1})
  })
})

describe('otel: a wrapping span', () => {
  type Attr = {key: string; value: Record<string, unknown>}
  const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})
  const TRACE = '0af7651916cd43dd8448eb211c80319c'
  const line = (...spans: Array<{spanId: string; parent?: string; end?: string; attributes: Attr[]}>) => ({resourceSpans: [{resource: {attributes: [kv('tenant.id', 'ta')]}, scopeSpans: [{scope: {name: 's'}, spans: spans.map((s) => ({
    traceId: TRACE, spanId: s.spanId, parentSpanId: s.parent ?? '', kind: 1, name: 'n', startTimeUnixNano: '1793404940000000000', endTimeUnixNano: s.end ?? '1793404941000000000', attributes: s.attributes, status: {},
  }))}]}]})
  const llm = (spanId: string, answer: string, end?: string) => ({spanId, parent: '00000000000000c1', end, attributes: [kv('openinference.span.kind', 'LLM'), kv('session.id', 's1'), kv('input.value', 'q'), kv('output.value', answer)]})
  const chain = (output: string, extra: Attr[] = []) => ({spanId: '00000000000000c1', end: '1793404942000000000', attributes: [kv('openinference.span.kind', 'CHAIN'), kv('input.value', 'q'), kv('output.value', output), ...extra]})

  it('reads a CHAIN\'s output that is not the call\'s as a further choice, on the same line or another, and decodes again the same', () => {
    const [one] = adaptAll('otel', [line(llm('00000000000000a1', 'fine'), chain('composed CANARY-2233'))])
    expect(texts(one!)).toEqual({request: 'q', response: 'fine\ncomposed CANARY-2233'})
    expect(one!.unread).toBeUndefined()
    const lines = [line(llm('00000000000000a1', 'fine')), line(chain('composed CANARY-2233'))]
    const [call, wrapper] = adaptAll('otel', lines)
    expect(texts(call!).response).toBe('fine\ncomposed CANARY-2233')
    expect(call!.records[0]!.companions).toEqual([{file: 'f', line: 2}])
    expect(wrapper!.unread).toBeUndefined()
    expect(texts(again('otel', lines, 1, call!.records[0]!.companions!))).toEqual(texts(call!))
  })

  it('reads it with the last call of the trace to end; the other call, on the wrapper\'s line, names that call\'s line', () => {
    const lines = [line(llm('00000000000000a1', 'first'), chain('final CANARY-2233')), line(llm('00000000000000a2', 'second', '1793404945000000000'))]
    const [first, second] = adaptAll('otel', lines)
    expect(texts(first!).response).toBe('first')
    expect(texts(second!).response).toBe('second\nfinal CANARY-2233')
    // Decoded again from its own line alone, the first call would take the CHAIN's answer: its record names the second's line.
    expect(first!.records[0]!.companions).toEqual([{file: 'f', line: 2}])
    expect(texts(again('otel', lines, 1, first!.records[0]!.companions!))).toEqual(texts(first!))
  })

  it('changes nothing where a CHAIN passes the call\'s answer on with its metadata (LangChain\'s message as JSON)', () => {
    const message = {lc: 1, type: 'constructor', id: ['langchain', 'schema', 'messages', 'AIMessage'], kwargs: {content: 'fine', type: 'ai', id: 'run-1', response_metadata: {model_name: 'gpt-4o-2024-08-06', finish_reason: 'stop'}}}
    const call = llm('00000000000000a1', 'fine')
    call.attributes.push(kv('llm.model_name', 'gpt-4o-2024-08-06'))
    const [r] = adaptAll('otel', [line(call, chain(JSON.stringify(message), [kv('output.mime_type', 'application/json')]))])
    expect(texts(r!).response).toBe('fine')
    expect(r!.records[0]!.notes.join()).not.toMatch(/wrapping/)
  })

  it('does not read a CHAIN that names another session than its call: it is counted as unread', () => {
    const [r] = adaptAll('otel', [line(llm('00000000000000a1', 'fine'), chain('composed CANARY-2233', [kv('session.id', 's2')]))])
    expect(texts(r!).response).toBe('fine')
    expect(r!.unread).toEqual({OpenInference: 1})
  })
})

describe('wrapper texts', () => {
  it('takes the strings of a structure, a JSON text read as one, labels and placeholders left out', () => {
    expect(textLeaves({role: 'assistant', content: ' hi ', parts: ['{"text":"a","type":"text"}', '__REDACTED__', 'redacted-by-litellm'], n: 3})).toEqual(['hi', 'a'])
    // A JSON text that gives a key twice is kept whole (both copies are searched); a JSON string literal is its string.
    expect(textLeaves('{"a": "x", "a": "CANARY-2233"}')).toEqual(['{"a": "x", "a": "CANARY-2233"}'])
    expect(textLeaves('"Hello"')).toEqual(['Hello'])
    expect(textsBeyond({prompt: ['q'], answer: ['fine', 'gpt-4o', 'new text']}, {text: 'q\nfine', strings: new Set(['gpt-4o'])})).toEqual({prompt: null, answer: 'new text'})
  })

  it('adds an answer to a Messages API response as a further choice, its own text first', () => {
    const notes: string[] = []
    const body = withAnswerTexts({type: 'message', role: 'assistant', content: [{type: 'thinking', thinking: 'hm'}, {type: 'text', text: 'ok'}]}, ['composed'], notes)
    expect(decodeResponse(body).text).toBe('hm\nok\ncomposed')
    expect(notes).toEqual([])
  })

  it('says of the record a block of a type the decoder does not read in the body it replaces (the body carries no word of it after)', () => {
    const notes: string[] = []
    const body = withAnswerTexts({type: 'message', role: 'assistant', content: [{type: 'x_future_result', content: 'CANARY-2233'}, {type: 'text', text: 'ok'}]}, ['composed'], notes)
    expect(decodeResponse(body).unread).toEqual([])
    expect(notes).toEqual([unreadShapesNote(['Messages API content block "x_future_result"'])])
  })
})
