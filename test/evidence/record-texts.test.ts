import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {verifyCase} from '../../src/case/verify.js'
import {evidenceReader} from '../../src/evidence/evidence-store.js'
import {decodeRecordTexts, recordTextLoader, textLoader} from '../../src/evidence/record-texts.js'
import {lineDecoder} from '../../src/extract/line-decoder.js'
import {decodeParseSpec} from '../../src/extract/parse-spec.js'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {recordLocator} from '../../src/store/records.js'
import {makeCase} from '../helpers/case-builder.js'

describe('recordTextLoader', () => {
  it('decodes a record\'s texts again from the evidence', async () => {
    const tc = makeCase()
    await tc.addFile([{request_id: 'r1', tenant_id: 't', session_id: 's', request_text: 'question', response_text: 'answer'}])
    const id = tc.db.prepare('SELECT id FROM records').pluck().get() as number
    expect(recordTextLoader(tc.db)(id)).toEqual({request_text: 'question', response_text: 'answer'})
    tc.db.close()
  })

  it('says the texts are unknown (an error naming the record) instead of handing back empty texts', async () => {
    const tc = makeCase()
    await tc.addFile([{request_id: 'r1', tenant_id: 't', session_id: 's', response_text: 'answer'}])
    const id = tc.db.prepare('SELECT id FROM records').pluck().get() as number
    // A parse spec this version cannot build (as from a newer version, or tampered with).
    tc.db.exec(`UPDATE files SET parse_spec = '{"format":"no-such-format"}'`)
    expect(() => recordTextLoader(tc.db)(id)).toThrow(/texts of the record at line 1 of log file #\d+ could not be decoded again .*crosstalk verify/)
    expect(() => recordTextLoader(tc.db)(id + 1000)).toThrow(/record #\d+ could not be decoded/)
    // verify names it instead of failing
    const v = await verifyCase(tc.db, {rehashOriginals: false})
    expect(v.problems.map((p) => `${p.kind}: ${p.detail}`)).toContainEqual(expect.stringMatching(/^record: its parse spec cannot be read \(parse spec names an unknown log format "no-such-format"\)/))
    tc.db.close()
  })
})

describe('textLoader over an OTLP line of many spans', () => {
  // One OTLP/JSON export line holds every span of a batch: hundreds of records on one line.
  // Decoding a record decodes its whole line; done once per record, a line of N spans cost N
  // whole-line decodes (N² work: 1000 spans took half a minute to scan). What must hold is
  // the mechanism, not a time: the line is read (and so parsed) once, however many of its
  // records are asked for, in order or alternating with another line's.
  const SPANS = 40
  type Attr = {key: string; value: Record<string, unknown>}
  const kv = (key: string, v: string): Attr => ({key, value: {stringValue: v}})
  const exportLine = (line: number): string =>
    JSON.stringify({
      resourceSpans: [{
        resource: {attributes: [kv('service.name', 'gw'), kv('tenant.id', `tn-${line}`)]},
        scopeSpans: [{
          scope: {name: 'gw'},
          spans: Array.from({length: SPANS}, (_, i) => ({
            traceId: `${line}`.padStart(32, '0'), spanId: `${line}${i}`.padStart(16, '0'), parentSpanId: '', kind: 3, name: 'chat m',
            startTimeUnixNano: `${1793404940000 + line * 1000 + i}000000`, endTimeUnixNano: `${1793404940000 + line * 1000 + i}500000`, status: {},
            attributes: [
              kv('gen_ai.operation.name', 'chat'), kv('gen_ai.request.model', 'm'), kv('gen_ai.response.id', `req-${line}-${i}`), kv('session.id', `s-${line}-${i}`),
              kv('gen_ai.input.messages', JSON.stringify([{role: 'user', parts: [{type: 'text', content: `question ${line}.${i}`}]}])),
              kv('gen_ai.output.messages', JSON.stringify([{role: 'assistant', parts: [{type: 'text', content: `answer ${line}.${i}`}]}])),
            ],
          })),
        }],
      }],
    })

  it('reads and decodes each line once for all of its records, and gives each record its own texts', async () => {
    const tc = makeCase()
    const file = join(tc.dir, 'traces.jsonl')
    writeFileSync(file, `${exportLine(1)}\n${exportLine(2)}\n`)
    await ingestLogs(tc.db, {paths: [file], logFormat: 'otel', now: () => new Date('2026-11-03T00:00:00Z'), workers: 0})
    const rows = tc.db.prepare('SELECT id, request_id, line_no FROM records ORDER BY id').all() as Array<{id: number; request_id: string; line_no: number}>
    expect(rows).toHaveLength(2 * SPANS)
    const reads = new Map<string, number>()
    const evidence = evidenceReader(tc.db)
    const counted = (fileId: number, offset: number, length: number): Buffer => {
      reads.set(`${fileId}@${offset}`, (reads.get(`${fileId}@${offset}`) ?? 0) + 1)
      return evidence(fileId, offset, length)
    }
    const load = textLoader(recordLocator(tc.db), counted)
    // In record order, then alternating between the two lines (provenance's order is by time).
    const line1 = rows.filter((r) => r.line_no === 1)
    const line2 = rows.filter((r) => r.line_no === 2)
    const orders = [rows, line1.flatMap((r, i) => [r, line2[i]!])]
    for (const order of orders) {
      for (const r of order) {
        const [, line, i] = r.request_id.split('-')
        expect(load(r.id)).toEqual({request_text: `question ${line}.${i}`, response_text: `answer ${line}.${i}`})
      }
    }
    expect([...reads.values()]).toEqual([1, 1])
    // The texts agree with the record-by-record path (decodeRecordTexts over each record's location).
    const locate = recordLocator(tc.db)
    const decoder = lineDecoder(decodeParseSpec(locate(rows[0]!.id)!.parse_spec))
    for (const r of rows) expect(load(r.id)).toEqual(decodeRecordTexts(locate(r.id)!, decoder, evidence))
    tc.db.close()
  })
})
