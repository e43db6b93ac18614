import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {HashTable} from '../../src/detect/provenance/hash-table.js'
import {extractLogs} from '../../src/scale/extract-logs.js'
import {readParquetRows} from '../../src/scale/parquet-io.js'
import {verifyCandidates, type VerifyTask} from '../../src/scale/verify-candidates.js'
import {makeCase, type RecordInput, type TestCase} from '../helpers/case-builder.js'

// provenance-verify runs scan's own attribution (attribute.ts) on candidates the Spark job
// counted, so it must give scan's answer, chain rule included: a response that repeats an
// earlier answer that was itself a copy is attributed to the original source, not to the copy,
// and that needs the responses of a group attributed in time order, whatever order the job
// hands them over in.

let c: TestCase | undefined
afterEach(() => c?.close())

const words = (prefix: string, n: number): string => Array.from({length: n}, (_, i) => `${prefix}${i}x${(i * 7919) % 997}`).join(' ')
// X: what tenant-a's user sent. Y: what tenant-b was answered besides (after the stale page gave it X).
const X = words('alpha', 30)
const Y = words('bravo', 24)

const at = (s: number): number => Date.parse('2026-11-02T06:00:00.000Z') + s * 1000
const records: RecordInput[] = [
  {request_id: 'a1', tenant_id: 'tenant-a', session_id: 'sa', request_text: `please keep this: ${X}`, response_text: 'noted, thank you', decode_node: 'd1', ts_ms: at(1)},
  // b1 received A's text (a copy of a prompt), with more of its own.
  {request_id: 'b1', tenant_id: 'tenant-b', session_id: 'sb', request_text: 'what is the weather like', response_text: `${X} ${Y}`, decode_node: 'd1', ts_ms: at(2)},
  // c1 received b1's answer (a copy of a copy): the original source is a1's prompt.
  {request_id: 'c1', tenant_id: 'tenant-c', session_id: 'sc', request_text: 'tell me a story', response_text: `${X} ${Y} the end`, decode_node: 'd1', ts_ms: at(3)},
  // An unrelated pair, a group of its own.
  {request_id: 'd1', tenant_id: 'tenant-d', session_id: 'sd', request_text: `my notes ${words('charlie', 20)}`, response_text: 'ok', decode_node: 'd2', ts_ms: at(4)},
  {request_id: 'e1', tenant_id: 'tenant-e', session_id: 'se', request_text: 'hello', response_text: `${words('charlie', 20)}`, decode_node: 'd2', ts_ms: at(5)},
]

describe('provenance-verify (verifyCandidates)', () => {
  it("gives scan's attributions, chain rule included, whatever order the tasks come in", async () => {
    c = makeCase()
    const file = await c.addFile(records)
    scanCase(c.db, {now: new Date('2026-11-03T00:00:00.000Z')})
    const scan = c.db
      .prepare(`SELECT r.request_id, s.request_id AS source, p.matched, p.overlap_words, p.word_start, p.overlap_sha256, p.candidates
                  FROM provenance p JOIN records r ON r.id = p.record_id JOIN records s ON s.id = p.source_record_id ORDER BY r.id`)
      .all() as Array<Record<string, unknown>>
    // The chain: c1 is attributed to a1's prompt, the original, though b1's answer shares more with it.
    expect(scan.map((p) => [p.request_id, p.source, p.matched])).toEqual([['b1', 'a1', 'prompt'], ['c1', 'a1', 'prompt'], ['e1', 'd1', 'prompt']])

    // The tasks the job would hand over: each response with its candidates (earlier postings of other sessions).
    const out = await extractLogs({paths: [file], outDir: join(c.dir, 'x')})
    const rows = (await readParquetRows(out.per_file[0]!.extract)).filter((r) => r.kind === 'record')
    const uri = out.per_file[0]!.uri
    const line = (id: string): VerifyTask['r'] => {
      const r = rows.find((x) => x.request_id === id)!
      return {
        file_idx: 0, ord: Number(r.ord), line_no: Number(r.line_no), item: Number(r.item), offset: Number(r.byte_offset), length: Number(r.byte_len),
        crc: Number(r.crc32), companions: [], ts_ms: Number(r.ts_ms), node: r.decode_node as string, tenant_id: String(r.tenant_id), session_id: String(r.session_id), copy: false,
      }
    }
    const cand = (id: string, part: 0 | 1, n: number): VerifyTask['c'][number] => ({...line(id), part, n})
    const tasks: VerifyTask[] = [
      {r: line('e1'), named: [], c: [cand('d1', 0, 4)]},
      {r: line('c1'), named: [], c: [cand('b1', 1, 9), cand('a1', 0, 5)]},
      {r: line('b1'), named: [], c: [cand('a1', 0, 5)]},
    ]
    const shards = [{file_idx: 0, uri, parse_spec: '{"format":"native"}'}]
    const verified = await verifyCandidates(tasks, {shards, minWords: 12, boilerplate: new HashTable(16)})
    const name = (ord: number): string => String(rows.find((r) => Number(r.ord) === ord)!.request_id)
    const mine = verified
      .map((v) => ({request_id: name(v.ord), source: name(v.source_ord), matched: v.matched, overlap_words: v.overlap_words, word_start: v.word_start, overlap_sha256: v.overlap_sha256, candidates: v.candidates}))
      .sort((a, b) => a.request_id.localeCompare(b.request_id))
    expect(mine).toEqual(scan)

    // Without b1's own attribution (its task in another group), c1 would be given to the copy: the groups must keep them together.
    const alone = await verifyCandidates([tasks[1]!], {shards, minWords: 12, boilerplate: new HashTable(16)})
    expect(name(alone[0]!.source_ord)).toBe('b1')
  })
})
