import Database from 'better-sqlite3'
import {copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// Tampering that used to crash verify (a RangeError, a TypeError from a null line, a "database
// connection is busy" appended to the error) must come out as named problems: file, line, what.

let dir: string
let copy: string
let reference: string
let original: string

beforeAll(async () => {
  dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  original = join(logs, 'gateway.jsonl')
  // Over 64 KiB a line of evidence blocks: a few hundred lines of ~1 KB fill several blocks.
  const lines = Array.from({length: 400}, (_, i) =>
    chatLine({request_id: `r${i}`, tenant_id: `tenant-${i % 3}`, session_id: `s${i % 7}`, ts: new Date(Date.UTC(2026, 10, 2, 6, 0, i)).toISOString(), prompt: `question ${i} ${'lorem ipsum '.repeat(80)}`}),
  )
  writeFileSync(original, `${lines.join('\n')}\n`)
  copy = join(dir, 'copy.db')
  reference = join(dir, 'reference.db')
  await runJson(['ingest', 'logs', original, '--db', copy])
  await runJson(['ingest', 'logs', original, '--evidence', 'reference', '--db', reference])
})

let copies = 0
function tampered(base: string, sql: string): string {
  const path = join(dir, `tampered-${++copies}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  const db = new Database(path)
  db.exec(sql)
  db.close()
  return path
}

async function verify(path: string): Promise<{code: number; out: string}> {
  const r = await run(['verify', '--db', path])
  return {code: r.code, out: r.stdout + r.stderr}
}

function noCrash(out: string): void {
  expect(out).not.toMatch(/TypeError|RangeError|Invalid time value|busy executing/)
}

describe('verify names tampering it used to crash on', () => {
  it('two evidence blocks swapped', async () => {
    const r = await verify(tampered(copy, `UPDATE evidence_blocks SET seq = -1 WHERE seq = 2; UPDATE evidence_blocks SET seq = 2 WHERE seq = 3; UPDATE evidence_blocks SET seq = 3 WHERE seq = -1;`))
    expect(r.code).toBe(1)
    noCrash(r.out)
    expect(r.out).toMatch(/FAIL block: \S*gateway\.jsonl block 2: starts at byte \d+, where the blocks before it end at \d+/)
  })

  it('a second record pointing at the line of another', async () => {
    const r = await verify(tampered(copy, `INSERT INTO records (file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id, status, stream, response_kind, is_error)
      SELECT file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id || 'x', ts, ts_ms, tenant_id, session_id, status, stream, response_kind, is_error FROM records WHERE request_id = 'r10'`))
    expect(r.code).toBe(1)
    noCrash(r.out)
    expect(r.out).toMatch(/FAIL line: record r10x \(\S*gateway\.jsonl line 11\): points at the line record r10 already accounts for/)
  })

  it('an original kept by reference replaced by other bytes of the same size', async () => {
    const saved = readFileSync(original)
    try {
      writeFileSync(original, Buffer.alloc(statSync(original).size, 0x41))
      const r = await verify(reference)
      expect(r.code).toBe(1)
      noCrash(r.out)
      expect(r.out).toMatch(/FAIL original: \S*gateway\.jsonl: changed: no longer matches the SHA-256 recorded at ingest/)
    } finally {
      writeFileSync(original, saved)
    }
  })

  it('an original kept by reference missing: one named problem, nothing appended', async () => {
    const saved = readFileSync(original)
    try {
      rmSync(original)
      const r = await verify(reference)
      expect(r.code).toBe(1)
      noCrash(r.out)
      expect(r.out).toMatch(/FAIL original: \S*gateway\.jsonl: missing/)
    } finally {
      writeFileSync(original, saved)
    }
  })
})
