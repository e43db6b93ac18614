import Database from 'better-sqlite3'
import {closeSync, openSync, readSync, writeSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// Bytes flipped in an index's pages: SQLite's integrity_check calls the case malformed, and
// verify --deep, which re-derives every row through SQLite, called it sound (exit 0).

const A = 'CANARY-00112233445566778899aabb'
const line = (i: number): string =>
  JSON.stringify({ts: `2026-11-03T01:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`, request_id: `r-${i}`, tenant_id: `tn-${i % 7}`, session_id: `s-${i}`, status: 200, request: `hello ${i}`, response: `answer ${i}`})

/** Flips 150 bytes near the end of each of the first leaf pages of the case's largest index. */
function damageAnIndex(path: string): string {
  const sql = new Database(path)
  sql.pragma('wal_checkpoint(TRUNCATE)')
  const pageSize = sql.pragma('page_size', {simple: true}) as number
  const index = sql.prepare(`SELECT name FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE type = 'index') GROUP BY name ORDER BY count(*) DESC, name LIMIT 1`).pluck().get() as string
  const pages = sql.prepare(`SELECT pageno FROM dbstat WHERE name = ? ORDER BY pageno LIMIT 3`).pluck().all(index) as number[]
  sql.close()
  const fd = openSync(path, 'r+')
  try {
    for (const p of pages) {
      const at = (p - 1) * pageSize + pageSize - 200
      const bytes = Buffer.alloc(150)
      readSync(fd, bytes, 0, 150, at)
      writeSync(fd, Buffer.from(bytes.map((b) => (b + 1) % 256)), 0, 150, at)
    }
  } finally {
    closeSync(fd)
  }
  return index
}

describe('verify and a malformed case file', () => {
  it('fails, naming what SQLite found, where integrity_check finds the file malformed', async () => {
    const dir = tempDir()
    const canaries = join(dir, 'reg.csv')
    writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tn-a,sess-a,2026-11-01T00:00:00Z\n`)
    const log = join(dir, 'app.jsonl')
    writeFileSync(log, `${Array.from({length: 3000}, (_, i) => line(i)).join('\n')}\n`)
    const db = join(dir, 'c.db')
    await runJson(['triage', log, '--canaries', canaries, '--db', db])
    const sound = await runJson<{ok: boolean; database_check: string}>(['verify', '--db', db, '--deep'])
    expect(sound.ok).toBe(true)
    damageAnIndex(db)
    const check = new Database(db, {readonly: true})
    const sqlite = check.pragma('integrity_check(3)') as Array<{integrity_check: string}>
    check.close()
    expect(sqlite[0]!.integrity_check).not.toBe('ok')
    const r = await run(['verify', '--db', db, '--deep', '--json'])
    expect(r.code, r.stderr).toBe(1)
    const {error} = JSON.parse(r.stdout) as {error: {code: string; details: {problems: Array<{kind: string; detail: string}>}}}
    expect(error.code).toBe('E_VERIFY_FAILED')
    expect(error.details.problems.some((p) => p.kind === 'database' && p.detail.includes('integrity_check'))).toBe(true)
    expect(sound.database_check).toBe('full')
  }, 120_000)
})
