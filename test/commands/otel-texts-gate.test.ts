import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// OTLP model texts the otel adapter left unsearched, so --fail-on-leak passed (exit 0) on the
// leak they held: an answer given as an AnyValue bytesValue (read as its base64 digits), and a
// span's gen_ai.choice log record beside the span's own completion attribute (dropped).

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})

function incident(answer: Buffer): {dir: string; native: string; traces: string} {
  const dir = tempDir()
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
  const native = join(dir, 'app.jsonl')
  writeFileSync(native, chatLine({request_id: 'req-1', tenant_id: 'tn-alpha', session_id: 'sess-a1', prompt: `hello ${A}`, answer: 'fine'}) + '\n')
  const span = {
    traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00000000000000a1', parentSpanId: '', kind: 3, name: 'chat m',
    startTimeUnixNano: '1793404940000000000', endTimeUnixNano: '1793404941000000000', status: {},
    attributes: [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('session.id', 'sess-b1'),
      kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', `hi ${B}`),
      kv('gen_ai.completion.0.role', 'assistant'), {key: 'gen_ai.completion.0.content', value: {bytesValue: answer.toString('base64')}},
    ],
  }
  // A second call of the same session, answered in plain text: the file has a record besides.
  const other = {...span, spanId: '00000000000000a2', attributes: span.attributes.map((a) => (a.key === 'gen_ai.completion.0.content' ? kv(a.key, 'all fine') : a))}
  const traces = join(dir, 'traces.jsonl')
  writeFileSync(traces, JSON.stringify({resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tn-beta')]}, scopeSpans: [{scope: {name: 'app'}, spans: [span, other]}]}]}) + '\n')
  return {dir, native, traces}
}

describe('--fail-on-leak over OTLP texts given as bytesValue', () => {
  it('finds the leak in bytes that are UTF-8 text (exit 3)', async () => {
    const {dir, native, traces} = incident(Buffer.from(`here you go: ${A}`))
    const r = await run(['triage', native, traces, '--canaries', join(dir, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/contamination found: 1 response \(1 cross-tenant/)
  }, 60_000)

  it('does not pass on bytes that are no UTF-8 text: the file is not read whole (exit 1)', async () => {
    const {dir, native, traces} = incident(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]))
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    const ingest = await runJson<{per_file: Array<{path: string; records: number; unread: string | null}>}>(['ingest', 'logs', native, traces, '--db', db, '--json'])
    expect(ingest.per_file.find((f) => f.path === traces)).toMatchObject({records: 2, unread: '1 model call gave a text as an OTLP bytesValue that is not UTF-8 text (binary data), not read'})
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code, scan.stderr).toBe(1)
    expect(scan.stderr).toMatch(/traces\.jsonl \(not read whole: 1 model call gave a text as an OTLP bytesValue/)
  }, 60_000)
})

describe('--fail-on-leak over a span with its own completion text and a gen_ai.choice log record', () => {
  it('searches the log record too: its whole answer holds the leak the span attribute was cut before (exit 3)', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
    const native = join(dir, 'app.jsonl')
    writeFileSync(native, chatLine({request_id: 'req-1', tenant_id: 'tn-alpha', session_id: 'sess-a1', prompt: `hello ${A}`, answer: 'fine'}) + '\n')
    const full = `Here are the steps, one at a time. ${'step '.repeat(30)}and ${A}`
    const traceId = '0af7651916cd43dd8448eb211c80319c'
    const span = {
      traceId, spanId: '00000000000000a1', parentSpanId: '', kind: 3, name: 'chat m',
      startTimeUnixNano: '1793404940000000000', endTimeUnixNano: '1793404941000000000', status: {},
      attributes: [
        kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('session.id', 'sess-b1'),
        kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', `hi ${B}`),
        // Cut at OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, before the marker.
        kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', full.slice(0, 60)),
      ],
    }
    const traces = join(dir, 'traces.jsonl')
    writeFileSync(traces, JSON.stringify({resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tn-beta')]}, scopeSpans: [{scope: {name: 'app'}, spans: [span]}]}]}) + '\n')
    const body = {kvlistValue: {values: [
      {key: 'index', value: {intValue: '0'}}, {key: 'finish_reason', value: {stringValue: 'stop'}},
      {key: 'message', value: {kvlistValue: {values: [{key: 'role', value: {stringValue: 'assistant'}}, {key: 'content', value: {stringValue: full}}]}}},
    ]}}
    const logs = join(dir, 'logs.jsonl')
    writeFileSync(logs, JSON.stringify({resourceLogs: [{resource: {attributes: []}, scopeLogs: [{scope: {name: 'opentelemetry.instrumentation.openai_v2'}, logRecords: [{
      timeUnixNano: '1793404941000000000', traceId, spanId: '00000000000000a1', eventName: 'gen_ai.choice', attributes: [kv('event.name', 'gen_ai.choice')], body,
    }]}]}]}) + '\n')
    const r = await run(['triage', native, traces, logs, '--canaries', join(dir, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stderr).toMatch(/contamination found: 1 response \(1 cross-tenant/)
  }, 60_000)
})
