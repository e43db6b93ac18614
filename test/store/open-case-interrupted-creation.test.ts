import Database from 'better-sqlite3'
import {chmodSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {CASE_APPLICATION_ID, LATEST_SCHEMA, openCase} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA crash #2: a kill while a new case was being created left an SQLite file with its header
// written (WAL turned on) and no table, at schema 0. status and verify called it a case that
// "has schema 0 and needs migrating ... run crosstalk timeline", which then failed too.

/** What a killed creation leaves: WAL on, no table, schema 0; `mark`: the case mark written first (this version) or not (earlier ones). */
function interruptedCreation(mark: boolean): string {
  const path = join(tempDir('ct-int-create-'), 'c.db')
  const db = new Database(path)
  db.pragma('page_size = 32768')
  if (mark) db.pragma(`application_id = ${CASE_APPLICATION_ID}`)
  db.pragma('journal_mode = WAL')
  db.close()
  // Created 0600 before SQLite touched it, as openCase creates a case.
  chmodSync(path, 0o600)
  return path
}

describe('a case whose creation was interrupted', () => {
  for (const mark of [true, false]) {
    it(`${mark ? 'marked' : 'unmarked'}: read-only commands say so in one line (exit 1), not "needs migrating"`, async () => {
      const path = interruptedCreation(mark)
      expect(() => openCase(path, {readonly: true})).toThrow(/creation was interrupted before anything was stored.*run the ingest or triage again/)
      for (const command of ['status', 'verify']) {
        const r = await run([command, '--db', path])
        expect(r.code, r.stderr).toBe(1)
        expect(r.stderr).not.toMatch(/needs migrating|crosstalk timeline/)
        expect(r.stderr.trim().split('\n')).toHaveLength(1)
        expect(r.stderr).toMatch(/creation was interrupted before anything was stored/)
      }
    })
  }

  it('a command that creates cases completes it', () => {
    const path = interruptedCreation(true)
    const db = openCase(path, {create: true})
    try {
      expect(db.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
      expect(db.pragma('application_id', {simple: true})).toBe(CASE_APPLICATION_ID)
    } finally {
      db.close()
    }
  })
})
