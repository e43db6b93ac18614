import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {decodeResponse} from '../../../src/extract/decode.js'
import {unreadShapesNote} from '../../../src/extract/parse-record.js'
import {runAdapter} from './run-adapter.js'

// A GENERATION of an Anthropic model: Langfuse keeps its output as the message's content blocks,
// a thinking block among them, or as the whole Messages API response. The thinking text is text
// the model wrote and the client received: it is read, in order, as a /v1/messages body's is.
const m = 'CANARY-7777aaaa8888bbbb'
const blocks = [{type: 'thinking', thinking: `recall ${m}`, signature: 's'}, {type: 'text', text: 'sunny'}, {type: 'tool_use', id: 't', name: 'f', input: {q: 'x'}}]

function answerOf(output: unknown): string {
  const row = {id: 'lf1', traceId: 't1', type: 'GENERATION', startTime: '2026-11-02T10:00:00Z', endTime: '2026-11-02T10:00:01Z', input: [{role: 'user', content: 'hi'}], output, metadata: {tenant_id: 'ta'}, sessionId: 'A1'}
  const path = join(mkdtempSync(join(tmpdir(), 'ct-lf-')), 'lf.jsonl')
  writeFileSync(path, JSON.stringify(row) + '\n')
  const run = runAdapter('langfuse', [path])
  expect(run.produced).toHaveLength(1)
  return decodeResponse(run.produced[0]!.record.response).text
}

it('langfuse: Anthropic thinking blocks in a GENERATION\'s output are read, as in a native Messages body', () => {
  const native = decodeResponse({id: 'msg_1', type: 'message', role: 'assistant', content: blocks, stop_reason: 'end_turn'}).text
  expect(native).toContain(m)
  // {role, content: [blocks]}
  expect(answerOf({role: 'assistant', content: blocks})).toBe(native)
  // the whole Messages API response
  expect(answerOf({id: 'msg_1', type: 'message', role: 'assistant', model: 'c', content: blocks, stop_reason: 'end_turn'})).toBe(native)
  // the blocks as the output itself, and as JSON text (the v2 API)
  expect(answerOf(blocks)).toBe(native)
  expect(answerOf(JSON.stringify({role: 'assistant', content: blocks}))).toBe(native)
  // one choice holding such a message
  expect(answerOf({index: 0, message: {role: 'assistant', content: blocks}})).toBe(native)
})

it('langfuse: OpenAI text parts alone are still read as before', () => {
  expect(answerOf({role: 'assistant', content: [{type: 'text', text: 'a '}, {type: 'text', text: m}]})).toBe(`a ${m}`)
})

it('langfuse: thinking blocks in an output of several messages are read, each message as it is read alone', () => {
  const first = {role: 'assistant', content: [{type: 'text', text: 'first answer'}]}
  const second = {role: 'assistant', content: blocks}
  const native = decodeResponse({id: 'msg_1', type: 'message', role: 'assistant', content: blocks, stop_reason: 'end_turn'}).text
  const text = answerOf([first, second])
  expect(text).toContain(m)
  expect(text).toBe(`first answer\n${native}`)
  // Each as one choice holding it ({index, message}), and as the whole Messages API responses.
  expect(answerOf([{index: 0, message: first}, {index: 1, message: second}])).toBe(text)
  expect(answerOf([first, {id: 'msg_2', type: 'message', role: 'assistant', content: blocks}])).toBe(text)
})

it('langfuse: a block of a type the decoder does not read, in an output of several messages, is said of the record (its file is then not read whole)', () => {
  const row = {id: 'lf1', traceId: 't1', type: 'GENERATION', startTime: '2026-11-02T10:00:00Z', endTime: '2026-11-02T10:00:01Z', input: [{role: 'user', content: 'hi'}],
    output: [{role: 'assistant', content: [{type: 'text', text: 'first answer'}]}, {role: 'assistant', content: [{type: 'thinking', thinking: 'hm'}, {type: 'x_future_result', content: m}]}], metadata: {tenant_id: 'ta'}, sessionId: 'A1'}
  const path = join(mkdtempSync(join(tmpdir(), 'ct-lf-')), 'lf.jsonl')
  writeFileSync(path, JSON.stringify(row) + '\n')
  const run = runAdapter('langfuse', [path])
  expect(run.produced).toHaveLength(1)
  // Each message is read into a chat message's text, so the body the record keeps holds no word of the block.
  expect(decodeResponse(run.produced[0]!.record.response).unread).toEqual([])
  expect(run.produced[0]!.notes).toContain(unreadShapesNote(['Messages API content block "x_future_result"']))
})
