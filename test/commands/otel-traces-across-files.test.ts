import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// OTLP traces as a gateway exports them: the HTTP server span that received the client's call
// carries the status and path; the GenAI span below it carries the content. Parents end after
// their children, so a rotated export holds a parent in the next file, and the log records of a
// request whose span is in another file are in this logs file anyway.

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string | number): Attr => ({key, value: typeof v === 'number' ? {intValue: String(v)} : {stringValue: v}})
const TRACE = '0af7651916cd43dd8448eb211c80319c'

function span(spanId: string, parentSpanId: string, kind: number, name: string, attributes: Attr[]): Record<string, unknown> {
  return {traceId: TRACE, spanId, parentSpanId, kind, name, startTimeUnixNano: '1793404940000000000', endTimeUnixNano: '1793404941000000000', attributes, status: {}}
}

const genai = (spanId: string, parent: string, extra: Attr[] = []) =>
  span(spanId, parent, 3, 'chat m', [
    kv('gen_ai.operation.name', 'chat'),
    kv('gen_ai.request.model', 'm'),
    kv('gen_ai.response.id', `req-${spanId}`),
    kv('gen_ai.usage.input_tokens', 700_000),
    kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: 'hello'}]}])),
    kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: 'see CANARY-00112233445566778899'}]}])),
    ...extra,
  ])

function traces(file: string, spans: Record<string, unknown>[], resource: Attr[] = [kv('service.name', 'gw'), kv('service.namespace', 'llm-platform')]): string {
  writeFileSync(file, JSON.stringify({resourceSpans: [{resource: {attributes: resource}, scopeSpans: [{scope: {name: 'gw'}, spans}]}]}) + '\n')
  return file
}

interface Sighting {
  request_id: string
  class: string
  recipient_tenant: string
}

describe('OTel traces whose request spans several spans and files', () => {
  it("reads the status and path from the gateway's server span above the GenAI span, never from an application's own handler span", async () => {
    const dir = tempDir()
    const server = (spanId: string, path: string, status: number) =>
      span(spanId, '', 2, `POST ${path}`, [kv('http.request.method', 'POST'), kv('url.path', path), kv('http.response.status_code', status), kv('tenant.id', 'tn-a'), kv('session.id', 's-a')])
    const file = traces(join(dir, 'traces.jsonl'), [
      genai('00000000000000a1', '00000000000000b1'),
      server('00000000000000b1', '/v1/chat/completions', 200),
      // An application's handler (POST /ask) answered 200 to its user: not the model API's status.
      genai('00000000000000a2', '00000000000000b2'),
      server('00000000000000b2', '/ask', 200),
    ])
    const db = join(dir, 'case.db')
    const out = await run(['ingest', 'logs', file, '--log-format', 'otel', '--db', db])
    expect(out.code, out.stderr).toBe(0)
    const shown = await runJson<{status: number | null; endpoint: string | null}>(['show', 'req-00000000000000a1', '--db', db])
    expect(shown).toMatchObject({status: 200, endpoint: '/v1/chat/completions'})
    const app = await runJson<{status: number | null; endpoint: string | null}>(['show', 'req-00000000000000a2', '--db', db])
    expect(app).toMatchObject({status: null, endpoint: null})
    await run(['scan', '--db', db, '--pool-tokens', '681280'])
    const scope = await runJson<{at_risk_responses: number | null; unknown_fields: Record<string, number>}>(['scope', '--db', db])
    // One at risk (700,000 >= 681,280 with status 200); the other's status is unknown, and counted as such.
    expect(scope.at_risk_responses).toBe(1)
    expect(scope.unknown_fields.status).toBe(1)
  })

  it('ingests a logs file some of whose records belong to a span in another export, quarantining those, and storing the rest', async () => {
    const dir = tempDir()
    const spans = traces(join(dir, 'traces.jsonl'), [genai('00000000000000c1', '', [kv('tenant.id', 'tn-a'), kv('session.id', 's-a')])])
    const rec = (spanId: string, name: string, body: Record<string, unknown>) => ({
      timeUnixNano: '1793404941000000000', traceId: TRACE, spanId, attributes: [kv('event.name', name)],
      body: {kvlistValue: {values: Object.entries(body).map(([key, value]) => ({key, value: {stringValue: value}}))}},
    })
    const logs = join(dir, 'logs.jsonl')
    writeFileSync(logs, JSON.stringify({resourceLogs: [{resource: {attributes: [kv('service.name', 'gw')]}, scopeLogs: [{scope: {name: 'gw'}, logRecords: [
      rec('00000000000000c1', 'gen_ai.user.message', {content: 'hello'}),
      // Its span is in yesterday's traces file, not given: no tenant, no session.
      rec('00000000000000d9', 'gen_ai.user.message', {content: 'other'}),
    ]}]}]}) + '\n')
    const db = join(dir, 'case.db')
    const out = await runJson<{files: number; records: number; bad_lines: number}>(['ingest', 'logs', spans, logs, '--log-format', 'otel', '--db', db])
    expect(out).toMatchObject({files: 2, records: 1, bad_lines: 1})
    // The quarantined item is never judged: a gate does not pass over it.
    const gate = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(gate.code).toBe(1)
  })

  it('a gate that cannot judge spans whose content is in a logs file not given names that file as the fix', async () => {
    const dir = tempDir()
    const bare = span('00000000000000a9', '', 3, 'chat m', [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.response.id', 'req-bare'), kv('tenant.id', 'tn-a'), kv('session.id', 's-a')])
    const file = traces(join(dir, 'traces.jsonl'), [genai('00000000000000a8', '', [kv('tenant.id', 'tn-a'), kv('session.id', 's-a')]), bare])
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'logs', file, '--log-format', 'otel', '--db', db])).code).toBe(0)
    const gate = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(gate.code).toBe(1)
    expect(gate.stderr).toMatch(/1 of its 2 answers decoded to no text \(give the OTLP logs file with the traces, or check --log-format \/ --map/)
  })

  it('a tenant attribute found nowhere is refused with the option that names it, not a change of format', async () => {
    const dir = tempDir()
    const file = traces(join(dir, 'traces.jsonl'), [genai('00000000000000a7', '', [kv('tenant.id', 'tn-a'), kv('session.id', 's-a')])])
    const r = await run(['ingest', 'logs', file, '--log-format', 'otel', '--tenant-attribute', 'customer.id', '--db', join(dir, 'case.db')])
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(/missing tenant_id: no customer\.id attribute .*; to fix: say where tenant_id is: --tenant-attribute KEY, or --map tenant_id=PATH \(or --log-format, if the file is not otel\)$/)
  })

  it('says so when the tenant comes from the resource because an ancestor span is in a file not given', async () => {
    const dir = tempDir()
    const canaries = join(dir, 'canaries.csv')
    writeFileSync(canaries, 'marker,tenant_id,session_id,issued_at\nCANARY-00112233445566778899,tn-b,s-b,2026-10-01T00:00:00Z\n')
    const day1 = traces(join(dir, 'day1.jsonl'), [genai('00000000000000e1', '00000000000000f1')])
    const server = span('00000000000000f1', '', 2, 'POST /v1/chat/completions', [kv('url.path', '/v1/chat/completions'), kv('http.response.status_code', 200), kv('tenant.id', 'tn-a'), kv('session.id', 's-a')])
    const day2 = traces(join(dir, 'day2.jsonl'), [server])
    const alone = await run(['ingest', 'logs', day1, '--log-format', 'otel', '--db', join(dir, 'alone.db')])
    expect(alone.code).toBe(1) // no session anywhere: refused, as before
    const withNs = traces(join(dir, 'day1-ns.jsonl'), [genai('00000000000000e1', '00000000000000f1')], [kv('service.name', 'gw'), kv('tenant.id', 'tn-x'), kv('session.id', 's-x')])
    const warned = await run(['ingest', 'logs', withNs, '--log-format', 'otel', '--db', join(dir, 'ns.db')])
    expect(warned.code, warned.stderr).toBe(0)
    expect(warned.stderr).toMatch(/1 record: tenant_id read from the resource's tenant\.id: an ancestor span was not among the files given/)
    expect(warned.stderr).toMatch(/1 record: session_id read from the resource's session\.id/)
    // Given with the file that holds its parent, the request is the parent's tenant and session, and nothing is said.
    const db = join(dir, 'both.db')
    const both = await run(['triage', withNs, day2, '--log-format', 'otel', '--canaries', canaries, '--db', db])
    expect(both.code, both.stderr).toBe(0)
    expect(both.stderr).not.toMatch(/read from the resource/)
    const sightings = await runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((s) => [s.request_id, s.class, s.recipient_tenant])).toEqual([['req-00000000000000e1', 'cross_tenant', 'tn-a']])
  })
})
