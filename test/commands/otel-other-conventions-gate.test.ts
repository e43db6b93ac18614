import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT, tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// An OTLP traces export written with another LLM convention than the GenAI one (OpenInference,
// as Arize Phoenix's instrumentations write it) beside a native log: its spans gave no record
// and were counted as "ignored", so a leak carried in it passed --fail-on-leak (exit 0).

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string | number): Attr => ({key, value: typeof v === 'number' ? {intValue: String(v)} : {stringValue: v}})

function tracesLine(attributes: Attr[], spanId = '00000000000000a1'): string {
  const span = {
    traceId: '0af7651916cd43dd8448eb211c80319c', spanId, parentSpanId: '', kind: 1, name: 'ChatCompletion',
    startTimeUnixNano: '1793404940000000000', endTimeUnixNano: '1793404941000000000', attributes, status: {},
  }
  return JSON.stringify({resourceSpans: [{resource: {attributes: [kv('service.name', 'app'), kv('tenant.id', 'tn-beta')]}, scopeSpans: [{scope: {name: 'openinference.instrumentation.openai'}, spans: [span]}]}]})
}

/** tn-beta's session answered with tn-alpha's marker, in an OpenInference LLM span. */
const openInferenceLeak = (): Attr[] => [
  kv('openinference.span.kind', 'LLM'),
  kv('llm.model_name', 'gpt-4o-mini'),
  kv('session.id', 'sess-b1'),
  kv('llm.input_messages.0.message.role', 'user'),
  kv('llm.input_messages.0.message.content', `hi ${B}`),
  kv('llm.output_messages.0.message.role', 'assistant'),
  kv('llm.output_messages.0.message.content', `here you go: ${A}`),
  kv('llm.token_count.prompt', 12),
  kv('llm.token_count.completion', 7),
]

function incident(dir: string, traces: string): string {
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
  const native = join(dir, 'app.jsonl')
  writeFileSync(native, chatLine({request_id: 'req-1', tenant_id: 'tn-alpha', session_id: 'sess-a1', prompt: `hello ${A}`, answer: 'fine'}) + '\n')
  writeFileSync(join(dir, 'traces.jsonl'), traces + '\n')
  return native
}

describe('--fail-on-leak over an OTLP traces file of another LLM convention', () => {
  it('reads an OpenInference LLM span, so the leak in it trips scan and triage (exit 3)', async () => {
    const dir = tempDir()
    const native = incident(dir, tracesLine(openInferenceLeak()))
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    const ingest = await run(['ingest', 'logs', native, join(dir, 'traces.jsonl'), '--db', db])
    expect(ingest.code, ingest.stderr).toBe(0)
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code, scan.stderr).toBe(3)
    expect(scan.stderr).toMatch(/contamination found/)

    const dir2 = tempDir()
    const native2 = incident(dir2, tracesLine(openInferenceLeak()))
    for (const quick of [true, false]) {
      const r = await run(['triage', native2, join(dir2, 'traces.jsonl'), '--canaries', join(dir2, 'canaries.csv'), '--db', join(dir2, `case-${quick}.db`), '--fail-on-leak', ...(quick ? [] : ['--no-quick-verdict'])])
      expect(r.code, r.stderr).toBe(3)
    }
  }, 60_000)

  it('refuses a traces file whose only texts are in a convention not read, so every gate exits 1 while it is open', async () => {
    // A Traceloop workflow span: its texts are not a model call's, and no call of its trace is given.
    const workflow = [kv('traceloop.span.kind', 'workflow'), kv('session.id', 'sess-b1'), kv('traceloop.entity.input', `hi ${B}`), kv('traceloop.entity.output', `here you go: ${A}`)]
    const dir = tempDir()
    const native = incident(dir, tracesLine(workflow))
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    const ingest = await run(['ingest', 'logs', native, join(dir, 'traces.jsonl'), '--db', db])
    expect(ingest.code).toBe(1)
    expect(ingest.stderr).toMatch(/traces\.jsonl: not ingested: no model call in it could be read as otel, but 1 item that is no model call crosstalk reads carries model input or output text, not read by this release \(Traceloop \(OpenLLMetry\): 1\); to fix: give the file holding the model-call spans/)
    // The native file is kept.
    const status = await runJson<{unread_sources: Array<{path: string}>}>(['status', '--db', db])
    expect(status.unread_sources.map((u) => u.path)).toEqual([join(dir, 'traces.jsonl')])
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code, scan.stderr).toBe(1)
    expect(scan.stderr).toMatch(/--fail-on-leak cannot pass: .*traces\.jsonl/)
    for (const quick of [true, false]) {
      const dir2 = tempDir()
      const native2 = incident(dir2, tracesLine(workflow))
      const r = await run(['triage', native2, join(dir2, 'traces.jsonl'), '--canaries', join(dir2, 'canaries.csv'), '--db', join(dir2, 'case.db'), '--fail-on-leak', ...(quick ? [] : ['--no-quick-verdict'])])
      expect(r.code, r.stderr).toBe(1)
      expect(r.stderr).toMatch(/traces\.jsonl/)
    }
  }, 60_000)

  it('keeps a traces file with model calls read but marks it not read whole where another trace holds only unread texts', async () => {
    const call = openInferenceLeak().map((a) => (a.key === 'llm.output_messages.0.message.content' ? kv(a.key, 'all fine') : a))
    const other = [kv('traceloop.span.kind', 'workflow'), kv('traceloop.entity.output', `here you go: ${A}`)]
    const line = JSON.parse(tracesLine(call)) as {resourceSpans: Array<{scopeSpans: Array<{spans: Array<Record<string, unknown>>}>}>}
    const spans = line.resourceSpans[0]!.scopeSpans[0]!.spans
    // A workflow span in the call's trace that passes its answer on wraps it (judged with it; one
    // that changes it is read with it: wrapper-texts-gate.test.ts); in another trace it does not.
    spans.push({...spans[0], spanId: '00000000000000b2', name: 'wf', attributes: [kv('traceloop.span.kind', 'workflow'), kv('traceloop.entity.output', 'all fine')]})
    const dir = tempDir()
    const native = incident(dir, JSON.stringify(line))
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    expect((await run(['ingest', 'logs', native, join(dir, 'traces.jsonl'), '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db, '--fail-on-leak'])).code).toBe(0)

    spans.push({...spans[0], traceId: 'ffffffffffffffffffffffffffffffff', spanId: '00000000000000b3', name: 'wf', attributes: other})
    const dir2 = tempDir()
    const native2 = incident(dir2, JSON.stringify(line))
    const db2 = join(dir2, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir2, 'canaries.csv'), '--db', db2])).code).toBe(0)
    const ingest = await runJson<{per_file: Array<{path: string; status: string; records: number; unread: string | null}>}>(['ingest', 'logs', native2, join(dir2, 'traces.jsonl'), '--db', db2, '--json'])
    const traces = ingest.per_file.find((f) => f.path.endsWith('traces.jsonl'))!
    expect(traces).toMatchObject({status: 'ingested', records: 1})
    expect(traces.unread).toMatch(/^1 item that is no model call crosstalk reads carries model input or output text, not read by this release \(Traceloop \(OpenLLMetry\): 1\), in traces where no model call's answer text was read$/)
    const scan = await run(['scan', '--db', db2, '--fail-on-leak'])
    expect(scan.code, scan.stderr).toBe(1)
    expect(scan.stderr).toMatch(/traces\.jsonl \(not read whole: 1 item/)

    // The drafts never say "no leak found" over the part not read: they say it was not examined, as an open item.
    expect((await run(['incident', 'open', '--db', db2, '--title', 't', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    type Draft = {statements: Array<{section: string; text: string}>; open_items: Array<{item: string}>; form_fields: Array<{id: string; value: string; open: boolean}>; scope: {log_files_not_read_whole: number}}
    const draft = await runJson<Draft>(['report', 'article33', '--db', db2, '--lang', 'en'])
    expect(draft.scope.log_files_not_read_whole).toBe(1)
    const nature = draft.statements.filter((s) => s.section === 'nature').map((s) => s.text).join(' ')
    expect(nature).toContain('1 log file (traces.jsonl) was not read whole')
    expect(draft.open_items.map((o) => o.item)).toContainEqual(expect.stringMatching(/^1 log file \(traces\.jsonl\) not read whole: what it holds past what was read was not examined/))
    for (const f of draft.form_fields) expect(f.value, f.id).not.toMatch(/detection over every log found no response/)
  }, 60_000)
})

describe('--fail-on-leak over OpenInference spans whose texts are hidden (__REDACTED__)', () => {
  it('does not pass on an answer written as the placeholder: it is no text, counted as not logged (exit 1)', async () => {
    const hidden = [kv('openinference.span.kind', 'LLM'), kv('session.id', 'sess-b1'), kv('input.value', '__REDACTED__'), kv('output.value', '__REDACTED__')]
    const dir = tempDir()
    const native = incident(dir, tracesLine(hidden))
    const r = await run(['triage', native, join(dir, 'traces.jsonl'), '--canaries', join(dir, 'canaries.csv'), '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toMatch(/traces\.jsonl: not ingested: its one response decoded to no text .*the answers were not logged \(OpenInference writes __REDACTED__ in their place/)
  }, 60_000)
})

describe('--fail-on-leak over a Langfuse export without GENERATION observations', () => {
  const observation = (id: string, type: string, output: string, traceId = 'trace-1') => JSON.stringify({
    id, traceId, type, name: 'answer', startTime: '2026-11-02T06:48:30.000Z', endTime: '2026-11-02T06:48:31.000Z',
    sessionId: 'sess-b1', metadata: {tenant_id: 'tn-beta'}, input: `hi ${B}`, output,
  })

  it('refuses a file of SPANs with outputs, and reads one whose SPANs wrap GENERATIONs', async () => {
    const dir = tempDir()
    const native = incident(dir, '')
    const lf = join(dir, 'langfuse.jsonl')
    writeFileSync(lf, `${observation('obs-1', 'SPAN', `here you go: ${A}`)}\n${observation('obs-2', 'EVENT', '')}\n`)
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    const ingest = await run(['ingest', 'logs', native, lf, '--log-format', 'langfuse', '--db', db])
    expect(ingest.code).toBe(1)
    expect(ingest.stderr).toMatch(/langfuse\.jsonl: not ingested: no model call in it could be read as langfuse, but 1 item .*\(Langfuse SPAN: 1\); to fix: export the GENERATION observations/)
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code, scan.stderr).toBe(1)
    // The quick verdict's pass refuses it as ingest does: no verdict is printed over it.
    const dirT = tempDir()
    const nativeT = incident(dirT, '')
    writeFileSync(join(dirT, 'langfuse.jsonl'), `${observation('obs-1', 'SPAN', `here you go: ${A}`)}\n`)
    const triage = await run(['triage', nativeT, join(dirT, 'langfuse.jsonl'), '--canaries', join(dirT, 'canaries.csv'), '--db', join(dirT, 'case.db'), '--fail-on-leak'])
    expect(triage.code, triage.stderr).toBe(1)
    expect(triage.stderr).toMatch(/langfuse\.jsonl: not ingested: no model call/)
    expect(triage.stdout.trim()).toBe('')

    const dir2 = tempDir()
    const native2 = incident(dir2, '')
    const lf2 = join(dir2, 'langfuse.jsonl')
    writeFileSync(lf2, `${observation('obs-1', 'SPAN', 'all fine')}\n${observation('obs-2', 'GENERATION', 'all fine')}\n`)
    const db2 = join(dir2, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir2, 'canaries.csv'), '--db', db2])).code).toBe(0)
    const ok = await runJson<{per_file: Array<{path: string; status: string; unread: string | null; notes: string[]}>}>(['ingest', 'logs', lf2, '--log-format', 'langfuse', '--db', db2, '--json'])
    expect(ok.per_file[0]).toMatchObject({status: 'ingested', unread: null})
    // The SPAN wraps the GENERATION of its own trace: not counted as unread, and no note claims anything of it.
    expect(ok.per_file[0]!.notes.join('\n')).not.toMatch(/Langfuse SPAN/)
    const scan2 = await run(['scan', '--db', db2, '--fail-on-leak'])
    expect(scan2.code, scan2.stderr).toBe(0)
  }, 60_000)

  it('counts a SPAN with an output as unread where its trace has no GENERATION, though another trace has one', async () => {
    const dir = tempDir()
    const native = incident(dir, '')
    const lf = join(dir, 'langfuse.jsonl')
    // trace-1 has a GENERATION; trace-2 only a SPAN whose output carries tenant A's marker.
    writeFileSync(lf, `${observation('obs-1', 'GENERATION', 'all fine')}\n${observation('obs-2', 'SPAN', `here you go: ${A}`, 'trace-2')}\n`)
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    expect((await run(['ingest', 'logs', native, '--db', db])).code).toBe(0)
    const ok = await runJson<{per_file: Array<{path: string; status: string; unread: string | null; notes: string[]}>}>(['ingest', 'logs', lf, '--log-format', 'langfuse', '--db', db, '--json'])
    const file = ok.per_file[0]!
    expect(file.status).toBe('ingested')
    expect(file.unread).toMatch(/^1 item .*\(Langfuse SPAN: 1\), in traces where no model call's answer text was read/)
    expect(file.notes.join('\n')).not.toMatch(/wrapping the GENERATIONs/)
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code, scan.stderr).toBe(1)
    expect(scan.stderr).toMatch(/langfuse\.jsonl \(not read whole: 1 item/)
    // The triage gate fails closed on the same file.
    const dirT = tempDir()
    const nativeT = incident(dirT, '')
    const lfT = join(dirT, 'langfuse.jsonl')
    writeFileSync(lfT, `${observation('obs-1', 'GENERATION', 'all fine')}\n${observation('obs-2', 'SPAN', `here you go: ${A}`, 'trace-2')}\n`)
    const triage = await run(['triage', nativeT, lfT, '--canaries', join(dirT, 'canaries.csv'), '--db', join(dirT, 'case.db'), '--fail-on-leak'])
    expect(triage.code, triage.stderr).not.toBe(0)
  }, 60_000)
})

describe('companion files are still not refused', () => {
  it('an OTLP logs file whose log records joined their spans in the traces file is ingested, not refused', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    const fixture = (name: string) => join(ROOT, 'test/fixtures/formats', name)
    const r = await runJson<{per_file: Array<{path: string; status: string; records: number; ignored_items: number; unread: string | null}>}>(
      ['ingest', 'logs', fixture('otel-js-instrumentation-spans.jsonl'), fixture('otel-js-instrumentation-logs.jsonl'), '--db', db, '--json'])
    expect(r.per_file.map((f) => ({status: f.status, records: f.records, unread: f.unread}))).toEqual([
      {status: 'ingested', records: 1, unread: null},
      {status: 'ingested', records: 0, unread: null},
    ])
    expect(r.per_file[1]!.ignored_items).toBeGreaterThan(0)
    const status = await runJson<{unread_sources: unknown[]}>(['status', '--db', db])
    expect(status.unread_sources).toEqual([])
  }, 60_000)

  it('an OpenAI Batch input file read with its output file is ingested, not refused', async () => {
    const dir = tempDir()
    const fixture = (name: string) => join(ROOT, 'test/fixtures/formats', name)
    const r = await runJson<{per_file: Array<{path: string; status: string; records: number; ignored_items: number; unread: string | null}>}>([
      'ingest', 'logs', fixture('openai-batch-input.jsonl'), fixture('openai-batch-output.jsonl'), '--log-format', 'openai-batch',
      '--custom-id-pattern', '^(?<tenant>[^:]+):(?<session>[^:]+):', '--batch-ts', '2024-03-26T18:00:00Z', '--db', join(dir, 'case.db'), '--json',
    ])
    const input = r.per_file.find((f) => f.path.endsWith('openai-batch-input.jsonl'))!
    expect(input).toMatchObject({status: 'ingested', records: 0, ignored_items: 3, unread: null})
    expect(r.per_file.find((f) => f.path.endsWith('openai-batch-output.jsonl'))).toMatchObject({status: 'ingested'})
  }, 60_000)
})
