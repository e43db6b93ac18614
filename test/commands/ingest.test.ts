import Database from 'better-sqlite3'
import {execFileSync, spawn} from 'node:child_process'
import {existsSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {chatLine} from '../helpers/log-lines.js'
import {run, runJson} from '../helpers/commands.js'
import {tempDir} from '../helpers/cli.js'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {openCase} from '../../src/store/open-case.js'

interface IngestJson {
  files: number
  records: number
  duplicates: number
  bad_lines: number
  warnings: string[]
}
interface BadLine {
  file: string
  line: number
  byte_offset: number
  reason: string
}

async function badLines(db: string): Promise<BadLine[]> {
  return (await runJson<{bad_line_list: BadLine[]}>(['status', '--db', db, '--bad-lines'])).bad_line_list
}

describe('crosstalk ingest logs: hostile input is quarantined, good lines around it stored', () => {
  const cases: {name: string; bytes: Buffer; reason: RegExp; badLine: number}[] = [
    {name: 'truncated.jsonl', bytes: Buffer.from(`${chatLine({request_id: 'a1'})}\n${chatLine({request_id: 'a2'}).slice(0, 60)}\n${chatLine({request_id: 'a3'})}\n`), reason: /not valid JSON/, badLine: 2},
    {name: 'nonjson.jsonl', bytes: Buffer.from(`${chatLine({request_id: 'b1'})}\nGET /v1/chat 200\n${chatLine({request_id: 'b3'})}\n`), reason: /not valid JSON/, badLine: 2},
    {name: 'utf8.jsonl', bytes: Buffer.concat([Buffer.from(`${chatLine({request_id: 'c1'})}\n`), Buffer.from(chatLine({request_id: 'c2', prompt: 'xx'}).replace('xx', '\u00ff\u00fe'), 'latin1'), Buffer.from(`\n${chatLine({request_id: 'c3'})}\n`)]), reason: /invalid UTF-8/, badLine: 2},
    {name: 'missing.jsonl', bytes: Buffer.from(`${chatLine({request_id: 'd1'})}\n${chatLine({request_id: 'd2', session_id: undefined})}\n${chatLine({request_id: 'd3'})}\n`), reason: /missing required field session_id/, badLine: 2},
  ]
  for (const c of cases) {
    it(`${c.name}: one bad line with file and line, two records`, async () => {
      const dir = tempDir()
      const file = join(dir, c.name)
      writeFileSync(file, c.bytes)
      const db = join(dir, 'case.db')
      const r = await runJson<IngestJson>(['ingest', 'logs', file, '--db', db])
      expect(r).toMatchObject({files: 1, records: 2, bad_lines: 1, duplicates: 0})
      const [bad] = await badLines(db)
      expect(bad).toMatchObject({file, line: c.badLine})
      expect(bad!.reason).toMatch(c.reason)
      expect(statSync(db).mode & 0o777).toBe(0o600)
    })
  }

  it('a UTF-8 BOM and CRLF line ends are read, and the raw bytes keep them', async () => {
    const dir = tempDir()
    const file = join(dir, 'bom-crlf.jsonl')
    const body = `\ufeff${chatLine({request_id: 'e1'})}\r\n${chatLine({request_id: 'e2'})}\r\n`
    writeFileSync(file, body)
    const db = join(dir, 'case.db')
    const r = await runJson<IngestJson>(['ingest', 'logs', file, '--db', db])
    expect(r).toMatchObject({records: 2, bad_lines: 0})
    expect(r.warnings.join()).toMatch(/byte-order mark/)
    const raw = await run(['show', 'e2', '--raw', '--db', db])
    expect(raw.stdout).toBe(`${chatLine({request_id: 'e2'})}\r`)
  })

  it('an empty file is reported, not an error', async () => {
    const dir = tempDir()
    const file = join(dir, 'empty.jsonl')
    writeFileSync(file, '')
    const r = await run(['ingest', 'logs', file, '--db', join(dir, 'case.db')])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/empty\.jsonl: empty file/)
  })

  it('a truncated .gz keeps every complete line before the cut and says where it broke', async () => {
    const dir = tempDir()
    const lines = Array.from({length: 200}, (_, i) => chatLine({request_id: `g${i}`, prompt: `prompt number ${i} `.repeat(20)}))
    const gz = gzipSync(lines.join('\n') + '\n')
    const file = join(dir, 'cut.jsonl.gz')
    writeFileSync(file, gz.subarray(0, Math.floor(gz.length * 0.6)))
    const db = join(dir, 'case.db')
    // Not read whole: what was read is stored, and the ingest exits 1 with its document as the error's details.
    const r = await run(['ingest', 'logs', file, '--db', db, '--json'])
    expect(r.code).toBe(1)
    const out = (JSON.parse(r.stdout) as {error: {code: string; details: IngestJson}}).error.details
    expect(out.records).toBeGreaterThan(50)
    expect(out.records).toBeLessThan(200)
    expect(out.warnings.join()).toMatch(/cut\.jsonl\.gz: gzip stream is truncated/)
    expect(r.stderr).toMatch(/truncated/)
    // every stored record is one of the originals, byte for byte
    const last = `g${out.records - 1}`
    expect((await run(['show', last, '--raw', '--db', db])).stdout).toBe(lines[out.records - 1])
  })

  it('a .gz damaged before its first whole line is refused as damaged, never as a wrong --log-format', async () => {
    const dir = tempDir()
    const gz = gzipSync(Array.from({length: 50}, (_, i) => chatLine({request_id: `d${i}`, prompt: `prompt ${i} `.repeat(40)})).join('\n') + '\n')
    // Cut inside its first line, and before anything decompressed: neither is an empty file or a format question.
    for (const [name, bytes, why] of [['cut-in-line', 200, /gzip stream is damaged/], ['cut-at-start', 20, /nothing in it could be read \(gzip stream is truncated: it ends inside compressed data after 0 decompressed bytes/]] as const) {
      const file = join(dir, `${name}.jsonl.gz`)
      writeFileSync(file, gz.subarray(0, bytes))
      const r = await run(['ingest', 'logs', file, '--db', join(dir, `${name}.db`)])
      expect(r.code, `${name}: ${r.stderr}`).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`${name}\\.jsonl\\.gz: not ingested: `))
      expect(r.stderr).toMatch(why)
      expect(r.stderr).toContain('to fix: the compressed file is damaged: copy it again from where it was collected')
      expect(r.stderr).not.toMatch(/to fix: --log-format|empty file/)
    }
  })

  it('a 20 MB line is stored, and lines past --max-line-bytes are quarantined with their size', async () => {
    const dir = tempDir()
    const file = join(dir, 'big.jsonl')
    const big = chatLine({request_id: 'big', prompt: 'word '.repeat(4_000_000)})
    writeFileSync(file, `${chatLine({request_id: 'h1'})}\n${big}\n${chatLine({request_id: 'h3'})}\n`)
    expect(big.length).toBeGreaterThan(20_000_000)
    const db = join(dir, 'case.db')
    expect(await runJson<IngestJson>(['ingest', 'logs', file, '--db', db])).toMatchObject({records: 3, bad_lines: 0})
    expect((await run(['show', 'big', '--raw', '--db', db])).stdout.length).toBe(big.length)

    const db2 = join(dir, 'case2.db')
    expect(await runJson<IngestJson>(['ingest', 'logs', file, '--db', db2, '--max-line-bytes', '1000000'])).toMatchObject({records: 2, bad_lines: 1})
    expect((await badLines(db2))[0]).toMatchObject({line: 2, reason: expect.stringMatching(/over --max-line-bytes/)})
  })

  it('a request_id seen twice is one record and one duplicate; re-ingest adds nothing', async () => {
    const dir = tempDir()
    const file = join(dir, 'dup.jsonl')
    writeFileSync(file, `${chatLine({request_id: 'x'})}\n\n   \n${chatLine({request_id: 'x'})}\n${chatLine({request_id: 'y'})}\n`)
    const db = join(dir, 'case.db')
    expect(await runJson<IngestJson>(['ingest', 'logs', file, '--db', db])).toMatchObject({files: 1, records: 2, duplicates: 1, bad_lines: 0})
    expect(await runJson<IngestJson>(['ingest', 'logs', file, '--db', db])).toMatchObject({files: 0, records: 0, duplicates: 3})
  })

  it('an unreadable path is a one-line error with exit 1 and keeps what was stored', async () => {
    const dir = tempDir()
    const good = join(dir, 'good.jsonl')
    writeFileSync(good, `${chatLine({request_id: 'k1'})}\n`)
    const db = join(dir, 'case.db')
    await runJson(['ingest', 'logs', good, '--db', db])
    const r = await run(['ingest', 'logs', good, join(dir, 'missing.jsonl'), '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toMatch(/missing\.jsonl: no such file/)
    expect(r.stderr).not.toMatch(/at .*\.js:\d+/)
    const status = await runJson<{records: number; sightings: number | null; sightings_by_class: unknown}>(['status', '--db', db])
    expect(status.records).toBe(1)
    // Never scanned: status does not say "sightings 0", on the console or in its JSON
    expect(status).toMatchObject({sightings: null, sightings_by_class: null})
    const human = (await run(['status', '--db', db])).stdout
    expect(human).toMatch(/sightings +unknown: the case was never scanned/)
    expect(human).not.toMatch(/sightings +0/)
    expect((await runJson<{sightings: number | null}>(['scan', '--db', db])).sightings).toBe(0)
    expect((await runJson<{sightings: number | null; sightings_by_class: unknown}>(['status', '--db', db]))).toMatchObject({sightings: 0, sightings_by_class: {}})
    const j = await run(['ingest', 'logs', join(dir, 'missing.jsonl'), '--db', db, '--json'])
    expect(JSON.parse(j.stdout)).toEqual({error: {message: expect.stringMatching(/no such file/), code: 'E_NOT_FOUND'}})
  })

  it('a bad CROSSTALK_WORKERS is a one-line error with exit 1 and adds nothing', async () => {
    const dir = tempDir()
    const good = join(dir, 'good.jsonl')
    writeFileSync(good, `${chatLine({request_id: 'w1'})}\n`)
    const db = join(dir, 'case.db')
    const r = await run(['ingest', 'logs', good, '--db', db], {env: {CROSSTALK_WORKERS: 'two'}})
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toEqual([`Error: CROSSTALK_WORKERS must be a whole number of threads (got "two")`])
    // Nothing was recorded, so the case this command would have created is not left behind.
    expect(existsSync(db)).toBe(false)
    expect((await runJson<{records: number}>(['ingest', 'logs', good, '--db', db], {env: {CROSSTALK_WORKERS: '1'}})).records).toBe(1)
  })

  it('--map reads other shapes', async () => {
    const dir = tempDir()
    const file = join(dir, 'other.jsonl')
    writeFileSync(file, JSON.stringify({startTime: '2026-11-02 06:48:30.000001', id: 'm1', metadata: {tenant: 'T', session: 'S'}, output: 'plain answer'}) + '\n')
    const db = join(dir, 'case.db')
    const maps = ['--map', 'ts=startTime', '--map', 'request_id=id', '--map', 'tenant_id=metadata.tenant', '--map', 'session_id=metadata.session', '--map', 'response=output']
    // The time has no zone: refused (nothing kept) until the zone it was written in is named.
    const refused = await run(['ingest', 'logs', file, '--db', db, ...maps])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/other\.jsonl: not ingested: .*has no zone; give --assume-tz/)
    const r = await runJson<IngestJson>(['ingest', 'logs', file, '--db', db, ...maps, '--assume-tz', 'UTC'])
    expect(r.records).toBe(1)
    expect((r as unknown as {per_file: {first_ts: string; last_ts: string}[]}).per_file[0]).toMatchObject({first_ts: '2026-11-02T06:48:30.000Z', last_ts: '2026-11-02T06:48:30.000Z'})
    const shown = await runJson<{ts: string; ts_precise: string; tenant_id: string; response_text: string}>(['show', 'm1', '--db', db, '--show-text'])
    // --json timestamps are toISOString() form; the log's microseconds are kept beside it.
    expect(shown).toMatchObject({ts: '2026-11-02T06:48:30.000Z', ts_precise: '2026-11-02T06:48:30.000001Z', tenant_id: 'T', response_text: 'plain answer'})
    expect((await run(['ingest', 'logs', file, '--db', db, '--map', 'nonsense'])).code).toBe(2)
  })
})

describe('crosstalk verify', () => {
  async function setup(): Promise<{dir: string; db: string}> {
    const dir = tempDir()
    const file = join(dir, 'v.jsonl')
    writeFileSync(file, Array.from({length: 50}, (_, i) => chatLine({request_id: `v${i}`, prompt: `p${i}`})).join('\n') + '\nbad line\n')
    const db = join(dir, 'case.db')
    await runJson(['ingest', 'logs', file, '--db', db])
    return {dir, db}
  }

  it('passes on an untouched case', async () => {
    const {db} = await setup()
    expect(await runJson<{ok: boolean; records_checked: number}>(['verify', '--db', db])).toMatchObject({ok: true, records_checked: 50})
  })

  it('fails naming the record when one byte of a stored raw line is flipped', async () => {
    const {db} = await setup()
    const {inflateSync, deflateSync, crc32} = await import('node:zlib')
    const sql = new Database(db)
    const block = sql.prepare('SELECT file_id, seq, codec, data FROM evidence_blocks').get() as {file_id: number; seq: number; codec: string; data: Buffer}
    const raw = block.codec === 'raw' ? Buffer.from(block.data) : inflateSync(block.data)
    const rec = sql.prepare(`SELECT byte_offset FROM records WHERE request_id = 'v7'`).get() as {byte_offset: number}
    raw[rec.byte_offset + 5]! ^= 0x01
    // A forger who also fixes the block hash is still caught by the record's own checksum.
    sql.prepare('UPDATE evidence_blocks SET data = ?, crc32 = ? WHERE file_id = ? AND seq = ?').run(block.codec === 'raw' ? raw : deflateSync(raw), crc32(raw), block.file_id, block.seq)
    sql.close()
    const r = await run(['verify', '--db', db, '--no-originals'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/record v7 .*line 8/)
    expect(r.stdout).toMatch(/FAIL content: .*v\.jsonl: evidence store does not reproduce the content hash/)
  })

  it('fails naming the block when its stored bytes are corrupted', async () => {
    const {db} = await setup()
    const sql = new Database(db)
    const block = sql.prepare('SELECT file_id, seq, data FROM evidence_blocks').get() as {file_id: number; seq: number; data: Buffer}
    const data = Buffer.from(block.data)
    data[Math.floor(data.length / 2)]! ^= 0xff
    sql.prepare('UPDATE evidence_blocks SET data = ? WHERE file_id = ? AND seq = ?').run(data, block.file_id, block.seq)
    sql.close()
    const r = await run(['verify', '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/block 0/)
  })

  it('fails naming the audit entry when one is altered', async () => {
    const {db} = await setup()
    const sql = new Database(db)
    sql.exec('DROP TRIGGER audit_log_no_update')
    sql.prepare(`UPDATE audit_log SET args = replace(args, 'v.jsonl', 'w.jsonl') WHERE seq = 1`).run()
    sql.close()
    const r = await run(['verify', '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/audit entry 1: content does not match its hash/)
  })

  it('flags an original file changed on disk since ingest', async () => {
    const {dir, db} = await setup()
    writeFileSync(join(dir, 'v.jsonl'), 'changed\n')
    const r = await run(['verify', '--db', db, '--json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout).error.message).toMatch(/v\.jsonl: file on disk (no longer matches|is shorter .* it no longer matches)/)
  })
})

describe('crosstalk ingest logs: one ingest at a time', () => {
  it('refuses while another live ingest holds the case, and goes ahead once it is gone', async () => {
    const dir = tempDir()
    const file = join(dir, 'a.jsonl')
    writeFileSync(file, `${Array.from({length: 5}, (_, i) => chatLine({request_id: `r${i}`})).join('\n')}\n`)
    const db = join(dir, 'case.db')
    expect(await runJson<{records: number}>(['ingest', 'logs', file, '--db', db])).toMatchObject({records: 5})
    // Another live process holds the case, as an ingest in progress would.
    const holder = spawn('sleep', ['30'])
    try {
      const sql = new Database(db)
      sql.prepare('UPDATE case_settings SET ingest_pid = ?').run(holder.pid)
      sql.close()
      const file2 = join(dir, 'b.jsonl')
      writeFileSync(file2, `${chatLine({request_id: 'r9'})}\n`)
      const r = await run(['ingest', 'logs', file2, '--db', db])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(new RegExp(`another ingest, scan or drop \\(process ${holder.pid}\\)`))
      // A scan would judge none of a file being loaded and say zero; verify would read it as tampering.
      const scan = await run(['scan', '--db', db])
      expect(scan.code).toBe(1)
      expect(scan.stderr).toMatch(new RegExp(`another ingest, scan or drop \\(process ${holder.pid}\\)`))
      const verify = await run(['verify', '--db', db])
      expect(verify.code).toBe(1)
      expect(verify.stderr).toMatch(new RegExp(`an ingest, scan or drop \\(process ${holder.pid}\\) is writing to this case: verify it when that has finished`))
    } finally {
      holder.kill()
    }
    // A holder that no longer runs does not block.
    const sql2 = new Database(db)
    sql2.prepare(`UPDATE case_settings SET ingest_pid = 999999999`).run()
    sql2.close()
    const file2 = join(dir, 'b.jsonl')
    expect(await runJson<{records: number}>(['ingest', 'logs', file2, '--db', db])).toMatchObject({records: 1})
  })
})

describe('crosstalk ingest logs --compress-evidence', () => {
  it('stores deflated blocks that verify, show and show --raw read back exactly', async () => {
    const dir = tempDir()
    const file = join(dir, 'c.jsonl')
    const lines = Array.from({length: 40}, (_, i) => chatLine({request_id: `c${i}`, prompt: `prompt ${i} `.repeat(200), answer: `answer ${i}`}))
    writeFileSync(file, `${lines.join('\n')}\n`)
    const db = join(dir, 'case.db')
    expect(await runJson<{records: number}>(['ingest', 'logs', file, '--db', db, '--compress-evidence'])).toMatchObject({records: 40})
    const sql = new Database(db, {readonly: true})
    const codecs = sql.prepare('SELECT DISTINCT codec FROM evidence_blocks').pluck().all()
    sql.close()
    expect(codecs).toEqual(['deflate'])
    expect(await runJson<{ok: boolean}>(['verify', '--db', db])).toMatchObject({ok: true})
    expect((await run(['show', 'c17', '--db', db, '--raw'])).stdout).toBe(lines[17])
    expect(await runJson<{response_text: string}>(['show', 'c17', '--db', db, '--show-text'])).toMatchObject({response_text: 'answer 17'})
  })
})

describe('crosstalk ingest logs: inputs that are not regular files', () => {
  it('refuses a FIFO without a writer at once (it would block), before anything is stored', async () => {
    const dir = tempDir()
    const good = join(dir, 'a.jsonl')
    writeFileSync(good, `${chatLine({request_id: 'a1'})}\n`)
    const fifo = join(dir, 'b.jsonl')
    execFileSync('mkfifo', [fifo])
    const db = join(dir, 'case.db')
    const r = await run(['ingest', 'logs', good, fifo, '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain(`${fifo}: not a regular file`)
    // Checked up front: no case was left behind.
    expect(existsSync(db)).toBe(false)
  })

  it('refuses /dev/zero instead of reading it for ever', async () => {
    const dir = tempDir()
    const r = await run(['ingest', 'logs', '/dev/zero', '--db', join(dir, 'case.db')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/\/dev\/zero: not a regular file/)
  })
})

describe('crosstalk ingest logs: a file that fails mid-run', () => {
  it('keeps what was stored, rebuilds the indexes and releases the case', async () => {
    const dir = tempDir()
    const good = join(dir, 'a.jsonl')
    writeFileSync(good, `${chatLine({request_id: 'a1'})}\n`)
    const big = join(dir, 'b.jsonl')
    writeFileSync(big, `${Array.from({length: 400}, (_, i) => chatLine({request_id: `b${i}`, prompt: `p${i} `.repeat(2000)})).join('\n')}\n`)
    const db = join(dir, 'case.db')
    await runJson(['ingest', 'logs', good, '--db', db])
    // The disk fills up while the second file is stored: SQLite says SQLITE_FULL (a page limit
    // on the connection stands in for the disk).
    const conn = openCase(db)
    conn.pragma(`max_page_count = ${(conn.pragma('page_count', {simple: true}) as number) + 8}`)
    const failure = await ingestLogs(conn, {paths: [big], now: () => new Date(), workers: 0}).then(() => null, (e: Error) => e)
    conn.close()
    expect(failure?.message).toBe(
      `${db}: no space left to write the case (SQLITE_FULL) while storing ${big}; free space, then run the same ingest again (${big} stays unfinished and is redone; files completed before it are kept)`,
    )
    expect(await runJson<{records: number; incomplete_files: number}>(['status', '--db', db])).toMatchObject({records: 1, incomplete_files: 1})
    const sql = new Database(db, {readonly: true})
    const indexes = sql.prepare(`SELECT name FROM sqlite_master WHERE name IN ('records_by_source_request', 'pii_values_by_value') ORDER BY name`).pluck().all()
    const holder = sql.prepare(`SELECT ingest_pid FROM case_settings`).pluck().get()
    sql.close()
    expect(indexes).toEqual(['pii_values_by_value', 'records_by_source_request'])
    expect(holder).toBeNull()
    const next = join(dir, 'c.jsonl')
    // c1 first: a file that begins with a.jsonl's bytes would be its longer version (read from where a.jsonl ends).
    writeFileSync(next, `${chatLine({request_id: 'c1'})}\n${chatLine({request_id: 'a1'})}\n`)
    expect(await runJson<{records: number; duplicates: number}>(['ingest', 'logs', next, '--db', db])).toMatchObject({records: 1, duplicates: 1})
  })
})
