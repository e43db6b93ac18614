import Database from 'better-sqlite3'
import {copyFileSync, existsSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, inject, it} from 'vitest'
import {convertIncident} from '../helpers/convert-formats.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A file of a format that is not walked line by line (here Langfuse) is verified item by item
// against its evidence blocks. A block removed from the middle must be named as a gap, like
// the line walk names it, and the records after it still compared at their true offsets.

let dir: string
let base: string

beforeAll(async () => {
  dir = tempDir()
  const incident = inject('incident')
  const converted = convertIncident(incident.logs, join(dir, 'converted'))
  base = join(dir, 'case.db')
  await runJson(['ingest', 'logs', converted.langfuse, '--db', base, '--log-format', 'auto'])
}, 120_000)

function copyCase(edit: (sql: Database.Database) => void): string {
  const path = join(dir, `copy-${Math.random().toString(36).slice(2)}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  const sql = new Database(path)
  edit(sql)
  sql.close()
  return path
}

describe('verify of a file read item by item', () => {
  it('passes untouched, and names a block removed from the middle as a gap', async () => {
    const ok = await run(['verify', '--db', base, '--no-originals'])
    expect(ok.code, ok.stdout + ok.stderr).toBe(0)
    let gap = {seq: 0, start: 0, end: 0}
    const path = copyCase((sql) => {
      const blocks = sql.prepare('SELECT seq, raw_offset, raw_len FROM evidence_blocks ORDER BY seq').all() as Array<{seq: number; raw_offset: number; raw_len: number}>
      expect(blocks.length).toBeGreaterThanOrEqual(3)
      const middle = blocks[Math.floor(blocks.length / 2)]!
      const next = blocks[Math.floor(blocks.length / 2) + 1]!
      gap = {seq: next.seq, start: next.raw_offset, end: middle.raw_offset}
      sql.pragma('writable_schema = 0')
      for (const t of sql.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'evidence_blocks'").all() as Array<{name: string}>) sql.exec(`DROP TRIGGER ${t.name}`)
      sql.prepare('DELETE FROM evidence_blocks WHERE seq = ?').run(middle.seq)
    })
    const r = await run(['verify', '--db', path, '--no-originals'])
    expect(r.code).toBe(1)
    const out = r.stdout + r.stderr
    expect(out).toContain(`block ${gap.seq}: starts at byte ${gap.start}, where the blocks before it end at ${gap.end}`)
    // only the records whose bytes were in the removed block are reported, not every one after it
    const total = (new Database(base, {readonly: true}).prepare('SELECT count(*) AS n FROM records').get() as {n: number}).n
    const reported = 1 + Number(/\(and (\d+) more problems\)/.exec(out)?.[1])
    expect(out).toMatch(/line \d+\): its bytes are not in the evidence store \(the block that held them is missing\)/)
    expect(out).not.toContain('stored raw bytes differ')
    expect(reported).toBeGreaterThan(1)
    expect(reported).toBeLessThan(total / 10)
  }, 120_000)
})
