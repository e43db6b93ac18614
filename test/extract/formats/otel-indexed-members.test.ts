import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions} from '../../../src/extract/formats/index.js'
import {decodeRequest, decodeResponse} from '../../../src/extract/decode.js'

// OpenLLMetry's indexed attributes (gen_ai.completion.N.*, and llm.completions.N.* of its older
// releases) carry more than role and content: {prefix}.refusal, reasoning_content and the legacy
// function_call.name / .arguments. Before, only role, content, finish_reason and tool_calls were
// read, and every other member was dropped without a word: a marker in a refusal passed the gate.

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})
const LEAK = 'CANARY-cccccccccccccccc3333'

function span(attributes: Attr[]): unknown {
  const s = {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', kind: 3, name: 'chat gpt-4o',
    startTimeUnixNano: '1793613600000000000', endTimeUnixNano: '1793613601000000000',
    attributes: [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.system', 'openai'), kv('session.id', 's1'), ...attributes],
    status: {},
  }
  return {resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tA')]}, scopeSpans: [{scope: {name: 'opentelemetry.instrumentation.openai'}, spans: [s]}]}]}
}

function bodies(line: unknown): {request: unknown; response: unknown} {
  const adapter = adapterFor('otel')
  const options = resolveFormatOptions()
  const index = adapter.newIndex(options)!
  index.add(line, {file: 'f', line: 1})
  const r = adapter.adapt(line, {options, index, at: {file: 'f', line: 1}})
  expect(r.problems).toEqual([])
  expect(r.records).toHaveLength(1)
  return {request: r.records[0]!.record.request, response: r.records[0]!.record.response}
}

const answer = (...members: Attr[]) => bodies(span([kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', 'hi'), kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', 'fine'), ...members]))

describe('otel adapter: every member of an OpenLLMetry indexed message is read or named', () => {
  it.each([
    ['a refusal beside the content', [kv('gen_ai.completion.0.refusal', `no ${LEAK}`)]],
    ['a second choice that is only a refusal', [kv('gen_ai.completion.1.role', 'assistant'), kv('gen_ai.completion.1.refusal', `no ${LEAK}`)]],
    ['reasoning_content', [kv('gen_ai.completion.0.reasoning_content', `x ${LEAK}`)]],
    ['a legacy function call\'s arguments', [kv('gen_ai.completion.0.function_call.name', 'f'), kv('gen_ai.completion.0.function_call.arguments', `{"q": "${LEAK}"}`)]],
  ])('reads %s', (_what, members) => {
    const d = decodeResponse(answer(...members).response)
    expect(d.text).toContain('fine')
    expect(d.text).toContain(LEAK)
    expect(d.unread).toEqual([])
  })

  it('reads the same members of the older llm.completions.N.* attributes', () => {
    const b = bodies(span([kv('llm.prompts.0.content', 'hi'), kv('llm.completions.0.content', 'fine'), kv('llm.completions.0.refusal', `no ${LEAK}`)]))
    expect(decodeResponse(b.response).text).toContain(LEAK)
  })

  it('names a member it does not know as not read, so the answer is not read whole', () => {
    const d = decodeResponse(answer(kv('gen_ai.completion.0.annotation_text', `x ${LEAK}`)).response)
    expect(d.unread).toEqual(['chat message member "gen_ai.completion.0.annotation_text"'])
  })

  it('names nothing for members that hold no text (finish reason, content filter verdicts, tool call type)', () => {
    const d = decodeResponse(answer(
      kv('gen_ai.completion.0.finish_reason', 'stop'),
      kv('gen_ai.completion.0.content_filter_results', '{"hate": {"filtered": false, "severity": "safe"}}'),
      kv('gen_ai.completion.0.tool_calls.0.id', 'call_1'), kv('gen_ai.completion.0.tool_calls.0.type', 'function'),
      kv('gen_ai.completion.0.tool_calls.0.name', 'f'), kv('gen_ai.completion.0.tool_calls.0.arguments', '{}'),
    ).response)
    expect(d.unread).toEqual([])
  })

  it('reads a prompt message\'s refusal and legacy function call as request text (the echo check)', () => {
    const b = bodies(span([
      kv('gen_ai.prompt.0.role', 'assistant'), kv('gen_ai.prompt.0.refusal', `no ${LEAK}`),
      kv('gen_ai.prompt.1.role', 'assistant'), kv('gen_ai.prompt.1.function_call.name', 'f'), kv('gen_ai.prompt.1.function_call.arguments', '{"q": "CANARY-aaaaaaaaaaaaaaaa1111"}'),
      kv('gen_ai.completion.0.content', 'fine'),
    ]))
    const text = decodeRequest(b.request) ?? ''
    expect(text).toContain(LEAK)
    expect(text).toContain('CANARY-aaaaaaaaaaaaaaaa1111')
  })
})
