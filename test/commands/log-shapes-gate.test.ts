import Database from 'better-sqlite3'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir, type CliResult} from '../helpers/cli.js'

// Log shapes that were refused for the wrong reason or read too loosely: an embeddings answer
// (vectors, no text by design) made a Batch output file "decoded to no text" and the gate fail;
// a chat answer's content part of a type no release knows was passed over without a word; a
// Responses API computer call's screenshot made the answer "not read whole". Each is checked
// through triage --fail-on-leak, with the native addon and without it.

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'answer-fields')
const CANARIES = join(FIXTURES, 'canaries.csv')
// acme's marker (canaries.csv): in globex's answer, a cross-tenant leak.
const ACME = 'CANARY-aaaaaaaaaaaaaaaa1111'
const PATTERN = '^(?<tenant>[^:]+):(?<session>[^:]+):'

function runWith(native: boolean, args: string[]): CliResult {
  return runCli(args, {env: native ? {} : {CROSSTALK_NATIVE: '0'}})
}

const nativeLine = (rid: string, response: unknown, request: unknown = {messages: [{role: 'user', content: 'hi'}]}) =>
  JSON.stringify({ts: '2026-11-02T10:00:00Z', request_id: rid, tenant_id: 'globex', session_id: 's2', status: 200, request, response})

function batchFiles(dir: string, body: unknown, input = 'hello there'): string[] {
  const inFile = join(dir, 'in.jsonl')
  const outFile = join(dir, 'out.jsonl')
  writeFileSync(inFile, JSON.stringify({custom_id: 'globex:s2:1', method: 'POST', url: '/v1/embeddings', body: {model: 'text-embedding-3-small', input: [input]}}) + '\n')
  writeFileSync(outFile, JSON.stringify({id: 'batch_req_1', custom_id: 'globex:s2:1', response: {status_code: 200, request_id: 'req_1', body}, error: null}) + '\n')
  return [inFile, outFile]
}

const embeddings = (extra: object = {}) => ({
  object: 'list',
  data: [{object: 'embedding', embedding: [0.0023, -0.0093, 0.0157], index: 0, ...extra}],
  model: 'text-embedding-3-small',
  usage: {prompt_tokens: 8, total_tokens: 8},
})

describe('OpenAI Batch output of /v1/embeddings', () => {
  it('reads an embeddings answer as an answer with no text by design: counted and said, and the gate passes', () => {
    const dir = tempDir()
    const files = batchFiles(dir, embeddings())
    const db = join(dir, 'case.db')
    const i = runCli(['ingest', 'logs', ...files, '--db', db, '--log-format', 'openai-batch', '--custom-id-pattern', PATTERN, '--batch-ts', '2026-11-02T10:00:00Z', '--json'])
    expect(i.code, i.stderr).toBe(0)
    const out = (JSON.parse(i.stdout) as {per_file: {path: string; records: number; no_request_text: number; no_response_text: number; notes: string[]}[]}).per_file.find((f) => f.path.endsWith('out.jsonl'))!
    expect(out.records).toBe(1)
    expect(out.no_response_text).toBe(0)
    // The request's input strings are read as its text, as any request's are.
    expect(out.no_request_text).toBe(0)
    expect(out.notes).toContain('1 record: an embedding answer: vectors, no text to search')
    const r = runCli(['triage', ...files, '--canaries', CANARIES, '--db', join(dir, 'gate.db'), '--log-format', 'openai-batch', '--custom-id-pattern', PATTERN, '--batch-ts', '2026-11-02T10:00:00Z', '--fail-on-leak'])
    expect(r.stderr).not.toContain('decoded to no text')
    expect(r.code, r.stderr).toBe(0)
  }, 120_000)

  it('does not pass as vectors a body that holds anything more: a text beside the vectors leaves the answer unread, and the gate fails', () => {
    const dir = tempDir()
    const files = batchFiles(dir, embeddings({text: ACME}))
    const r = runCli(['triage', ...files, '--canaries', CANARIES, '--db', join(dir, 'case.db'), '--log-format', 'openai-batch', '--custom-id-pattern', PATTERN, '--batch-ts', '2026-11-02T10:00:00Z', '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).not.toContain('an embedding answer')
  }, 120_000)
})

describe('a chat answer\'s content parts', () => {
  for (const native of [true, false]) {
    it(`cannot pass a file whose answer holds a content part of a type not known, naming it (${native ? 'with the native addon' : 'CROSSTALK_NATIVE=0'})`, () => {
      const dir = tempDir()
      const file = join(dir, 'parts.jsonl')
      writeFileSync(file, [
        nativeLine('clean', {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: 'fine'}}]}),
        nativeLine('message', {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: [{type: 'text', text: 'fine'}, {type: 'something_new', payload: {note: ACME}}]}}]}),
        nativeLine('stream', `data: ${JSON.stringify({id: 'c', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: [{type: 'something_new', payload: ACME}]}}]})}\n\ndata: [DONE]\n\n`),
      ].join('\n') + '\n')
      const r = runWith(native, ['triage', file, '--canaries', CANARIES, '--db', join(dir, 'case.db'), '--fail-on-leak'])
      expect(r.code, r.stderr).toBe(1)
      // The file, the shape, how many records and the first one's line.
      expect(r.stderr).toContain('parts.jsonl (not read whole: 2 records hold in their response body what this release does not read (Chat Completions content part "something_new"), the first on line 2,')
    }, 120_000)
  }

  it('names the first line not read whole when a scan extracts a case made before again', () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    const file = join(dir, 'later.jsonl')
    const clean = nativeLine('clean', {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: 'fine'}}]})
    writeFileSync(file, [clean, clean.replace('"clean"', '"clean-2"'), nativeLine('new', {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: [{type: 'something_new', payload: 'x'}]}}]})].join('\n') + '\n')
    expect(runCli(['triage', file, '--canaries', CANARIES, '--db', db]).code).toBe(0)
    // What x6 left: the file called read whole.
    const c = new Database(db)
    c.prepare("UPDATE files SET extract_scheme = 'x6/words-k5-w8-v2', unread = NULL WHERE kind = 'log'").run()
    c.close()
    expect(runCli(['scan', '--db', db]).code).toBe(0)
    const g = runCli(['scan', '--db', db, '--fail-on-leak'])
    expect(g.code, g.stderr).toBe(1)
    expect(g.stderr).toContain('later.jsonl (not read whole: 1 record holds in its response body what this release does not read (Chat Completions content part "something_new"), on line 3,')
  }, 120_000)

  it('reads a refusal part\'s refusal as answer text', () => {
    const dir = tempDir()
    const file = join(dir, 'refusal.jsonl')
    writeFileSync(file, nativeLine('refusal', {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: [{type: 'refusal', refusal: `no: ${ACME}`}]}}]}) + '\n')
    const r = runCli(['triage', file, '--canaries', CANARIES, '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain('contamination found: 1 response (1 cross-tenant, 0 cross-session)')
  }, 120_000)
})

describe('a Responses API computer call\'s screenshot', () => {
  const screenshot = {type: 'computer_call_output', call_id: 'call_1', output: {type: 'computer_screenshot', image_url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='}}

  it('is counted as a part not searched (an image) and said; the rest of the answer is read, and the gate passes', () => {
    const dir = tempDir()
    const file = join(dir, 'screens.jsonl')
    writeFileSync(file, nativeLine('shot', {object: 'response', output: [screenshot, {type: 'message', content: [{type: 'output_text', text: 'done'}]}]}) + '\n')
    const r = runCli(['triage', file, '--canaries', CANARIES, '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.stderr).toContain('1 record: its response holds a part that cannot be searched for a marker (it holds no text), not searched: image (Responses API computer_call_output screenshot)')
    expect(r.stderr).not.toContain('not read whole')
    expect(r.code, r.stderr).toBe(0)
  }, 120_000)

  it('reads its safety checks\' messages as answer text', () => {
    const dir = tempDir()
    const file = join(dir, 'checks.jsonl')
    writeFileSync(file, nativeLine('checks', {object: 'response', output: [{...screenshot, acknowledged_safety_checks: [{id: 'sc_1', code: 'malicious_instructions', message: `seen ${ACME}`}]}]}) + '\n')
    const r = runCli(['triage', file, '--canaries', CANARIES, '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain('contamination found: 1 response (1 cross-tenant, 0 cross-session)')
  }, 120_000)
})

describe('Anthropic Message Batches results (--log-format openai-batch)', () => {
  const message = (text: string) => ({id: 'msg_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{type: 'text', text}], stop_reason: 'end_turn', stop_sequence: null, usage: {input_tokens: 10, output_tokens: 4}})
  function files(dir: string, answer: string): string[] {
    const requests = join(dir, 'requests.jsonl')
    const results = join(dir, 'results.jsonl')
    const params = (content: string) => ({model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{role: 'user', content}]})
    writeFileSync(requests, ['1', '2', '3', '4'].map((n) => JSON.stringify({custom_id: `globex:s2:${n}`, params: params(`question ${n}`)})).join('\n') + '\n')
    writeFileSync(results, [
      JSON.stringify({custom_id: 'globex:s2:1', result: {type: 'succeeded', message: message(answer)}}),
      JSON.stringify({custom_id: 'globex:s2:2', result: {type: 'errored', error: {type: 'error', error: {type: 'invalid_request_error', message: 'max_tokens: too large'}}}}),
      JSON.stringify({custom_id: 'globex:s2:3', result: {type: 'canceled'}}),
      JSON.stringify({custom_id: 'globex:s2:4', result: {type: 'expired'}}),
    ].join('\n') + '\n')
    return [requests, results]
  }
  const args = (dir: string, given: string[]) => ['triage', ...given, '--canaries', CANARIES, '--db', join(dir, 'case.db'), '--custom-id-pattern', PATTERN, '--batch-ts', '2026-11-02T10:00:00Z', '--fail-on-leak']

  it('reads a succeeded result\'s message as the answer (a marker in it trips the gate), joined with its request by custom_id', () => {
    const dir = tempDir()
    const r = runCli(args(dir, files(dir, `here: ${ACME}`)))
    expect(r.stderr).toContain('read as openai-batch')
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain('contamination found: 1 response (1 cross-tenant, 0 cross-session)')
  }, 120_000)

  it('records errored, canceled and expired results as answers not given, says so, and passes a clean batch', () => {
    const dir = tempDir()
    const given = files(dir, 'all fine')
    const i = runCli(['ingest', 'logs', ...given, '--db', join(dir, 'read.db'), '--custom-id-pattern', PATTERN, '--batch-ts', '2026-11-02T10:00:00Z', '--json'])
    expect(i.code, i.stderr).toBe(0)
    const out = (JSON.parse(i.stdout) as {per_file: {path: string; records: number; bad_lines: number; no_request_text: number; no_response_text: number; notes: string[]}[]}).per_file.find((f) => f.path.endsWith('results.jsonl'))!
    expect(out).toMatchObject({records: 4, bad_lines: 0, no_request_text: 0, no_response_text: 0})
    expect(out.notes).toContain('1 record: a Message Batches request canceled before it was processed: no answer')
    expect(out.notes).toContain('1 record: a Message Batches request expired before it was processed: no answer')
    const r = runCli(args(dir, given))
    expect(r.code, r.stderr).toBe(0)
  }, 120_000)

  it('refuses a succeeded result without its request, saying which file to give', () => {
    const dir = tempDir()
    const [, results] = files(dir, 'all fine')
    const r = runCli(args(dir, [results!]))
    expect(r.code, r.stderr).toBe(1)
    // The succeeded result and the errored one (its message may quote the request: QA accuracy #2);
    // the canceled and expired ones carry no text and are kept, their request named unknown.
    expect(r.stderr).toContain('results.jsonl (2 quarantined lines never judged')
    const bad = runCli(['status', '--bad-lines', '--db', join(dir, 'case.db')])
    expect(bad.stdout + bad.stderr).toContain('custom_id "globex:s2:1" is in no input file given')
    expect(bad.stdout + bad.stderr).toContain('custom_id "globex:s2:2" is in no input file given, so its request is unknown and its error cannot be judged')
  }, 120_000)
})

describe('Langfuse observations written without a type', () => {
  const observation = (fields: object) => JSON.stringify({
    id: 'obs-1', traceId: 'tr-1', name: 'chat', startTime: '2026-11-02T10:00:00.000Z', endTime: '2026-11-02T10:00:01.000Z', sessionId: 's2', metadata: {tenant_id: 'globex'},
    input: [{role: 'user', content: 'hello'}], ...fields,
  })

  it('reads one that carries a model call\'s fields (model, usage) as a GENERATION, saying so', () => {
    const dir = tempDir()
    const file = join(dir, 'generations.jsonl')
    writeFileSync(file, observation({model: 'gpt-4o', usage: {input: 5, output: 3}, output: {role: 'assistant', content: `hi ${ACME}`}}) + '\n')
    const r = runCli(['triage', file, '--canaries', CANARIES, '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.stderr).toContain('read as langfuse')
    expect(r.stderr).toContain("1 record: no type: read as a GENERATION by the model call's fields it carries")
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toContain('contamination found: 1 response (1 cross-tenant, 0 cross-session)')
  }, 120_000)

  it('does not read one without a type and without such fields as a model call: it is a bad line, and the gate fails', () => {
    const dir = tempDir()
    const file = join(dir, 'untyped.jsonl')
    writeFileSync(file, [
      JSON.stringify({id: 'g', traceId: 'tr-0', type: 'GENERATION', startTime: '2026-11-02T10:00:00.000Z', sessionId: 's2', metadata: {tenant_id: 'globex'}, model: 'gpt-4o', input: 'q', output: 'fine'}),
      observation({output: 'fine'}),
    ].join('\n') + '\n')
    const r = runCli(['triage', file, '--canaries', CANARIES, '--db', join(dir, 'case.db'), '--log-format', 'langfuse', '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toContain('untyped.jsonl (1 quarantined line never judged')
    const bad = runCli(['status', '--bad-lines', '--db', join(dir, 'case.db')])
    expect(bad.stdout + bad.stderr).toContain("a Langfuse observation without a type, and without a model call's fields")
  }, 120_000)
})
