import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import Database from 'better-sqlite3'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {startCheckpointer} from '../../src/store/checkpointer.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'

const ROOT = join(import.meta.dirname, '..', '..')
const MB = 1 << 20

describe('checkpointer', () => {
  let dir: string
  let db: CaseDb
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crosstalk-ckpt-'))
    db = openCase(join(dir, 'c.case'), {create: true})
    db.exec('CREATE TABLE bulk (n INTEGER PRIMARY KEY, b BLOB)')
  })
  afterEach(() => {
    if (db.open) db.close()
    rmSync(dir, {recursive: true, force: true})
  })

  it('copies a load\'s log into the database file while the writer goes on, and the log starts over', async () => {
    const before = db.pragma('wal_autocheckpoint', {simple: true})
    const c = startCheckpointer(db)
    expect(c).not.toBeNull()
    const insert = db.prepare('INSERT INTO bulk (b) VALUES (?)')
    const blob = Buffer.alloc(MB, 7)
    const file = join(dir, 'c.case')
    /** Waits (up to 20 s, for a loaded host) until the database file holds `bytes`. */
    const fileHolds = async (bytes: number): Promise<boolean> => {
      for (const end = Date.now() + 20_000; Date.now() < end; await sleep(5)) if (statSync(file).size >= bytes) return true
      return false
    }
    let largestLog = 0
    // 48 MB in transactions of 2 MB, each waited for in the file before the next: all under the
    // writer's own threshold while the thread runs (256 MB), so only the thread can move pages
    // into the file. The file may be extended before a checkpoint has copied everything, so a
    // pause follows: a writer that begins once the log is wholly copied starts it over.
    for (let t = 1; t <= 24; t++) {
      db.transaction(() => {
        insert.run(blob)
        insert.run(blob)
      })()
      largestLog = Math.max(largestLog, statSync(join(dir, 'c.case-wal')).size)
      expect(await fileHolds(t * 2 * MB), `transaction ${t} never reached the database file`).toBe(true)
      await sleep(40)
    }
    // Restarted from its beginning rather than grown to hold the whole load (48 MB).
    expect(largestLog).toBeLessThan(24 * MB)
    await c!.stop()
    expect(db.pragma('wal_autocheckpoint', {simple: true})).toBe(before)
    expect(db.prepare('SELECT count(*), sum(length(b)) FROM bulk').raw().get()).toEqual([48, 48 * MB])
    const reopened = new Database(file, {readonly: true})
    expect(reopened.prepare('SELECT count(*) FROM bulk').pluck().get()).toBe(48)
    reopened.close()
  }, 60_000)

  it('stops when asked, in a process with nothing else to wait for', () => {
    // The thread is unref'd while it runs; stop() must hold it again, or Node ends a process
    // that awaits stop() as a top-level await never settled (exit 13) before the rest runs.
    const script = `
      import {join} from 'node:path'
      import {mkdtempSync} from 'node:fs'
      import {tmpdir} from 'node:os'
      const {openCase} = await import(${JSON.stringify(join(ROOT, 'src/store/open-case.ts'))})
      const {startCheckpointer} = await import(${JSON.stringify(join(ROOT, 'src/store/checkpointer.ts'))})
      const db = openCase(join(mkdtempSync(join(tmpdir(), 'ct-')), 'c.db'), {create: true})
      db.exec('CREATE TABLE t (b BLOB)')
      const c = startCheckpointer(db)
      db.prepare('INSERT INTO t VALUES (?)').run(Buffer.alloc(1 << 20))
      await c.stop()
      console.log('after stop', db.prepare('SELECT count(*) FROM t').pluck().get())
    `
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {cwd: ROOT, encoding: 'utf8', timeout: 30_000})
    expect(r.stderr).toBe('')
    expect([r.status, r.stdout.trim()]).toEqual([0, 'after stop 1'])
  })

  it('is not started where it is turned off or has no log to copy', () => {
    const prior = process.env.CROSSTALK_CHECKPOINTER
    process.env.CROSSTALK_CHECKPOINTER = '0'
    try {
      expect(startCheckpointer(db)).toBeNull()
    } finally {
      if (prior === undefined) delete process.env.CROSSTALK_CHECKPOINTER
      else process.env.CROSSTALK_CHECKPOINTER = prior
    }
    const memory = new Database(':memory:')
    expect(startCheckpointer(memory)).toBeNull()
    memory.close()
  })
})
