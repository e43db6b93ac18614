import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {decodeRequest, decodeResponse, splitLines} from '../../src/extract/decode.js'

const sse = (...chunks: unknown[]) => chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join('')
const delta = (content: string, index = 0) => ({object: 'chat.completion.chunk', choices: [{index, delta: {content}}]})

describe('decodeResponse', () => {
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
  it('marks a 200 stream that ends in an error event as an error but keeps what was received', () => {
    const body = sse(delta('partial CANARY-aa'), {error: {message: 'context overflow', code: 400}})
    expect(decodeResponse(body)).toMatchObject({isError: true, errorMessage: 'context overflow', text: 'partial CANARY-aa'})
    const withEvent = `${sse(delta('p'))}event: error\ndata: {"message":"boom"}\n\n`
    expect(decodeResponse(withEvent)).toMatchObject({isError: true, errorMessage: 'boom'})
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
})

describe('decodeRequest', () => {
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
