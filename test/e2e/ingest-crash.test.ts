import Database from 'better-sqlite3'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {chatLine} from '../helpers/log-lines.js'
import {spawnCli, runJson, tempDir} from '../helpers/cli.js'

describe('kill -9 during ingest', () => {
  it('re-running the same ingest ends with exactly the records of one clean ingest, and verify passes', async () => {
    const dir = tempDir()
    const file = join(dir, 'big.jsonl')
    const n = 60_000
    const lines: string[] = []
    for (let i = 0; i < n; i++) lines.push(chatLine({request_id: `r${i}`, session_id: `s${i % 97}`, prompt: `prompt ${i} `.repeat(30)}))
    lines.splice(1234, 0, lines[77]!) // one duplicate
    lines.splice(5000, 0, '{"broken":') // one bad line
    writeFileSync(file, lines.join('\n') + '\n')
    const db = join(dir, 'case.db')

    const child = spawnCli(['ingest', 'logs', file, '--db', db])
    // Wait until some batches are committed, then kill without warning.
    const killedAt = await new Promise<number>((resolve, reject) => {
      const started = Date.now()
      const timer = setInterval(() => {
        try {
          const sql = new Database(db, {readonly: true, fileMustExist: true})
          const count = sql.prepare('SELECT count(*) FROM records').pluck().get() as number
          sql.close()
          if (count > 0) {
            child.kill('SIGKILL')
            clearInterval(timer)
            resolve(count)
          }
        } catch {
          // not created yet
        }
        if (Date.now() - started > 60_000) (clearInterval(timer), reject(new Error('ingest never committed a batch')))
      }, 20)
    })
    await new Promise((r) => child.on('exit', r))
    expect(killedAt).toBeGreaterThan(0)
    expect(killedAt).toBeLessThan(n)

    const again = runJson<{records: number; duplicates: number; bad_lines: number}>(['ingest', 'logs', file, '--db', db])
    expect(again).toMatchObject({records: n, duplicates: 1, bad_lines: 1})
    expect(runJson<{records: number; files: number; incomplete_files: number}>(['status', '--db', db])).toMatchObject({records: n, files: 1, incomplete_files: 0})
    expect(runJson<{ok: boolean; records_checked: number}>(['verify', '--db', db])).toMatchObject({ok: true, records_checked: n})
  })
})
