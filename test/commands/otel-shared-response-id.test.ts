import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions} from '../../src/extract/formats/index.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// An OTLP call's request id is its gen_ai.response.id, which is not unique per request: a
// response cache (the classic cause of a cross-tenant leak) serves tenant alpha's completion,
// with its id, to tenant beta. Two spans of different traces, tenants and sessions then shared
// one request id, and beta's was kept as "a retry logged under the same id": its leak was in no
// figure (scope 0 cross-tenant, 0 recipient tenants), only in a NOT COUNTED line that called it
// a retry. Calls giving one id are retries only for one tenant and session.

const A = 'CANARY-aaaa1111bbbb2222cccc'
const kv = (key: string, v: string) => ({key, value: {stringValue: v}})

interface Call {
  trace: string
  span: string
  tenant: string
  session: string
  prompt: string
  answer: string
  /** end, ms since the epoch */
  at: number
}

function span(c: Call) {
  return {
    traceId: c.trace.repeat(32), spanId: c.span.repeat(16), parentSpanId: '', name: 'chat gpt-4o', kind: 3,
    startTimeUnixNano: `${c.at - 1000}000000`, endTimeUnixNano: `${c.at}000000`, status: {},
    attributes: [
      kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'gpt-4o'), kv('gen_ai.response.id', 'chatcmpl-CACHED1'),
      kv('tenant.id', c.tenant), kv('session.id', c.session),
      kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: c.prompt}]}])),
      kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: c.answer}]}])),
    ],
  }
}
const exportLine = (...calls: Call[]): string => JSON.stringify({resourceSpans: [{resource: {attributes: [kv('service.name', 'app')]}, scopeSpans: [{scope: {name: 'app'}, spans: calls.map(span)}]}]})

const alpha: Call = {trace: 'a', span: '1', tenant: 'tn-alpha', session: 'sess-a1', prompt: `my ref ${A}`, answer: `Your ref is ${A}`, at: 1793520001000}
const beta: Call = {trace: 'b', span: '2', tenant: 'tn-beta', session: 'sess-b1', prompt: 'what is my ref?', answer: `Your ref is ${A}`, at: 1793520901000}

type Scope = {cross_tenant_responses: number; recipient_tenants: number; duplicate_leaks_not_counted: unknown[]}
type Sighting = {request_id: string; class: string; recipient_tenant: string}

async function triage(lines: string[]): Promise<{code: number; stderr: string; stdout: string; db: string}> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'traces.jsonl'), lines.map((l) => `${l}\n`).join(''))
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n`)
  const db = join(dir, 'case.db')
  const r = await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db, '--fail-on-leak', '--log-format', 'otel'])
  return {...r, db}
}

describe('OTLP calls of different traces, tenants or sessions under one gen_ai.response.id', () => {
  for (const [name, lines] of [
    ['each on its own export line', [exportLine(alpha), exportLine(beta)]],
    ['both in one export line', [exportLine(alpha, beta)]],
  ] as const) {
    it(`are two records, and the cached answer served to the other tenant is counted: ${name}`, async () => {
      const r = await triage([...lines])
      expect(r.code, r.stderr).toBe(3)
      expect(r.stdout).not.toContain('NOT COUNTED')
      const scope = await runJson<Scope>(['scope', '--db', r.db])
      expect(scope.cross_tenant_responses).toBe(1)
      expect(scope.recipient_tenants).toBe(1)
      expect(scope.duplicate_leaks_not_counted).toEqual([])
      const sightings = await runJson<Sighting[]>(['sightings', '--db', r.db, '--class', 'cross_tenant'])
      expect(sightings.map((s) => s.recipient_tenant)).toEqual(['tn-beta'])
      // The id the provider gave, with the recipient that tells the two apart.
      expect(sightings[0]!.request_id).toBe('chatcmpl-CACHED1 (tenant tn-beta, session sess-b1)')
      const status = await runJson<{records: number; duplicates: number}>(['status', '--db', r.db])
      expect([status.records, status.duplicates]).toEqual([2, 0])
    }, 120_000)
  }

  it('keeps a retry for one tenant and session (in a new trace) a duplicate of its first attempt, beside a call for another tenant', async () => {
    const first: Call = {...beta, trace: 'c', span: '3', answer: 'one moment', at: beta.at - 500}
    const r = await triage([exportLine(alpha), exportLine(first), exportLine(beta)])
    // The retry's leak is not passed (exit 3 where it is judged, 1 where it cannot be read again).
    expect(r.code, r.stderr).not.toBe(0)
    const status = await runJson<{records: number; duplicates: number}>(['status', '--db', r.db])
    expect([status.records, status.duplicates]).toEqual([2, 1])
  }, 120_000)
})

describe('otel adapter: the request id of calls sharing a gen_ai.response.id', () => {
  function ids(calls: Call[][]): string[] {
    const adapter = adapterFor('otel')
    const options = resolveFormatOptions()
    const index = adapter.newIndex(options)!
    const lines = calls.map((c) => JSON.parse(exportLine(...c)) as unknown)
    lines.forEach((l, i) => index.add(l, {file: 'f', line: i + 1}))
    return lines.flatMap((l, i) => adapter.adapt(l, {options, index, at: {file: 'f', line: i + 1}}).records.map((r) => r.record.request_id as string))
  }

  it('is the response id alone where no call for another tenant or session gives it (a retry, in its trace or a new one)', () => {
    expect(ids([[alpha], [{...alpha, span: '2'}], [{...alpha, trace: 'c', span: '3'}]])).toEqual(['chatcmpl-CACHED1', 'chatcmpl-CACHED1', 'chatcmpl-CACHED1'])
  })

  it('names the tenant and session where a call of the same trace names another', () => {
    const other: Call = {...alpha, span: '2', tenant: 'tn-beta', session: 'sess-b1'}
    expect(ids([[alpha], [other]])).toEqual(['chatcmpl-CACHED1 (tenant tn-alpha, session sess-a1)', 'chatcmpl-CACHED1 (tenant tn-beta, session sess-b1)'])
  })

  it('names them across traces, and a retry for the same tenant and session gets the same id', () => {
    const retry: Call = {...beta, trace: 'c', span: '3'}
    const got = ids([[alpha], [beta], [retry]])
    expect(got).toEqual(['chatcmpl-CACHED1 (tenant tn-alpha, session sess-a1)', 'chatcmpl-CACHED1 (tenant tn-beta, session sess-b1)', 'chatcmpl-CACHED1 (tenant tn-beta, session sess-b1)'])
  })

  it('names the session where only the session differs', () => {
    const other: Call = {...alpha, trace: 'c', span: '2', session: 'sess-a2'}
    expect(ids([[alpha], [other]])).toEqual(['chatcmpl-CACHED1 (tenant tn-alpha, session sess-a1)', 'chatcmpl-CACHED1 (tenant tn-alpha, session sess-a2)'])
  })

  it('reads a record with one other call\'s line however many share the id, and the same from those lines alone', () => {
    const adapter = adapterFor('otel')
    const options = resolveFormatOptions()
    const calls = ['1', '2', '3', '4', '5'].map((n) => ({...alpha, trace: n, span: n, tenant: `tn-${n}`, session: `s-${n}`}))
    const lines = calls.map((c) => JSON.parse(exportLine(c)) as unknown)
    const index = adapter.newIndex(options)!
    lines.forEach((l, i) => index.add(l, {file: 'f', line: i + 1}))
    for (let i = 0; i < lines.length; i++) {
      const rec = adapter.adapt(lines[i], {options, index, at: {file: 'f', line: i + 1}}).records[0]!
      expect(rec.record.request_id).toBe(`chatcmpl-CACHED1 (tenant tn-${i + 1}, session s-${i + 1})`)
      expect(rec.companions).toHaveLength(1)
      const alone = adapter.newIndex(options)!
      alone.add(lines[i], {file: 'f', line: i + 1})
      const c = rec.companions![0]!
      alone.add(lines[c.line - 1], {file: 'f', line: c.line})
      expect(adapter.adapt(lines[i], {options, index: alone, at: {file: 'f', line: i + 1}}).records[0]!.record.request_id).toBe(rec.record.request_id)
    }
  })

  it('reads the record the same from its own lines alone (the other call\'s line is one it is read from)', () => {
    const adapter = adapterFor('otel')
    const options = resolveFormatOptions()
    const lines = [alpha, beta].map((c) => JSON.parse(exportLine(c)) as unknown)
    const index = adapter.newIndex(options)!
    lines.forEach((l, i) => index.add(l, {file: 'f', line: i + 1}))
    const rec = adapter.adapt(lines[1], {options, index, at: {file: 'f', line: 2}}).records[0]!
    expect(rec.companions).toEqual([expect.objectContaining({file: 'f', line: 1})])
    const alone = adapter.newIndex(options)!
    alone.add(lines[1], {file: 'f', line: 2})
    alone.add(lines[0], {file: 'f', line: 1})
    expect(adapter.adapt(lines[1], {options, index: alone, at: {file: 'f', line: 2}}).records[0]!.record.request_id).toBe(rec.record.request_id)
  })
})
