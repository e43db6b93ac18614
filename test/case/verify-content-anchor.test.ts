import Database from 'better-sqlite3'
import {createHash} from 'node:crypto'
import {copyFileSync, cpSync, existsSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {crc32, gzipSync} from 'node:zlib'
import {beforeAll, describe, expect, it} from 'vitest'
import {canonicalJson} from '../../src/util/canonical-json.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// QA (integrity, finding 1): verify compared the evidence a case holds (or the original it
// reads by reference) only with files.content_sha256, a column no audit entry records. A
// forger who altered an answer and adjusted that column and the record's CRC-32 passed
// `verify --expect-head`. The content must be the one the audit log speaks for: an
// uncompressed file's audited SHA-256; a compressed one's content hash, which its ingest's
// entry now records, or, for a case ingested before, the original decompressed again.

const A = 'CANARY-aaaaaaaaaaaaaaaa1111'
const B = 'CANARY-bbbbbbbbbbbbbbbb2222'
const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex')

let dir: string
let copyCase: string
let refDir: string
let refCase: string
let head: string

function lines(prefix: string): string {
  return `${[
    chatLine({request_id: `${prefix}1`, tenant_id: 'tenant-a', session_id: 'a1', ts: '2026-11-02T06:00:00.000Z', prompt: `${A} hello`, answer: 'all quiet here'}),
    chatLine({request_id: `${prefix}2`, tenant_id: 'tenant-b', session_id: 'b1', ts: '2026-11-02T06:01:00.000Z', prompt: `${B} hello`, answer: 'all quiet there'}),
  ].join('\n')}\n`
}

async function headOf(db: string): Promise<string> {
  const s = await runJson<{audit_head: string; audit_entries: number}>(['status', '--db', db])
  return `${s.audit_head}:${s.audit_entries}`
}

beforeAll(async () => {
  dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,a1,\n${B},tenant-b,b1,\n`)
  writeFileSync(join(dir, 'plain.jsonl'), lines('p'))
  writeFileSync(join(dir, 'packed.jsonl.gz'), gzipSync(Buffer.from(lines('g'))))
  copyCase = join(dir, 'copy.db')
  await runJson(['ingest', 'canaries', canaries, '--db', copyCase])
  await runJson(['ingest', 'logs', join(dir, 'plain.jsonl'), join(dir, 'packed.jsonl.gz'), '--db', copyCase])
  await runJson(['scan', '--db', copyCase])
  head = await headOf(copyCase)
  refDir = join(dir, 'ref')
  cpSync(join(dir, 'plain.jsonl'), join(refDir, 'plain.jsonl'))
  refCase = join(dir, 'ref.db')
  await runJson(['ingest', 'canaries', canaries, '--db', refCase])
  await runJson(['ingest', 'logs', join(refDir, 'plain.jsonl'), '--evidence', 'reference', '--db', refCase])
  await runJson(['scan', '--db', refCase])
})

let copies = 0
function copyOf(base: string): string {
  const path = join(dir, `tampered-${++copies}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  return path
}

/**
 * Replaces `from` by `to` (same length) in a file's content as the case holds it, and adjusts
 * what verify compared it with before: the block's CRC-32, the record's, content_sha256. With
 * `original`, the original on disk is the one edited (kept by reference).
 */
function rewriteAnswer(path: string, name: string, from: string, to: string, original?: string): void {
  const db = new Database(path)
  const file = db.prepare('SELECT id FROM files WHERE name = ?').get(name) as {id: number}
  let content: Buffer
  if (original) {
    content = readFileSync(original)
  } else {
    const blocks = db.prepare('SELECT seq, data FROM evidence_blocks WHERE file_id = ? ORDER BY seq').all(file.id) as Array<{seq: number; data: Buffer}>
    content = Buffer.concat(blocks.map((b) => b.data))
  }
  const at = content.indexOf(from)
  expect(at).toBeGreaterThan(0)
  const altered = Buffer.concat([content.subarray(0, at), Buffer.from(to), content.subarray(at + from.length)])
  if (original) writeFileSync(original, altered)
  else {
    let offset = 0
    for (const b of db.prepare('SELECT seq, data FROM evidence_blocks WHERE file_id = ? ORDER BY seq').all(file.id) as Array<{seq: number; data: Buffer}>) {
      const data = altered.subarray(offset, offset + b.data.length)
      offset += b.data.length
      db.prepare('UPDATE evidence_blocks SET data = ?, crc32 = ? WHERE file_id = ? AND seq = ?').run(data, crc32(data), file.id, b.seq)
    }
  }
  const record = db.prepare('SELECT id, byte_offset, byte_len FROM records WHERE file_id = ? AND byte_offset <= ? AND byte_offset + byte_len > ?').get(file.id, at, at) as {id: number; byte_offset: number; byte_len: number}
  db.prepare('UPDATE records SET raw_crc32 = ? WHERE id = ?').run(crc32(altered.subarray(record.byte_offset, record.byte_offset + record.byte_len)), record.id)
  db.prepare('UPDATE files SET content_sha256 = ? WHERE id = ?').run(sha(altered), file.id)
  db.close()
}

async function verify(path: string, ...extra: string[]): Promise<{code: number; out: string}> {
  const r = await run(['verify', '--db', path, ...extra])
  return {code: r.code, out: r.stdout + r.stderr}
}

describe('verify ties the content it checks to the audit log', () => {
  it('passes the untouched cases', async () => {
    expect((await verify(copyCase, '--expect-head', head)).code).toBe(0)
    expect((await verify(refCase)).code).toBe(0)
  })

  it('fails a copied plain file whose stored answer was altered, with content hash and CRC-32 adjusted', async () => {
    const t = copyOf(copyCase)
    rewriteAnswer(t, 'plain.jsonl', 'all quiet here', 'ALL QUIET HERE')
    const r = await verify(t, '--expect-head', head)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL content: .*plain\.jsonl: its content hash is [0-9a-f]{16}…, not its SHA-256, which its ingest recorded/)
  })

  it('fails a .gz whose stored content was altered, against the content hash its ingest recorded', async () => {
    const t = copyOf(copyCase)
    rewriteAnswer(t, 'packed.jsonl.gz', 'all quiet there', 'ALL QUIET THERE')
    const r = await verify(t, '--expect-head', head, '--no-originals')
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL content: .*packed\.jsonl\.gz: its content hash is [0-9a-f]{16}…, not the content hash audit entry \d+ recorded/)
  })

  it('fails a by-reference original edited in place at the same size', async () => {
    const t = copyOf(refCase)
    const saved = readFileSync(join(refDir, 'plain.jsonl'))
    try {
      rewriteAnswer(t, 'plain.jsonl', 'all quiet here', 'ALL QUIET HERE', join(refDir, 'plain.jsonl'))
      const r = await verify(t)
      expect(r.code).toBe(1)
      expect(r.out).toMatch(/FAIL content: .*plain\.jsonl: its content hash is [0-9a-f]{16}…, not its SHA-256/)
      // --deep reads the original again for the findings: named with its path as the place, not after an empty one.
      const deep = await verify(t, '--deep')
      expect(deep.code).toBe(1)
      expect(deep.out).not.toMatch(/FAIL original: : /)
      expect(deep.out).toMatch(/FAIL original: \S*plain\.jsonl: kept by reference, and its original has changed/)
    } finally {
      writeFileSync(join(refDir, 'plain.jsonl'), saved)
    }
  })
})

/** The case as an earlier version wrote it: the ingest's entry without the content hash (the chain rebuilt, as that version would have). */
function withoutAuditedContent(path: string): void {
  const db = new Database(path)
  db.exec('DROP TRIGGER IF EXISTS audit_log_no_update')
  const entries = db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as Array<Record<string, unknown>>
  let prev: string | null = null
  for (const e of entries) {
    const summary = JSON.parse(e.summary as string) as {files?: Array<Record<string, unknown>>}
    for (const f of summary.files ?? []) {
      delete f.content_sha256
      delete f.content_size
    }
    const {hash: _old, ...rest} = e
    const body: Record<string, unknown> = {...rest, summary: canonicalJson(summary), prev_hash: prev ?? e.prev_hash}
    const hash: string = createHash('sha256').update(canonicalJson(body)).digest('hex')
    db.prepare('UPDATE audit_log SET summary = ?, prev_hash = ?, hash = ? WHERE seq = ?').run(body.summary, body.prev_hash, hash, e.seq)
    prev = hash
  }
  db.exec("CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END")
  db.close()
}

describe('a .gz ingested before its content hash was audited', () => {
  it('is decompressed again from its original and compared', async () => {
    const legacy = copyOf(copyCase)
    withoutAuditedContent(legacy)
    const ok = await verify(legacy)
    expect(ok.out).not.toMatch(/FAIL/)
    expect(ok.code).toBe(0)
    expect(ok.out).not.toMatch(/compressed file whose stored content/)
    const t = copyOf(legacy)
    rewriteAnswer(t, 'packed.jsonl.gz', 'all quiet there', 'ALL QUIET THERE')
    const r = await verify(t)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL content: .*packed\.jsonl\.gz: its content hash \(.*\) is not that of the original decompressed again/)
  })

  it('is named as not checked, never passed in silence, when its original cannot be read', async () => {
    const legacy = copyOf(copyCase)
    withoutAuditedContent(legacy)
    const r = await verify(legacy, '--no-originals')
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/Not checked: 1 compressed file whose stored content is tied to nothing the audit log records .*packed\.jsonl\.gz \(originals not read\)/)
    const gone = join(dir, 'gone')
    cpSync(join(dir, 'packed.jsonl.gz'), `${gone}.gz`)
    rmSync(join(dir, 'packed.jsonl.gz'))
    try {
      const missing = await verify(legacy)
      expect(missing.out).toMatch(/Not checked: 1 compressed file .*packed\.jsonl\.gz \(no longer on disk, or unreadable\)/)
    } finally {
      cpSync(`${gone}.gz`, join(dir, 'packed.jsonl.gz'))
    }
  })
})
