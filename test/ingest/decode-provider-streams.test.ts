import {describe, expect, it} from 'vitest'
import {decodeResponse} from '../../src/extract/decode.js'

// The streams of the providers whose bodies are read (Gemini, Bedrock Converse, Cohere v2, OpenAI
// Assistants) were named unread: every gate exited 1 on a clean log, and a marker in them was
// never classified. They are read now, closed-world as their bodies are, each piece joined where
// the answer has it: a marker split across two chunks is one marker, found once.

const M = 'CANARY-cccc3333dddd4444'
const HEAD = 'CANARY-cccc3333'
const TAIL = 'dddd4444'
const sse = (events: Array<{event?: string; data: unknown}>): string =>
  events.map((e) => `${e.event === undefined ? '' : `event: ${e.event}\n`}data: ${JSON.stringify(e.data)}\n\n`).join('')
const count = (text: string, s: string): number => text.split(s).length - 1

const gemini = (text: string, extra: Record<string, unknown> = {}) => ({
  candidates: [{content: {parts: [{text}], role: 'model'}, index: 0, ...extra}],
  usageMetadata: {promptTokenCount: 5, candidatesTokenCount: 2, totalTokenCount: 7, promptTokensDetails: [{modality: 'TEXT', tokenCount: 5}]},
  modelVersion: 'gemini-2.5-flash', responseId: 'r1',
})
const geminiChunks = [gemini(`Here: ${HEAD}`), gemini(`${TAIL} done.`, {finishReason: 'STOP'})]

const converseEvents = [
  {messageStart: {role: 'assistant'}},
  {contentBlockDelta: {delta: {reasoningContent: {text: 'thinking'}}, contentBlockIndex: 0}},
  {contentBlockDelta: {delta: {reasoningContent: {signature: 'c2ln'}}, contentBlockIndex: 0}},
  {contentBlockStop: {contentBlockIndex: 0}},
  {contentBlockDelta: {delta: {text: `Here: ${HEAD}`}, contentBlockIndex: 1}},
  {contentBlockDelta: {delta: {text: `${TAIL} done.`}, contentBlockIndex: 1}},
  {contentBlockStop: {contentBlockIndex: 1}},
  {contentBlockStart: {start: {toolUse: {toolUseId: 't1', name: 'lookup'}}, contentBlockIndex: 2}},
  {contentBlockDelta: {delta: {toolUse: {input: '{"q": "x'}}, contentBlockIndex: 2}},
  {contentBlockDelta: {delta: {toolUse: {input: 'y"}'}}, contentBlockIndex: 2}},
  {contentBlockStop: {contentBlockIndex: 2}},
  {messageStop: {stopReason: 'tool_use'}},
  {metadata: {usage: {inputTokens: 9, outputTokens: 4, totalTokens: 13}, metrics: {latencyMs: 120}}},
]

const cohereEvents = [
  {id: 'c1', type: 'message-start', delta: {message: {role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: []}}},
  {type: 'content-start', index: 0, delta: {message: {content: {type: 'text', text: ''}}}},
  {type: 'content-delta', index: 0, delta: {message: {content: {text: `Here: ${HEAD}`}}}},
  {type: 'content-delta', index: 0, delta: {message: {content: {text: `${TAIL} done.`}}}},
  {type: 'content-end', index: 0},
  {type: 'citation-start', index: 0, delta: {message: {citations: {start: 0, end: 4, text: 'Here', sources: [{type: 'document', id: 'd1', document: {id: 'd1', snippet: 'the source'}}]}}}},
  {type: 'citation-end', index: 0},
  {type: 'message-end', delta: {finish_reason: 'COMPLETE', usage: {billed_units: {input_tokens: 3, output_tokens: 4}, tokens: {input_tokens: 6, output_tokens: 4}}}},
]

const message = (content: unknown[], status: string) => ({
  id: 'msg_1', object: 'thread.message', created_at: 1, assistant_id: 'asst_1', thread_id: 'thread_1', run_id: 'run_1', status, incomplete_details: null,
  incomplete_at: null, completed_at: null, role: 'assistant', content, attachments: [], metadata: {},
})
const run = (status: string, extra: Record<string, unknown> = {}) => ({
  id: 'run_1', object: 'thread.run', created_at: 1, assistant_id: 'asst_1', thread_id: 'thread_1', status, started_at: null, expires_at: null, cancelled_at: null,
  failed_at: null, completed_at: null, last_error: null, model: 'gpt-4o', instructions: 'Answer briefly.', tools: [], metadata: {}, incomplete_details: null,
  usage: null, temperature: 1, top_p: 1, max_prompt_tokens: null, max_completion_tokens: null, truncation_strategy: {type: 'auto', last_messages: null},
  response_format: 'auto', tool_choice: 'auto', parallel_tool_calls: true, ...extra,
})
const textDelta = (value: string) => ({id: 'msg_1', object: 'thread.message.delta', delta: {content: [{index: 0, type: 'text', text: {value, annotations: []}}]}})
const assistantsEvents = [
  {event: 'thread.created', data: {id: 'thread_1', object: 'thread', created_at: 1, metadata: {}, tool_resources: {}}},
  {event: 'thread.run.created', data: run('queued')},
  {event: 'thread.run.in_progress', data: run('in_progress')},
  {event: 'thread.message.created', data: message([], 'in_progress')},
  {event: 'thread.message.delta', data: textDelta(`Here: ${HEAD}`)},
  {event: 'thread.message.delta', data: textDelta(`${TAIL} done.`)},
  // The completed message holds the whole text the deltas gave: not read twice.
  {event: 'thread.message.completed', data: message([{type: 'text', text: {value: `Here: ${M} done.`, annotations: []}}], 'completed')},
  {event: 'thread.run.completed', data: run('completed', {usage: {prompt_tokens: 12, completion_tokens: 5, total_tokens: 17}})},
]

const streams: Array<{name: string; body: string | unknown[]; tokens: [number, number]}> = [
  {name: 'Gemini streamGenerateContent?alt=sse', body: sse(geminiChunks.map((data) => ({data}))), tokens: [5, 2]},
  {name: 'Gemini streamGenerateContent (a JSON list)', body: JSON.stringify(geminiChunks), tokens: [5, 2]},
  {name: 'Gemini streamGenerateContent (a list logged as objects)', body: geminiChunks, tokens: [5, 2]},
  {name: 'Bedrock ConverseStream (a list)', body: converseEvents, tokens: [9, 4]},
  {name: 'Bedrock ConverseStream (NDJSON)', body: converseEvents.map((e) => JSON.stringify(e)).join('\n'), tokens: [9, 4]},
  {name: 'Cohere v2 chat stream (SSE)', body: sse(cohereEvents.map((data) => ({event: data.type, data}))), tokens: [6, 4]},
  {name: 'Cohere v2 chat stream (NDJSON)', body: cohereEvents.map((e) => JSON.stringify(e)).join('\n'), tokens: [6, 4]},
  {name: 'OpenAI Assistants stream', body: sse(assistantsEvents) + 'event: done\ndata: [DONE]\n\n', tokens: [12, 5]},
]

describe('other providers\' streams', () => {
  for (const s of streams) {
    it(`${s.name}: a marker split across two chunks is one marker, found once; nothing named unread`, () => {
      const d = decodeResponse(s.body)
      expect(d).toMatchObject({stream: true, isError: false, unread: [], promptTokens: s.tokens[0], completionTokens: s.tokens[1]})
      expect(d.text).toContain(`Here: ${M} done.`)
      expect(count(d.text, M)).toBe(1)
    })
  }

  it('reads what each gives beside the text: Converse reasoning and tool input, Cohere citations, Gemini grounding', () => {
    expect(decodeResponse(converseEvents).text).toBe(`thinking\nHere: ${M} done.\n{"q":"xy"}`)
    expect(decodeResponse(sse(cohereEvents.map((data) => ({data})))).text).toBe(`Here: ${M} done.\nHere\nthe source`)
    const grounded = [gemini('a'), gemini('b', {groundingMetadata: {groundingChunks: [{web: {uri: 'https://example.org/g', title: 'G'}}]}}), gemini('c', {groundingMetadata: {groundingChunks: [{web: {uri: 'https://example.org/g', title: 'G'}}]}})]
    expect(decodeResponse(grounded).text).toBe('abc\nhttps://example.org/g\nG')
  })

  it('reads Cohere tool plans and tool calls, and Assistants tool calls (a run step\'s deltas and a run\'s required action)', () => {
    const cohere = [
      {type: 'tool-plan-delta', delta: {message: {tool_plan: 'I will look up CANARY-cccc'}}},
      {type: 'tool-plan-delta', delta: {message: {tool_plan: '3333dddd4444'}}},
      {type: 'tool-call-start', index: 0, delta: {message: {tool_calls: {id: 't1', type: 'function', function: {name: 'lookup', arguments: ''}}}}},
      {type: 'tool-call-delta', index: 0, delta: {message: {tool_calls: {function: {arguments: '{"q": "a'}}}}},
      {type: 'tool-call-delta', index: 0, delta: {message: {tool_calls: {function: {arguments: 'b"}'}}}}},
      {type: 'tool-call-end', index: 0},
    ]
    expect(decodeResponse(cohere.map((e) => JSON.stringify(e)).join('\n'))).toMatchObject({text: `I will look up ${M}\n{"q": "ab"}`, unread: []})
    const stepDelta = (args: string) => ({id: 'step_1', object: 'thread.run.step.delta', delta: {step_details: {type: 'tool_calls', tool_calls: [{index: 0, id: 'call_1', type: 'function', function: {name: 'lookup', arguments: args, output: null}}]}}})
    const assistants = sse([
      {event: 'thread.run.step.delta', data: stepDelta('{"q": "CANARY-cccc')},
      {event: 'thread.run.step.delta', data: stepDelta('3333dddd4444"}')},
      {event: 'thread.run.requires_action', data: run('requires_action', {required_action: {type: 'submit_tool_outputs', submit_tool_outputs: {tool_calls: [{id: 'call_1', type: 'function', function: {name: 'lookup', arguments: `{"q": "${M}"}`}}]}}})},
    ])
    const d = decodeResponse(assistants)
    expect(d).toMatchObject({unread: []})
    expect(d.text).toContain(`{"q": "${M}"}`)
  })

  it('reads a cut-off last event as far as it goes: a marker split across the last whole chunk and the cut one is found', () => {
    const cut = (body: string) => body.slice(0, body.indexOf(TAIL) + TAIL.length)
    for (const body of [sse(geminiChunks.map((data) => ({data}))), JSON.stringify(geminiChunks), converseEvents.slice(0, 6).map((e) => JSON.stringify(e)).join('\n'), sse(cohereEvents.map((data) => ({data}))), sse(assistantsEvents)]) {
      const d = decodeResponse(cut(body))
      expect(d.text, body).toContain(M)
      expect(d.unread, body).toEqual([])
    }
  })

  it('searches an error the stream showed: a ConverseStream exception event, an Assistants run\'s last error', () => {
    const converse = decodeResponse([converseEvents[4], {modelStreamErrorException: {message: `failed ${M}`, originalStatusCode: 500, originalMessage: 'upstream'}}])
    expect(converse).toMatchObject({isError: true, errorMessage: `failed ${M}`, unread: []})
    expect(converse.text).toBe(`Here: ${HEAD}\nfailed ${M}\nupstream`)
    const failed = decodeResponse(sse([{event: 'thread.run.failed', data: run('failed', {last_error: {code: 'server_error', message: `broke ${M}`}})}]))
    expect(failed).toMatchObject({isError: true, errorMessage: `broke ${M}`, unread: []})
  })

  it('reads an Assistants message logged without its deltas from the completed message, and its annotations once', () => {
    const annotated = [{type: 'text', text: {value: `Here: ${M} done.`, annotations: [{type: 'file_citation', text: '【4:0†source】', file_citation: {file_id: 'file-1'}, start_index: 0, end_index: 5}]}}]
    expect(decodeResponse(sse([{event: 'thread.message.completed', data: message(annotated, 'completed')}]))).toMatchObject({text: `Here: ${M} done.\n【4:0†source】`, unread: []})
    const delta = {id: 'msg_1', object: 'thread.message.delta', delta: {content: [{index: 0, type: 'text', text: {value: `Here: ${M} done.`, annotations: [{index: 0, type: 'file_citation', text: '【4:0†source】', file_citation: {file_id: 'file-1'}, start_index: 0, end_index: 5}]}}]}}
    expect(decodeResponse(sse([{data: delta}, {data: message(annotated, 'completed')}])).text).toBe(`Here: ${M} done.\n【4:0†source】`)
  })

  it('still reads a chat chunk carrying request metadata (SGLang) as a chat chunk, not a ConverseStream event', () => {
    const chat = sse([{data: {id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [{index: 0, delta: {content: 'hi'}}]}}, {data: {id: 'c', model: 'm', usage: {prompt_tokens: 3, completion_tokens: 1}, metadata: {weight_version: 'default'}}}])
    expect(decodeResponse(chat + 'data: [DONE]\n\n')).toMatchObject({text: 'hi', unread: [], promptTokens: 3, completionTokens: 1})
  })

  it('names a member no release knows, holding text, in each stream (closed-world)', () => {
    expect(decodeResponse(sse([{data: gemini('a', {x_future: {t: M}})}])).unread).toEqual(['Gemini candidate member "x_future"'])
    expect(decodeResponse([{contentBlockDelta: {delta: {futureText: M}, contentBlockIndex: 0}}]).unread).toEqual(['ConverseStream delta member "futureText"'])
    expect(decodeResponse([{messageStart: {role: 'assistant'}, futureEvent: {text: M}}]).unread).toEqual(['ConverseStream event member "futureEvent"'])
    expect(decodeResponse([{messageStart: {role: 'assistant'}}, {futureEvent: {text: M}}]).unread).toEqual(['stream chunk member "futureEvent"'])
    expect(decodeResponse(sse([{data: {type: 'content-delta', index: 0, delta: {message: {content: {text: 'a', future: M}}}}}])).unread).toEqual(['Cohere stream content member "future"'])
    expect(decodeResponse(sse([{data: {type: 'content-delta', index: 0, delta: {message: {content: {text: 'a'}}}, note: M}}])).unread).toEqual(['Cohere stream event member "note"'])
    expect(decodeResponse(sse([{data: {id: 'm', object: 'thread.message.delta', delta: {content: [{index: 0, type: 'future_part', future_part: {text: M}}]}}}])).unread).toEqual(['Assistants delta content part "future_part"'])
    expect(decodeResponse(sse([{data: run('completed', {future_summary: M})}])).unread).toEqual(['Assistants run member "future_summary"'])
  })
})
