import Database from 'better-sqlite3'
import {chmodSync, copyFileSync, existsSync, mkdirSync, statSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {CASE_APPLICATION_ID, LATEST_SCHEMA, openCase, openFailure} from '../../src/store/open-case.js'
import {getSettings} from '../../src/store/settings.js'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

describe('openCase', () => {
  it('creates a case 0600, marked as a crosstalk case, at the latest schema, with its settings row', () => {
    const path = join(tempDir(), 'new.db')
    const db = openCase(path, {create: true})
    try {
      expect(statSync(path).mode & 0o777).toBe(0o600)
      expect(db.pragma('application_id', {simple: true})).toBe(CASE_APPLICATION_ID)
      expect(db.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
      expect(getSettings(db)).toMatchObject({registry_version: 0, pool_tokens: null, case_id: expect.stringMatching(/^[0-9a-f]{32}$/)})
    } finally {
      db.close()
    }
  })

  it('has a new case in its database file, not only in its log, when it returns (made without a sync per step, synced once made)', () => {
    const dir = tempDir()
    const path = join(dir, 'new.db')
    const db = openCase(path, {create: true})
    try {
      // The file alone, without its -wal: SQLite deletes the log of a database file that reads as
      // empty, so a case whose schema was only in the log could lose every later commit to a crash.
      const alone = join(dir, 'alone.db')
      copyFileSync(path, alone)
      const copy = new Database(alone, {readonly: true})
      try {
        expect(copy.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
        expect(copy.pragma('application_id', {simple: true})).toBe(CASE_APPLICATION_ID)
        expect((copy.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as {n: number}).n).toBeGreaterThan(10)
      } finally {
        copy.close()
      }
      expect(db.pragma('journal_mode', {simple: true})).toBe('wal')
    } finally {
      db.close()
    }
    // Every later write syncs as in a case opened again.
    const again = openCase(path)
    const made = openCase(join(dir, 'other.db'), {create: true})
    try {
      expect(made.pragma('synchronous', {simple: true})).toBe(again.pragma('synchronous', {simple: true}))
    } finally {
      made.close()
      again.close()
    }
  })

  it('refuses a case written before the schema was squashed, by name, and changes nothing', () => {
    const path = join(tempDir(), 'old.db')
    const old = new Database(path)
    old.exec("CREATE TABLE files (id INTEGER PRIMARY KEY); CREATE TABLE records (id INTEGER PRIMARY KEY); PRAGMA user_version = 6")
    old.close()
    expect(() => openCase(path)).toThrow(/written by a development version of crosstalk before its schema was squashed \(schema 6\)/)
    const after = new Database(path, {readonly: true})
    expect(after.pragma('user_version', {simple: true})).toBe(6)
    after.close()
  })

  it('refuses a case from a newer crosstalk, and another program\'s database', () => {
    const future = join(tempDir(), 'future.db')
    const f = new Database(future)
    f.pragma(`application_id = ${CASE_APPLICATION_ID}`)
    f.pragma(`user_version = ${LATEST_SCHEMA + 1}`)
    f.close()
    expect(() => openCase(future)).toThrow(/newer than this crosstalk knows/)
    const other = join(tempDir(), 'other.db')
    const o = new Database(other)
    o.exec('CREATE TABLE things (x)')
    o.close()
    expect(() => openCase(other, {create: true})).toThrow(/not a crosstalk case/)
  })

  it('an existing empty file given as the case becomes a case with mode 0600; a reader refuses it', () => {
    const path = join(tempDir(), 'empty.db')
    writeFileSync(path, '', {mode: 0o644})
    expect(() => openCase(path)).toThrow(/empty file, not a case database/)
    openCase(path, {create: true}).close()
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  it('says, before rebuilding them, how many indexes an interrupted ingest left suspended; a new or a whole case says nothing', () => {
    const path = join(tempDir(), 'suspended.db')
    const notices: string[] = []
    const fresh = openCase(path, {create: true, onSlowStart: (m) => notices.push(m)})
    fresh.exec(`INSERT INTO files (kind, path, name, abs_path, sha256, size, compression, log_format, source, state, started_at, records)
                VALUES ('log', 'a.jsonl', 'a.jsonl', '/a.jsonl', 'x', 1, 'none', 'native', 'default', 'loading', 'now', 1234)`)
    // What a bulk load killed mid-way leaves: two record indexes dropped and remembered.
    for (const name of ['records_by_ts', 'records_by_session']) {
      const sql = fresh.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).pluck().get(name) as string
      fresh.prepare('INSERT INTO suspended_indexes (name, sql) VALUES (?, ?)').run(name, sql)
      fresh.exec(`DROP INDEX ${name}`)
    }
    fresh.close()
    expect(notices).toEqual([])
    const db = openCase(path, {onSlowStart: (m) => notices.push(m)})
    try {
      expect(notices).toEqual([`${path}: rebuilding 2 indexes an interrupted ingest left suspended, over 1,234 records (once)`])
      expect(db.prepare(`SELECT count(*) FROM sqlite_master WHERE name IN ('records_by_ts', 'records_by_session')`).pluck().get()).toBe(2)
      expect(db.prepare('SELECT count(*) FROM suspended_indexes').pluck().get()).toBe(0)
    } finally {
      db.close()
    }
    openCase(path, {onSlowStart: (m) => notices.push(m)}).close()
    expect(notices).toHaveLength(1)
  })
})

describe('an existing case with loose permissions', () => {
  it('is set to 0600 (file, -wal and -shm) when opened for writing, said once', () => {
    const path = join(tempDir(), 'loose.db')
    openCase(path, {create: true}).close()
    chmodSync(path, 0o644)
    writeFileSync(`${path}-wal`, '', {mode: 0o644})
    chmodSync(`${path}-wal`, 0o644)
    const warnings: string[] = []
    openCase(path, {onWarning: (m) => warnings.push(m)}).close()
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/set the case to mode 0600 \(it was loose\.db 0644, loose\.db-wal 0644\)/)
    for (const f of [`${path}-wal`, `${path}-shm`]) if (existsSync(f)) expect(statSync(f).mode & 0o777).toBe(0o600)
    // Already 0600: nothing said.
    const again: string[] = []
    openCase(path, {onWarning: (m) => again.push(m)}).close()
    expect(again).toEqual([])
  })

  it('is left as it is by a read-only open, with a warning', () => {
    const path = join(tempDir(), 'loose-ro.db')
    openCase(path, {create: true}).close()
    chmodSync(path, 0o640)
    const warnings: string[] = []
    openCase(path, {readonly: true, onWarning: (m) => warnings.push(m)}).close()
    expect(statSync(path).mode & 0o777).toBe(0o640)
    expect(warnings.join('\n')).toMatch(/readable by others \(loose-ro\.db 0640\)/)
  })
})

describe('a case path that cannot be a case file', () => {
  it('a dangling symbolic link is refused as one, naming its target, for a command that creates or reads', () => {
    const dir = tempDir()
    const path = join(dir, 'link.db')
    symlinkSync(join(dir, 'gone.db'), path)
    for (const create of [true, false]) {
      expect(() => openCase(path, {create})).toThrow(/link\.db: the case path is a symbolic link to .*gone\.db, which does not exist/)
    }
    expect(existsSync(join(dir, 'gone.db'))).toBe(false)
  })

  it('a file that is no case keeps its mode: refused before anything is changed (--db notes.txt)', () => {
    const dir = tempDir()
    const notes = join(dir, 'notes.txt')
    writeFileSync(notes, 'my notes\n', {mode: 0o644})
    chmodSync(notes, 0o644)
    expect(() => openCase(notes, {create: true})).toThrow(/notes\.txt: not a case database/)
    expect(statSync(notes).mode & 0o777).toBe(0o644)
    // Another program's SQLite database: refused as one, its mode left too.
    const other = join(dir, 'other.db')
    const sql = new Database(other)
    sql.exec('CREATE TABLE t (x)')
    sql.close()
    chmodSync(other, 0o644)
    expect(() => openCase(other, {create: true})).toThrow(/other\.db: not a crosstalk case/)
    expect(statSync(other).mode & 0o777).toBe(0o644)
  })

  it('a directory is refused as one, not as a disk I/O error', () => {
    const path = join(tempDir(), 'cases')
    mkdirSync(path)
    for (const options of [{create: true}, {}, {readonly: true}]) {
      expect(() => openCase(path, options)).toThrow(/cases: is a directory, not a case database/)
    }
  })
})

describe('a case on a read-only file system', () => {
  // Mounting one needs privileges a test does not have: SQLite's error is given, and the file system's state.
  const cantOpen = Object.assign(new Error('unable to open database file'), {code: 'SQLITE_CANTOPEN'})

  it('is explained (the -shm file SQLite must create even to read), not "unable to open database file" alone', () => {
    const error = openFailure('/mnt/ro/case.db', '/mnt/ro', cantOpen, () => true)
    expect(error.message).toMatch(/^\/mnt\/ro\/case\.db: cannot open the case: it is on a read-only file system \(\/mnt\/ro\), and SQLite must create or write case\.db-shm .* copy the case .* to a writable file system/)
    expect((error as {code?: string}).code).toBe('E_READ_ONLY')
  })

  it('another cause keeps SQLite\'s words', () => {
    expect(openFailure('/x/case.db', '/x', cantOpen, () => false).message).toBe('/x/case.db: cannot open the case database (unable to open database file)')
  })
})

describe('a damaged or older case', () => {
  it('whose schema version reads 0 with its tables present is refused as damaged, not migrated over itself', () => {
    const path = join(tempDir(), 'zero.db')
    openCase(path, {create: true}).close()
    const sql = new Database(path)
    sql.pragma('user_version = 0')
    sql.close()
    expect(() => openCase(path)).toThrow(/zero\.db: the case's schema version is missing .*restore it from a copy/)
  })

  it('of an older schema, opened to read, says which command migrates it', () => {
    const path = join(tempDir(), 'older.db')
    openCase(path, {create: true}).close()
    const sql = new Database(path)
    sql.pragma(`user_version = ${LATEST_SCHEMA - 1}`)
    sql.close()
    expect(() => openCase(path, {readonly: true})).toThrow(new RegExp(`older\\.db: the case has schema ${LATEST_SCHEMA - 1} and needs migrating .*any command that writes to it once \\(crosstalk timeline, say`))
  })

  it('missing a table of its schema is named with the case, not as SQLite\'s bare "no such table"', async () => {
    const path = join(tempDir(), 'gone.db')
    openCase(path, {create: true}).close()
    const sql = new Database(path)
    sql.exec('DROP TABLE scanned_files')
    sql.close()
    const r = await run(['status', '--db', path])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/gone\.db: the case has no table scanned_files, which every case of its schema holds/)
  })
})
