import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// An OTLP export line can hold a call and its retry under the same id (gen_ai.response.id, or
// an OpenInference span id): the first item is the record, the second a duplicate of the same
// line. The gate examined only duplicate lines whose bytes differ from their record's line, and
// a line is identical to itself: a leak in the retry passed --fail-on-leak (exit 0). A native
// line holds one request, so its retry is always another line (duplicate-gate.test.ts).

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'
const kv = (key: string, v: string | number) => ({key, value: typeof v === 'number' ? {intValue: String(v)} : {stringValue: v}})

interface Attempt {
  answer: string
  status?: number
}

function genAiSpan(spanId: string, at: number, a: Attempt) {
  return {
    traceId: '7'.padStart(32, '0'), spanId, name: 'chat m', kind: 3,
    startTimeUnixNano: `${at}000000`, endTimeUnixNano: `${at + 900}000000`,
    status: a.status && a.status >= 500 ? {code: 2, message: 'upstream error'} : {},
    attributes: [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.response.id', 'req-2'),
      kv('tenant.id', 'tn-beta'), kv('session.id', 'sess-b1'), kv('http.response.status_code', a.status ?? 200),
      kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: `hi ${B}`}]}])),
      ...(a.answer ? [kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: a.answer}]}]))] : []),
    ],
  }
}

function openInferenceSpan(_spanId: string, at: number, a: Attempt) {
  return {
    // OpenInference has no response id: the span id is the request id, the same for both attempts here.
    traceId: '7'.padStart(32, '0'), spanId: '09fe69716e6acbc5', name: 'ChatCompletion', kind: 'SPAN_KIND_INTERNAL',
    startTimeUnixNano: `${at}000000`, endTimeUnixNano: `${at + 900}000000`, status: {},
    attributes: [
      kv('openinference.span.kind', 'LLM'), kv('llm.model_name', 'm'), kv('tenant.id', 'tn-beta'), kv('session.id', 'sess-b1'),
      kv('llm.input_messages.0.message.role', 'user'), kv('llm.input_messages.0.message.content', `hi ${B}`),
      kv('llm.output_messages.0.message.role', 'assistant'), kv('llm.output_messages.0.message.content', a.answer),
    ],
  }
}

type SpanOf = typeof genAiSpan | typeof openInferenceSpan

/** One export line: another tenant's own call, then both attempts of req-2. */
function exportLine(span: SpanOf, first: Attempt, second: Attempt): string {
  const other = {...genAiSpan('0000000000000001', 1793404900000, {answer: 'fine'}), attributes: [
    kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.response.id', 'req-1'),
    kv('tenant.id', 'tn-alpha'), kv('session.id', 'sess-a1'),
    kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: `hello ${A}`}]}])),
    kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: 'fine'}]}])),
  ]}
  return JSON.stringify({resourceSpans: [{
    resource: {attributes: [kv('service.name', 'gw')]},
    scopeSpans: [{scope: {name: 'gw'}, spans: [other, span('0000000000000002', 1793404940000, first), span('0000000000000003', 1793404943000, second)]}],
  }]})
}

async function gate(lines: string): Promise<{code: number; stderr: string}> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
  writeFileSync(join(logs, 'traces.jsonl'), lines)
  return run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak', '--log-format', 'otel'])
}

const LEAK = `here you go: ${A}`
const TRIPPED = /Gate: contamination found in 1 line repeating an earlier request_id with a different answer, which the case counts as duplicates of the first: .*traces\.jsonl:1 \(request_id "(req-2|09fe69716e6acbc5)"\)/

describe('--fail-on-leak over a retry in the same OTLP export line as the call it repeats', () => {
  const cases: Array<[string, SpanOf, Attempt]> = [
    ['GenAI spans: a benign answer, then the retry that leaks', genAiSpan, {answer: 'nothing to see'}],
    ['GenAI spans: an error (503, no answer), then the retry that leaks', genAiSpan, {answer: '', status: 503}],
    ['OpenInference LLM spans under one span id: a benign answer, then the retry that leaks', openInferenceSpan, {answer: 'nothing to see'}],
  ]
  for (const [name, span, first] of cases) {
    it(`trips (exit 3) naming the line: ${name}`, async () => {
      const r = await gate(`${exportLine(span, first, {answer: LEAK})}\n`)
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toMatch(TRIPPED)
    }, 60_000)
  }

  it('passes (exit 0) where the retry in the same line carries only its own session\'s marker', async () => {
    const r = await gate(`${exportLine(genAiSpan, {answer: 'nothing to see'}, {answer: `yours: ${B}`})}\n`)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).not.toMatch(/Gate: contamination/)
  }, 60_000)

  it('counts one finding where the line is logged twice (the record\'s leak in the second copy is already a sighting)', async () => {
    const line = exportLine(genAiSpan, {answer: 'nothing to see'}, {answer: LEAK})
    const r = await gate(`${line}\n${line}\n`)
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(TRIPPED)
  }, 60_000)
})
