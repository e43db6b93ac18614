import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {afterEach, describe, expect, it} from 'vitest'
import {classifySighting, resolveTokens, buildRegistry, markerTokens} from '../../src/extract/markers.js'
import {fingerprintKey} from '../../src/scale/extract-parquet.js'
import {extractLogs} from '../../src/scale/extract-logs.js'
import {promptPrefix} from '../../src/scale/extract-shard.js'
import {readParquetRows} from '../../src/scale/parquet-io.js'
import {makeCase, rng, hex, type TestCase} from '../helpers/case-builder.js'
import {chatLine} from '../helpers/log-lines.js'

// `crosstalk extract` is the per-record map of the Spark audit: it must see a log file exactly
// as `ingest logs` does (the same records at the same offsets with the same CRCs, the same bad
// lines), give the same bytes every time, and carry what the echo check needs without the
// registry.

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

describe('crosstalk extract', () => {
  it('reads a shard as ingest does: the same records, offsets, CRCs, line numbers and bad lines', async () => {
    c = makeCase()
    const file = join(c.dir, 'shard.jsonl')
    writeFileSync(file, lines.join('\n') + '\n')
    const {ingestLogs} = await import('../../src/ingest/ingest-logs.js')
    await ingestLogs(c.db, {paths: [file], now: () => new Date('2026-11-03T00:00:00.000Z'), workers: 0})
    const stored = c.db.prepare('SELECT line_no, byte_offset, byte_len, raw_crc32, request_id FROM records ORDER BY id').all() as Array<Record<string, unknown>>
    const badStored = c.db.prepare('SELECT line_no, byte_offset, byte_len, reason FROM bad_lines ORDER BY id').all() as Array<Record<string, unknown>>

    const res = await extractLogs({paths: [file], outDir: join(c.dir, 'x')})
    const rows = await readParquetRows(res.per_file[0]!.extract)
    const recs = rows.filter((r) => r.kind === 'record')
    // Duplicates are decided downstream (across shards): the extract has every record line.
    expect(recs.map((r) => r.request_id)).toEqual(['r1', 'r2', 'r1', 'r3'])
    const firsts = recs.filter((r, i) => recs.findIndex((x) => x.request_id === r.request_id) === i)
    expect(firsts.map((r) => ({line_no: r.line_no, byte_offset: r.byte_offset, byte_len: r.byte_len, raw_crc32: r.crc32, request_id: r.request_id}))).toEqual(stored)
    expect(rows.filter((r) => r.kind === 'bad').map((r) => ({line_no: r.line_no, byte_offset: r.byte_offset, byte_len: r.byte_len, reason: r.reason}))).toEqual(badStored)
    const shard = JSON.parse(String(rows.at(-1)!.shard)) as Record<string, unknown>
    const file_ = c.db.prepare(`SELECT sha256, lines, blank_lines, notes FROM files WHERE kind = 'log'`).get() as Record<string, unknown>
    expect({sha256: shard.sha256, lines: shard.lines, blank_lines: shard.blank_lines, notes: JSON.stringify(shard.notes)}).toEqual(file_)
    // The PII values and fingerprints are ingest's (pii_values, fingerprints), hash for hash.
    const pii = c.db.prepare('SELECT kind, value_sha256 FROM pii_values v JOIN records r ON r.id = v.record_id ORDER BY r.id, in_response, kind').all()
    expect(firsts.flatMap((r) => (r.pii as Array<Record<string, unknown>>).map((p) => ({kind: p.kind, value_sha256: Buffer.from(p.sha256 as Uint8Array).toString('hex')})))).toEqual(pii)
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

describe('the echo check without the registry (promptPrefix)', () => {
  it('is the longest prefix of the hex the lower-cased prompt holds', () => {
    const t = {token: 'CANARY-0123456789ABCDEF0123', position: 0}
    expect(promptPrefix(t, () => 'nothing here')).toBe(0)
    expect(promptPrefix(t, () => 'paste canary-0123456789abcdef please')).toBe(16)
    expect(promptPrefix(t, () => '0123456789abcdef0123 and 0123')).toBe(20)
    expect(promptPrefix(t, () => 'x 01234 y')).toBe(5)
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
      // The prompt holds some prefix of the marker, in some case.
      const cut = Math.floor(rand() * (marker.length - 6)) + 7
      const pasted = marker.slice(0, cut)
      const prompt = `${hex(rand, 4)} ${rand() < 0.5 ? pasted.toUpperCase() : pasted} tail`
      const tokens = markerTokens(`x ${token} y`)
      const found = [...resolveTokens(tokens, registry).values()]
      for (const f of found) {
        if (!f.registered) continue
        const expected = classifySighting(f, {tenant: 't1', session: 's1', promptLower: () => prompt.toLowerCase()}).class === 'echo'
        const needle = f.partial ? f.hex!.length : f.registered.key.length - 7
        const prefix = promptPrefix(tokens.find((t) => t.token === f.token)!, () => prompt.toLowerCase())
        expect(prefix >= needle, `${token} / ${prompt}`).toBe(expected)
      }
    }
  })
})
