import {describe, expect, it} from 'vitest'
import {decodeLine, lineDecoder} from '../../../src/extract/line-decoder.js'

// OTLP reads attributes from lists of {key, value} pairs (the last pair of a key kept) and
// message attributes from JSON texts (JSON.parse, the last copy of a key kept): a span giving
// its answer twice had only the last copy judged. Such a line is refused naming the key; an
// attribute repeated with the same value reads the same either way and is read.

const at = {file: 'f', line: 1}
const decoder = lineDecoder({format: 'otel'})
type Attr = {key: string; value: {stringValue: string}}
const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})

function line(attributes: Attr[]): Buffer {
  const span = {traceId: '0af7651916cd43dd8448eb211c80319c', spanId: '00000000000000b1', name: 'chat m', startTimeUnixNano: '1793604570000000000', endTimeUnixNano: '1793604570289000000', attributes}
  return Buffer.from(JSON.stringify({resourceSpans: [{resource: {attributes: [kv('tenant.id', 'tn-b')]}, scopeSpans: [{scope: {name: 's'}, spans: [span]}]}]}))
}
const base = [kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.conversation.id', 'sess-b')]
const output = (text: string): string => JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: text}]}])

describe('an OTLP span that gives its answer twice', () => {
  it('refuses the line when an attribute list gives a key twice with different values', () => {
    const out = decodeLine(line([...base, kv('gen_ai.output.messages', output('CANARY-1')), kv('gen_ai.output.messages', output('clean'))]), decoder, null, at)
    expect(out).toEqual({kind: 'bad', reason: expect.stringMatching(/^duplicate key "resourceSpans\[0\]\.scopeSpans\[0\]\.spans\[0\]\.attributes\[\\"gen_ai\.output\.messages\\"\]": /)})
  })

  it('refuses the line when a message attribute\'s JSON text gives a key twice', () => {
    const twice = output('clean').replace('"content":', '"content":"CANARY-1","content":')
    const out = decodeLine(line([...base, kv('gen_ai.output.messages', twice)]), decoder, null, at)
    expect(out).toEqual({kind: 'bad', reason: expect.stringMatching(/^duplicate key "\(a JSON text in the line\)\[0\]\.parts\[0\]\.content": /)})
  })

  it('reads a span whose attribute is repeated with the same value', () => {
    const out = decodeLine(line([...base, kv('gen_ai.output.messages', output('clean')), kv('gen_ai.output.messages', output('clean'))]), decoder, null, at)
    expect(out.kind === 'items' ? out.records.map((r) => [r.row.session_id, r.row.response_text]) : out).toEqual([['sess-b', 'clean']])
  })
})
