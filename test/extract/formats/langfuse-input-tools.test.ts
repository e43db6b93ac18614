import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {decodeRequest} from '../../../src/extract/decode.js'
import {runAdapter} from './run-adapter.js'

// A GENERATION whose input holds the tools the application defined beside its messages
// (`input: {messages, tools}`): the model was shown the tools, so a marker in a tool's description
// or schema is prompt text (a repeat of it is an echo).
const m = 'CANARY-7777aaaa8888bbbb'

it('langfuse: the tools of a GENERATION\'s input are read as prompt text', () => {
  const tools = [{type: 'function', function: {name: 'lookup', description: `find ${m}`, parameters: {type: 'object', properties: {q: {type: 'string'}}}}}]
  const row = {id: 'lf1', traceId: 't1', type: 'GENERATION', startTime: '2026-11-02T10:00:00Z', endTime: '2026-11-02T10:00:01Z', input: {messages: [{role: 'user', content: 'hi'}], tools}, output: {role: 'assistant', content: m}, metadata: {tenant_id: 'ta'}, sessionId: 'A1'}
  const path = join(mkdtempSync(join(tmpdir(), 'ct-lf-')), 'lf.jsonl')
  writeFileSync(path, JSON.stringify(row) + '\n')
  const run = runAdapter('langfuse', [path])
  expect(run.produced).toHaveLength(1)
  const prompt = decodeRequest(run.produced[0]!.record.request)!
  expect(prompt.split('\n')).toContain(`find ${m}`)
})
