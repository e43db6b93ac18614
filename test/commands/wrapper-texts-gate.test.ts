import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A wrapper of a model call read (a Langfuse SPAN from the @observe decorator, an OpenInference
// CHAIN) was taken to hold that call's texts and never read. When the application changed the
// answer on the way (post-processing, an agent step, a RAG answer composed after the call), the
// text the customer received carried another tenant's marker and --fail-on-leak passed (exit 0).
// The wrapper's answer is now read with the call, so the leak is found and classified.

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'
const QUESTION = `Where is my parcel? ${B}`

function canaries(dir: string): string {
  const path = join(dir, 'canaries.csv')
  writeFileSync(path, `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
  return path
}

/** tn-beta's call answered benignly; the SPAN wrapping it returned another text, with tn-alpha's marker. */
function langfuseLines(spanOutput: string): string {
  const common = {traceId: 'tr-1', sessionId: 'sess-b1', metadata: {tenant_id: 'tn-beta'}, startTime: '2026-11-01T15:24:02.563+02:00', endTime: '2026-11-01T15:24:03.263+02:00'}
  return [
    {...common, id: 'obs-gen-1', type: 'GENERATION', name: 'chat', model: 'm', input: [{role: 'user', content: QUESTION}], output: {role: 'assistant', content: 'All done.'}, usageDetails: {input: 9, output: 2}},
    {...common, id: 'obs-span-1', type: 'SPAN', parentObservationId: null, name: 'answer', input: {args: [QUESTION], kwargs: {}}, output: spanOutput},
  ].map((o) => JSON.stringify(o)).join('\n') + '\n'
}

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string | number): Attr => ({key, value: typeof v === 'number' ? {intValue: String(v)} : {stringValue: v}})

/** The same, as OTLP: a GenAI chat span under an OpenInference CHAIN (LangChain's RunnableSequence). */
function otlpLine(chainOutput: string): string {
  const span = (spanId: string, name: string, attributes: Attr[], parentSpanId = '') => ({
    traceId: '7690723d864da13b936d1bcd6697db0c', spanId, parentSpanId, name, kind: 1,
    startTimeUnixNano: '1793539442363615108', endTimeUnixNano: '1793539443263615108', attributes, status: {code: 1},
  })
  const chat = span('09fe69716e6acbc5', 'chat m', [
    kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.response.id', 'resp-1'), kv('tenant.id', 'tn-beta'), kv('session.id', 'sess-b1'),
    kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', QUESTION), kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.content', 'All done.'),
  ], 'e90a6cc65dfc171b')
  const chain = span('e90a6cc65dfc171b', 'RunnableSequence', [
    kv('openinference.span.kind', 'CHAIN'), kv('input.value', QUESTION), kv('output.value', chainOutput), kv('session.id', 'sess-b1'), kv('tenant.id', 'tn-beta'),
  ])
  return JSON.stringify({resourceSpans: [{resource: {attributes: [kv('service.name', 'gw')]}, scopeSpans: [{scope: {name: 'x'}, spans: [chat, chain]}]}]}) + '\n'
}

const cases = [
  {name: 'a Langfuse SPAN (@observe) wrapping a GENERATION', file: 'observations.jsonl', lines: langfuseLines, request: 'obs-gen-1'},
  {name: 'an OpenInference CHAIN wrapping a GenAI chat span', file: 'traces.jsonl', lines: otlpLine, request: 'resp-1'},
]

describe('--fail-on-leak over a wrapper whose answer is not its call\'s', () => {
  for (const c of cases) {
    it(`${c.name}: the wrapper's answer is read with the call, so the leak in it trips the gate (exit 3)`, async () => {
      const dir = tempDir()
      writeFileSync(join(dir, c.file), c.lines(`Here is what we found: ${A}, sorted.`))
      const db = join(dir, 'case.db')
      const r = await run(['triage', join(dir, c.file), '--canaries', canaries(dir), '--db', db, '--fail-on-leak'])
      expect(r.code, r.stderr).toBe(3)
      expect(r.stderr).toMatch(/contamination found: 1 response \(1 cross-tenant, 0 cross-session\)/)
      expect(r.stderr).toMatch(/output of a wrapping .* is not among the call's texts: read as a further choice of its answer/)
      const sightings = await runJson<Array<{request_id: string; class: string; marker: string; recipient_tenant: string}>>(['sightings', '--db', db, '--class', 'cross_tenant', '--json'])
      expect(sightings.map((s) => [s.request_id, s.marker, s.recipient_tenant])).toEqual([[c.request, A, 'tn-beta']])
      // The wrapper's line is one the record is read from: decoded again from the evidence, the same.
      const verify = await run(['verify', '--db', db, '--deep'])
      expect(verify.code, verify.stdout + verify.stderr).toBe(0)
      expect(verify.stdout).toMatch(/detection run again and equal/)
    }, 60_000)

    it(`${c.name}: a wrapper that passes the call's answer on is judged with it (exit 0)`, async () => {
      const dir = tempDir()
      writeFileSync(join(dir, c.file), c.lines('All done.'))
      const r = await run(['triage', join(dir, c.file), '--canaries', canaries(dir), '--db', join(dir, 'case.db'), '--fail-on-leak'])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stderr).not.toMatch(/wrapping/)
    }, 60_000)
  }
})
