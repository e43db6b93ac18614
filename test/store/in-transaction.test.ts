import Database from 'better-sqlite3'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
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
