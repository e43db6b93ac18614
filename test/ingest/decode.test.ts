import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {decodeRequest, decodeRequestBody, decodeResponse, splitLines} from '../../src/extract/decode.js'
import {definitionShapes, requestShapes} from '../helpers/request-shapes.js'

const sse = (...chunks: unknown[]) => chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join('')
const delta = (content: string, index = 0) => ({object: 'chat.completion.chunk', choices: [{index, delta: {content}}]})

describe('decodeResponse', () => {
  it('keeps a chat stream choice\'s reasoning, content, transcript and refusal apart, one per line, as the same answer unstreamed reads (QA differential #1)', () => {
    const m = 'CANARY-fedcba9876543210fedc'
    const chunk = (d: Record<string, unknown>, index = 0) => ({object: 'chat.completion.chunk', choices: [{index, delta: d}]})
    // The marker whole in the reasoning channel, its pieces interleaved with the content's.
    expect(decodeResponse(sse(chunk({reasoning_content: m.slice(0, 11), content: 'Hi'}), chunk({reasoning_content: m.slice(11), content: ' there'}))).text).toBe(`${m}\nHi there`)
    expect(decodeResponse(sse(chunk({reasoning: m.slice(0, 11), content: 'Hi'}), chunk({reasoning: m.slice(11), content: ' there'}))).text).toBe(`${m}\nHi there`)
    expect(decodeResponse(sse(chunk({content: 'No', refusal: m.slice(0, 11)}), chunk({content: '.', refusal: m.slice(11)}))).text).toBe(`No.\n${m}`)
    expect(decodeResponse(sse(chunk({audio: {transcript: m.slice(0, 11)}, content: 'a'}), chunk({audio: {transcript: m.slice(11)}}))).text).toBe(`a\n${m}`)
    // Split across two channels: in neither, so not whole anywhere; as the message not streamed reads.
    const split = decodeResponse(sse(chunk({reasoning_content: `see ${m.slice(0, 15)}`, content: `${m.slice(15)} ok`}))).text
    expect(split).not.toContain(m)
    expect(split).toBe(decodeResponse({object: 'chat.completion', choices: [{index: 0, message: {reasoning_content: `see ${m.slice(0, 15)}`, content: `${m.slice(15)} ok`}}]}).text)
    // Choices stay apart and in index order, each with its channels.
    expect(decodeResponse(sse(chunk({reasoning_content: 'r1', content: 'c1'}, 1), chunk({content: 'c0'}, 0), chunk({refusal: 'f1'}, 1))).text).toBe('c0\nr1\nc1\nf1')
  })
  it('reads a function call\'s arguments as the client parses them: strings written with escapes decoded, after the text as sent (QA differential #2)', () => {
    const m = 'CANARY-fedcba9876543210fedc'
    const args = '{"q":"CANARY-\\u0066edcba9876543210fedc","n":1}'
    expect(JSON.parse(args).q).toBe(m)
    const call = (a: string) => ({index: 0, id: 'c', type: 'function', function: {name: 'f', arguments: a}})
    // A chat body, its legacy function_call, a stream's pieces joined, the Responses API's item and stream.
    expect(decodeResponse({object: 'chat.completion', choices: [{index: 0, message: {content: null, tool_calls: [call(args)]}}]}).text).toBe(`${args}\nq\n${m}\nn`)
    expect(decodeResponse({object: 'chat.completion', choices: [{index: 0, message: {content: null, function_call: {name: 'f', arguments: args}}}]}).text).toContain(m)
    const pieces = [args.slice(0, 12), args.slice(12)]
    expect(decodeResponse(sse(...pieces.map((a) => ({object: 'chat.completion.chunk', choices: [{index: 0, delta: {tool_calls: [call(a)]}}]})))).text).toBe(`${args}\nq\n${m}\nn`)
    expect(decodeResponse(sse(...pieces.map((a) => ({object: 'chat.completion.chunk', choices: [{index: 0, delta: {function_call: {arguments: a}}}]})))).text).toContain(m)
    expect(decodeResponse({object: 'response', output: [{type: 'function_call', call_id: 'c', name: 'f', arguments: args}]}).text).toContain(m)
    const events = pieces.map((delta) => ({type: 'response.function_call_arguments.delta', output_index: 0, item_id: 'i', delta}))
    expect(decodeResponse(sse(...events)).text).toContain(m)
    // With its done event and done item: the same text, given once.
    const done = decodeResponse(sse(...events, {type: 'response.function_call_arguments.done', output_index: 0, arguments: args}, {type: 'response.output_item.done', output_index: 0, item: {type: 'function_call', name: 'f', arguments: args}})).text
    expect(done).toBe(`${args}\nq\n${m}\nn`)
    // Arguments that do not parse (a stream cut short) are read as they came; ones without an escape are unchanged.
    expect(decodeResponse({object: 'chat.completion', choices: [{index: 0, message: {tool_calls: [call(args.slice(0, 30))]}}]}).text).toBe(args.slice(0, 30))
    expect(decodeResponse({object: 'chat.completion', choices: [{index: 0, message: {tool_calls: [call(`{"q":"${m}"}`)]}}]}).text).toBe(`{"q":"${m}"}`)
  })
  it('reads a stream whose line breaks were lost as the stream, a split marker whole', () => {
    const m = 'CANARY-5555eeee6666ffff'
    const raw = ['Acct ', m.slice(0, 9), m.slice(9)].map((c) => `data: ${JSON.stringify({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: c}}]})}`).join('') + 'data: [DONE]'
    expect(decodeResponse(raw).text).toBe(`Acct ${m}`)
  })
  it('reads a stream logged as a list (chunks, events, raw data lines, or its JSON text) as the stream, deltas joined', () => {
    const m = 'CANARY-5555eeee6666ffff'
    const chunks = ['Acct ', m.slice(0, 9), m.slice(9)].map((c) => ({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: c}}]}))
    expect(decodeResponse(chunks).text).toBe(`Acct ${m}`)
    expect(decodeResponse(JSON.stringify(chunks)).text).toBe(`Acct ${m}`)
    expect(decodeResponse([...chunks.map((c) => `data: ${JSON.stringify(c)}`), 'data: [DONE]']).text).toBe(`Acct ${m}`)
    const events = [{type: 'content_block_start', index: 0, content_block: {type: 'text', text: ''}}, ...['acct ', m.slice(0, 6), m.slice(6)].map((t) => ({type: 'content_block_delta', index: 0, delta: {type: 'text_delta', text: t}})), {type: 'message_stop'}]
    expect(decodeResponse(events).text).toBe(`acct ${m}`)
    // A list that is no stream has no readable text (counted as such), never its JSON dump.
    expect(decodeResponse([1, `x ${m.slice(0, 9)}`, m.slice(9)])).toMatchObject({text: '', isError: false})
  })
  it('joins consecutive Messages API text blocks as one text, so a marker split at a block boundary is whole', () => {
    const body = {id: 'm', type: 'message', role: 'assistant', content: [{type: 'text', text: 'acct CANARY-55'}, {type: 'text', text: '55eeee6666ffff'}]}
    expect(decodeResponse(body).text).toBe('acct CANARY-5555eeee6666ffff')
    expect(decodeResponse(JSON.stringify(body)).text).toBe('acct CANARY-5555eeee6666ffff')
    const mixed = {type: 'message', content: [{type: 'thinking', thinking: 't'}, {type: 'text', text: 'a'}, {type: 'text', text: 'b'}, {type: 'tool_use', input: {q: 1}}, {type: 'text', text: 'c'}]}
    expect(decodeResponse(mixed).text).toBe('t\nab\n{"q":1}\nc')
  })
  it('reads chat.completion content as string or parts, and tool-call arguments', () => {
    const r = decodeResponse({object: 'chat.completion', choices: [{message: {content: [{type: 'text', text: 'a'}, {type: 'text', text: 'b'}], tool_calls: [{function: {name: 'f', arguments: '{"x":"CANARY-00ff"}'}}]}}], usage: {prompt_tokens: 7, completion_tokens: 2, prompt_tokens_details: {cached_tokens: 4}}})
    expect(r).toMatchObject({kind: 'chat', text: 'ab\n{"x":"CANARY-00ff"}', promptTokens: 7, completionTokens: 2, cachedTokens: 4, isError: false})
  })
  it('reads text_completion', () => {
    expect(decodeResponse({object: 'text_completion', choices: [{text: 'xyz'}]})).toMatchObject({kind: 'completion', text: 'xyz'})
  })
  it('reads vLLM and OpenAI error objects as errors', () => {
    expect(decodeResponse({object: 'error', message: 'too long', type: 'BadRequestError', code: 400})).toMatchObject({kind: 'error', isError: true, errorMessage: 'too long'})
    expect(decodeResponse({error: {message: 'nope', type: 'invalid_request_error'}})).toMatchObject({isError: true, errorMessage: 'nope'})
  })
  it('reassembles SSE deltas, joining a marker split across three chunks', () => {
    const body = sse(delta('x CANA'), delta('RY-0123456789'), delta('abcdef y'), {choices: [], usage: {prompt_tokens: 9, completion_tokens: 3}}, {choices: null}, '[DONE]')
    expect(decodeResponse(body)).toMatchObject({kind: 'sse', stream: true, text: 'x CANARY-0123456789abcdef y', promptTokens: 9, isError: false})
  })
  it('marks a 200 stream that ends in an error event as an error but keeps what was received, its message searched on a line after it', () => {
    const body = sse(delta('partial CANARY-aa'), {error: {message: 'context overflow', code: 400}})
    expect(decodeResponse(body)).toMatchObject({isError: true, errorMessage: 'context overflow', text: 'partial CANARY-aa\ncontext overflow'})
    const withEvent = `${sse(delta('p'))}event: error\ndata: {"message":"boom"}\n\n`
    expect(decodeResponse(withEvent)).toMatchObject({isError: true, errorMessage: 'boom', text: 'p\nboom'})
  })
  it('reads completions streams and tool-call argument deltas', () => {
    const body = sse({choices: [{index: 0, text: 'ab'}]}, {choices: [{index: 0, text: 'c'}]}, '[DONE]')
    expect(decodeResponse(body).text).toBe('abc')
    const tools = sse(
      {choices: [{index: 0, delta: {tool_calls: [{index: 0, function: {name: 'f', arguments: '{"q":"CANA'}}]}}]},
      {choices: [{index: 0, delta: {tool_calls: [{index: 0, function: {arguments: 'RY-beef"}'}}]}}]},
    )
    expect(decodeResponse(tools).text).toBe('{"q":"CANARY-beef"}')
  })
  it('unescapes JSON text bodies and keeps plain text as is', () => {
    expect(decodeResponse('{"choices":[{"message":{"content":"\\u0043ANARY-00"}}]}').text).toBe('CANARY-00')
    expect(decodeResponse('just words')).toMatchObject({kind: 'text', text: 'just words'})
  })

  it('reads reasoning under either name: reasoning_content (DeepSeek, vLLM before 2026) and reasoning (vLLM since, OpenRouter, gpt-oss), once where both are written', () => {
    const leak = 'stale page: CANARY-0123456789abcdef'
    expect(decodeResponse({object: 'chat.completion', choices: [{message: {role: 'assistant', content: null, reasoning: leak}}]}).text).toBe(leak)
    expect(decodeResponse({object: 'chat.completion', choices: [{message: {role: 'assistant', content: 'ok', reasoning: leak}}]}).text).toBe(`${leak}\nok`)
    expect(decodeResponse({object: 'chat.completion', choices: [{message: {content: 'ok', reasoning_content: leak, reasoning: leak}}]}).text).toBe(`${leak}\nok`)
    const chunk = (d: object) => ({object: 'chat.completion.chunk', choices: [{index: 0, delta: d}]})
    // Streamed: the reasoning and the content on lines of their own, as the message not streamed reads.
    expect(decodeResponse(sse(chunk({role: 'assistant', reasoning: 'stale page: CANARY-0123'}), chunk({reasoning: '456789abcdef'}), chunk({content: ' done'}), '[DONE]')).text).toBe(`${leak}\n done`)
  })

  it('reads a refusal, what the client was shown in place of content, in a completion and in a stream', () => {
    expect(decodeResponse({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: null, refusal: 'I cannot share CANARY-0123456789abcdef'}}]}).text).toBe('I cannot share CANARY-0123456789abcdef')
    const chunk = (delta: Record<string, unknown>) => `data: ${JSON.stringify({choices: [{index: 0, delta}]})}\n\n`
    expect(decodeResponse(`${chunk({role: 'assistant', content: null, refusal: ''})}${chunk({refusal: 'no: CANARY-0123'})}${chunk({refusal: '456789abcdef'})}data: [DONE]\n\n`).text).toBe('no: CANARY-0123456789abcdef')
  })

  it('reads a stream opening with id: or retry:, ends a data line that never made a document at its event\'s end, and keeps as text a body that only starts like a stream', () => {
    const chunk = (text: string) => `data: ${JSON.stringify({choices: [{delta: {content: text}}]})}`
    expect(decodeResponse(`id: 1\n${chunk('leak CANARY-0123')}\n\nretry: 10\n${chunk('456789abcdef')}\n\ndata: [DONE]\n\n`)).toMatchObject({kind: 'sse', text: 'leak CANARY-0123456789abcdef'})
    // A data line that never made a document ends at its event's end (it swallows nothing after it), and is searched as its raw text.
    expect(decodeResponse(`${chunk('ok ')}\n\ndata: keep-alive\n\n${chunk('then CANARY-0123456789abcdef')}\n\ndata: [DONE]\n\n`)).toMatchObject({kind: 'sse', text: 'ok then CANARY-0123456789abcdef\nkeep-alive', unparsed: 1})
    // A document wrapped over two data lines of one event is still joined.
    expect(decodeResponse('data: {"choices":[{"delta":\ndata: {"content":"joined"}}]}\n\n').text).toBe('joined')
    expect(decodeResponse(':) sure, CANARY-0123456789abcdef')).toMatchObject({kind: 'text', text: ':) sure, CANARY-0123456789abcdef'})
    expect(decodeResponse('data: the value is 42')).toMatchObject({kind: 'text', text: 'data: the value is 42'})
    // Bare CR line ends (allowed by the SSE spec).
    expect(decodeResponse(`${chunk('leak CANARY-0123')}\r\r${chunk('456789abcdef')}\r\rdata: [DONE]\r\r`)).toMatchObject({kind: 'sse', text: 'leak CANARY-0123456789abcdef'})
    // An empty stream is still a stream.
    expect(decodeResponse('data: [DONE]\n\n')).toMatchObject({kind: 'sse', text: ''})
  })
})

describe('the Responses API (/v1/responses)', () => {
  // Shapes as OpenAI documents them and vLLM and SGLang serve them: `output` items, and a stream of typed events.
  const output = [
    {type: 'reasoning', id: 'rs_1', summary: [{type: 'summary_text', text: 'In short: '}], content: [{type: 'reasoning_text', text: 'thinking '}]},
    {type: 'message', id: 'msg_1', role: 'assistant', content: [{type: 'output_text', text: 'Hello CANARY-0011', annotations: []}, {type: 'output_text', text: '2233aabb'}]},
    {type: 'function_call', id: 'fc_1', call_id: 'c1', name: 'lookup', arguments: '{"q":"x"}'},
    {type: 'message', id: 'msg_2', role: 'assistant', content: [{type: 'refusal', refusal: 'I cannot'}]},
  ]
  const usage = {input_tokens: 812, input_tokens_details: {cached_tokens: 512}, output_tokens: 40, output_tokens_details: {reasoning_tokens: 10}, total_tokens: 852}
  // A reasoning item's summary, then its reasoning text, as any other item's parts.
  const whole = 'In short: thinking \nHello CANARY-00112233aabb\n{"q":"x"}\nI cannot'

  it('reads a reasoning item\'s summary (summary_text parts, and the stream\'s reasoning_summary_text deltas)', () => {
    const m = 'CANARY-9999cccc0000dddd'
    const ev = (type: string, extra: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({type, ...extra})}\n\n`
    const items = [
      {type: 'reasoning', id: 'rs', summary: [{type: 'summary_text', text: `recall ${m.slice(0, 10)}`}, {type: 'summary_text', text: m.slice(10)}]},
      {type: 'message', role: 'assistant', content: [{type: 'output_text', text: 'sunny'}]},
    ]
    const text = `recall ${m}\nsunny`
    expect(decodeResponse({object: 'response', status: 'completed', output: items}).text).toBe(text)
    const stream =
      ev('response.output_item.added', {output_index: 0, item: {type: 'reasoning', id: 'rs', summary: []}}) +
      ev('response.reasoning_summary_part.added', {output_index: 0, summary_index: 0, part: {type: 'summary_text', text: ''}}) +
      ev('response.reasoning_summary_text.delta', {output_index: 0, summary_index: 0, delta: 'recall CANA'}) +
      ev('response.reasoning_summary_text.delta', {output_index: 0, summary_index: 0, delta: m.slice(4, 10)}) +
      ev('response.reasoning_summary_text.done', {output_index: 0, summary_index: 0, text: `recall ${m.slice(0, 10)}`}) +
      ev('response.reasoning_summary_text.delta', {output_index: 0, summary_index: 1, delta: m.slice(10)}) +
      ev('response.output_text.delta', {output_index: 1, content_index: 0, delta: 'sunny'}) +
      ev('response.completed', {response: {object: 'response', status: 'completed', output: items}})
    expect(decodeResponse(stream).text).toBe(text)
    // Only the final event logged: the summary is in its output.
    expect(decodeResponse(ev('response.completed', {response: {object: 'response', status: 'completed', output: items}})).text).toBe(text)
  })

  it('reads a response object\'s output items in order, with its usage', () => {
    const r = decodeResponse({id: 'resp_1', object: 'response', status: 'completed', error: null, output, usage})
    expect(r).toMatchObject({kind: 'chat', text: whole, isError: false, promptTokens: 812, completionTokens: 40, cachedTokens: 512})
    // As a JSON text in the log line, the same.
    expect(decodeResponse(JSON.stringify({object: 'response', output, usage}))).toMatchObject({text: whole, promptTokens: 812})
  })

  it('reads a failed response as an error', () => {
    expect(decodeResponse({object: 'response', status: 'failed', error: {code: 'server_error', message: 'KV transfer failed'}, output: []})).toMatchObject({kind: 'error', isError: true, errorMessage: 'KV transfer failed', text: 'KV transfer failed'})
  })

  it('reassembles a stream from its deltas, by output item and content part, a marker split across events', () => {
    const ev = (type: string, extra: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({type, sequence_number: 1, ...extra})}\n\n`
    const final = {object: 'response', status: 'completed', output, usage}
    const stream =
      ev('response.created', {response: {object: 'response', status: 'in_progress', output: [], usage: null}}) +
      ev('response.reasoning_text.delta', {item_id: 'rs_1', output_index: 0, content_index: 0, delta: 'thinking '}) +
      // the summary's delta after the reasoning text's: still read first, as in the output item
      ev('response.reasoning_summary_text.delta', {item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'In short: '}) +
      ev('response.output_text.delta', {item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Hello CANA'}) +
      ev('response.output_text.delta', {item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'RY-0011'}) +
      ev('response.output_text.delta', {item_id: 'msg_1', output_index: 1, content_index: 1, delta: '2233aabb'}) +
      ev('response.output_text.done', {item_id: 'msg_1', output_index: 1, content_index: 0, text: 'Hello CANARY-0011'}) +
      ev('response.function_call_arguments.delta', {item_id: 'fc_1', output_index: 2, delta: '{"q":'}) +
      ev('response.function_call_arguments.delta', {item_id: 'fc_1', output_index: 2, delta: '"x"}'}) +
      ev('response.refusal.delta', {item_id: 'msg_2', output_index: 3, content_index: 0, delta: 'I cannot'}) +
      ev('response.completed', {response: final})
    expect(decodeResponse(stream)).toMatchObject({kind: 'sse', stream: true, text: whole, isError: false, promptTokens: 812, completionTokens: 40, cachedTokens: 512})
    // Only the final event logged: its output is the text.
    expect(decodeResponse(ev('response.completed', {response: final}))).toMatchObject({text: whole})
    // A stream that failed part way keeps what was shown, and is an error.
    const failed = ev('response.output_text.delta', {output_index: 0, content_index: 0, delta: 'partial'}) + ev('response.failed', {response: {object: 'response', status: 'failed', error: {message: 'decode worker lost'}, output: []}})
    expect(decodeResponse(failed)).toMatchObject({text: 'partial\ndecode worker lost', isError: true, errorMessage: 'decode worker lost'})
    // An error event (LiteLLM relays them so).
    expect(decodeResponse(ev('response.output_text.delta', {output_index: 0, delta: 'x'}) + `event: error\ndata: ${JSON.stringify({type: 'error', error: {message: 'overloaded'}})}\n\n`)).toMatchObject({text: 'x\noverloaded', isError: true, errorMessage: 'overloaded'})
  })

  it('reads a request\'s instructions and input items', () => {
    expect(decodeRequest({model: 'm', instructions: 'You are a bank assistant.', input: [{role: 'user', content: [{type: 'input_text', text: 'my IBAN is'}]}, {role: 'user', content: 'and more'}]})).toBe('You are a bank assistant.\nmy IBAN is\nand more')
    expect(decodeRequest({instructions: 'sys', input: 'hi'})).toBe('sys\nhi')
  })
})

describe('Anthropic\'s Messages API (/v1/messages)', () => {
  const usage = {input_tokens: 20, cache_read_input_tokens: 700, cache_creation_input_tokens: 5, output_tokens: 12}
  it('reads a message\'s content blocks in order, and its prompt size as all its input tokens', () => {
    const r = decodeResponse({id: 'msg_1', type: 'message', role: 'assistant', content: [{type: 'thinking', thinking: 'hmm'}, {type: 'text', text: 'See CANARY-00112233aabb'}, {type: 'tool_use', id: 't1', name: 'f', input: {q: 'x'}}], stop_reason: 'end_turn', usage})
    expect(r).toMatchObject({kind: 'chat', text: 'hmm\nSee CANARY-00112233aabb\n{"q":"x"}', isError: false, promptTokens: 725, completionTokens: 12, cachedTokens: 700})
    expect(decodeResponse({type: 'error', error: {type: 'overloaded_error', message: 'Overloaded'}})).toMatchObject({kind: 'error', isError: true, errorMessage: 'Overloaded'})
  })

  it('reassembles a stream from its content block deltas, a marker split across events', () => {
    const ev = (type: string, extra: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({type, ...extra})}\n\n`
    const stream =
      ev('message_start', {message: {id: 'msg_1', type: 'message', content: [], usage: {input_tokens: 20, cache_read_input_tokens: 700, output_tokens: 1}}}) +
      ev('content_block_start', {index: 0, content_block: {type: 'text', text: ''}}) +
      ev('ping', {}) +
      ev('content_block_delta', {index: 0, delta: {type: 'text_delta', text: 'See CANA'}}) +
      ev('content_block_delta', {index: 0, delta: {type: 'text_delta', text: 'RY-00112233aabb'}}) +
      ev('content_block_stop', {index: 0}) +
      ev('content_block_start', {index: 1, content_block: {type: 'tool_use', id: 't1', name: 'f', input: {}}}) +
      ev('content_block_delta', {index: 1, delta: {type: 'input_json_delta', partial_json: '{"q": '}}) +
      ev('content_block_delta', {index: 1, delta: {type: 'input_json_delta', partial_json: '"x"}'}}) +
      ev('message_delta', {delta: {stop_reason: 'tool_use'}, usage: {output_tokens: 12}}) +
      ev('message_stop', {})
    // The tool call's input pieces are written as the message's input object is (no space after the colon).
    expect(decodeResponse(stream)).toMatchObject({kind: 'sse', text: 'See CANARY-00112233aabb\n{"q":"x"}', isError: false, promptTokens: 720, completionTokens: 12, cachedTokens: 700})
    const overloaded = ev('content_block_delta', {index: 0, delta: {type: 'text_delta', text: 'part'}}) + ev('error', {error: {type: 'overloaded_error', message: 'Overloaded'}})
    expect(decodeResponse(overloaded)).toMatchObject({text: 'part\nOverloaded', isError: true, errorMessage: 'Overloaded'})
  })

  it('gives a stream the text of the same answer not streamed: text blocks joined with nothing between, a tool call\'s input as its JSON', () => {
    const m = 'CANARY-00112233aabb'
    const answers: unknown[][] = [
      // A marker split at a block boundary (a citation starts a new text block).
      [{type: 'text', text: `acct ${m.slice(0, 10)}`}, {type: 'text', text: `${m.slice(10)} ok`}],
      [{type: 'thinking', thinking: 'hmm'}, {type: 'text', text: 'a'}, {type: 'text', text: 'b'}, {type: 'tool_use', id: 't1', name: 'f', input: {q: m, n: [1, 2]}}, {type: 'text', text: 'c'}],
      [{type: 'text', text: 'searching'}, {type: 'server_tool_use', id: 's1', name: 'web_search', input: {query: m}}, {type: 'tool_use', id: 't2', name: 'g', input: {}}, {type: 'text', text: 'x'}, {type: 'text', text: ''}, {type: 'text', text: 'y'}],
    ]
    const ev = (type: string, extra: Record<string, unknown>) => `event: ${type}\ndata: ${JSON.stringify({type, ...extra})}\n\n`
    for (const content of answers) {
      let stream = ev('message_start', {message: {id: 'msg_1', type: 'message', content: []}})
      content.forEach((block, index) => {
        const b = block as {type: string; text?: string; thinking?: string; input?: Record<string, unknown>}
        if (b.type === 'text' || b.type === 'thinking') {
          stream += ev('content_block_start', {index, content_block: b.type === 'text' ? {type: 'text', text: ''} : {type: 'thinking', thinking: ''}})
          // Each block's text in two deltas.
          const t = b.text ?? b.thinking ?? ''
          for (const piece of [t.slice(0, 3), t.slice(3)]) stream += ev('content_block_delta', {index, delta: b.type === 'text' ? {type: 'text_delta', text: piece} : {type: 'thinking_delta', thinking: piece}})
        } else {
          stream += ev('content_block_start', {index, content_block: {...b, input: {}}})
          // The input as Anthropic streams it: JSON text with its own spacing, in pieces.
          const json = JSON.stringify(b.input, null, 1)
          if (Object.keys(b.input ?? {}).length > 0) for (const piece of [json.slice(0, 5), json.slice(5)]) stream += ev('content_block_delta', {index, delta: {type: 'input_json_delta', partial_json: piece}})
        }
        stream += ev('content_block_stop', {index})
      })
      stream += ev('message_stop', {})
      const whole = decodeResponse({id: 'msg_1', type: 'message', role: 'assistant', content}).text
      expect(decodeResponse(stream).text).toBe(whole)
    }
    expect(decodeResponse({type: 'message', content: answers[0]}).text).toBe(`acct ${m} ok`)
  })

  it('reads a request\'s system prompt given as text blocks, each on a line of its own', () => {
    expect(decodeRequest({system: [{type: 'text', text: 'You are '}, {type: 'text', text: 'helpful.'}], messages: [{role: 'user', content: [{type: 'text', text: 'hi'}]}]})).toBe('You are \nhelpful.\nhi')
  })

  it('keeps a request\'s text parts apart, so that the words on either side of a boundary never fuse into one', () => {
    const parts = [{type: 'text', text: 'costing eighty million dollars'}, {type: 'image_url', image_url: {url: 'https://x/y.png'}}, {type: 'text', text: 'and the board meets'}]
    expect(decodeRequest({messages: [{role: 'user', content: parts}]})).toBe('costing eighty million dollars\nand the board meets')
    expect(decodeRequest({messages: [{role: 'user', content: parts.filter((p) => p.type === 'text')}]})).toBe('costing eighty million dollars\nand the board meets')
    // Parts in other places of a request too (a Responses API input item's parts, a tool output's).
    expect(decodeRequest({input: [{role: 'user', content: [{type: 'input_text', text: 'one'}, {type: 'input_text', text: 'two'}]}]})).toBe('one\ntwo')
    expect(decodeRequest({input: [{type: 'function_call_output', call_id: 'c', output: [{type: 'input_text', text: 'one'}, {type: 'input_text', text: 'two'}]}]})).toBe('one\ntwo')
    // An answer's parts are pieces of one running text the model wrote: joined as before.
    expect(decodeResponse({object: 'chat.completion', choices: [{message: {role: 'assistant', content: [{type: 'text', text: 'one '}, {type: 'text', text: 'two'}]}}]}).text).toBe('one two')
  })
})

describe('decodeRequest', () => {
  it.each(requestShapes.map(([name, make], i) => [name, make, `T${i}-sent-text`] as const))('reads what the caller sent in a %s', (_name, make, t) => {
    const text = decodeRequest(make(t))!
    expect(text).toContain(t)
    // Read once, on a line of its own (a block apart from the running text around it).
    expect(text.split('\n').filter((l) => l.includes(t))).toHaveLength(1)
  })
  it.each(definitionShapes.map(([name, make], i) => [name, make, `D${i}-defined-text`] as const))('reads what the caller defined for the model in a %s, naming nothing unread', (_name, make, t) => {
    const {text, unread} = decodeRequestBody(make(t))
    expect(text!.split('\n').filter((l) => l.includes(t))).toHaveLength(1)
    expect(unread).toEqual([])
  })
  it('reads a definition\'s keys and strings in order after the prompt, one a line, leaving out numbers, booleans, nulls and empty strings', () => {
    const tools = [{type: 'function', function: {name: 'f', description: 'd', parameters: {type: 'object', properties: {q: {type: 'string', enum: ['', 'x', 1, true, null]}}}}}]
    expect(decodeRequest({messages: [{role: 'user', name: 'ann', content: 'hi'}], tools, response_format: {type: 'json_object'}})).toBe(
      ['hi', 'ann', 'type', 'function', 'function', 'name', 'f', 'description', 'd', 'parameters', 'type', 'object', 'properties', 'q', 'type', 'string', 'enum', 'x', 'type', 'json_object'].join('\n'),
    )
    // A prompt's `text` string is read as before; a tool choice names a tool already defined.
    expect(decodeRequest({text: 'plain', tool_choice: {type: 'function', function: {name: 'f'}}})).toBe('plain')
  })
  it('reads a block apart from the text parts around it, and a redacted_thinking block (encrypted) as no text', () => {
    expect(decodeRequest({messages: [{role: 'assistant', content: [{type: 'text', text: 'a'}, {type: 'thinking', thinking: 'b', signature: 's'}, {type: 'redacted_thinking', data: 'EnCr'}, {type: 'text', text: 'c'}]}]})).toBe('a\nb\nc')
    expect(decodeRequest({messages: [{role: 'assistant', content: [{type: 'redacted_thinking', data: 'EnCr'}]}]})).toBe('')
    expect(decodeRequest({messages: [{role: 'user', content: [{type: 'text', text: 'CANARY-00'}, {type: 'refusal', refusal: 'ff'}]}]})).toBe('CANARY-00\nff')
  })
  it('reads what the caller sent in Messages API tool results and documents, and an earlier tool call\'s input', () => {
    const messages = [
      {role: 'user', content: 'look it up'},
      {role: 'assistant', content: [{type: 'text', text: 'calling'}, {type: 'tool_use', id: 'tu_1', name: 'lookup', input: {q: 'x'}}]},
      {role: 'user', content: [{type: 'tool_result', tool_use_id: 'tu_1', content: 'result one'}, {type: 'tool_result', tool_use_id: 'tu_2', content: [{type: 'text', text: 'result '}, {type: 'text', text: 'two'}, {type: 'image', source: {type: 'base64', data: 'AAAA'}}]}, {type: 'text', text: 'and so?'}]},
      {role: 'user', content: [{type: 'document', source: {type: 'text', media_type: 'text/plain', data: 'memo text'}}, {type: 'document', source: {type: 'content', content: [{type: 'text', text: 'page 1'}, {type: 'text', text: ' page 2'}]}}, {type: 'document', source: {type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x'}}]},
    ]
    expect(decodeRequest({system: 'sys', messages})).toBe('sys\nlook it up\ncalling\n{"q":"x"}\nresult one\nresult \ntwo\nand so?\nmemo text\npage 1\n page 2')
    // Text parts around no such block stand apart too (as the model saw them): no marker is made up across two parts.
    expect(decodeRequest({messages: [{role: 'user', content: [{type: 'text', text: 'CANARY-00'}, {type: 'text', text: 'ff'}]}]})).toBe('CANARY-00\nff')
  })
  it('reads a Responses API request\'s function calls and their outputs, a string or input_text parts', () => {
    const input = [
      {role: 'user', content: [{type: 'input_text', text: 'look it up'}]},
      {type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{"q":"x"}'},
      {type: 'function_call_output', call_id: 'c1', output: 'result one'},
      {type: 'function_call_output', call_id: 'c2', output: [{type: 'input_text', text: 'result '}, {type: 'input_text', text: 'two'}, {type: 'input_image', image_url: 'data:,'}]},
    ]
    expect(decodeRequest({instructions: 'sys', input})).toBe('sys\nlook it up\n{"q":"x"}\nresult one\nresult \ntwo')
  })

  it('joins chat messages, content parts, completions prompts and raw text', () => {
    expect(decodeRequest({messages: [{role: 'system', content: 'sys'}, {role: 'user', content: [{type: 'text', text: 'u'}]}]})).toBe('sys\nu')
    expect(decodeRequest({prompt: ['a', 'b']})).toBe('a\nb')
    expect(decodeRequest({prompt: [1, 2, 3]})).toBe('')
    expect(decodeRequest('raw prompt')).toBe('raw prompt')
    expect(decodeRequest('{"prompt":"p"}')).toBe('p')
  })
})

describe('splitLines', () => {
  it('cuts a text as split(/\\r?\\n/) does, whatever its line ends', () => {
    for (const t of ['', '\n', '\r', '\r\n', '\n\r', 'a\r\r\nb', '\r\n\r\n', 'a\rb\nc\r']) expect(splitLines(t)).toEqual(t.split(/\r?\n/))
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'data: x', '\r', '\n', '\r\n', ' '), {maxLength: 30}), (parts) => {
        const t = parts.join('')
        expect(splitLines(t)).toEqual(t.split(/\r?\n/))
      }),
      {seed: 180_021, numRuns: 2000},
    )
  })
})

// Texts the client was given that the decoder did not read, and a gate then passed on (QA's
// gate repros D2, D3, D4, D7; the same cases end to end in test/commands/answer-fields-gate.test.ts).
describe('every text the client was given is read', () => {
  const m = 'CANARY-aaaaaaaaaaaaaaaa1111'
  const chat = (message: Record<string, unknown>) => ({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', ...message}}]})
  const chunk = (d: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({object: 'chat.completion.chunk', choices: [{index: 0, delta: d}], ...extra})
  const ev = (type: string, extra: Record<string, unknown>) => `data: ${JSON.stringify({type, ...extra})}\n\n`

  it('chat completions: a legacy function_call beside content, streamed too; arguments given as an object; reasoning beside a different reasoning_content; Mistral thinking parts', () => {
    expect(decodeResponse(chat({content: 'Calling a tool.', function_call: {name: 'f', arguments: `{"x": "${m}"}`}})).text).toBe(`Calling a tool.\n{"x": "${m}"}`)
    expect(decodeResponse(sse(chunk({content: 'ok'}), chunk({function_call: {name: 'f', arguments: `{"x":"${m.slice(0, 12)}`}}), chunk({function_call: {arguments: `${m.slice(12)}"}`}}), '[DONE]')).text).toBe(`ok\n{"x":"${m}"}`)
    expect(decodeResponse(chat({content: 'ok', tool_calls: [{id: 't', type: 'function', function: {name: 'f', arguments: {x: m}}}]})).text).toBe(`ok\n{"x":"${m}"}`)
    expect(decodeResponse(chat({content: 'done', reasoning_content: 'think', reasoning: m})).text).toBe(`think\n${m}\ndone`)
    // The same reasoning under both names is read once.
    expect(decodeResponse(chat({content: 'done', reasoning_content: 'think', reasoning: 'think'})).text).toBe('think\ndone')
    expect(decodeResponse(sse(chunk({reasoning_content: 'a', reasoning: m.slice(0, 9)}), chunk({reasoning_content: 'b', reasoning: m.slice(9)}))).text).toBe(`ab\n${m}`)
    expect(decodeResponse(chat({content: [{type: 'thinking', thinking: [{type: 'text', text: `hmm ${m}`}]}, {type: 'text', text: 'ok'}]})).text).toBe(`hmm ${m}ok`)
    expect(decodeResponse(sse(chunk({content: [{type: 'thinking', thinking: [{type: 'text', text: m.slice(0, 9)}]}]}), chunk({content: [{type: 'thinking', thinking: m.slice(9)}]}))).text).toBe(m)
  })

  it('the Responses API: a built-in tool item, an input item echoed in the output, an item that holds no text, and one of a type not known (named, not read)', () => {
    const message = {type: 'message', content: [{type: 'output_text', text: 'ok', annotations: []}]}
    const read = (item: object) => decodeResponse({object: 'response', output: [message, item]})
    expect(read({type: 'file_search_call', id: 'fs', status: 'completed', queries: ['q'], results: [{file_id: 'f', filename: 'n.txt', score: 1, text: `doc ${m}`}]})).toMatchObject({text: `ok\nq\nn.txt\ndoc ${m}`, unread: []})
    expect(read({type: 'function_call_output', call_id: 'c', output: `result ${m}`})).toMatchObject({text: `ok\nresult ${m}`, unread: []})
    expect(read({type: 'compaction', id: 'cmp', encrypted_content: 'gAAA'})).toMatchObject({text: 'ok', unread: []})
    expect(read({type: 'image_generation_call', id: 'ig', result: 'iVBORw0KGgo=', status: 'completed'})).toMatchObject({text: 'ok', unread: []})
    expect(read({type: 'x_call', id: 'x', note: m})).toMatchObject({text: 'ok', unread: ['Responses API output item "x_call"']})
    expect(read({id: 'x', note: m})).toMatchObject({text: 'ok', unread: ['Responses API output item without a type']})
    expect(decodeResponse({object: 'response', output: [{type: 'message', content: [{type: 'output_audio', data: 'UklG'}]}]}).unread).toEqual(['Responses API content part "output_audio"'])
  })

  it('the Responses API: custom tool, code interpreter and MCP calls, their deltas, a final output or a done text beside the deltas; a Messages API MCP tool call', () => {
    const message = {type: 'message', content: [{type: 'output_text', text: 'ok'}]}
    expect(decodeResponse({object: 'response', output: [message, {type: 'custom_tool_call', name: 'f', input: `x ${m}`}]}).text).toBe(`ok\nx ${m}`)
    expect(decodeResponse({object: 'response', output: [message, {type: 'code_interpreter_call', code: `print('${m}')`}]}).text).toBe(`ok\nprint('${m}')`)
    expect(decodeResponse({object: 'response', output: [message, {type: 'mcp_call', name: 'f', arguments: `{"x": "${m}"}`, output: 'y'}]}).text).toBe(`ok\n{"x": "${m}"}\ny`)
    const delta = (type: string, output_index: number, d: string) => ev(type, {output_index, content_index: 0, delta: d})
    expect(decodeResponse(delta('response.output_text.delta', 0, 'ok') + delta('response.custom_tool_call_input.delta', 1, m.slice(0, 12)) + delta('response.custom_tool_call_input.delta', 1, m.slice(12)) + 'data: [DONE]\n\n').text).toBe(`ok\n${m}`)
    expect(decodeResponse(delta('response.code_interpreter_call_code.delta', 0, m.slice(0, 5)) + delta('response.code_interpreter_call_code.delta', 0, m.slice(5))).text).toBe(m)
    expect(decodeResponse(delta('response.mcp_call_arguments.delta', 0, m.slice(0, 5)) + delta('response.mcp_call_arguments.delta', 0, m.slice(5))).text).toBe(m)
    // A function call only in the final response, beside a streamed text; the streamed item the final repeats is read once.
    const final = {output: [message, {type: 'function_call', arguments: `{"x": "${m}"}`}]}
    expect(decodeResponse(delta('response.output_text.delta', 0, 'ok') + ev('response.completed', {response: final}) + 'data: [DONE]\n\n').text).toBe(`ok\n{"x": "${m}"}`)
    expect(decodeResponse(delta('response.output_text.delta', 0, 'ok') + ev('response.output_text.done', {output_index: 1, content_index: 0, text: `x ${m}`})).text).toBe(`ok\nx ${m}`)
    expect(decodeResponse(delta('response.output_text.delta', 0, 'ok') + ev('response.output_text.done', {output_index: 0, content_index: 0, text: 'ok'})).text).toBe('ok')
    expect(decodeResponse(delta('response.output_text.delta', 0, 'ok') + ev('response.output_item.done', {output_index: 1, item: {type: 'mcp_call', arguments: m}})).text).toBe(`ok\n${m}`)
    expect(decodeResponse({type: 'message', role: 'assistant', content: [{type: 'text', text: 'ok'}, {type: 'mcp_tool_use', id: 'x', name: 'f', server_name: 's', input: {x: m}}]}).text).toBe(`ok\n{"x":"${m}"}`)
  })

  it('streams: a chunk with an error and choices gives its text; a byte-order mark and bare CR line ends among LF ones lose no event', () => {
    const err = {error: {code: 502, message: 'provider error'}, choices: [{index: 0, delta: {content: m.slice(12)}, finish_reason: 'error'}]}
    expect(decodeResponse(sse(chunk({content: `x ${m.slice(0, 12)}`}), err, '[DONE]'))).toMatchObject({isError: true, errorMessage: 'provider error', text: `x ${m}\nprovider error`})
    expect(decodeResponse('\ufeff' + sse(chunk({content: `x ${m}`}), chunk({content: ' ok'}), '[DONE]')).text).toBe(`x ${m} ok`)
    const cr = `data: ${JSON.stringify(chunk({content: 'ok '}))}\r\rdata: ${JSON.stringify(chunk({content: `x ${m}`}))}\n\ndata: ${JSON.stringify(chunk({content: ' ok'}))}\r\n\r\ndata: [DONE]\n\n`
    expect(decodeResponse(cr).text).toBe(`ok x ${m} ok`)
  })

  it('an error message, in a 200 or an error body, an error event or an error chunk after content, is searched on its own line after the answer', () => {
    expect(decodeResponse({error: {message: `context: ${m}`, type: 'x'}})).toMatchObject({kind: 'error', isError: true, text: `context: ${m}`})
    expect(decodeResponse({object: 'error', message: `too long ${m}`, code: 400}).text).toBe(`too long ${m}`)
    // vLLM's flat error without a message: 'error' is crosstalk's name for it, no text of the body.
    expect(decodeResponse({object: 'error', code: 400})).toMatchObject({isError: true, errorMessage: 'error', text: ''})
    expect(decodeResponse(`event: error\ndata: {"message":"ctx ${m}"}\n\n`)).toMatchObject({isError: true, text: `ctx ${m}`})
    expect(decodeResponse(`event: error\ndata: upstream failed ${m}\n\n`)).toMatchObject({isError: true, text: `upstream failed ${m}`})
    expect(decodeResponse(sse(chunk({content: 'ok'}), {error: {message: `ctx ${m}`}}, '[DONE]'))).toMatchObject({isError: true, text: `ok\nctx ${m}`})
    expect(decodeResponse(ev('response.output_text.delta', {output_index: 0, delta: 'ok'}) + ev('error', {code: 'server_error', message: `ctx ${m}`}))).toMatchObject({isError: true, errorMessage: `ctx ${m}`, text: `ok\nctx ${m}`})
  })
})

describe('a stream not read whole (QA: a cut-off or malformed event carrying another tenant\'s marker passed the gate)', () => {
  const m = 'CANARY-cccccccccccc3333dd'
  const first = sse(delta('hello '))

  it('searches an event cut off mid-document (no blank line, no [DONE]) as its raw text, as a cut-off JSON body is read', () => {
    const cut = `data: {"choices":[{"delta":{"content":"${m}`
    const d = decodeResponse(first + cut)
    expect(d).toMatchObject({kind: 'sse', stream: true, unparsed: 1})
    // The cut event read as far as it goes (its piece after the whole events'), then its raw text.
    expect(d.text).toBe(`hello ${m}\n${cut.slice(6)}`)
    // The same answer as a plain JSON body cut off: its raw text, the marker in it.
    expect(decodeResponse(`{"choices":[{"message":{"content":"hello ${m}`).text).toContain(m)
  })

  it('searches an event whose JSON is malformed, at its event\'s end or before [DONE] with no blank line', () => {
    const bad = `{"choices":[{"delta":{"content":"${m}"}}]`
    expect(decodeResponse(`${first}data: ${bad}\n\ndata: [DONE]\n\n`)).toMatchObject({text: `hello ${m}\n${bad}`, unparsed: 1})
    expect(decodeResponse(`${first}data: ${bad}\ndata: [DONE]\n\n`)).toMatchObject({text: `hello ${m}\n${bad}`, unparsed: 1})
    // Several such events: each on its own line, in order, before the error texts.
    expect(decodeResponse(`${first}data: {x\n\n${sse(delta('more'), {error: {message: 'boom'}})}data: {y\n\ndata: [DONE]\n\n`).text).toBe('hello more\n{x\n{y\nboom')
  })

  it('keeps a stream read whole as it was: no unparsed count, the text its deltas give', () => {
    const d = decodeResponse(`${sse(delta('a '), delta(m))}data: [DONE]\n\n`)
    expect(d.text).toBe(`a ${m}`)
    expect(d.unparsed).toBeUndefined()
    // A stream that ends without [DONE] but whose every event was whole is read whole.
    expect(decodeResponse(sse(delta('a '), delta(m))).unparsed).toBeUndefined()
  })
})

describe('a body logged as NDJSON (QA: chunks one per line were read as plain text, a split marker missed)', () => {
  const m = 'CANARY-aaaa1111bbbb2222cccc'
  const toks = ['Here: ', m.slice(0, 9), m.slice(9, 18), m.slice(18)]
  const ndjson = (objs: unknown[]) => objs.map((o) => JSON.stringify(o)).join('\n') + '\n'
  const chunk = (d: object, finish: string | null = null) => ({id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'gpt-4o', choices: [{index: 0, delta: d, finish_reason: finish}]})

  it('reads OpenAI chunks one per line as the stream they are, the split marker whole', () => {
    const d = decodeResponse(ndjson([chunk({role: 'assistant', content: ''}), ...toks.map((t) => chunk({content: t})), chunk({}, 'stop')]))
    expect(d).toMatchObject({kind: 'sse', stream: true, text: `Here: ${m}`})
    // Messages API events one per line too.
    const events = [{type: 'message_start', message: {usage: {input_tokens: 3}}}, ...toks.map((t) => ({type: 'content_block_delta', index: 0, delta: {type: 'text_delta', text: t}})), {type: 'message_stop'}]
    expect(decodeResponse(ndjson(events)).text).toBe(`Here: ${m}`)
  })

  it('searches a last line cut off as its raw text, as a cut-off stream event is', () => {
    const lines = ndjson(toks.slice(0, 3).map((t) => chunk({content: t}))) + '{"choices":[{"delta":{"content":"' + m.slice(18)
    expect(decodeResponse(lines)).toMatchObject({text: `Here: ${m}\n{"choices":[{"delta":{"content":"${m.slice(18)}`, unparsed: 1})
  })

  it('reads an Ollama stream as its chunks joined, the split marker whole; gives no text, never plain text, for NDJSON of another shape', () => {
    const ollama = [...toks.map((t) => ({model: 'llama3', message: {role: 'assistant', content: t}, done: false})), {model: 'llama3', message: {role: 'assistant', content: ''}, done: true, prompt_eval_count: 4, eval_count: 5}]
    expect(decodeResponse(ndjson(ollama))).toMatchObject({kind: 'chat', stream: true, text: `Here: ${m}`, unread: [], promptTokens: 4, completionTokens: 5})
    expect(decodeResponse(JSON.stringify(ollama[1]))).toMatchObject({kind: 'chat', text: toks[1], unread: []})
    // Ollama chunks with a line that is no whole document: not read.
    expect(decodeResponse(ndjson(ollama.slice(0, 2)) + '{"model":"llama3","message":{"content":"x')).toMatchObject({kind: 'json', text: ''})
    // Chunks mixed with objects of no stream shape: not read either.
    expect(decodeResponse(ndjson([chunk({content: m}), {note: 'x'}]))).toMatchObject({kind: 'json', text: ''})
  })

  it('leaves as plain text what is no NDJSON: one line, lines not opening with an object, a first line that is no document', () => {
    expect(decodeResponse('{"a":1} trailing')).toMatchObject({kind: 'text'})
    expect(decodeResponse('{"a":1}\nplain words')).toMatchObject({kind: 'text'})
    expect(decodeResponse('{not json\n{"choices":[]}')).toMatchObject({kind: 'text'})
  })
})
