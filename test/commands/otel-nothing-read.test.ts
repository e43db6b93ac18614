import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// An OTLP logs file whose GenAI log records (one call's user message and choice) could not be made
// a record (no session attribute): the call's first log record was quarantined and the others were
// counted as companions "read elsewhere", so the file passed for a companion of calls read in
// another file and was kept as ingested with nothing read; triage then printed a Scope, Exposure
// and Art. 33(3)(a) table of zeros and exited 0.

const A = 'CANARY-0a1b2c3d4e5f60718293a4b5'
type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})
const TRACE = '00000000000000000000000000000001'
const SPAN = '0000000000000001'

function logsLine(): string {
  const record = (eventName: string, body: unknown) => ({timeUnixNano: '1793577601000000000', traceId: TRACE, spanId: SPAN, eventName, attributes: [kv('event.name', eventName), kv('gen_ai.system', 'openai')], body})
  const recs = [
    record('gen_ai.user.message', {kvlistValue: {values: [{key: 'content', value: {stringValue: 'hello'}}]}}),
    record('gen_ai.choice', {kvlistValue: {values: [{key: 'index', value: {intValue: '0'}}, {key: 'message', value: {kvlistValue: {values: [{key: 'content', value: {stringValue: `here ${A}`}}]}}}]}}),
  ]
  return JSON.stringify({resourceLogs: [{resource: {attributes: [kv('tenant.id', 'tenant-b')]}, scopeLogs: [{scope: {name: 'x'}, logRecords: recs}]}]})
}

/** Spans that are no model call (an HTTP server span): read, ignored, no record. */
function httpSpanLine(): string {
  const span = {traceId: TRACE, spanId: SPAN, name: 'GET /', kind: 2, startTimeUnixNano: '1793577601000000000', endTimeUnixNano: '1793577602000000000', attributes: [kv('http.route', '/')], status: {}}
  return JSON.stringify({resourceSpans: [{resource: {attributes: []}, scopeSpans: [{scope: {name: 'x'}, spans: [span]}]}]})
}

function canaries(dir: string): string {
  const path = join(dir, 'canaries.csv')
  writeFileSync(path, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,sess-a,\n`)
  return path
}

describe('an OTLP file nothing could be read from', () => {
  it('is refused when its every GenAI call is quarantined, as a native file of bad lines is', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'logs.json'), logsLine() + '\n')
    const r = await run(['ingest', 'logs', join(dir, 'logs.json'), '--db', join(dir, 'case.db'), '--log-format', 'otel'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/logs\.json: not ingested: its one line or item could not be read as otel; line 1: missing session_id/)
  }, 60_000)

  it('triage prints no zero figure when no record was read: scope is not known, on the console and in --json', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'spans.jsonl'), httpSpanLine() + '\n')
    const r = await run(['triage', join(dir, 'spans.jsonl'), '--canaries', canaries(dir), '--db', join(dir, 'case.db'), '--log-format', 'otel'])
    expect(r.stdout).toMatch(/no log record was read/)
    expect(r.stdout).toMatch(/^Contaminated responses: not known: no record was examined\b/m)
    expect(r.stdout).toMatch(/^contaminated responses +unknown$/m)
    expect(r.stdout).not.toMatch(/Art\. 33\(3\)\(a\) estimates/)
    expect(r.stdout).not.toMatch(/the numbers the drafts and notices use/)
    expect(r.stdout).not.toMatch(/^(contaminated responses|exposed sessions|data subjects.*) +0\b/m)
    const dir2 = tempDir()
    writeFileSync(join(dir2, 'spans.jsonl'), httpSpanLine() + '\n')
    const j = await runJson<{scope: {contaminated_responses: number | null; exposure: unknown; data_subjects: unknown}}>(['triage', join(dir2, 'spans.jsonl'), '--canaries', canaries(dir2), '--db', join(dir2, 'case.db'), '--log-format', 'otel'])
    expect(j.scope.contaminated_responses).toBeNull()
    expect(j.scope.exposure).toBeNull()
    expect(j.scope.data_subjects).toBeNull()
  }, 120_000)
})
