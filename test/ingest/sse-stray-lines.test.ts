import {describe, expect, it} from 'vitest'
import {AFTER_DONE, decodeResponse, STRAY_LINE} from '../../src/extract/decode.js'
import {markerTokens} from '../../src/extract/markers.js'

// A stream line that is no SSE field (not data, event, id, retry, a comment or blank) before the
// end mark was passed over: a data line a log shipper broke in two (the marker on the
// continuation, which has no `data:`), in a chat, Responses or Messages API stream, or a line of
// text written between chunks, gave no text and no note, so --fail-on-leak passed (QA parts #1).
// Now a continuation is joined to the payload as the shipper split it (read as the event where it
// makes a JSON document), and any other such line is searched as raw text, the record named not
// read whole.

const LEAK = 'CANARY-a1b2c3d4e5f60718293a4b5c6d7e8f90'
const chat = (content: string) => `data: ${JSON.stringify({id: 'x', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content}}]})}\n\n`
const anthropic = (text: string) =>
  `event: message_start\ndata: ${JSON.stringify({type: 'message_start', message: {id: 'm', type: 'message', role: 'assistant', content: [], model: 'c', usage: {input_tokens: 1, output_tokens: 1}}})}\n\n` +
  `event: content_block_start\ndata: ${JSON.stringify({type: 'content_block_start', index: 0, content_block: {type: 'text', text: ''}})}\n\n` +
  `event: content_block_delta\ndata: ${JSON.stringify({type: 'content_block_delta', index: 0, delta: {type: 'text_delta', text}})}\n\n` +
  'event: message_stop\ndata: {"type":"message_stop"}\n\n'
const responses = (delta: string) =>
  `event: response.output_text.delta\ndata: ${JSON.stringify({type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta})}\n\n` +
  `event: response.completed\ndata: ${JSON.stringify({type: 'response.completed', response: {id: 'r', object: 'response', status: 'completed', output: []}})}\n\n`
const DONE = 'data: [DONE]\n\n'

/** The stream with its line holding `at` broken in two there, as a shipper that splits long lines writes it. */
function broken(stream: string, at: string, before = 3): string {
  const cut = stream.indexOf(at) - before
  return `${stream.slice(0, cut)}\n${stream.slice(cut)}`
}

const found = (text: string): string[] => markerTokens(text).map((t) => t.token)

describe('a stream line that is no SSE field, before data: [DONE]', () => {
  it.each([
    ['a chat stream', chat('Hello. ') + chat(`${'lorem ipsum '.repeat(20)}your code is ${LEAK} and more`) + DONE],
    ['a Messages API stream', anthropic(`${'x '.repeat(30)}code ${LEAK}`)],
    ['a Responses API stream', responses(`${'y '.repeat(30)}code ${LEAK}`)],
  ])('joins a data line a log shipper broke in two in %s, and reads it as the event it is', (_what, stream) => {
    const whole = decodeResponse(stream)
    const split = decodeResponse(broken(stream, LEAK))
    expect(found(split.text)).toEqual([LEAK])
    expect(split.text).toBe(whole.text)
    expect(split.unread).toEqual([])
  })

  it('joins a data line broken inside a \\u escape', () => {
    const d = decodeResponse(`data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"code CANARY-\\u00\n61${LEAK.slice(8)} ok"}}]}\n\n${DONE}`)
    expect(d.text).toBe(`code ${LEAK} ok`)
    expect(d.unread).toEqual([])
  })

  it('joins a line broken before what starts like a field (a comment, data:), which the text held', () => {
    const before = (at: string) => {
      const stream = chat('Hi. ') + chat(`the code${at} ${LEAK}`) + DONE
      const cut = stream.indexOf(`${at} ${LEAK}`)
      return `${stream.slice(0, cut)}\n${stream.slice(cut)}`
    }
    for (const at of [':', 'data:', 'id:']) {
      const d = decodeResponse(before(at))
      expect(d.text, at).toBe(`Hi. the code${at} ${LEAK}`)
      expect(d.unread, at).toEqual([])
    }
  })

  it('searches a line of text between chunks as raw text, and names the record not read whole', () => {
    const d = decodeResponse(`${chat('Hello ')}Your code is ${LEAK}\n\n${chat('there')}${DONE}`)
    expect(d.text).toBe(`Hello there\nYour code is ${LEAK}`)
    expect(d.unread).toEqual([STRAY_LINE])
  })

  it('names such a line not read whole where it holds no marker too (the gate fails closed), and in a stream with no end mark', () => {
    expect(decodeResponse(`${chat('Hello ')}a note the logger wrote\n\n${chat('there')}${DONE}`).unread).toEqual([STRAY_LINE])
    expect(decodeResponse(`${chat('Hello ')}\nstray\n`).unread).toEqual([STRAY_LINE])
  })

  it('searches a continuation that still makes no JSON document as the raw text joined, read as far as it goes, and names the record not read whole', () => {
    // A long line broken in two and then the stream cut off: the payload never closes.
    const d = decodeResponse(`${chat('Hello ')}data: {"choices":[{"index":0,"delta":{"content":"your cod\ne is ${LEAK} and`)
    expect(found(d.text)).toEqual([LEAK, LEAK])
    expect(d.text.startsWith(`Hello your code is ${LEAK} and\n`)).toBe(true)
    expect(d.unread).toEqual([STRAY_LINE])
    expect(d.unparsed).toBe(1)
  })

  it('names nothing for comments, fields, white space alone and blank lines', () => {
    const d = decodeResponse(`: keep-alive\nid: 1\nretry: 10\nevent: message\nid\n   \n${chat('ok')}${DONE}`)
    expect(d.text).toBe('ok')
    expect(d.unread).toEqual([])
  })

  it('keeps the rule after data: [DONE]: such a line there is named as data after the end mark', () => {
    const d = decodeResponse(`${chat('ans')}${DONE}leak ${LEAK}\n`)
    expect(d.text).toBe('ans')
    expect(d.unread).toEqual([AFTER_DONE])
  })
})
