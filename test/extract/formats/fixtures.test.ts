import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {checkFormatOptions, FormatOptionError, resolveFormatOptions, sniffFormat} from '../../../src/extract/formats/index.js'
import {parseFieldMap} from '../../../src/extract/field-path.js'
import {lineDecoder} from '../../../src/extract/line-decoder.js'
import {parseAssumeTz} from '../../../src/extract/timestamps-zone.js'
import {readJsonLines, runAdapter, type Produced} from './run-adapter.js'

// Hand-written fixtures of the real shapes, from each format's public documentation (see the
// header of each adapter): every field that the format carries must come out, decoded by the
// native path, and every field it lacks must come out unknown.

const dir = join(import.meta.dirname, '../../fixtures/formats')
const f = (name: string) => join(dir, name)
const byId = (produced: Produced[]) => new Map(produced.map((p) => [p.record.request_id, p]))

describe('--log-format auto', () => {
  const cases: [string, string][] = [
    ['otel-spans-semconv-1.37.jsonl', 'otel'],
    ['otel-spans-older-conventions.jsonl', 'otel'],
    ['otel-js-instrumentation-spans.jsonl', 'otel'],
    ['otel-js-instrumentation-logs.jsonl', 'otel'],
    ['langfuse-observations.jsonl', 'langfuse'],
    ['litellm-spend-logs.jsonl', 'litellm'],
    ['litellm-logging-payload.jsonl', 'litellm'],
    ['openai-batch-input.jsonl', 'openai-batch'],
    ['openai-batch-output.jsonl', 'openai-batch'],
    ['native.jsonl', 'native'],
  ]
  for (const [file, format] of cases) {
    it(`decides ${file} is ${format}, with a reason`, () => {
      const decision = sniffFormat(readJsonLines(f(file)).map((l) => l.value))
      expect(decision.format).toBe(format)
      expect(decision.reason).toMatch(/first readable lines/)
      // Exactly one format claims the file.
      expect(decision.candidates.filter((c) => c.confidence > 0).map((c) => c.format)).toEqual([format])
    })
  }

  it('refuses an unknown shape, saying what to do', () => {
    const decision = sniffFormat(readJsonLines(f('unknown-shape.jsonl')).map((l) => l.value))
    expect(decision.format).toBeNull()
    expect(decision.reason).toMatch(/no known log format fits .*--log-format native with --map/)
  })

  it('refuses a file that mixes formats and one with nothing readable', () => {
    const mixed = [...readJsonLines(f('native.jsonl')), ...readJsonLines(f('litellm-spend-logs.jsonl'))].map((l) => l.value)
    expect(sniffFormat(mixed).format).toBeNull()
    expect(sniffFormat([]).reason).toMatch(/no readable JSON lines/)
    expect(sniffFormat(['a', 1, null]).format).toBeNull()
  })
})

describe('otel fixtures', () => {
  it('reads semconv 1.37 spans: messages as a JSON string and structured, session from a parent span on another line, tenant from the resource', () => {
    const run = runAdapter('otel', [f('otel-spans-semconv-1.37.jsonl')])
    expect(run.problems).toEqual([])
    expect(run.ignored).toBe(2) // the HTTP client span and the application's parent span
    const got = byId(run.produced)
    const a = got.get('chatcmpl-9J3uIL87gldCFtiIbyaOvTeYBRA3l')!
    expect(a.item).toBe(0)
    expect(a.row).toMatchObject({
      ts: '2026-10-30T00:39:11.950567Z',
      tenant_id: 'tn-acme',
      session_id: 'sess-67e059c1f1aab6c4',
      status: null,
      model: 'gpt-4o-2024-08-06',
      decode_node: 'api.openai.com:443',
      prefill_node: null,
      prompt_tokens: 52,
      completion_tokens: 17,
      request_text: 'You are a helpful bot. CANARY-5f2c9a1e7b3d4c6a\nTell me a joke about OpenTelemetry',
      response_text: 'Why did the developer bring OpenTelemetry to the party?',
      is_error: 0,
    })
    const b = got.get('chatcmpl-call_VSPygqKTWdrhaFErNvMV18Yl')!
    expect(b.item).toBe(2)
    expect(b.row).toMatchObject({
      session_id: 'conv_5j66UpCpwteGg4YSxUnt7lPY',
      request_text: 'Weather in Paris?\nrainy, 57°F',
      // Two output messages are two choices; a tool call's structured arguments become JSON text; reasoning leads.
      response_text: '{"location":"Paris"}\nThe user wants weather.\nIt is rainy in Paris.',
      prompt_tokens: null,
      completion_tokens: null,
      decode_node: null,
    })
    const err = got.get('c1d2e3f4a5b6c7d8')!
    expect(err.row).toMatchObject({status: 400, is_error: 1, session_id: 'sess-err-1', request_text: 'a very long prompt', response_text: "400 This model's maximum context length is 1048576 tokens"})
    expect(err.row!.error_message).toMatch(/maximum context length/)
  })

  it('reads OpenLLMetry indexed attributes and v1.26 content events', () => {
    // This export names its customer in the resource's service.namespace: read so only when told.
    const run = runAdapter('otel', [f('otel-spans-older-conventions.jsonl')], {tenantAttributes: ['tenant.id', 'service.namespace']})
    expect(run.problems).toEqual([])
    const got = byId(run.produced)
    expect(got.get('chatcmpl-ollm-1')!.row).toMatchObject({
      tenant_id: 'globex',
      session_id: 'sess-ollm',
      prompt_tokens: 173,
      completion_tokens: 17,
      request_text: 'Be brief.\nWhat time is it in \nSan Francisco?',
      response_text: '{"location":"San Francisco, CA"}',
    })
    expect(got.get('161581bf3cb55c14')!.row).toMatchObject({request_text: 'What is the capital of France?', response_text: 'The capital of France is Paris.'})
  })

  it('never reads service.namespace (a group of services) as the tenant unless told, and says which flag would', () => {
    const run = runAdapter('otel', [f('otel-spans-older-conventions.jsonl')])
    expect(run.produced).toEqual([])
    expect(run.problems.length).toBeGreaterThan(0)
    for (const p of run.problems) {
      expect(p.reason).toMatch(/^missing tenant_id: no tenant\.id attribute on the span, its ancestors or its resource; the resource's service\.namespace names a group of services, not a customer: it is the tenant only with --tenant-attribute service\.namespace; choose the attribute with --tenant-attribute KEY/)
    }
  })

  it('decodes an otel file of an earlier case (its spec names no tenant attribute) with the default it was read with', () => {
    expect(lineDecoder({format: 'otel'}).options.tenantAttributes).toEqual(['tenant.id', 'service.namespace'])
    expect(lineDecoder({format: 'otel', tenant_attributes: ['tenant.id']}).options.tenantAttributes).toEqual(['tenant.id'])
  })

  it('joins the JS instrumentation’s log records with their span across files, and a parent span gives tenant and session', () => {
    const run = runAdapter('otel', [f('otel-js-instrumentation-spans.jsonl'), f('otel-js-instrumentation-logs.jsonl')])
    expect(run.problems).toEqual([])
    expect(run.produced).toHaveLength(1)
    expect(run.produced[0]!.row).toMatchObject({
      request_id: 'chatcmpl-testbed-7',
      tenant_id: 'tn-initech',
      session_id: 'sess-initech-1',
      decode_node: '127.0.0.1:8000',
      request_text: 'You answer briefly.\nHello from CANARY-00c0ffee00c0ffee',
      response_text: 'Noted: Hello from. Reference: CANARY-00c0ffee00c0ffee.',
      prompt_tokens: 12,
    })
    expect(run.ignored).toBe(1 + 3) // the parent span; the three log records the span used
  })

  it('still makes a record from log records whose span was not given, and says what is unknown', () => {
    const run = runAdapter('otel', [f('otel-js-instrumentation-logs.jsonl')], {map: parseFieldMap(['tenant_id=const:tn-initech', 'session_id=const:s'])})
    expect(run.problems).toEqual([])
    expect(run.produced).toHaveLength(1)
    const p = run.produced[0]!
    expect(p.row).toMatchObject({request_id: '1a2b3c4d5e6f7081', ts: '2026-10-30T00:39:41.000Z', response_text: 'Noted: Hello from. Reference: CANARY-00c0ffee00c0ffee.', prompt_tokens: null})
    expect(p.notes.join(' ')).toMatch(/span was not among the files given/)
  })

  it('a span whose content is in a logs file not given is a record with no text, and a note saying why', () => {
    const run = runAdapter('otel', [f('otel-js-instrumentation-spans.jsonl')])
    expect(run.produced[0]!.row).toMatchObject({request_text: null, response_text: null})
    expect(run.produced[0]!.notes.join(' ')).toMatch(/OTLP logs file not given/)
  })

  it('names the missing tenant and the option that supplies it', () => {
    const run = runAdapter('otel', [f('otel-js-instrumentation-spans.jsonl')], {tenantAttributes: ['k8s.namespace.name']})
    expect(run.produced).toEqual([])
    expect(run.problems[0]!.reason).toMatch(/^missing tenant_id: no k8s.namespace.name attribute on the span, its ancestors or its resource/)
    expect(run.problems[0]!.item).toBe(0)
  })
})

describe('texts redacted at the source', () => {
  it('LiteLLM\'s redaction marker, logged to Langfuse as every text, is no text: never a prompt or an answer to search', () => {
    const dir = mkdtempSync(join(tmpdir(), 'crosstalk-redacted-'))
    const file = join(dir, 'langfuse.jsonl')
    const gen = (id: string, input: unknown, output: unknown) => JSON.stringify({id, traceId: 't', type: 'GENERATION', startTime: '2025-12-17T16:09:00.875Z', endTime: '2025-12-17T16:09:01.456Z', input, output, metadata: {tenant_id: 'tn-a'}, sessionId: 's'})
    writeFileSync(file, [
      gen('redacted', {messages: [{role: 'user', content: 'redacted-by-litellm'}]}, {role: 'assistant', content: 'redacted-by-litellm'}),
      gen('plain-marker', 'redacted-by-litellm', 'redacted-by-litellm'),
      gen('quoted', {messages: [{role: 'user', content: 'what does redacted-by-litellm mean?'}]}, {role: 'assistant', content: 'a marker'}),
    ].join('\n') + '\n')
    const got = byId(runAdapter('langfuse', [file]).produced)
    for (const id of ['redacted', 'plain-marker']) {
      expect(got.get(id)!.row, id).toMatchObject({request_text: null, response_text: null})
      expect(got.get(id)!.notes, id).toEqual(expect.arrayContaining(['request text redacted at the source (redacted-by-litellm): no text', 'response text redacted at the source (redacted-by-litellm): no text']))
    }
    // A text that only mentions the marker is a text.
    expect(got.get('quoted')!.row).toMatchObject({request_text: 'what does redacted-by-litellm mean?', response_text: 'a marker'})
    rmSync(dir, {recursive: true, force: true})
  })
})

describe('langfuse fixtures', () => {
  it('reads API v2 (I/O as JSON strings) and blob-export (snake_case, zone-less UTC) generations; spans are ignored', () => {
    const run = runAdapter('langfuse', [f('langfuse-observations.jsonl')])
    expect(run.problems).toEqual([])
    expect(run.ignored).toBe(1)
    const got = byId(run.produced)
    expect(got.get('support-chat-7-950dc53a-gen')!.row).toMatchObject({
      ts: '2025-12-17T16:09:01.456Z',
      tenant_id: 'tn-umbrella',
      session_id: 'support-chat-session',
      status: null,
      model: 'gpt-4o',
      prompt_tokens: 98,
      completion_tokens: 68,
      request_text: 'Perfect. CANARY-1234abcd5678ef90',
      response_text: "You're all set. Have a great day!",
    })
    expect(got.get('7f0e3a50-1c1e-4c7c-9b0e-0c5e2f1a9b11')!.row).toMatchObject({
      ts: '2024-05-29T13:46:19.963000Z',
      tenant_id: 'tn-hooli',
      session_id: 'sess-hooli-1',
      model: 'gpt-4o-mini',
      request_text: 'You are terse.\nPart one, \npart two.',
      response_text: '{"id":42}',
    })
    expect(got.get('obs-err-1')!.row).toMatchObject({is_error: 1, error_message: 'Error code: 400 - prompt too long', response_text: 'Error code: 400 - prompt too long', status: null})
  })

  it('reads the text of every other shape integrations log: LangChain tool calls, one choice, a JSON answer kept as text, a decorated function\'s arguments', () => {
    const run = runAdapter('langfuse', [f('langfuse-other-shapes.jsonl')], {}, parseAssumeTz('UTC'))
    expect(run.problems).toEqual([])
    const got = byId(run.produced)
    const marker = 'CANARY-fedcba9876543210fedc'
    // LangChain: the answer is a tool call {name, args}, the text in its arguments.
    expect(got.get('obs-lc-1')!.row!.response_text).toContain(`see ${marker} in the runbook`)
    // A string output that is JSON of no message shape is the answer itself.
    expect(got.get('obs-json-1')!.row!.response_text).toBe(`{"note": "ticket closed, see ${marker}"}`)
    // An input of no known request shape is still the prompt, so a marker the user sent is an echo, not a leak.
    expect(got.get('obs-json-in-1')!.row!.request_text).toContain(marker)
    expect(got.get('obs-deco-1')!.row!.request_text).toContain(`ref ${marker} - what is it?`)
    // One choice of a chat.completion ({index, message, finish_reason}).
    expect(got.get('obs-choice-1')!.row!.response_text).toBe(`Noted: ${marker}`)
    // OpenAI content parts as the output itself.
    expect(got.get('obs-parts-1')!.row!.response_text).toBe(`part one ${marker}`)
    // One message object as the whole input: its content is the prompt.
    expect(got.get('obs-one-msg-1')!.row!.request_text).toBe(`my ref ${marker}`)
  })

  it('without a tenant anywhere, refuses with the --map to use', () => {
    const run = runAdapter('langfuse', [f('langfuse-observations.jsonl')], {map: parseFieldMap(['tenant_id=metadata.customer'])})
    expect(run.produced).toEqual([])
    expect(run.problems[0]!.reason).toBe('missing tenant_id: --map tenant_id=metadata.customer: no key "customer" in metadata')
  })
})

describe('litellm fixtures', () => {
  it('reads spend logs: no status on success, failure as an error with unknown tokens, request from proxy_server_request or messages', () => {
    const run = runAdapter('litellm', [f('litellm-spend-logs.jsonl')], {}, parseAssumeTz('UTC'))
    expect(run.problems).toEqual([])
    const got = byId(run.produced)
    expect(got.get('chatcmpl-6f1c2c1e-0d5b-4f6a-9d8e-2b0c2f5d8a11')!.row).toMatchObject({
      ts: '2026-10-30T00:39:11.950567Z',
      tenant_id: 'team-acme',
      session_id: 'sess-acme-9',
      status: null,
      prefill_node: null,
      decode_node: null,
      prompt_tokens: 21,
      request_text: 'Capital of France?',
      response_text: 'Paris. CANARY-aa11bb22cc33dd44',
      is_error: 0,
    })
    const failure = got.get('d8f1b1c0-9e0a-4a8b-8f55-1f0c3c6f7e22')!
    expect(failure.row).toMatchObject({status: null, is_error: 1, prompt_tokens: null, completion_tokens: null, request_text: null, response_text: 'litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached'})
    expect(failure.row!.error_message).toMatch(/RateLimitError/)
    expect(got.get('chatcmpl-older-1')!.row).toMatchObject({tenant_id: 'team-globex', request_text: 'Say hi', response_text: 'hi'})
  })

  it('reads the proxy\'s logging payload (StandardLoggingPayload): id, trace_id as the session, epoch-second times, errors from error_information', () => {
    // No --assume-tz: a payload's times are epoch seconds, which have no zone to miss.
    const run = runAdapter('litellm', [f('litellm-logging-payload.jsonl')])
    expect(run.problems).toEqual([])
    const got = byId(run.produced)
    expect(got.get('chatcmpl-pl-1')!.row).toMatchObject({
      ts: '2026-10-29T23:59:51.950567Z',
      tenant_id: 'team-acme',
      session_id: 'sess-acme-7',
      status: null,
      decode_node: null,
      prompt_tokens: 21,
      completion_tokens: 9,
      request_text: 'You are terse.\nCapital of France?',
      response_text: 'Paris. CANARY-aa11bb22cc33dd44',
      is_error: 0,
    })
    const failure = got.get('pl-fail-2')!.row!
    expect(failure).toMatchObject({is_error: 1, prompt_tokens: null, completion_tokens: null, response_text: 'litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached'})
    expect(failure.error_message).toMatch(/RateLimitError/)
    // Message logging turned off: LiteLLM's marker in place of every text is no text, never a prompt or an answer to search.
    const redacted = got.get('pl-redacted-3')!
    expect(redacted.row).toMatchObject({request_text: null, response_text: null})
    expect(redacted.notes).toEqual(expect.arrayContaining(['no request text logged (message logging turned off, or redacted)', 'no response text logged (message logging turned off, or redacted)']))
  })

  it('keeps a payload\'s epoch-float time to the microsecond and its stream flag, and --map reads inside a metadata column written as JSON text', () => {
    const run = runAdapter('litellm', [f('litellm-precise-times-and-text-metadata.jsonl')])
    // The spend-log row names its tenant only inside metadata, written as JSON text (a Postgres export).
    expect(run.problems.map((p) => [p.line, p.reason])).toEqual([[2, expect.stringMatching(/^missing tenant_id: .*--map tenant_id=PATH \(e\.g\. metadata\.user_api_key_user_id\)/)]])
    const got = byId(run.produced)
    // 1793318482.307782 s, to the microsecond (rounded to the millisecond it had read .308).
    expect(got.get('chatcmpl-r1')!.row).toMatchObject({ts: '2026-10-30T00:01:22.307782Z', stream: 0})
    expect(got.get('chatcmpl-r3')!.row).toMatchObject({stream: 1})
    const mapped = runAdapter('litellm', [f('litellm-precise-times-and-text-metadata.jsonl')], {map: parseFieldMap(['tenant_id=metadata.user_api_key_user_id'])})
    expect(byId(mapped.produced).get('req-r2a')!.row).toMatchObject({tenant_id: 'tn-a'})
  })

  it('passes LiteLLM’s zone-less times on zone-less, so they are refused without --assume-tz', () => {
    const run = runAdapter('litellm', [f('litellm-spend-logs.jsonl')])
    expect(run.produced.every((p) => p.row === null && /has no zone; give --assume-tz/.test(p.bad!))).toBe(true)
    const berlin = runAdapter('litellm', [f('litellm-spend-logs.jsonl')], {}, parseAssumeTz('Europe/Berlin'))
    expect(berlin.produced[0]!.row!.ts).toBe('2026-10-29T23:39:11.950567Z')
  })
})

describe('openai-batch fixtures', () => {
  const pattern = '^(?<tenant>[^:]+):(?<session>[^:]+):'
  it('joins output with input by custom_id, splits custom_id, reads created as seconds', () => {
    const run = runAdapter('openai-batch', [f('openai-batch-input.jsonl'), f('openai-batch-output.jsonl')], {customIdPattern: pattern, fallbackTs: '2024-03-26T18:00:00Z'})
    // batch_req_ccc333 is an error line whose custom_id no input line holds: it waits for its input (QA accuracy #2).
    expect(run.problems.map((p) => p.reason)).toEqual([expect.stringMatching(/is in no input file given, so its request is unknown and its error line cannot be judged/)])
    expect(run.ignored).toBe(3) // the input lines
    const got = byId(run.produced)
    expect(got.get('req_c187b3')!.row).toMatchObject({
      ts: '2024-03-26T17:44:14.000Z',
      tenant_id: 'tn-acme',
      session_id: 'sess-2',
      status: 200,
      endpoint: '/v1/chat/completions',
      request_text: 'Hi again',
      response_text: '2 + 2 equals 4. CANARY-feedfacefeedface',
      prompt_tokens: 24,
    })
    expect(got.get('req_bbb222')!.row).toMatchObject({status: 400, is_error: 1, tenant_id: 'tn-initech', ts: '2024-03-26T18:00:00.000Z'})
    expect(got.has('batch_req_ccc333')).toBe(false)
  })

  it('an answer whose input is not given, or is in two batches\' input files, is quarantined, never judged without its own prompt', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ct-batch-'))
    try {
      const input = (file: string, id: string, prompt: string) =>
        writeFileSync(join(dir, file), JSON.stringify({custom_id: id, method: 'POST', url: '/v1/chat/completions', body: {model: 'm', messages: [{role: 'user', content: prompt}]}}) + '\n')
      const output = (file: string, id: string, answer: string, created: Record<string, number>) =>
        writeFileSync(join(dir, file), JSON.stringify({id: `batch_req_${file}`, custom_id: id, response: {status_code: 200, request_id: `req_${file}`, body: {id: 'x', ...created, model: 'm', choices: [{index: 0, message: {role: 'assistant', content: answer}, finish_reason: 'stop'}]}}, error: null}) + '\n')
      // Two batches reuse one custom_id: day 1's prompt holds the marker (an echo), day 2's does not (a leak).
      input('day1-in.jsonl', 'tn-a:s-a1:1', 'my note CANARY-00112233445566778899')
      output('day1-out.jsonl', 'tn-a:s-a1:1', 'you wrote CANARY-00112233445566778899', {created: 1793404940})
      input('day2-in.jsonl', 'tn-a:s-a1:1', 'hello')
      // A /v1/responses body dates itself with created_at.
      output('day2-out.jsonl', 'tn-a:s-a1:1', 'see CANARY-00112233445566778899', {created_at: 1793491340})
      const options = {customIdPattern: '^(?<tenant>[^:]+):(?<session>[^:]+):'}
      const all = runAdapter('openai-batch', ['day1-in.jsonl', 'day2-in.jsonl', 'day1-out.jsonl', 'day2-out.jsonl'].map((n) => join(dir, n)), options)
      expect(all.produced).toEqual([])
      expect(all.problems.map((p) => p.reason)).toEqual([
        'custom_id "tn-a:s-a1:1" is in more than one input file given (day1-in.jsonl, day2-in.jsonl), so which request it answered is not known: ingest each batch\'s output file with its own input file, one ingest per batch',
        'custom_id "tn-a:s-a1:1" is in more than one input file given (day1-in.jsonl, day2-in.jsonl), so which request it answered is not known: ingest each batch\'s output file with its own input file, one ingest per batch',
      ])
      const alone = runAdapter('openai-batch', [join(dir, 'day2-out.jsonl')], options)
      expect(alone.produced).toEqual([])
      expect(alone.problems[0]!.reason).toMatch(/^custom_id "tn-a:s-a1:1" is in no input file given, so its request is unknown and its answer cannot be judged .*: give the batch's input file with its output file/)
      // Failed requests resubmitted as a new batch: the same custom_id with the same request is no doubt.
      input('retry-in.jsonl', 'tn-a:s-a1:1', 'hello')
      const retried = runAdapter('openai-batch', ['day2-in.jsonl', 'retry-in.jsonl', 'day2-out.jsonl'].map((n) => join(dir, n)), options)
      expect(retried.problems).toEqual([])
      expect(retried.produced[0]!.row).toMatchObject({request_text: 'hello'})
      const day2 = runAdapter('openai-batch', [join(dir, 'day2-in.jsonl'), join(dir, 'day2-out.jsonl')], options)
      expect(day2.problems).toEqual([])
      expect(day2.produced[0]!.row).toMatchObject({ts: '2026-11-01T00:02:20.000Z', request_text: 'hello', response_text: 'see CANARY-00112233445566778899'})
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('a custom_id the pattern does not match is a bad line naming both', () => {
    const run = runAdapter('openai-batch', [f('openai-batch-input.jsonl'), f('openai-batch-output.jsonl')], {customIdPattern: '^(?<tenant>tn-acme):(?<session>[^:]+):', fallbackTs: '2024-03-26T18:00:00Z'})
    const reasons = run.problems.map((p) => p.reason)
    expect(reasons).toContain('missing tenant_id: custom_id "tn-initech:sess-3:req-3" does not match --custom-id-pattern /^(?<tenant>tn-acme):(?<session>[^:]+):/ (also missing: session_id)')
  })

  it('without a way to split custom_id, the options are refused before reading', () => {
    expect(() => checkFormatOptions('openai-batch', resolveFormatOptions({}))).toThrow(FormatOptionError)
    expect(() => checkFormatOptions('openai-batch', resolveFormatOptions({customIdPattern: '^(?<tenant>[^:]+):'}))).toThrow(/session .*only in custom_id/)
    expect(() => resolveFormatOptions({customIdPattern: '^([^:]+):'})).toThrow(/needs a named group/)
    expect(() => checkFormatOptions('openai-batch', resolveFormatOptions({customIdPattern: '^(?<tenant>[^:]+):', map: parseFieldMap(['session_id=custom_id'])}))).not.toThrow()
  })
})

describe('native through the adapter', () => {
  it('is the identity: the row equals parseLine on the original line', () => {
    const run = runAdapter('native', [f('native.jsonl')])
    expect(run.problems).toEqual([])
    expect(run.produced.map((p) => [p.row!.request_text, p.row!.response_text, p.row!.status])).toEqual([
      ['hi', 'hello', 200],
      ['plain prompt', 'plain answer', null],
    ])
  })
  it('applies --map and reports a mapping that found nothing', () => {
    const run = runAdapter('native', [f('unknown-shape.jsonl')], {
      map: parseFieldMap(['ts=timestamp', 'tenant_id=customer', 'session_id=conversation', 'request_id=id', 'request=prompt', 'response=completion']),
    })
    expect(run.produced).toEqual([])
    expect(run.problems[0]!.reason).toBe('missing request_id: --map request_id=id: no key "id" in the line')
  })
})

describe('message shapes', () => {
  it('reads a parts message whose text part says text instead of content', async () => {
    const {toChatMessage} = await import('../../../src/extract/formats/messages.js')
    expect(toChatMessage({role: 'user', parts: [{type: 'text', text: 'a'}, {type: 'text', content: 'b'}, {type: 'blob', content: 'AAAA'}]}, 'user')).toEqual({
      role: 'user',
      content: [
        {type: 'text', text: 'a'},
        {type: 'text', text: 'b'},
      ],
    })
  })
})
