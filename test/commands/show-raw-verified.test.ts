import Database from 'better-sqlite3'
import {copyFileSync, existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA (verify): `show --raw` printed a record's stored bytes after checking them only against
// the CRC-32 stored beside them; a block edited by hand with the record's CRC-32 updated to
// match was printed as the original line, exit 0. It now reads the file's evidence again
// against the SHA-256 its ingest's audit entry recorded before printing anything.

const answer = (text: string) => ({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: text}}]})
const line = (id: string, text: string): string => JSON.stringify({status: 200, ts: '2026-11-02T10:00:00Z', request_id: id, tenant_id: 'tA', session_id: 'sA', request: {messages: [{role: 'user', content: 'hi'}]}, response: answer(text)})
const lines = [line('r1', 'the first answer'), line('r2', 'the true answer')]

let dir: string
let base: string

beforeAll(async () => {
  dir = tempDir()
  writeFileSync(join(dir, 'gateway.jsonl'), `${lines.join('\n')}\n`)
  base = join(dir, 'case.db')
  await runJson(['ingest', 'logs', join(dir, 'gateway.jsonl'), '--db', base])
})

/** r2's line rewritten in the evidence block, with its record's CRC-32 (and the block's) updated to match: what a forger with sqlite does. */
function forged(): string {
  const path = join(dir, 'forged.db')
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  const db = new Database(path)
  const block = db.prepare('SELECT file_id, seq, codec, data FROM evidence_blocks ORDER BY seq LIMIT 1').get() as {file_id: number; seq: number; codec: string; data: Buffer}
  expect(block.codec).toBe('raw')
  const data = Buffer.from(block.data.toString('latin1').replace('the true answer', 'a false answer!'), 'latin1')
  expect(data.equals(block.data)).toBe(false)
  const r2 = db.prepare(`SELECT byte_offset, byte_len FROM records WHERE request_id = 'r2'`).get() as {byte_offset: number; byte_len: number}
  db.prepare('UPDATE evidence_blocks SET data = ?, crc32 = ? WHERE file_id = ? AND seq = ?').run(data, crc32(data), block.file_id, block.seq)
  db.prepare(`UPDATE records SET raw_crc32 = ? WHERE request_id = 'r2'`).run(crc32(data.subarray(r2.byte_offset, r2.byte_offset + r2.byte_len)))
  db.close()
  return path
}

describe('show --raw checks what it prints', () => {
  it('prints the untouched line, with or without --verified, and says nothing was left unchecked', async () => {
    for (const extra of [[], ['--verified']]) {
      const r = await run(['show', 'r2', '--raw', '--db', base, ...extra])
      expect(r.code).toBe(0)
      expect(r.stdout).toBe(lines[1])
      expect(r.stderr).not.toMatch(/show --raw/)
    }
  })

  it('prints nothing of a line whose block and CRC-32 were rewritten together, naming the audited hash', async () => {
    const path = forged()
    for (const extra of [[], ['--verified']]) {
      const r = await run(['show', 'r2', '--raw', '--db', path, ...extra])
      expect(r.code).toBe(1)
      expect(r.stdout).not.toContain('false answer')
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/gateway\.jsonl.* line 2: not printed: the evidence the case holds for .*gateway\.jsonl.* no longer gives the SHA-256 its ingest recorded \(audit entry \d+\)/)
    }
  })

  it('says on stderr what it could not check, and --verified then refuses', async () => {
    // A file no audit entry records (its SHA-256 edited): nothing audited to check it against.
    const path = join(dir, 'unaudited.db')
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
    const db = new Database(path)
    db.prepare(`UPDATE files SET sha256 = ? WHERE kind = 'log'`).run('ab'.repeat(32))
    db.close()
    const r = await run(['show', 'r2', '--raw', '--db', path])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(lines[1])
    expect(r.stderr).toMatch(/show --raw: .*line 2 checked against the CRC-32 recorded for it at ingest .* only: no audit entry records the ingest of/)
    const v = await run(['show', 'r2', '--raw', '--verified', '--db', path])
    expect(v.code).toBe(1)
    expect(v.stdout).toBe('')
    expect(v.stderr).toMatch(/not printed \(--verified\): no audit entry records the ingest of/)
  })

  it('--verified needs --raw', async () => {
    const r = await run(['show', 'r2', '--verified', '--db', base])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--raw/)
  })
})
