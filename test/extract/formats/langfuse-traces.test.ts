import {expect, it} from 'vitest'
import {resolveFormatOptions} from '../../../src/extract/formats/common.js'
import {langfuse} from '../../../src/extract/formats/langfuse.js'

// An observation other than a GENERATION that carries an output counts as unread only where no
// GENERATION of its trace is among the lines given (one observation a line, traces across lines
// and files), as otel does per trace.
const options = resolveFormatOptions()
const obs = (id: string, type: string, trace: Record<string, string>) => ({
  id, ...trace, type, startTime: '2026-11-02T10:00:00Z', metadata: {tenant_id: 'ta'}, sessionId: 's', input: 'q', output: {answer: 'a'},
})

it('langfuse: a SPAN with an output is unread where its trace has no GENERATION, and a wrapper where it has one', () => {
  const lines = [
    obs('g1', 'GENERATION', {traceId: 't1'}),
    obs('s1', 'SPAN', {traceId: 't1'}),
    obs('s2', 'SPAN', {traceId: 't2'}),
    // the blob-storage export's snake_case trace id, its GENERATION on a later line
    obs('s3', 'EVENT', {trace_id: 't3'}),
    obs('g3', 'GENERATION', {trace_id: 't3'}),
  ]
  const index = langfuse.newIndex(options)
  lines.forEach((l, i) => index.add(l, {file: 'f', line: i + 1}))
  const unread = lines.map((l, i) => langfuse.adapt(l, {options, index, at: {file: 'f', line: i + 1}}).unread ?? null)
  expect(unread).toEqual([null, null, {'Langfuse SPAN': 1}, null, null])
})

it('langfuse: read alone (no first pass), a SPAN with an output is counted as unread', () => {
  const span = obs('s1', 'SPAN', {traceId: 't1'})
  expect(langfuse.adapt(span, {options, index: null as never, at: {file: 'f', line: 1}}).unread).toEqual({'Langfuse SPAN': 1})
})
