import Database from 'better-sqlite3'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {caseWriteError} from '../../src/cli/base-command.js'
import {openCase} from '../../src/store/open-case.js'
import {inTransaction} from '../../src/store/session.js'
import {tempDir} from '../helpers/cli.js'

// Two `incident open` at once: one failed with SQLite's bare "database is locked". Its
// transaction read first and wrote after; another command's write in between made the upgrade to
// a write lock impossible (SQLITE_BUSY at once, whatever the busy timeout).

describe('a transaction that reads, then writes', () => {
  it('holds the write lock from its start: a write of another connection in between waits, and this one commits', () => {
    const path = join(tempDir(), 'c.db')
    openCase(path, {create: true}).close()
    const db = openCase(path)
    const other = new Database(path)
    other.pragma('busy_timeout = 0')
    let otherWrote: boolean | null = null
    try {
      inTransaction(db, () => {
        db.prepare('SELECT count(*) FROM audit_log').get()
        try {
          other.prepare('UPDATE case_settings SET pool_tokens = 7').run()
          otherWrote = true
        } catch (error) {
          expect((error as {code?: string}).code).toMatch(/^SQLITE_BUSY/)
          otherWrote = false
        }
        db.prepare('UPDATE case_settings SET pool_tokens = 9').run()
      })
      expect(otherWrote).toBe(false)
      expect(other.prepare('SELECT pool_tokens FROM case_settings').pluck().get()).toBe(9)
    } finally {
      other.close()
      db.close()
    }
  })
})

describe("SQLite's bare words, met outside the places that say more", () => {
  it('"database is locked" and "disk I/O error" become one line naming the case and what to do', () => {
    const busy = caseWriteError(Object.assign(new Error('database is locked'), {code: 'SQLITE_BUSY'}), ['/cases/c.db'])
    expect(busy?.message).toMatch(/^\/cases\/c\.db: the case is locked by another process \(SQLITE_BUSY: database is locked\); try again when it has finished$/)
    expect(busy?.code).toBe('E_BUSY')
    const io = caseWriteError(Object.assign(new Error('disk I/O error'), {code: 'SQLITE_IOERR_WRITE'}), ['/cases/c.db'])
    expect(io?.message).toMatch(/^\/cases\/c\.db: writing the case failed \(SQLITE_IOERR_WRITE: disk I\/O error\); .*run the same command again$/)
    expect(io?.exit).toBe(1)
    expect(caseWriteError(new Error('something else'), ['/cases/c.db'])).toBeNull()
  })
})
