import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A refusal says the true cause and the fix that works. Logfire's spans hold their content in
// request_data / response_data, or in the `events` JSON attribute: the refusal said "no message
// content on the span ... (content capture off, or the OTLP logs file not given)" and sent the
// user after a logs file that does not exist. An OpenLLMetry span whose answer is only a refusal
// was refused as "decoded to no text".

const kv = (key: string, v: string) => ({key, value: {stringValue: v}})
const span = (attributes: {key: string; value: unknown}[]) => JSON.stringify({resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tA'), kv('session.id', 's1')]}, scopeSpans: [{scope: {name: 'logfire.openai'}, spans: [{
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', name: 'Chat Completion with gpt-4o', kind: 1, startTimeUnixNano: '1793613600000000000', endTimeUnixNano: '1793613601000000000', status: {},
  attributes: [kv('gen_ai.system', 'openai'), kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'gpt-4o'), kv('logfire.span_type', 'span'), ...attributes],
}]}]}]})

async function ingest(line: string): Promise<{code: number; stderr: string}> {
  const dir = tempDir()
  writeFileSync(join(dir, 'spans.jsonl'), `${line}\n`)
  return run(['ingest', 'logs', join(dir, 'spans.jsonl'), '--db', join(dir, 'case.db')])
}

describe('refusals name the true cause', () => {
  it.each([
    ['request_data and response_data', [kv('request_data', '{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}'), kv('response_data', '{"message": {"role": "assistant", "content": "ans"}}')], 'request_data, response_data'],
    ['the events attribute', [kv('request_data', '{"messages": []}'), kv('events', '[{"event.name": "gen_ai.choice", "index": 0, "message": {"role": "assistant", "content": "ans"}}]')], 'request_data, events'],
  ])('Logfire content in %s: named as on the span and not read, not as capture off or a logs file not given', async (_what, attributes, named) => {
    const r = await ingest(span(attributes))
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`message content on the span in attributes this release does not read (${named}), not read`)
    expect(r.stderr).not.toContain('content capture off')
    expect(r.stderr).not.toContain('give the OTLP logs file')
  })

  it('a span with no content at all is still said to have none', async () => {
    const r = await ingest(span([]))
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('content capture off, or the OTLP logs file not given')
  })

  it('an OpenLLMetry span whose answer is only a refusal is read, not refused as no text', async () => {
    const r = await ingest(span([kv('gen_ai.prompt.0.role', 'user'), kv('gen_ai.prompt.0.content', 'hi'), kv('gen_ai.completion.0.role', 'assistant'), kv('gen_ai.completion.0.refusal', 'I cannot help with that')]))
    expect(r.code, r.stderr).toBe(0)
  })
})
