import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A placeholder written in place of an answer (OpenInference's __REDACTED__, a Langfuse SDK's
// mask-failure text) was read as no text only in OpenInference's own attributes: inside GenAI
// attributes, span events and log records, and in Langfuse and LiteLLM texts, it was read as the
// answer, "read, no marker", and --fail-on-leak passed (exit 0) over answers nobody logged.

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'
const OI = '__REDACTED__'
const LF = '<fully masked due to failed mask function>'
const OI_NOTE = 'response text redacted at the source (OpenInference __REDACTED__): no text'
const LF_NOTE = `response text masked at the source (Langfuse ${LF}): no text`

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})
const TRACE = '0af7651916cd43dd8448eb211c80319c'

function span(spanId: string, attributes: Attr[], events: unknown[] = []): unknown {
  return {
    traceId: TRACE, spanId, parentSpanId: '', kind: 3, name: 'chat gpt-4o-mini',
    startTimeUnixNano: '1793404940000000000', endTimeUnixNano: '1793404941000000000', status: {}, events,
    attributes: [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'gpt-4o-mini'), kv('session.id', 'sess-b1'), ...attributes],
  }
}

/** One traces line: a call answered in clear (no marker), and the call under test. */
function tracesLine(hidden: unknown): string {
  const clear = span('00000000000000c1', [kv('gen_ai.prompt.0.content', `hi ${B}`), kv('gen_ai.completion.0.content', 'all fine')])
  return JSON.stringify({resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tn-beta')]}, scopeSpans: [{scope: {name: 'app'}, spans: [clear, hidden]}]}]})
}

interface PerFile {
  path: string
  status: string
  records: number
  no_response_text: number
  notes: string[]
}

/** Ingests the file into a case with the canaries, then runs the gate over it. */
async function ingestAndGate(name: string, lines: readonly string[], format: string): Promise<{file: PerFile; gate: {code: number; stderr: string}}> {
  const dir = tempDir()
  const db = join(dir, 'case.db')
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
  writeFileSync(join(dir, name), lines.join('\n') + '\n')
  expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
  const ingest = await runJson<{per_file: PerFile[]}>(['ingest', 'logs', join(dir, name), '--log-format', format, '--db', db])
  const gate = await run(['scan', '--db', db, '--fail-on-leak'])
  return {file: ingest.per_file[0]!, gate}
}

describe('--fail-on-leak over answers written as a placeholder outside OpenInference\'s attributes', () => {
  const otel: Array<[string, unknown]> = [
    ['gen_ai.completion.N.content', span('00000000000000d1', [kv('gen_ai.prompt.0.content', 'hello'), kv('gen_ai.completion.0.content', OI)])],
    ['gen_ai.output.messages parts', span('00000000000000d1', [
      kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: 'hello'}]}])),
      kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: OI}], finish_reason: 'stop'}])),
    ])],
    ['a gen_ai.content.completion span event', span('00000000000000d1', [], [
      {name: 'gen_ai.content.prompt', timeUnixNano: '1793404940000000000', attributes: [kv('gen_ai.prompt', 'hello')]},
      {name: 'gen_ai.content.completion', timeUnixNano: '1793404941000000000', attributes: [kv('gen_ai.completion', OI)]},
    ])],
  ]
  for (const [where, hidden] of otel) {
    it(`OTLP GenAI: ${where} is no response text, counted and noted as redacted, and the gate does not pass (exit 1)`, async () => {
      const {file, gate} = await ingestAndGate('traces.jsonl', [tracesLine(hidden)], 'otel')
      expect(file).toMatchObject({status: 'ingested', records: 2, no_response_text: 1})
      expect(file.notes).toContain(`1 record: ${OI_NOTE}`)
      expect(gate.code, gate.stderr).toBe(1)
      expect(gate.stderr).toMatch(/1 of its 2 answers were not logged \(OpenInference writes __REDACTED__ in their place/)
    }, 60_000)
  }

  it('OTLP GenAI log records: a gen_ai.choice whose message is the placeholder is no response text (exit 1)', async () => {
    const hidden = span('00000000000000d1', [])
    const log = (name: string, body: unknown) => ({
      timeUnixNano: '1793404941000000000', traceId: TRACE, spanId: '00000000000000d1', attributes: [kv('event.name', name)],
      body: {kvlistValue: {values: Object.entries(body as Record<string, unknown>).map(([k, v]) => ({key: k, value: typeof v === 'string' ? {stringValue: v} : v}))}},
    })
    const logs = JSON.stringify({resourceLogs: [{resource: {attributes: [kv('tenant.id', 'tn-beta')]}, scopeLogs: [{scope: {name: 'app'}, logRecords: [
      log('gen_ai.user.message', {content: 'hello'}),
      log('gen_ai.choice', {index: {intValue: '0'}, finish_reason: 'stop', message: {kvlistValue: {values: [{key: 'content', value: {stringValue: OI}}]}}}),
    ]}]}]})
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
    writeFileSync(join(dir, 'traces.jsonl'), tracesLine(hidden) + '\n')
    writeFileSync(join(dir, 'logs.jsonl'), logs + '\n')
    expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    const ingest = await runJson<{per_file: PerFile[]}>(['ingest', 'logs', join(dir, 'traces.jsonl'), join(dir, 'logs.jsonl'), '--log-format', 'otel', '--db', db])
    const traces = ingest.per_file.find((f) => f.path.endsWith('traces.jsonl'))!
    expect(traces).toMatchObject({records: 2, no_response_text: 1})
    expect(traces.notes).toContain(`1 record: ${OI_NOTE}`)
    const gate = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(gate.code, gate.stderr).toBe(1)
  }, 60_000)

  it('Langfuse: an output that is OpenInference\'s placeholder or the SDK\'s mask-failure text is no response text (exit 1)', async () => {
    const observation = (id: string, output: unknown) => JSON.stringify({
      id, traceId: `trace-${id}`, type: 'GENERATION', startTime: '2026-11-02T06:48:30.000Z', endTime: '2026-11-02T06:48:31.000Z',
      sessionId: 'sess-b1', metadata: {tenant_id: 'tn-beta'}, input: [{role: 'user', content: `hi ${B}`}], output,
    })
    const {file, gate} = await ingestAndGate('langfuse.jsonl', [
      observation('obs-1', {role: 'assistant', content: 'all fine'}),
      observation('obs-2', OI),
      observation('obs-3', {role: 'assistant', content: LF}),
      observation('obs-4', LF),
    ], 'langfuse')
    expect(file).toMatchObject({status: 'ingested', records: 4, no_response_text: 3})
    expect(file.notes).toEqual(expect.arrayContaining([`1 record: ${OI_NOTE}`, `2 records: ${LF_NOTE}`]))
    expect(gate.code, gate.stderr).toBe(1)
    expect(gate.stderr).toMatch(/3 of its 4 answers were not logged \(the Langfuse SDK writes <fully masked due to failed mask function> in their place/)
  }, 60_000)

  it('LiteLLM: a logging payload whose answer is OpenInference\'s placeholder is no response text (exit 1)', async () => {
    const payload = (id: string, content: string) => JSON.stringify({
      id, trace_id: 'sess-b1', call_type: 'acompletion', status: 'success', startTime: 1793318390.5, endTime: 1793318391.5, model: 'gpt-4o-mini',
      metadata: {user_api_key_team_id: 'tn-beta'}, messages: [{role: 'user', content: `hi ${B}`}],
      response: {id, object: 'chat.completion', choices: [{index: 0, finish_reason: 'stop', message: {role: 'assistant', content}}]},
    })
    const {file, gate} = await ingestAndGate('litellm.jsonl', [payload('c-1', 'all fine'), payload('c-2', OI)], 'litellm')
    expect(file).toMatchObject({status: 'ingested', records: 2, no_response_text: 1})
    expect(file.notes).toContain(`1 record: ${OI_NOTE}`)
    expect(gate.code, gate.stderr).toBe(1)
  }, 60_000)

  it('a text that only mentions a placeholder is read, its marker found (exit 3)', async () => {
    const leak = span('00000000000000d1', [kv('gen_ai.prompt.0.content', 'hello'), kv('gen_ai.completion.0.content', `${OI} here: ${A}`)])
    const {file, gate} = await ingestAndGate('traces.jsonl', [tracesLine(leak)], 'otel')
    expect(file).toMatchObject({records: 2, no_response_text: 0})
    expect(gate.code, gate.stderr).toBe(3)
  }, 60_000)
})
