import {describe, expect, it} from 'vitest'
import {AFTER_DONE, decodeResponse} from '../../src/extract/decode.js'

// A stream logged with events after its data: [DONE] end mark (a retried or concatenated stream
// logged as one body): the client's SDK stops at [DONE], so what follows is not counted as text
// the client received, but it is named unread, so the record is not read whole and the gate fails
// closed. Before, the decoder stopped at [DONE] and said nothing: a marker after it passed the gate.

const LEAK = 'CANARY-cccccccccccccccc3333'
const chunk = (content: string) => `data: ${JSON.stringify({id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{index: 0, delta: {content}, finish_reason: null}]})}\n\n`

describe('a stream\'s data after data: [DONE]', () => {
  it.each([
    ['a chunk', `${chunk('ans ')}data: [DONE]\n\n${chunk(LEAK)}data: [DONE]\n\n`],
    ['text that is no event', `${chunk('ans ')}data: [DONE]\n\nleak ${LEAK}\n`],
    ['a chunk after CRLF line ends', `${chunk('ans ')}data: [DONE]\r\n\r\n${chunk(LEAK).replace(/\n/g, '\r\n')}`],
  ])('names %s after the end mark as not read, and does not count it as received', (_what, body) => {
    const d = decodeResponse(body)
    expect(d.text).toBe('ans ')
    expect(d.unread).toEqual([AFTER_DONE])
  })

  it('names nothing where only blank lines, comments, fields without data and end marks follow', () => {
    const d = decodeResponse(`${chunk('ans')}data: [DONE]\n\n: keep-alive\n\nevent: end\nid: 9\nretry: 10\n\ndata: [DONE]\n \n`)
    expect(d.text).toBe('ans')
    expect(d.unread).toEqual([])
  })
})
