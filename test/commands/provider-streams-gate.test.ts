import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir, type CliResult} from '../helpers/cli.js'

// The streams of Gemini, Bedrock ConverseStream, Cohere v2 chat and OpenAI Assistants were named
// unread: every --fail-on-leak gate exited 1 on a clean log of them, and a marker in them was never
// classified. They are read now: a clean log passes (exit 0), and another tenant's marker split
// across two chunks is one cross-tenant sighting (exit 3), with the native addon and without it.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'answer-fields')
// acme's marker, in globex's answers.
const HEAD = 'CANARY-aaaaaaaa'
const TAIL = 'aaaaaaaa1111'
const sse = (events: Array<{event?: string; data: unknown}>): string =>
  events.map((e) => `${e.event === undefined ? '' : `event: ${e.event}\n`}data: ${JSON.stringify(e.data)}\n\n`).join('')
const line = (rid: string, response: unknown) => JSON.stringify({ts: '2026-11-02T10:00:00Z', request_id: rid, tenant_id: 'globex', session_id: 's2', status: 200, request: 'hi', response})

/** Each stream's answer in two pieces, `a` then `b`. */
function streams(a: string, b: string): Array<[string, unknown]> {
  const gemini = (text: string) => ({candidates: [{content: {parts: [{text}], role: 'model'}, index: 0}], usageMetadata: {promptTokenCount: 5, totalTokenCount: 5}, modelVersion: 'gemini-2.5-flash'})
  const converse = [
    {messageStart: {role: 'assistant'}},
    {contentBlockDelta: {delta: {text: a}, contentBlockIndex: 0}},
    {contentBlockDelta: {delta: {text: b}, contentBlockIndex: 0}},
    {contentBlockStop: {contentBlockIndex: 0}},
    {messageStop: {stopReason: 'end_turn'}},
    {metadata: {usage: {inputTokens: 5, outputTokens: 2, totalTokens: 7}, metrics: {latencyMs: 90}}},
  ]
  const cohere = [
    {id: 'c1', type: 'message-start', delta: {message: {role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: []}}},
    {type: 'content-start', index: 0, delta: {message: {content: {type: 'text', text: ''}}}},
    {type: 'content-delta', index: 0, delta: {message: {content: {text: a}}}},
    {type: 'content-delta', index: 0, delta: {message: {content: {text: b}}}},
    {type: 'content-end', index: 0},
    {type: 'message-end', delta: {finish_reason: 'COMPLETE', usage: {tokens: {input_tokens: 5, output_tokens: 2}}}},
  ]
  const delta = (value: string) => ({id: 'msg_1', object: 'thread.message.delta', delta: {content: [{index: 0, type: 'text', text: {value, annotations: []}}]}})
  const assistants = [
    {event: 'thread.message.delta', data: delta(a)},
    {event: 'thread.message.delta', data: delta(b)},
    {event: 'thread.message.completed', data: {id: 'msg_1', object: 'thread.message', created_at: 1, thread_id: 't', run_id: 'r', role: 'assistant', status: 'completed', content: [{type: 'text', text: {value: a + b, annotations: []}}], attachments: [], metadata: {}}},
  ]
  return [
    ['gemini-sse', sse([{data: gemini(a)}, {data: gemini(b)}])],
    ['gemini-list', JSON.stringify([gemini(a), gemini(b)])],
    ['converse', converse],
    ['cohere', sse(cohere.map((data) => ({event: data.type, data})))],
    ['assistants', sse(assistants) + 'event: done\ndata: [DONE]\n\n'],
  ]
}

function runWith(native: boolean, args: string[]): CliResult {
  return runCli(args, {env: native ? {} : {CROSSTALK_NATIVE: '0'}})
}

describe('--fail-on-leak over other providers\' streams', () => {
  for (const native of [true, false]) {
    const how = native ? 'with the native addon' : 'CROSSTALK_NATIVE=0'
    it(`passes a clean log of each stream (exit 0, read whole) (${how})`, () => {
      const dir = tempDir()
      const file = join(dir, 'clean.jsonl')
      writeFileSync(file, streams('All is ', 'well.').map(([rid, body]) => line(rid, body)).join('\n') + '\n')
      const r = runWith(native, ['triage', file, '--canaries', join(FIXTURES, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).not.toContain('not read whole')
    }, 120_000)

    it(`finds another tenant's marker split across two chunks of each stream, once (exit 3) (${how})`, () => {
      const dir = tempDir()
      const file = join(dir, 'leak.jsonl')
      const lines = streams(`Your order: ${HEAD}`, `${TAIL}, shipped.`)
      writeFileSync(file, lines.map(([rid, body]) => line(rid, body)).join('\n') + '\n')
      const db = join(dir, 'case.db')
      const r = runWith(native, ['triage', file, '--canaries', join(FIXTURES, 'canaries.csv'), '--db', db, '--fail-on-leak'])
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toContain(`contamination found: ${lines.length} responses (${lines.length} cross-tenant, 0 cross-session)`)
      expect(r.stderr).not.toContain('not read whole')
      const sightings = JSON.parse(runWith(native, ['sightings', '--db', db, '--json']).stdout) as Array<{request_id: string; class: string; marker: string}>
      expect(sightings.map((s) => [s.request_id, s.class, s.marker]).sort()).toEqual(lines.map(([rid]) => [rid, 'cross_tenant', HEAD + TAIL]).sort())
    }, 120_000)
  }
})
