import {existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {spawnSync} from 'node:child_process'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {gzipSync} from 'node:zlib'
import {afterEach, beforeAll, describe, expect, it} from 'vitest'
import {buildRegistry, classifySighting, markerTokens, promptPrefix, promptSearch, resolveTokens} from '../../src/extract/markers.js'
import type {ParseSpec} from '../../src/extract/parse-spec.js'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {fileNotes} from '../../src/ingest/ingest-file.js'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {fingerprintKey} from '../../src/scale/extract-parquet.js'
import {extractLogs, planShards} from '../../src/scale/extract-logs.js'
import type {ShardFacts} from '../../src/scale/extract-shard.js'
import {readParquetRows} from '../../src/scale/parquet-io.js'
import {openCase} from '../../src/store/open-case.js'
import {makeCase, rng, hex, type TestCase} from '../helpers/case-builder.js'
import {BATCH_CUSTOM_ID_PATTERN, convertIncident, type ConvertedIncident} from '../helpers/convert-formats.js'
import {chatLine} from '../helpers/log-lines.js'

// `crosstalk extract` is the per-record map of the Spark audit: it must see log files exactly
// as `ingest logs` does, in every format ingest reads (the same records at the same lines,
// items and offsets with the same CRCs, read with the same other lines; the same bad lines and
// items; the same per-file facts and notes once duplicates are decided), give the same bytes
// every time, and carry what the echo check needs without the registry.

let c: TestCase | undefined
afterEach(() => c?.close())

const lines = [
  '\ufeff' + chatLine({request_id: 'r1', prompt: 'my mail is ana@example.org', answer: 'Sure: CANARY-0123456789abcdef0123 and some more words here'}),
  '',
  'not json at all',
  chatLine({request_id: 'r2', session_id: 's2', prompt: 'paste CANARY-0123456789ABCDEF please', answer: 'echo CANARY-0123456789abcdef0123'}),
  chatLine({request_id: 'r1', answer: 'a duplicate request id'}),
  '   ',
  chatLine({request_id: 'r3', tenant_id: 'tenant-b', answer: 'call +44 20 7946 0958 now'}) + '\r',
]

type Row = Record<string, unknown>

describe('crosstalk extract', () => {
  it('removes the temporary extracts a killed extract left in --out (its pid ended), naming them, and leaves a live one\'s', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ct-extract-stale-'))
    const file = join(dir, 'shard.jsonl')
    writeFileSync(file, lines.join('\n') + '\n')
    const out = join(dir, 'x')
    mkdirSync(out)
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!
    writeFileSync(join(out, `.extract-${dead}-0.parquet.tmp`), 'half an extract')
    writeFileSync(join(out, `.extract-${process.ppid}-0.parquet.tmp`), 'being written')
    const said: string[] = []
    const res = await extractLogs({paths: [file], outDir: out, onStale: (m) => said.push(m)})
    expect(res.files).toBe(1)
    expect(existsSync(join(out, `.extract-${dead}-0.parquet.tmp`))).toBe(false)
    expect(existsSync(join(out, `.extract-${process.ppid}-0.parquet.tmp`))).toBe(true)
    expect(said).toEqual([`${out}: removed 1 temporary extract that an interrupted extract left there (.extract-${dead}-0.parquet.tmp)`])
  })

  it('reads a shard as ingest does: the same records, offsets, CRCs, line numbers, bad lines, PII hashes and fingerprints', async () => {
    c = makeCase()
    const file = join(c.dir, 'shard.jsonl')
    writeFileSync(file, lines.join('\n') + '\n')
    await ingestLogs(c.db, {paths: [file], now: () => new Date('2026-11-03T00:00:00.000Z'), workers: 0})
    const stored = c.db.prepare('SELECT line_no, item, byte_offset, byte_len, raw_crc32, request_id FROM records ORDER BY id').all() as Row[]
    const badStored = c.db.prepare('SELECT line_no, item, byte_offset, byte_len, reason FROM bad_lines ORDER BY id').all() as Row[]

    const res = await extractLogs({paths: [file], outDir: join(c.dir, 'x')})
    const rows = await readParquetRows(res.per_file[0]!.extract)
    const recs = rows.filter((r) => r.kind === 'record')
    // Duplicates are decided downstream (across shards): the extract has every record, numbered in ingest's order.
    expect(recs.map((r) => r.request_id)).toEqual(['r1', 'r2', 'r1', 'r3'])
    expect(recs.map((r) => r.ord)).toEqual([0, 1, 2, 3])
    const firsts = recs.filter((r, i) => recs.findIndex((x) => x.request_id === r.request_id) === i)
    expect(firsts.map((r) => ({line_no: r.line_no, item: r.item, byte_offset: r.byte_offset, byte_len: r.byte_len, raw_crc32: r.crc32, request_id: r.request_id}))).toEqual(stored)
    expect(rows.filter((r) => r.kind === 'bad').map((r) => ({line_no: r.line_no, item: r.item, byte_offset: r.byte_offset, byte_len: r.byte_len, reason: r.reason}))).toEqual(badStored)
    const shard = JSON.parse(String(rows.at(-1)!.shard)) as ShardFacts
    const file_ = c.db.prepare(`SELECT sha256, lines, blank_lines, notes FROM files WHERE kind = 'log'`).get() as Row
    const notes = fileNotes({...shard, notes: Object.fromEntries(shard.record_notes), records: 3, no_request_text: 0, no_response_text: 0, no_response: 0, error_records: 0}, shard.unread)
    expect({sha256: shard.sha256, lines: shard.lines, blank_lines: shard.blank_lines, notes: JSON.stringify(notes)}).toEqual(file_)
    // The PII values and fingerprints are ingest's (pii_values, fingerprints), hash for hash.
    const pii = c.db.prepare('SELECT kind, value_sha256 FROM pii_values v JOIN records r ON r.id = v.record_id ORDER BY r.id, in_response, kind').all()
    expect(firsts.flatMap((r) => (r.pii as Row[]).map((p) => ({kind: p.kind, value_sha256: Buffer.from(p.sha256 as Uint8Array).toString('hex')})))).toEqual(pii)
    const fps = c.db.prepare('SELECT prompt_fp FROM fingerprints ORDER BY record_id').pluck().all() as Buffer[]
    const asKeys = (b: Buffer): number[] => {
      const u = new Uint32Array(new Uint8Array(b).buffer)
      const out: number[] = []
      for (let i = 0; i < u.length; i += 2) out.push(Number(fingerprintKey(u[i]!, u[i + 1]!)))
      return out
    }
    expect(firsts.map((r) => r.prompt_fp)).toEqual(fps.map(asKeys))
  })

  it('gives byte-identical Parquet for the same shard, plain or gzip', async () => {
    c = makeCase()
    const plain = join(c.dir, 'a.jsonl')
    writeFileSync(plain, lines.join('\n') + '\n')
    const gz = join(c.dir, 'b.jsonl.gz')
    writeFileSync(gz, gzipSync(readFileSync(plain)))
    const one = await extractLogs({paths: [plain, gz], outDir: join(c.dir, 'one')})
    const two = await extractLogs({paths: [plain, gz], outDir: join(c.dir, 'two')})
    for (let i = 0; i < 2; i++) expect(readFileSync(one.per_file[i]!.extract).equals(readFileSync(two.per_file[i]!.extract))).toBe(true)
    expect(one.per_file[0]!.record_lines).toBe(one.per_file[1]!.record_lines)
    expect(one.ratio).toBeGreaterThan(0)
  })
})

describe('crosstalk extract reads every log format as ingest does', () => {
  let dir = ''
  let converted: ConvertedIncident
  beforeAll(async () => {
    dir = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), 'extract-formats-'))
    await generateIncident({out: join(dir, 'incident'), records: 600, seed: 23})
    converted = convertIncident(join(dir, 'incident', 'logs'), join(dir, 'converted'))
  }, 120_000)

  // companions: whether records are read with other lines (a set read for its trace index only, as Langfuse's, joins no record to another line).
  const cases: Array<{name: string; files: () => string[]; parse?: Omit<ParseSpec, 'format'>; joined: boolean; companions?: false; multiItem?: boolean}> = [
    {name: 'native', files: () => [join(dir, 'incident', 'logs')], joined: false},
    {name: 'otel (spans several to a line, content in the logs file)', files: () => [converted.otel.traces, converted.otel.logs], joined: true, multiItem: true},
    {name: 'langfuse (read as one set for its traces)', files: () => [converted.langfuse], joined: true, companions: false},
    {name: 'litellm', files: () => [converted.litellm], parse: {assume_tz: 'UTC'}, joined: false},
    {name: 'openai-batch (output joined with its input)', files: () => [converted.batch.input, converted.batch.output, converted.batch.errors], parse: {custom_id_pattern: BATCH_CUSTOM_ID_PATTERN, batch_ts: '2026-11-03T00:00:00Z'}, joined: true},
  ]

  for (const k of cases) {
    it(k.name, async () => {
      const caseDir = mkdtempSync(join(dir, 'case-'))
      const db = openCase(join(caseDir, 'case.db'), {create: true})
      try {
        const ingested = await ingestLogs(db, {paths: k.files(), parse: k.parse, now: () => new Date('2026-11-03T00:00:00.000Z'), workers: 0})
        expect(ingested.refused_files).toBe(0)
        const plan = await planShards(k.files(), {parse: k.parse})
        expect(plan.units.some((u) => u.joined)).toBe(k.joined)
        const res = await extractLogs({paths: k.files(), parse: k.parse, outDir: join(caseDir, 'x')})
        // Ingest's reading order is the plan's, file by file.
        expect(res.per_file.map((f) => f.path)).toEqual(plan.shards)
        const pathOf = (uri: unknown): string => fileURLToPath(String(uri))
        const extracted: Array<{path: string; rows: Row[]; facts: ShardFacts}> = []
        for (const f of res.per_file) {
          const rows = await readParquetRows(f.extract)
          extracted.push({path: f.path, rows, facts: JSON.parse(String(rows.at(-1)!.shard)) as ShardFacts})
        }
        // Records: the first occurrence of each request id, in reading order, is the record ingest stored.
        const seen = new Set<string>()
        const firsts: Array<Row & {path: string}> = []
        for (const e of extracted) {
          for (const r of e.rows.filter((x) => x.kind === 'record')) {
            if (seen.has(String(r.request_id))) continue
            seen.add(String(r.request_id))
            firsts.push({...r, path: e.path})
          }
        }
        const stored = db.prepare(`SELECT r.id, f.abs_path AS path, r.line_no, r.item, r.byte_offset, r.byte_len, r.raw_crc32, r.request_id, r.ts_ms
                                     FROM records r JOIN files f ON f.id = r.file_id ORDER BY r.id`).all() as Row[]
        expect(stored.length).toBeGreaterThan(500)
        const mine = firsts.map((r) => ({path: r.path, line_no: r.line_no, item: r.item, byte_offset: r.byte_offset, byte_len: r.byte_len, raw_crc32: r.crc32, request_id: r.request_id, ts_ms: r.ts_ms}))
        expect(mine).toEqual(stored.map(({id: _id, ...rest}) => rest))
        // The other lines each record was read with.
        const companions = db.prepare(`SELECT c.record_id, f.abs_path AS path, c.line_no, c.byte_offset, c.byte_len, c.raw_crc32 FROM record_companions c JOIN files f ON f.id = c.file_id ORDER BY c.record_id, c.seq`).all() as Row[]
        const byRecord = new Map<number, Row[]>()
        for (const x of companions) byRecord.set(Number(x.record_id), [...(byRecord.get(Number(x.record_id)) ?? []), {path: x.path, line_no: x.line_no, offset: x.byte_offset, length: x.byte_len, crc: x.raw_crc32}])
        expect(firsts.map((r) => (r.companions as Row[]).map((x) => ({path: pathOf(x.uri), line_no: x.line_no, offset: x.offset, length: x.length, crc: x.crc})))).toEqual(
          stored.map((s) => byRecord.get(Number(s.id)) ?? []),
        )
        if (k.joined && k.companions !== false) expect(companions.length).toBeGreaterThan(0)
        if (k.multiItem) expect(firsts.filter((r) => Number(r.item) > 0).length).toBeGreaterThan(100)
        // Bad lines and items.
        const bad = db.prepare(`SELECT f.abs_path AS path, b.line_no, b.item, b.byte_offset, b.byte_len, b.reason FROM bad_lines b JOIN files f ON f.id = b.file_id ORDER BY b.id`).all()
        expect(extracted.flatMap((e) => e.rows.filter((r) => r.kind === 'bad').map((r) => ({path: e.path, line_no: r.line_no, item: r.item, byte_offset: r.byte_offset, byte_len: r.byte_len, reason: r.reason})))).toEqual(bad)
        // Per file: format, hashes, counts, and the notes ingest stored, from the extract's facts and the counts after duplicates.
        const files = db.prepare(`SELECT abs_path AS path, log_format, sha256, content_sha256, lines, blank_lines, bad_lines, ignored_items, notes, no_request_text, no_response_text FROM files WHERE kind = 'log' ORDER BY id`).all() as Row[]
        const facts = extracted.map((e) => {
          const mineOf = firsts.filter((r) => r.path === e.path)
          const counts = {
            records: mineOf.length, no_request_text: mineOf.filter((r) => r.no_request_text).length, no_response_text: mineOf.filter((r) => r.no_response_text).length,
            no_response: mineOf.filter((r) => r.no_response).length, error_records: mineOf.filter((r) => r.is_error).length,
          }
          const notes = fileNotes({...e.facts, ...counts, notes: Object.fromEntries(e.facts.record_notes)}, e.facts.unread)
          return {
            path: e.path, log_format: e.facts.log_format, sha256: e.facts.sha256, content_sha256: e.facts.content_sha256, lines: e.facts.lines,
            blank_lines: e.facts.blank_lines, bad_lines: e.facts.bad_lines, ignored_items: e.facts.ignored_items, notes: notes.length ? JSON.stringify(notes) : null,
            no_request_text: counts.no_request_text, no_response_text: counts.no_response_text,
          }
        })
        expect(facts).toEqual(files)
      } finally {
        db.close()
      }
    }, 120_000)
  }
})

describe('the echo check without the registry (promptPrefix)', () => {
  it('is the most of the hex, from its first digit, that the prompt holds after CANARY- (hex in either case)', () => {
    const t = {token: 'CANARY-0123456789ABCDEF0123', position: 0}
    expect(promptPrefix(t, () => 'nothing here')).toBe(0)
    expect(promptPrefix(t, () => 'paste CANARY-0123456789abcdef please')).toBe(16)
    expect(promptPrefix(t, () => 'CANARY-01 CANARY-0123456789aBcDeF0123 and CANARY-0123')).toBe(20)
    // The hex alone (a hash, an id a user pasted) is not the marker; nor is `canary-` in another case.
    expect(promptPrefix(t, () => '0123456789abcdef0123 and 0123')).toBe(0)
    expect(promptPrefix(t, () => 'CANARY- 0123456789abcdef0123, paste canary-0123456789abcdef0123')).toBe(0)
    expect(promptPrefix(t, () => 'x CANARY-01234 y')).toBe(5)
  })

  it('agrees with classifySighting on every needle, for random prompts and registries', () => {
    const rand = rng(19)
    for (let n = 0; n < 300; n++) {
      const marker = `CANARY-${hex(rand, 16 + Math.floor(rand() * 8))}`
      const other = `CANARY-${hex(rand, 16)}`
      const registry = buildRegistry([
        {marker_key: marker.toLowerCase().replace('canary-', 'CANARY-'), marker, tenant_id: 't2', session_id: 's2'},
        {marker_key: other, marker: other, tenant_id: 't2', session_id: 's3'},
      ])
      // The response holds the marker, a prefix of it (a partial), or the marker run into more hex.
      const shape = Math.floor(rand() * 3)
      const token = shape === 0 ? marker : shape === 1 ? marker.slice(0, 7 + 16 + Math.floor(rand() * (marker.length - 23))) : marker + hex(rand, 3)
      // The prompt holds some prefix of the marker, in some case, or only its hex (never an echo).
      const cut = Math.floor(rand() * (marker.length - 6)) + 7
      const pasted = marker.slice(0, cut)
      const form = Math.floor(rand() * 3)
      const prompt = `${hex(rand, 4)} ${form === 0 ? pasted.toUpperCase() : form === 1 ? pasted : pasted.slice(7)} tail`
      const tokens = markerTokens(`x ${token} y`)
      const found = [...resolveTokens(tokens, registry).values()]
      for (const f of found) {
        if (!f.registered) continue
        const expected = classifySighting(f, {tenant: 't1', session: 's1', promptHas: promptSearch(() => prompt)}).class === 'echo'
        const needle = f.partial ? f.hex!.length : f.registered.key.length - 7
        const prefix = promptPrefix(tokens.find((t) => t.token === f.token)!, () => prompt)
        expect(prefix >= needle, `${token} / ${prompt}`).toBe(expected)
        if (form === 2) expect(expected, prompt).toBe(false)
      }
    }
  })
})
