import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {makeCase} from '../helpers/case-builder.js'

// The gate examines duplicate lines that differ from the line their record was read from. An
// OTLP export line logged twice, with a difference, makes every one of its spans such a
// duplicate: examined one duplicate at a time, the line was read and decoded once per span
// (N² work for N spans). What must hold is the mechanism, not a time: one parse of the line.
const parses = vi.hoisted(() => ({count: 0}))
vi.mock('../../src/extract/parse-record.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/extract/parse-record.js')>()
  return {
    ...actual,
    readLineJson: (...args: Parameters<typeof actual.readLineJson>) => {
      parses.count++
      return actual.readLineJson(...args)
    },
  }
})
const {examineConflictingDuplicates} = await import('../../src/detect/conflicting-duplicates.js')

const SPANS = 30
const kv = (key: string, v: string) => ({key, value: {stringValue: v}})
const exportLine = (answer: (i: number) => string): string =>
  JSON.stringify({
    resourceSpans: [{
      resource: {attributes: [kv('service.name', 'gw'), kv('tenant.id', 'tn-a')]},
      scopeSpans: [{
        scope: {name: 'gw'},
        spans: Array.from({length: SPANS}, (_, i) => ({
          traceId: '1'.padStart(32, '0'), spanId: `${i + 1}`.padStart(16, '0'), parentSpanId: '', kind: 3, name: 'chat m',
          startTimeUnixNano: `${1793404940000 + i}000000`, endTimeUnixNano: `${1793404940000 + i}500000`, status: {},
          attributes: [
            kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.response.id', `req-${i}`), kv('session.id', `s-${i}`),
            kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: `question ${i}`}]}])),
            kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: answer(i)}]}])),
          ],
        })),
      }],
    }],
  })

describe('examineConflictingDuplicates over an OTLP line of many spans logged twice', () => {
  it('reads the duplicate line once for all of its records, and still finds the leak in one of them', async () => {
    const tc = makeCase()
    const file = join(tc.dir, 'traces.jsonl')
    // The same spans again, one answer now carrying another tenant's marker.
    writeFileSync(file, `${exportLine((i) => `answer ${i}`)}\n${exportLine((i) => (i === 7 ? 'here: CANARY-0f0f0f0f0f0f0f0f0f0f0f0f' : `answer ${i}`))}\n`)
    await tc.addCanaries([['CANARY-0f0f0f0f0f0f0f0f0f0f0f0f', 'tn-b', 's-other']])
    await ingestLogs(tc.db, {paths: [file], logFormat: 'otel', now: () => new Date('2026-11-03T00:00:00Z'), workers: 0})
    parses.count = 0
    const out = examineConflictingDuplicates(tc.db)
    expect(out.lines).toBe(SPANS)
    expect(out.unexamined).toEqual([])
    expect(out.leaking.map((l) => l.request_id)).toEqual(['req-7'])
    expect(parses.count).toBe(1)
    tc.db.close()
  })
})
