import Database from 'better-sqlite3'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {diskFullError} from '../../src/cli/base-command.js'
import {tempDir} from '../helpers/cli.js'

describe('a full disk met while writing the case', () => {
  // SQLite's own SQLITE_FULL, made by capping the database's pages (a full file system needs a mount).
  function sqliteFull(): Error & {code?: unknown} {
    const db = new Database(join(tempDir(), 'full.db'))
    try {
      db.exec('CREATE TABLE t (x TEXT)')
      db.pragma('max_page_count = 2')
      db.prepare('INSERT INTO t VALUES (?)').run('x'.repeat(100_000))
    } catch (error) {
      return error as Error & {code?: unknown}
    } finally {
      db.close()
    }
    throw new Error('no SQLITE_FULL')
  }

  it('is one line naming the case, the full disk and what was kept, not SQLite\'s bare words', () => {
    const error = sqliteFull()
    expect(error.message).toBe('database or disk is full')
    const wrapped = diskFullError(error, ['/cases/c.db'])
    expect(wrapped?.message).toMatch(/^\/cases\/c\.db: the disk holding the case is full \(SQLITE_FULL: database or disk is full\); .*everything committed before it is kept: free space, then run the same command again$/)
    expect(wrapped?.code).toBe('E_DISK_FULL')
    expect(wrapped?.exit).toBe(1)
  })

  it('leaves other errors alone', () => {
    expect(diskFullError(Object.assign(new Error('disk I/O error'), {code: 'SQLITE_IOERR'}), ['/cases/c.db'])).toBeNull()
  })
})

describe("a full disk met by scan's thread", () => {
  it('is named as the full disk holding the case, though the thread carried it over as a CliError with SQLite\'s code', async () => {
    const {CliError} = await import('../../src/errors.js')
    // What scan-thread.ts rejects with when the worker met SQLITE_FULL.
    const carried = Object.assign(new CliError('database or disk is full', 'SQLITE_FULL', 1), {name: 'SqliteError'})
    const wrapped = diskFullError(carried, ['/cases/c.db'])
    expect(wrapped?.code).toBe('E_DISK_FULL')
    expect(wrapped?.message).toMatch(/^\/cases\/c\.db: the disk holding the case is full \(SQLITE_FULL: database or disk is full\); .*free space, then run the same command again$/)
  })
})
