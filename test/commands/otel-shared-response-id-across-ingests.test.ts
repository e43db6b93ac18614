import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A response cache serves tenant alpha's completion, with its gen_ai.response.id, to tenant beta.
// Read in one `ingest logs`, the two calls were two records (`ID (tenant T, session S)`). Read in
// two (the traces exported on two days, a second batch of files), beta's call was taken as a
// retry of alpha's record: a duplicate, its cross-tenant leak in no figure. Calls under one id
// are one request only for one tenant and session, whichever ingest brings them.

const A = 'CANARY-aaaa1111bbbb2222cccc'
const kv = (key: string, v: string) => ({key, value: {stringValue: v}})

interface Call {
  trace: string
  span: string
  tenant: string
  session: string
  prompt: string
  answer: string
  at: number
}

function exportLine(c: Call): string {
  const span = {
    traceId: c.trace.repeat(32), spanId: c.span.repeat(16), parentSpanId: '', name: 'chat gpt-4o', kind: 3,
    startTimeUnixNano: `${c.at - 1000}000000`, endTimeUnixNano: `${c.at}000000`, status: {},
    attributes: [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'gpt-4o'), kv('gen_ai.response.id', 'chatcmpl-CACHED1'),
      kv('tenant.id', c.tenant), kv('session.id', c.session),
      kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: c.prompt}]}])),
      kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: c.answer}]}])),
    ],
  }
  return JSON.stringify({resourceSpans: [{resource: {attributes: [kv('service.name', 'app')]}, scopeSpans: [{scope: {name: 'app'}, spans: [span]}]}]})
}

const alpha: Call = {trace: 'a', span: '1', tenant: 'tn-alpha', session: 'sess-a1', prompt: `my ref ${A}`, answer: `Your ref is ${A}`, at: 1793520001000}
const beta: Call = {trace: 'b', span: '2', tenant: 'tn-beta', session: 'sess-b1', prompt: 'what is my ref?', answer: `Your ref is ${A}`, at: 1793520901000}

/** Each batch of calls in its own file and its own `ingest logs`, then a scan with the gate. */
async function ingestEach(batches: Call[][]): Promise<{db: string; scan: {code: number; stdout: string; stderr: string}}> {
  const dir = tempDir()
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n`)
  const db = join(dir, 'case.db')
  expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
  for (const [i, calls] of batches.entries()) {
    const logs = join(dir, `day${i}`)
    mkdirSync(logs)
    writeFileSync(join(logs, 'traces.jsonl'), calls.map((c) => `${exportLine(c)}\n`).join(''))
    const r = await run(['ingest', 'logs', logs, '--db', db, '--log-format', 'otel'])
    expect(r.code, r.stderr).toBe(0)
  }
  const scan = await run(['scan', '--db', db, '--fail-on-leak'])
  return {db, scan}
}

type Sighting = {request_id: string; class: string; recipient_tenant: string}

describe('OTLP calls of different tenants under one gen_ai.response.id, brought by different ingests', () => {
  it('are two records, and the answer served to the other tenant is counted (and verify reads both again)', async () => {
    const {db, scan} = await ingestEach([[alpha], [beta]])
    expect(scan.code, scan.stderr).toBe(3)
    expect(scan.stdout).not.toContain('NOT COUNTED')
    const scope = await runJson<{cross_tenant_responses: number; recipient_tenants: number; duplicate_leaks_not_counted: unknown[]}>(['scope', '--db', db])
    expect([scope.cross_tenant_responses, scope.recipient_tenants, scope.duplicate_leaks_not_counted]).toEqual([1, 1, []])
    const sightings = await runJson<Sighting[]>(['sightings', '--db', db, '--class', 'cross_tenant'])
    expect(sightings.map((s) => [s.request_id, s.recipient_tenant])).toEqual([['chatcmpl-CACHED1 (tenant tn-beta, session sess-b1)', 'tn-beta']])
    const status = await runJson<{records: number; duplicates: number}>(['status', '--db', db])
    expect([status.records, status.duplicates]).toEqual([2, 0])
    const verify = await run(['verify', '--db', db])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
  }, 120_000)

  it('keeps a retry for the same tenant and session a duplicate, whichever ingest brings it', async () => {
    // alpha, then beta (another tenant: its own record), then a retry of alpha's call in a new
    // trace and one of beta's: each is its first attempt's duplicate.
    const {db, scan} = await ingestEach([[alpha], [beta], [{...alpha, trace: 'c', span: '3'}], [{...beta, trace: 'd', span: '4'}]])
    expect(scan.code, scan.stderr).toBe(3)
    const status = await runJson<{records: number; duplicates: number}>(['status', '--db', db])
    expect([status.records, status.duplicates]).toEqual([2, 2])
    const verify = await run(['verify', '--db', db])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
  }, 120_000)
})
