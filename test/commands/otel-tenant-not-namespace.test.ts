import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// An OTLP export whose resource carries service.namespace=prod (a deployment namespace) and whose
// spans carry the customer as app.tenant_id: the otel format fell back to service.namespace, so
// every record was tenant "prod", a leak between two customers was reported as cross-session,
// and the notices went to a customer called "prod", with no note anywhere.

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string | number): Attr => ({key, value: typeof v === 'number' ? {intValue: String(v)} : {stringValue: v}})
const MARKER_B = 'CANARY-00112233445566778899aabb'

function chat(n: number, tenantKey: string, tenant: string, session: string, answer: string): Record<string, unknown> {
  const id = `${n}`.padStart(16, '0')
  return {
    traceId: `${id}${id}`, spanId: id, kind: 3, name: 'chat m', startTimeUnixNano: `179340494${n}000000000`, endTimeUnixNano: `179340494${n}500000000`, status: {},
    attributes: [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.response.id', `req-${n}`),
      kv(tenantKey, tenant), kv('session.id', session), kv('http.response.status_code', 200),
      kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: `question ${n}`}]}])),
      kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: answer}]}])),
    ],
  }
}

function exportFile(file: string, spans: Record<string, unknown>[]): string {
  const resource = {attributes: [kv('service.name', 'gw'), kv('service.namespace', 'prod')]}
  writeFileSync(file, JSON.stringify({resourceSpans: [{resource, scopeSpans: [{scope: {name: 'gw'}, spans}]}]}) + '\n')
  return file
}

function registry(dir: string): string {
  const file = join(dir, 'canaries.csv')
  writeFileSync(file, `marker,tenant_id,session_id,issued_at\nCANARY-00112233445566778899aaaa,tn-acme,s-a,2026-10-01T00:00:00Z\n${MARKER_B},tn-nordbank,s-b,2026-10-01T00:00:00Z\n`)
  return file
}

interface Sighting {
  request_id: string
  class: string
  recipient_tenant: string
  source_tenant: string
}

describe('otel: a resource service.namespace is not the tenant', () => {
  it('refuses spans without a tenant attribute, naming the one they carry, and reads them right when told', async () => {
    const dir = tempDir()
    const file = exportFile(join(dir, 'traces.jsonl'), [
      chat(1, 'app.tenant_id', 'tn-nordbank', 's-b', `saved ${MARKER_B}`),
      chat(2, 'app.tenant_id', 'tn-acme', 's-a', `your code is ${MARKER_B}`),
    ])
    const t = await run(['triage', file, '--canaries', registry(dir), '--db', join(dir, 'default.db'), '--fail-on-leak'])
    // Not a gate pass, not a leak reported between "prod" and "prod": the file is not read.
    expect(t.code, t.stderr).toBe(1)
    expect(t.stderr).toMatch(/traces\.jsonl: not ingested: none of its 2 lines or items could be read as otel; line 1: missing tenant_id: no tenant\.id attribute on the span, its ancestors or its resource; it carries app\.tenant_id: --tenant-attribute app\.tenant_id if that names the customer; the resource's service\.namespace names a group of services, not a customer: it is the tenant only with --tenant-attribute service\.namespace/)
    const sightings = await runJson<Sighting[]>(['sightings', '--allow-incomplete', '--db', join(dir, 'default.db')])
    expect(sightings.some((s) => s.recipient_tenant === 'prod')).toBe(false)

    const db = join(dir, 'told.db')
    const told = await run(['triage', file, '--canaries', registry(dir), '--db', db, '--tenant-attribute', 'app.tenant_id', '--fail-on-leak'])
    expect(told.stderr).toMatch(/Gate: contamination found: 1 response \(1 cross-tenant, 0 cross-session\)/)
    expect(told.code, told.stderr).toBe(3)
    const found = await runJson<Sighting[]>(['sightings', '--class', 'cross_tenant,cross_session', '--db', db])
    expect(found.map((s) => [s.request_id, s.class, s.recipient_tenant, s.source_tenant])).toEqual([['req-2', 'cross_tenant', 'tn-acme', 'tn-nordbank']])
  })

  it('quarantines the spans without a tenant in a file that has others, counting them, and the gate does not pass', async () => {
    const dir = tempDir()
    const file = exportFile(join(dir, 'traces.jsonl'), [
      chat(1, 'tenant.id', 'tn-nordbank', 's-b', 'hello'),
      chat(2, 'app.tenant_id', 'tn-acme', 's-a', `your code is ${MARKER_B}`),
    ])
    const db = join(dir, 'case.db')
    const t = await run(['triage', file, '--canaries', registry(dir), '--db', db, '--fail-on-leak'])
    expect(t.code, t.stderr).toBe(1)
    expect(t.stderr).toMatch(/--fail-on-leak cannot pass: .*1 quarantined line never judged/)
    // The file's notes count them and name the flag.
    expect(t.stderr).toMatch(/warning: .*traces\.jsonl: 1 item quarantined with no tenant_id found: say where it is with --tenant-attribute KEY \(OTLP\)/)
    const status = await run(['status', '--bad-lines', '--db', db])
    expect(status.stdout).toMatch(/missing tenant_id: no tenant\.id attribute .*it carries app\.tenant_id: --tenant-attribute app\.tenant_id/)
    // The file keeps the attributes it was read with (its parse spec): verify decodes it as ingest did.
    const verified = await run(['verify', '--db', db])
    expect(verified.code, verified.stdout + verified.stderr).toBe(0)
  })
})
