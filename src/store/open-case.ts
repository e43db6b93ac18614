import Database from 'better-sqlite3'
import type {Database as Db} from 'better-sqlite3'
import {chmodSync, closeSync, existsSync, fstatSync, openSync} from 'node:fs'
import {availableParallelism} from 'node:os'
import {InputError, IntegrityError} from '../errors.js'
import {restoreSuspendedIndexes} from './indexes.js'
import {MIGRATIONS} from './migrations/index.js'

export type CaseDb = Db

export interface OpenCaseOptions {
  /** Create the file when it does not exist (commands that only read refuse instead). */
  create?: boolean
  readonly?: boolean
}

export const LATEST_SCHEMA = MIGRATIONS.at(-1)?.version ?? 0

/**
 * Marks a SQLite file as a crosstalk case (PRAGMA application_id, "CTLK"). Cases written
 * before the schema was squashed into one migration carry user_version 1-6 and no mark:
 * they are refused by name instead of being mistaken for this schema.
 */
export const CASE_APPLICATION_ID = 0x43544c4b

/**
 * Opens (and if asked, creates) a case database: WAL, foreign keys, schema migrated.
 * A new file is created 0600 before SQLite touches it, because it will hold other
 * people's personal data; SQLite gives its -wal and -shm files the same mode.
 */
export function openCase(path: string, options: OpenCaseOptions = {}): CaseDb {
  let fresh = false
  if (!existsSync(path)) {
    if (!options.create) throw new InputError(`${path}: no case database here (run \`crosstalk ingest logs\` or \`crosstalk triage\` first, or pass --db)`, 'E_NO_CASE')
    closeSync(openSync(path, 'wx', 0o600))
    fresh = true
  } else if (isEmptyFile(path)) {
    if (!options.create) throw new InputError(`${path}: empty file, not a case database (run \`crosstalk ingest logs\` or \`crosstalk triage\` to make one)`, 'E_NO_CASE')
    // An existing empty file (touched by hand) becomes a case with the mode a new one gets.
    chmodSync(path, 0o600)
    fresh = true
  }
  let db: CaseDb
  try {
    db = new Database(path, {readonly: options.readonly ?? false, fileMustExist: true})
    // Records carry whole prompts and responses (KBs to MBs): large pages mean far fewer
    // overflow pages per row. Only settable before the first table exists.
    if (fresh) db.pragma('page_size = 32768')
    if (!options.readonly) db.pragma('journal_mode = WAL')
  } catch (error) {
    throw new InputError(`${path}: not a case database (${(error as Error).message})`, 'E_NOT_A_CASE')
  }
  try {
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 5000')
    // Large GROUP BY / ORDER BY / DISTINCT sorts (scope's exposure count, provenance's session
    // numbering) and CREATE INDEX spill sorted runs and merge them on helper threads: scope on
    // a 1M-record case 1.65 s -> 1.05 s on 2 cores. The helpers exist only during a sort.
    db.pragma(`threads = ${Math.min(4, availableParallelism())}`)
    migrate(db, path, options.readonly ?? false)
    if (!db.readonly) restoreSuspendedIndexes(db)
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

function isEmptyFile(path: string): boolean {
  const fd = openSync(path, 'r')
  try {
    return fstatSync(fd).size === 0
  } finally {
    closeSync(fd)
  }
}

function migrate(db: CaseDb, path: string, readonly: boolean): void {
  let current: number
  let application: number
  try {
    current = db.pragma('user_version', {simple: true}) as number
    application = db.pragma('application_id', {simple: true}) as number
  } catch (error) {
    throw new InputError(`${path}: not a case database (${(error as Error).message})`, 'E_NOT_A_CASE')
  }
  if (current > 0 && application !== CASE_APPLICATION_ID) {
    const tables = db.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('files', 'records', 'audit_log')`).pluck().get() as number
    throw new IntegrityError(
      tables > 0
        ? `${path}: case written by a development version of crosstalk before its schema was squashed (schema ${current}); ingest the original logs into a new case`
        : `${path}: not a crosstalk case (an SQLite database of another program)`,
      'E_OLD_CASE',
    )
  }
  if (current === 0 && application === 0) {
    const tables = db.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'table'`).pluck().get() as number
    if (tables > 0) throw new IntegrityError(`${path}: not a crosstalk case (an SQLite database of another program)`, 'E_NOT_A_CASE')
  }
  if (current > LATEST_SCHEMA) {
    throw new IntegrityError(
      `${path}: case database has schema ${current}, newer than this crosstalk knows (${LATEST_SCHEMA}); upgrade crosstalk`,
      'E_SCHEMA_FROM_FUTURE',
    )
  }
  if (current === LATEST_SCHEMA) return
  if (readonly) throw new IntegrityError(`${path}: case database needs migrating to schema ${LATEST_SCHEMA}; open it writable once`)
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue
    db.transaction(() => {
      migration.up(db)
      db.pragma(`application_id = ${CASE_APPLICATION_ID}`)
      db.pragma(`user_version = ${migration.version}`)
    })()
  }
}
