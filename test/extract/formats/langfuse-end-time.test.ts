import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {runAdapter} from './run-adapter.js'

// A GENERATION exported while still running (endTime null) is dated by its startTime: first and
// last seen and the breach's start come from that time, so it is said in a note, as the otel
// adapter says a span dated by its start.

function generations(endTime: string | null): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ct-lf-end-')), 'lf.jsonl')
  const row = {id: 'g2', traceId: 't2', type: 'GENERATION', startTime: '2026-11-01T10:00:02Z', endTime, sessionId: 'sess-b', metadata: {tenant_id: 'tenant-b'}, model: 'm', input: [{role: 'user', content: 'hey'}], output: 'ok'}
  writeFileSync(path, JSON.stringify(row) + '\n')
  return path
}

it('langfuse: a GENERATION with endTime null is dated by its startTime, said in a note', () => {
  const run = runAdapter('langfuse', [generations(null)])
  expect(run.produced).toHaveLength(1)
  expect(run.produced[0]!.row!.ts).toBe('2026-11-01T10:00:02.000Z')
  expect(run.produced[0]!.notes).toContain('ts from startTime: the observation has no endTime (still running when exported, or its end not recorded)')
})

it('langfuse: a GENERATION with its endTime gets no such note', () => {
  const run = runAdapter('langfuse', [generations('2026-11-01T10:00:03Z')])
  expect(run.produced[0]!.notes.filter((n) => n.startsWith('ts from'))).toEqual([])
})
