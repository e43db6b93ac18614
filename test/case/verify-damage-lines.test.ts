import Database from 'better-sqlite3'
import {copyFileSync, existsSync, statSync, truncateSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// QA (integrity, findings 7 and 8): a case whose settings row was deleted failed every command
// with a bare JavaScript TypeError; a case file cut short made verify print SQLite's finding
// with its line break as a literal \n.

const A = 'CANARY-aaaaaaaaaaaaaaaa1111'
let dir: string
let base: string

beforeAll(async () => {
  dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,a1,\n`)
  const logs = join(dir, 'gateway.jsonl')
  writeFileSync(logs, `${Array.from({length: 3000}, (_, i) => chatLine({request_id: `r${i}`, tenant_id: `tenant-${i % 5}`, session_id: `s${i}`, ts: '2026-11-02T06:00:00.000Z', prompt: `hello ${i} ${i === 0 ? A : ''}`, answer: `answer number ${i}`})).join('\n')}\n`)
  base = join(dir, 'case.db')
  await runJson(['triage', logs, '--canaries', canaries, '--db', base])
}, 120_000)

let copies = 0
function copy(): string {
  const path = join(dir, `copy-${++copies}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  return path
}

describe('a damaged case is named in one line', () => {
  it('names the missing settings row, for status and verify', async () => {
    const path = copy()
    const sql = new Database(path)
    sql.exec('DELETE FROM case_settings')
    sql.close()
    for (const command of ['status', 'verify']) {
      const r = await run([command, '--db', path])
      expect(r.code).toBe(1)
      expect(r.stdout + r.stderr).not.toMatch(/Cannot read properties/)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/the case settings row \(case id, registry version, pool size\) is missing: the case was damaged outside crosstalk/)
    }
  })

  it('prints no escaped line break in the SQLite check of a case file cut short', async () => {
    const path = copy()
    const sql = new Database(path)
    sql.pragma('wal_checkpoint(TRUNCATE)')
    sql.close()
    truncateSync(path, statSync(path).size - 4096)
    const r = await run(['verify', '--db', path])
    expect(r.code).toBe(1)
    expect(r.stdout + r.stderr).toMatch(/FAIL database: .*quick_check/)
    expect(r.stdout + r.stderr).not.toMatch(/\\n/)
  })
})
