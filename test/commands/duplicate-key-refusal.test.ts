import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A file refused only because its line gives a key twice was said to be undecidable ("no readable
// JSON line to decide the format from") and told to try --log-format or --map, which never read
// such a line: no JSON writer repeats a key, so the line was written by hand or altered.

const nativeLine = '{"ts":"2026-11-01T10:00:03Z","request_id":"r1","tenant_id":"tenant-b","session_id":"s1","status":200,"request":{"messages":[{"role":"user","content":"hi"}]},"response":"ok","response":"CANARY-0a1b2c3d4e5f60718293a4b5"}'

type Attr = {key: string; value: Record<string, unknown>}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})
function otlpLine(): string {
  const span = {
    traceId: '00000000000000000000000000000001', spanId: '0000000000000001', name: 'chat m', kind: 3, startTimeUnixNano: '1793577601000000000', endTimeUnixNano: '1793577602000000000',
    attributes: [kv('gen_ai.operation.name', 'chat'), kv('session.id', 's1'), kv('gen_ai.prompt.0.content', 'hi'), kv('gen_ai.completion.0.content', 'ok'), kv('gen_ai.completion.0.content', 'other')], status: {},
  }
  return JSON.stringify({resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tenant-b')]}, scopeSpans: [{scope: {name: 'x'}, spans: [span]}]}]})
}

describe('a file refused for a line that gives a key twice', () => {
  it('native, format decided by auto: says the JSON line gives a key twice, and no --log-format or --map is the fix', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'dup.jsonl'), nativeLine + '\n')
    const r = await run(['ingest', 'logs', join(dir, 'dup.jsonl'), '--db', join(dir, 'case.db')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/dup\.jsonl: read as native \(auto: its JSON lines give a key twice, which no format reads/)
    expect(r.stderr).not.toMatch(/no readable JSON line/)
    const error = r.stderr.split('\n').find((l) => l.startsWith('Error:'))!
    expect(error).toMatch(/line 1: duplicate key "response"/)
    expect(error).toMatch(/to fix: no --log-format or --map reads a line that gives a key twice/)
    expect(error).not.toMatch(/to fix: --log-format/)
  }, 60_000)

  it('OTLP: a span giving an attribute twice gets the same fix', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'spans.jsonl'), otlpLine() + '\n')
    const r = await run(['ingest', 'logs', join(dir, 'spans.jsonl'), '--db', join(dir, 'case.db'), '--log-format', 'otel'])
    expect(r.code).toBe(1)
    const error = r.stderr.split('\n').find((l) => l.startsWith('Error:'))!
    expect(error).toMatch(/duplicate key/)
    expect(error).toMatch(/to fix: no --log-format or --map reads a line that gives a key twice/)
  }, 60_000)
})
