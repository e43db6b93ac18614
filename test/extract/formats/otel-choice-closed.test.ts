import {describe, expect, it} from 'vitest'
import {adapterFor, resolveFormatOptions} from '../../../src/extract/formats/index.js'
import type {AdaptResult} from '../../../src/extract/formats/types.js'
import {rowFromRecord, UNREAD_SHAPES} from '../../../src/extract/parse-record.js'

// A gen_ai.choice body is read closed-world, as a chat choice is. Before, only its index,
// finish_reason and message (else content) were taken: a text member beside them holding another
// tenant's marker was dropped without a word and --fail-on-leak exited 0, in a log record and in
// a span event alike; and where a body gave both message and content, content was dropped.

type Any = Record<string, unknown>
const S = (s: string): Any => ({stringValue: s})
const kvlist = (o: Record<string, Any>): Any => ({kvlistValue: {values: Object.entries(o).map(([key, value]) => ({key, value}))}})
const attrs = (o: Record<string, Any>) => Object.entries(o).map(([key, value]) => ({key, value}))
const TRACE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90'
const SPAN = '1a2b3c4d5e6f7081'
const LEAK = 'CANARY-bbbbbbbbbbbbbbbb02'

function spans(events?: unknown[]): unknown {
  const span: Any = {
    traceId: TRACE, spanId: SPAN, name: 'chat gpt-4o', kind: 3, startTimeUnixNano: '1793320780000000000', endTimeUnixNano: '1793320781000000000', status: {code: 0},
    attributes: attrs({'gen_ai.operation.name': S('chat'), 'gen_ai.system': S('openai'), 'gen_ai.request.model': S('gpt-4o'), 'gen_ai.response.id': S('chatcmpl-1'), 'session.id': S('s-acme-1')}),
  }
  if (events) span.events = events
  return {resourceSpans: [{resource: {attributes: attrs({'tenant.id': S('acme')})}, scopeSpans: [{scope: {name: 'x'}, spans: [span]}]}]}
}

function logs(choice: Record<string, Any>): unknown {
  const lr = (ev: string, body: Any) => ({timeUnixNano: '1793320781000000000', severityNumber: 9, body, traceId: TRACE, spanId: SPAN, attributes: attrs({'event.name': S(ev), 'gen_ai.system': S('openai')})})
  return {resourceLogs: [{resource: {attributes: []}, scopeLogs: [{scope: {name: '@opentelemetry/instrumentation-openai'}, logRecords: [
    lr('gen_ai.user.message', kvlist({content: S('hi')})), lr('gen_ai.choice', kvlist(choice)),
  ]}]}]}
}

const spanEvents = (choice: Record<string, Any>): unknown => spans([
  {timeUnixNano: '1793320781000000000', name: 'gen_ai.user.message', attributes: attrs({content: S('hi')})},
  {timeUnixNano: '1793320781000000000', name: 'gen_ai.choice', attributes: attrs(choice)},
])

function only(...lines: unknown[]): {response: string | null; notes: string[]} {
  const adapter = adapterFor('otel')
  const options = resolveFormatOptions()
  const index = adapter.newIndex(options)!
  lines.forEach((l, i) => index.add(l, {file: 'f', line: i + 1}))
  const out: AdaptResult = {records: [], problems: [], ignored: 0}
  lines.forEach((l, i) => {
    const r = adapter.adapt(l, {options, index, at: {file: 'f', line: i + 1}})
    out.records.push(...r.records)
    out.problems.push(...r.problems)
  })
  expect(out.problems).toEqual([])
  expect(out.records).toHaveLength(1)
  const notes: string[] = []
  const decoded = rowFromRecord(out.records[0]!.record, notes)
  if (!('row' in decoded)) throw new Error(decoded.bad)
  return {response: decoded.row.response_text, notes: [...out.records[0]!.notes, ...notes]}
}

const unreadNamed = (notes: readonly string[]): string => notes.filter((n) => n.startsWith(UNREAD_SHAPES)).join('\n')

describe('otel adapter: a gen_ai.choice body is read closed-world', () => {
  const withText = {finish_reason: S('stop'), index: {intValue: '0'}, message: kvlist({content: S('ok')}), text: S(`x ${LEAK}`)}

  it.each([
    ['a log record', () => only(spans(), logs(withText))],
    ['a span event', () => only(spanEvents(withText))],
  ])('reads a text beside the message as answer text, in %s', (_where, read) => {
    const t = read()
    expect(t.response).toContain('ok')
    expect(t.response).toContain(LEAK)
  })

  it.each([
    ['a log record', (c: Record<string, Any>) => only(spans(), logs(c))],
    ['a span event', (c: Record<string, Any>) => only(spanEvents(c))],
  ])('names any other member that holds text, in %s', (_where, read) => {
    const t = read({index: {intValue: '0'}, finish_reason: S('stop'), message: kvlist({content: S('ok')}), extra: S(`x ${LEAK}`)})
    expect(unreadNamed(t.notes)).toContain('chat message member "gen_ai.choice.extra"')
  })

  it('reads both message and content where a body gives both', () => {
    const t = only(spans(), logs({index: {intValue: '0'}, message: kvlist({content: S('from message')}), content: S(`from content ${LEAK}`)}))
    expect(t.response).toContain('from message')
    expect(t.response).toContain(LEAK)
  })

  it('reads a content that says what the message says once', () => {
    const t = only(spans(), logs({index: {intValue: '0'}, message: kvlist({content: S('same')}), content: S('same')}))
    expect(t.response).toBe('same')
  })

  it('names nothing for a body of index, finish_reason and message', () => {
    const t = only(spans(), logs({index: {intValue: '0'}, finish_reason: S('stop'), message: kvlist({role: S('assistant'), content: S('ok')})}))
    expect(t.response).toBe('ok')
    expect(unreadNamed(t.notes)).toBe('')
  })
})
