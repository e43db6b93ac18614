import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A model call's file ingested first, its trace's wrapper (a Langfuse @observe SPAN, a traceloop
// workflow span) or its log records (a gen_ai.choice) later, with it: the call's file was already
// in the case and not read again, so the wrapper's or log record's texts (the text the customer
// received) were joined to a record never made again, judged nowhere, and the gate passed. Such a
// file is now refused (ingest exits 1 naming the stored file and how to read them together), and
// the refusal stays open in the case, so the gate cannot pass either.

const OWN = 'CANARY-aaaaaaaaaaaaaaaa1111'
const LEAK = 'CANARY-cccccccccccccccc3333'
const kv = (key: string, v: string) => ({key, value: {stringValue: v}})
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'

const otel = (scope: string, spans: unknown[]) => JSON.stringify({resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tA'), kv('session.id', 's1')]}, scopeSpans: [{scope: {name: scope}, spans}]}]})
const callSpan = otel('opentelemetry.instrumentation.openai', [{
  traceId: TRACE, spanId: '00f067aa0ba902b7', parentSpanId: 'aaaaaaaaaaaaaaaa', name: 'chat gpt-4o', kind: 3, startTimeUnixNano: '1793613600000000000', endTimeUnixNano: '1793613601000000000', status: {},
  attributes: [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.system', 'openai'), kv('gen_ai.response.id', 'chatcmpl-1'), kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', `hi ${OWN}`), kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', 'fine')],
}])
const workflowSpan = otel('traceloop', [{
  traceId: TRACE, spanId: 'aaaaaaaaaaaaaaaa', name: 'agent.workflow', kind: 1, startTimeUnixNano: '1793613599000000000', endTimeUnixNano: '1793613602000000000', status: {},
  attributes: [kv('traceloop.span.kind', 'workflow'), kv('traceloop.entity.name', 'agent'), kv('traceloop.entity.input', '{"args": ["hi"]}'), kv('traceloop.entity.output', `"final ${LEAK}"`)],
}])
const choiceLog = JSON.stringify({resourceLogs: [{resource: {attributes: [kv('tenant.id', 'tA'), kv('session.id', 's1')]}, scopeLogs: [{scope: {name: 'opentelemetry.instrumentation.openai_v2'}, logRecords: [{
  timeUnixNano: '1793613600900000000', traceId: TRACE, spanId: '00f067aa0ba902b7', eventName: 'gen_ai.choice', attributes: [kv('event.name', 'gen_ai.choice')],
  body: {kvlistValue: {values: [{key: 'index', value: {intValue: '0'}}, {key: 'message', value: {kvlistValue: {values: [{key: 'role', value: {stringValue: 'assistant'}}, {key: 'content', value: {stringValue: `ans ${LEAK}`}}]}}}]}},
}]}]}]})
const generation = JSON.stringify({id: 'g1', traceId: 'T1', type: 'GENERATION', name: 'chat', startTime: '2026-11-02T10:00:00.000Z', endTime: '2026-11-02T10:00:01.000Z', model: 'gpt-4o', input: [{role: 'user', content: `hi ${OWN}`}], output: {role: 'assistant', content: 'fine'}, sessionId: 's1', metadata: {tenant_id: 'tA'}, parentObservationId: 'sp1'})
const wrapper = JSON.stringify({id: 'sp1', traceId: 'T1', type: 'SPAN', name: 'agent', startTime: '2026-11-02T10:00:00.000Z', endTime: '2026-11-02T10:00:02.000Z', input: {args: ['hi']}, output: `final: ${LEAK}`, sessionId: 's1', metadata: {tenant_id: 'tA'}})

function caseWith(files: Record<string, string>): {dir: string; db: string} {
  const dir = tempDir()
  writeFileSync(join(dir, 'reg.csv'), `marker,tenant_id,session_id,issued_at\n${OWN},tA,s1,2026-11-01T00:00:00Z\n${LEAK},tB,s3,2026-11-01T00:00:00Z\n`)
  for (const [name, line] of Object.entries(files)) writeFileSync(join(dir, name), `${line}\n`)
  return {dir, db: join(dir, 'case.db')}
}

describe('a wrapper or companion file ingested after its calls\' file', () => {
  it.each([
    ['an OpenLLMetry workflow span', {'calls.jsonl': callSpan, 'later.jsonl': workflowSpan}],
    ['a gen_ai.choice log record of a stored span', {'calls.jsonl': callSpan, 'later.jsonl': choiceLog}],
    ['a Langfuse @observe SPAN', {'calls.jsonl': generation, 'later.jsonl': wrapper}],
  ])('%s: refused, naming the stored file, and the gate does not pass; read together into a fresh case, the leak is found', async (_what, files) => {
    const {dir, db} = caseWith(files)
    const at = (n: string) => join(dir, n)
    expect((await run(['triage', at('calls.jsonl'), '--canaries', at('reg.csv'), '--db', db])).code).toBe(0)
    const later = await run(['ingest', 'logs', at('calls.jsonl'), at('later.jsonl'), '--db', db])
    expect(later.code).toBe(1)
    expect(later.stderr).toMatch(/later\.jsonl: not ingested: its lines belong to model calls of .*calls\.jsonl, already in the case from an earlier ingest/)
    expect(later.stderr).toContain('fresh case')
    expect((await run(['scan', '--db', db, '--fail-on-leak'])).code).toBe(1)
    const fresh = await run(['triage', at('calls.jsonl'), at('later.jsonl'), '--canaries', at('reg.csv'), '--db', join(dir, 'fresh.db'), '--fail-on-leak'])
    expect(fresh.code).toBe(3)
  })

  it('takes a later file of other traces as before', async () => {
    const other = callSpan.replaceAll(TRACE, 'ffffffffffffffffffffffffffffffff').replace('chatcmpl-1', 'chatcmpl-2')
    const {dir, db} = caseWith({'calls.jsonl': callSpan, 'later.jsonl': other})
    expect((await run(['triage', join(dir, 'calls.jsonl'), '--canaries', join(dir, 'reg.csv'), '--db', db])).code).toBe(0)
    const later = await run(['ingest', 'logs', join(dir, 'calls.jsonl'), join(dir, 'later.jsonl'), '--db', db])
    expect(later.code, later.stderr).toBe(0)
    expect((await run(['scan', '--db', db, '--fail-on-leak'])).code).toBe(0)
  })
})
