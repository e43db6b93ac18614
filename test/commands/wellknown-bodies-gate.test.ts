import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir} from '../helpers/cli.js'

// Other providers' answer bodies (Gemini generateContent, Bedrock Converse and Titan, Cohere v2,
// an Assistants thread.message, Ollama /api/chat and its NDJSON stream) were refused as answers
// that decoded to no text (exit 1): another tenant's marker in them is found now (exit 3), with
// the native addon and without it.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'answer-fields')
const M = 'CANARY-aaaaaaaaaaaaaaaa1111'
const line = (rid: string, response: unknown) => JSON.stringify({ts: '2026-11-02T10:00:00Z', request_id: rid, tenant_id: 'globex', session_id: 's2', status: 200, request: 'hi', response})
const ollamaChunk = (content: string, done: boolean) => JSON.stringify({model: 'llama3', created_at: '2026-11-02T10:00:00Z', message: {role: 'assistant', content}, done})

const BODIES = [
  line('gemini', {candidates: [{content: {role: 'model', parts: [{text: `leak ${M}`}]}, finishReason: 'STOP'}], usageMetadata: {promptTokenCount: 5, candidatesTokenCount: 3}}),
  line('converse', {output: {message: {role: 'assistant', content: [{text: `leak ${M}`}]}}, stopReason: 'end_turn', usage: {inputTokens: 5, outputTokens: 3, totalTokens: 8}}),
  line('titan', {inputTextTokenCount: 5, results: [{tokenCount: 3, outputText: `leak ${M}`, completionReason: 'FINISH'}]}),
  line('cohere', {id: 'c1', finish_reason: 'COMPLETE', message: {role: 'assistant', content: [{type: 'text', text: `leak ${M}`}]}}),
  line('assistants', {id: 'msg_1', object: 'thread.message', role: 'assistant', content: [{type: 'text', text: {value: `leak ${M}`, annotations: []}}]}),
  line('ollama', {model: 'llama3', message: {role: 'assistant', content: `leak ${M}`}, done: true}),
  line('ollama-stream', [ollamaChunk('leak CANARY-aaaaaaaa', false), ollamaChunk('aaaaaaaa1111', false), ollamaChunk('', true)].join('\n') + '\n'),
]

describe('--fail-on-leak over other providers\' answer bodies', () => {
  for (const native of [true, false]) {
    it(`trips on each (${native ? 'with the native addon' : 'CROSSTALK_NATIVE=0'})`, () => {
      const dir = tempDir()
      const file = join(dir, 'bodies.jsonl')
      writeFileSync(file, BODIES.join('\n') + '\n')
      const r = runCli(['triage', file, '--canaries', join(FIXTURES, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'], {env: native ? {} : {CROSSTALK_NATIVE: '0'}})
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toContain(`contamination found: ${BODIES.length} responses (${BODIES.length} cross-tenant, 0 cross-session)`)
      expect(r.stderr).not.toContain('decoded to no text')
      expect(r.stderr).not.toContain('not read whole')
    }, 120_000)
  }
})
