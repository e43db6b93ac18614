import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir, type CliResult} from '../helpers/cli.js'

// Chat answers whose text the client was given in a member the decoder neither read nor counted
// as unread: another tenant's marker there passed --fail-on-leak (exit 0), with the native addon
// (which read such lines itself) and without it. Each answer below is read now (exit 3), or, in a
// stream chunk of a shape not read (or holding a member no release knows), named unread (exit 1,
// the file not read whole).

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'answer-fields')
const M = 'CANARY-aaaaaaaaaaaaaaaa1111'
const sse = (...chunks: unknown[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')
const chunk = (delta: unknown, choice: Record<string, unknown> = {}) => ({id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{index: 0, delta, ...choice}]})
const chat = (message: Record<string, unknown>) => ({id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{index: 0, finish_reason: 'stop', message: {role: 'assistant', ...message}}]})
const line = (rid: string, response: unknown, status = 200) => JSON.stringify({ts: '2026-11-02T10:00:00Z', request_id: rid, tenant_id: 'globex', session_id: 's2', status, request: 'hi', response})

/** Answers carrying acme's marker only in a member not read before, read now. */
const READ = [
  line('custom', chat({content: 'Running.', tool_calls: [{id: 'c1', type: 'custom', custom: {name: 'code_exec', input: `print('${M}')`}}]})),
  line('custom-stream', sse(chunk({role: 'assistant', content: 'Running.'}), chunk({tool_calls: [{index: 0, id: 'c1', type: 'custom', custom: {name: 'code_exec', input: M}}]})) + 'data: [DONE]\n\n'),
  line('details', chat({content: '4.', reasoning: null, reasoning_details: [{type: 'reasoning.summary', summary: `about ${M}`, index: 0}, {type: 'reasoning.encrypted', data: 'gAAAA', index: 1}]})),
  line('details-stream', sse(chunk({role: 'assistant', content: '', reasoning_details: [{type: 'reasoning.text', text: `about ${M}`, index: 0}]}), chunk({content: '4.'})) + 'data: [DONE]\n\n'),
  line('azure-oyd', chat({content: 'See [doc1].', context: {citations: [{content: `record ${M}`, title: 'f.pdf', url: null, filepath: 'f.pdf', chunk_id: '0'}], intent: '["record"]'}})),
  line('groq', chat({content: 'Below.', executed_tools: [{index: 0, type: 'python', arguments: '{}', output: `record ${M}`}]})),
  line('chunk-message', sse(chunk({role: 'assistant', content: 'Hello'}), {object: 'chat.completion.chunk', choices: [{index: 0, message: {role: 'assistant', content: ` ${M}`}, finish_reason: 'stop'}]}) + 'data: [DONE]\n\n'),
  line('perplexity', {...chat({content: 'See [1].'}), citations: ['https://example.org/a'], search_results: [{title: 'A', url: 'https://example.org/a', snippet: `record ${M}`}]}),
  line('error-details', {error: {code: 400, message: 'Invalid argument.', status: 'INVALID_ARGUMENT', details: [{'@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{field: 'contents[0]', description: `bad ${M}`}]}]}}, 400),
]

function runWith(native: boolean, args: string[]): CliResult {
  return runCli(args, {env: native ? {} : {CROSSTALK_NATIVE: '0'}})
}

describe('--fail-on-leak over chat answers read closed-world', () => {
  for (const native of [true, false]) {
    it(`trips on each answer holding the marker in a member read now (${native ? 'with the native addon' : 'CROSSTALK_NATIVE=0'})`, () => {
      const dir = tempDir()
      const file = join(dir, 'read.jsonl')
      writeFileSync(file, READ.join('\n') + '\n')
      const r = runWith(native, ['triage', file, '--canaries', join(FIXTURES, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toContain(`contamination found: ${READ.length} responses (${READ.length} cross-tenant, 0 cross-session)`)
      expect(r.stderr).not.toContain('not read whole')
    }, 120_000)

    it(`cannot pass a stream of chunks of a shape not read, an error event after them or not (${native ? 'with the native addon' : 'CROSSTALK_NATIVE=0'})`, () => {
      // A Gemini stream is read (provider-streams-gate.test.ts); a member of its chunks no release knows is not.
      const gemini = (t: string) => ({candidates: [{content: {role: 'model', parts: [{text: t}]}, index: 0, x_future: {note: M}}]})
      const streams = [
        sse(gemini('Here: '), gemini('there.'), {error: {code: 500, message: 'An internal error has occurred.', status: 'INTERNAL'}}),
        sse(chunk({content: 'ok'}), {x_future: {note: M}}) + 'data: [DONE]\n\n',
        sse({index: 1, token: {id: 1, text: M, logprob: -0.1, special: false}, generated_text: null, details: null}, {error: 'CUDA out of memory', error_type: 'generation'}),
        // A chat answer with a member no release knows, holding the marker.
        JSON.stringify(chat({content: 'x', x_future: {text: M}})),
      ]
      const dir = tempDir()
      const file = join(dir, 'unread.jsonl')
      writeFileSync(file, streams.map((s, i) => line(`u${i}`, s)).join('\n') + '\n')
      const r = runWith(native, ['triage', file, '--canaries', join(FIXTURES, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toContain(`unread.jsonl (not read whole: ${streams.length} records hold in their response body what this release does not read (`)
      for (const shape of ['Gemini candidate member "x_future"', 'stream chunk member "x_future"', 'stream chunk member "token"', 'chat message member "x_future"']) expect(r.stderr).toContain(shape)
    }, 120_000)
  }
})
