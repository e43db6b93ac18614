import Database from 'better-sqlite3'
import type {Database as Db} from 'better-sqlite3'
import {accessSync, chmodSync, closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, statSync} from 'node:fs'
import {basename, dirname, join, resolve} from 'node:path'
import {availableParallelism} from 'node:os'
import {InputError, IntegrityError} from '../errors.js'
import {restoreSuspendedIndexes} from './indexes.js'
import {MIGRATIONS} from './migrations/index.js'
import {otherClaimHolds, type ProcessIdentity} from '../util/process-identity.js'

export type CaseDb = Db

export interface OpenCaseOptions {
  /** Create the file when it does not exist (commands that only read refuse instead). */
  create?: boolean
  readonly?: boolean
  /**
   * Hears, before it starts, work on opening that grows with the case: a schema upgrade that
   * rebuilds indexes, or indexes an interrupted ingest left suspended (minutes at millions of
   * records, with nothing else to show meanwhile).
   */
  onSlowStart?: (message: string) => void
  /** Hears, once, that an existing case's files were tightened to 0600, or (read-only) are readable by others. */
  onWarning?: (message: string) => void
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
  const dir = dirname(resolve(path))
  checkCasePath(path)
  if (!existsSync(path)) {
    if (!options.create) throw new InputError(`${path}: no case database here (run \`crosstalk ingest logs\` or \`crosstalk triage\` first, or pass --db)`, 'E_NO_CASE')
    if (!existsSync(dir)) throw new InputError(`${path}: cannot create the case: there is no directory ${dir}`, 'E_NO_DIR')
    try {
      closeSync(openSync(path, 'wx', 0o600))
      fresh = true
    } catch (error) {
      // Another command created it between the check and here (two commands starting a new case
      // at once): it is opened as an existing file, which migrate() waits for.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new InputError(`${path}: cannot create the case in ${dir} (${errorText(error)})`, 'E_CANNOT_WRITE')
      fresh = isEmptyFile(path)
    }
  } else if (isEmptyFile(path)) {
    if (!options.create) throw new InputError(`${path}: empty file, not a case database (run \`crosstalk ingest logs\` or \`crosstalk triage\` to make one)`, 'E_NO_CASE')
    // An existing empty file (touched by hand) becomes a case with the mode a new one gets.
    chmodSync(path, 0o600)
    fresh = true
  }
  // Checked before SQLite, whose own words ("attempt to write a readonly database") name neither the file nor the cause,
  // and before the mode: a case this command cannot write at all is refused for that first.
  if (!options.readonly) checkWritable(path, dir)
  // A file given by mistake (--db notes.txt) is refused before its mode is touched; an SQLite file
  // not yet marked as a case (another program's, or one never migrated) is set to 0600 only once
  // it is found to be a case.
  const header = fresh ? 'case' : caseHeader(path)
  if (header === 'not-sqlite') throw new InputError(`${path}: not a case database (not an SQLite file; its mode is left as it was): pass --db a case file`, 'E_NOT_A_CASE')
  if (header === 'case') tightenMode(path, options.readonly ?? false, options.onWarning)
  let db: CaseDb
  try {
    db = new Database(path, {readonly: options.readonly ?? false, fileMustExist: true})
    // Before the first write below: two commands creating one case at once, the second waits for the first.
    db.pragma('busy_timeout = 5000')
    // Records carry whole prompts and responses (KBs to MBs): large pages mean far fewer
    // overflow pages per row. Only settable before the first table exists.
    if (fresh) db.pragma('page_size = 32768')
    // The mark goes in first, in one write of its own: turning WAL on writes the file's header,
    // and a kill between that and the first migration's commit left a bare SQLite file (no
    // tables, schema 0, no mark) that read-only commands took for an old case to migrate. Marked,
    // it is told apart as a case whose creation was interrupted (checkSchema).
    // A new case is made without a sync per step (the mark, the switch to WAL, the schema's commit:
    // twelve fsyncs, 40-200 ms of a verdict's wall time on a virtual disk, measured) and synced
    // once made (syncFreshCase below). Nothing is stored in it before that, so a crash on the way
    // leaves an unfinished creation, which the next command that creates cases completes.
    if (fresh && !options.readonly) db.pragma('synchronous = OFF')
    if (fresh && !options.readonly) db.pragma(`application_id = ${CASE_APPLICATION_ID}`)
    if (!options.readonly) db.pragma('journal_mode = WAL')
  } catch (error) {
    throw openFailure(path, dir, error)
  }
  try {
    db.pragma('foreign_keys = ON')
    // Large sorts (CREATE INDEX at the end of a bulk load, GROUP BY / ORDER BY / DISTINCT) spill
    // sorted runs and merge them on helper threads: scope on a 1M-record case 1.65 s -> 1.05 s on
    // 2 cores. The helpers exist only during a sort; the sorts over a whole case that bound the
    // peak memory (withSortCache: provenance's record order, scope's sessions served) run
    // without them.
    db.pragma(`threads = ${Math.min(4, availableParallelism())}`)
    migrate(db, path, options.readonly ?? false, options.create ?? false, options.onSlowStart)
    if (fresh && !options.readonly) syncFreshCase(db)
    if (header === 'other') tightenMode(path, options.readonly ?? false, options.onWarning)
    // A live ingest suspended them on purpose (a bulk load): only a dead one's are rebuilt.
    if (!db.readonly && liveIngestClaimant(db) === null) {
      restoreSuspendedIndexes(db, (n) => {
        options.onSlowStart?.(`${path}: rebuilding ${n} ${n === 1 ? 'index' : 'indexes'} an interrupted ingest left suspended, over ${recordsText(db)} (once)`)
      })
    }
  } catch (error) {
    db.close()
    const code = (error as {code?: unknown}).code
    throw typeof code === 'string' && code.startsWith('SQLITE_') ? openFailure(path, dir, error) : error
  }
  return db
}

/**
 * What the file's first 100 bytes say it is (SQLite's header: its magic string, and the
 * application id at offset 68, big-endian): a case, another SQLite file (or one shorter than a
 * header), or no SQLite file at all.
 */
function caseHeader(path: string): 'case' | 'other' | 'not-sqlite' {
  const header = Buffer.alloc(100)
  let n: number
  try {
    // Without blocking: a FIFO put in the case's place since it was checked would block a plain open.
    const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
    try {
      n = readSync(fd, header, 0, 100, 0)
    } finally {
      closeSync(fd)
    }
  } catch {
    return 'other' // unreadable: SQLite says why when it opens it
  }
  if (n < 16 || header.toString('latin1', 0, 16) !== 'SQLite format 3\u0000') return 'not-sqlite'
  return n >= 72 && header.readUInt32BE(68) === CASE_APPLICATION_ID ? 'case' : 'other'
}

/**
 * A path that cannot be a case file is refused by what it is: a directory, or a symbolic link
 * whose target does not exist (existsSync follows the link, so creating it would fail on the
 * link itself, EEXIST, and SQLite on a directory says only "disk I/O error").
 */
function checkCasePath(path: string): void {
  let link: ReturnType<typeof lstatSync>
  try {
    link = lstatSync(path)
  } catch {
    return // nothing there: created (or refused) below
  }
  if (link.isSymbolicLink() && !existsSync(path)) {
    throw new InputError(`${path}: the case path is a symbolic link to ${readlinkSync(path)}, which does not exist: pass --db the case file itself, or remove the dangling link`, 'E_NO_CASE')
  }
  const stat = statSync(path)
  if (stat.isDirectory()) {
    throw new InputError(`${path}: is a directory, not a case database: pass --db a case file (e.g. ${join(path, 'case.db')})`, 'E_NOT_A_CASE')
  }
  // A FIFO (named pipe) blocked the header's read until a writer came, so every command hung; a
  // device or a socket is no case either. Refused before anything opens it.
  if (!stat.isFile()) {
    const kind = stat.isFIFO() ? 'a FIFO (named pipe)' : stat.isCharacterDevice() ? 'a character device' : stat.isBlockDevice() ? 'a block device' : stat.isSocket() ? 'a socket' : 'not a regular file'
    throw new InputError(`${path}: is ${kind}, not a case database: pass --db a case file`, 'E_NOT_A_CASE')
  }
}

/**
 * A case holds other people's personal data: 0600, whoever made the file. An existing case (and
 * its -wal and -shm, which hold recent pages) that group or others can read or write is set to
 * 0600 before SQLite opens it, and said once; one this user does not own cannot be, and a
 * command that writes refuses it. A read-only command changes nothing and warns.
 */
function tightenMode(path: string, readonly: boolean, warn: ((message: string) => void) | undefined): void {
  if (process.platform === 'win32') return // no POSIX modes
  const loose = [path, `${path}-wal`, `${path}-shm`].flatMap((file) => {
    if (!existsSync(file)) return []
    const mode = statSync(file).mode & 0o777
    return mode & 0o077 ? [{file, mode}] : []
  })
  if (loose.length === 0) return
  const octal = (mode: number): string => `0${mode.toString(8).padStart(3, '0')}`
  const listed = loose.map((l) => `${basename(l.file)} ${octal(l.mode)}`).join(', ')
  if (readonly) {
    warn?.(`${path}: the case is readable by others (${listed}); it holds personal data: a command that writes sets it to 0600, or chmod 600 it`)
    return
  }
  for (const l of loose) {
    try {
      chmodSync(l.file, 0o600)
    } catch (error) {
      throw new InputError(`${l.file}: the case is readable by others (mode ${octal(l.mode)}) and cannot be set to 0600 (${errorText(error)}: not its owner?); it holds personal data: have its owner chmod 600 it, or work on a copy of your own`, 'E_CASE_MODE')
    }
  }
  warn?.(`${path}: set the case to mode 0600 (it was ${listed}): it holds personal data`)
}

/** A command that writes needs the case file writable, and its directory too unless SQLite's -wal and -shm files are already there. */
function checkWritable(path: string, dir: string): void {
  try {
    accessSync(path, constants.W_OK)
  } catch (error) {
    throw new InputError(`${path}: the case file is read-only (${errorText(error)}); this command writes to the case: make it writable, or work on a writable copy`, 'E_READ_ONLY')
  }
  const beside = existsSync(`${path}-wal`) && existsSync(`${path}-shm`)
  if (beside) return
  try {
    accessSync(dir, constants.W_OK)
  } catch (error) {
    throw new InputError(`${path}: its directory ${dir} is not writable (${errorText(error)}), and SQLite keeps the case's -wal and -shm files beside it: make the directory writable, or work on a copy in a writable one`, 'E_READ_ONLY')
  }
}

/** What went wrong opening a case, in words that name the file and the cause (readOnlyFs: whether its directory is on a read-only file system; given by tests). */
export function openFailure(path: string, dir: string, error: unknown, readOnlyFs: () => boolean = () => onReadOnlyFileSystem(dir)): InputError {
  const code = (error as {code?: unknown}).code
  const message = (error as Error).message
  // SQLite says only "unable to open database file": on a read-only file system a case in WAL mode
  // cannot be opened even to read, since SQLite must create (or write) its -shm file beside it.
  if (typeof code === 'string' && (code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_IOERR')) && readOnlyFs()) {
    return new InputError(`${path}: cannot open the case: it is on a read-only file system (${dir}), and SQLite must create or write ${basename(path)}-shm beside a case in WAL mode even to read it: copy the case (and its -wal file, if any) to a writable file system, or remount it read-write`, 'E_READ_ONLY')
  }
  if (code === 'SQLITE_READONLY_DIRECTORY' || code === 'SQLITE_CANTOPEN_NOTEMPDIR') {
    return new InputError(`${path}: cannot open the case: its directory ${dir} is not writable, and SQLite must create ${basename(path)}-shm beside a case in WAL mode even to read it: make the directory writable, or copy the case (and its -wal file, if any) to a writable one`, 'E_READ_ONLY')
  }
  if (typeof code === 'string' && code.startsWith('SQLITE_READONLY')) {
    return new InputError(`${path}: the case is read-only (${message}): make it and its directory writable, or work on a writable copy`, 'E_READ_ONLY')
  }
  if (code === 'SQLITE_NOTADB') return new InputError(`${path}: not a case database (${message})`, 'E_NOT_A_CASE')
  if (code === 'SQLITE_BUSY') return new InputError(`${path}: the case is locked by another process (${message}); try again when it has finished`, 'E_BUSY')
  return new InputError(`${path}: cannot open the case database (${message})`, 'E_CANNOT_OPEN')
}

function onReadOnlyFileSystem(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EROFS'
  }
}

function errorText(error: unknown): string {
  const e = error as NodeJS.ErrnoException
  return e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.code === 'EROFS' ? 'read-only file system' : (e.code ?? e.message)
}

function isEmptyFile(path: string): boolean {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    return fstatSync(fd).size === 0
  } finally {
    closeSync(fd)
  }
}

/** The records of a case as a phrase ("1,234 records"), from the per-file counts (no read of the records table). */
function recordsText(db: CaseDb): string {
  const n = (db.prepare('SELECT coalesce(sum(records), 0) FROM files').pluck().get() as number | bigint | null) ?? 0
  return `${Number(n).toLocaleString('en-US')} ${Number(n) === 1 ? 'record' : 'records'}`
}

/**
 * The syncs a new case's creation went without, at once: back to what a case opened again has
 * (NORMAL: better-sqlite3's SQLite sets it for WAL mode) for every later write, and a checkpoint
 * that syncs the log, copies the schema into the database file and syncs that. The file's first
 * page must be on disk before anything is stored: SQLite deletes the log of a database file that
 * reads as empty, and with it every commit in it.
 */
function syncFreshCase(db: CaseDb): void {
  db.pragma('synchronous = NORMAL')
  db.pragma('wal_checkpoint(FULL)')
}

function migrate(db: CaseDb, path: string, readonly: boolean, create: boolean, onSlowStart?: (message: string) => void): void {
  const read = (): {current: number; application: number} => {
    try {
      return {current: db.pragma('user_version', {simple: true}) as number, application: db.pragma('application_id', {simple: true}) as number}
    } catch (error) {
      throw openFailure(path, dirname(resolve(path)), error)
    }
  }
  const first = read()
  if (readonly || first.current >= LATEST_SCHEMA) {
    checkSchema(db, path, first.current, first.application, readonly, create)
    return
  }
  // The schema is read again under the write lock and migrated in the same transaction: two
  // commands creating (or upgrading) one case at once each read schema 0 before either wrote, and
  // the second then ran the migrations over the first's tables ("table case_settings already
  // exists", "duplicate column name") or announced an upgrade "from schema 2" of a brand-new case.
  // Now the second waits for the first (busy timeout) and finds the case migrated.
  try {
    db.exec('BEGIN IMMEDIATE')
  } catch (error) {
    if ((error as {code?: unknown}).code === 'SQLITE_BUSY') {
      throw new InputError(`${path}: another crosstalk command is creating or upgrading this case and has held it longer than this one waits; run this command again when it has finished`, 'E_BUSY')
    }
    throw openFailure(path, dirname(resolve(path)), error)
  }
  try {
    const {current, application} = read()
    checkSchema(db, path, current, application, readonly, create)
    if (current < LATEST_SCHEMA) {
      const rebuilds = MIGRATIONS.filter((m) => m.version > current && m.rebuilds !== undefined).map((m) => m.rebuilds!)
      // A new case (schema 0) has nothing to rebuild.
      if (current > 0 && rebuilds.length > 0) {
        onSlowStart?.(`${path}: upgrading the case from schema ${current} to ${LATEST_SCHEMA} (once): rebuilding ${rebuilds.join(' and ')} over ${recordsText(db)}`)
      }
      for (const migration of MIGRATIONS) {
        if (migration.version <= current) continue
        // A savepoint inside the transaction above: a failing migration leaves nothing of itself.
        db.transaction(() => {
          migration.up(db)
          db.pragma(`application_id = ${CASE_APPLICATION_ID}`)
          db.pragma(`user_version = ${migration.version}`)
        })()
      }
    }
    db.exec('COMMIT')
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw error
  }
}

/** Refuses a file that is not a case of this schema line, or one that needs migrating where it may not be (read-only). */
function checkSchema(db: CaseDb, path: string, current: number, application: number, readonly: boolean, create: boolean): void {
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
  // Marked as a case, schema version 0, yet holding tables: its version was lost (the header
  // damaged or rewritten). Migrating it would run the first migration over its own tables.
  if (current === 0 && application === CASE_APPLICATION_ID) {
    const tables = db.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'table'`).pluck().get() as number
    if (tables > 0) {
      throw new IntegrityError(`${path}: the case's schema version is missing (SQLite's user_version reads 0, yet the case holds its tables): the file is damaged; restore it from a copy, or ingest the original logs into a new case`, 'E_DAMAGED_CASE')
    }
  }
  // Schema 0 and no table at all: a case whose creation was killed before its first migration
  // committed (marked, or, by a version that marked it only then, a bare SQLite file). Nothing was
  // stored; a command that creates cases completes it, any other says so instead of calling it an
  // old case that needs migrating (which no command would do usefully).
  if (current === 0 && !create && (application === CASE_APPLICATION_ID || application === 0)) {
    const tables = db.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'table'`).pluck().get() as number
    if (tables === 0) {
      throw new InputError(
        application === CASE_APPLICATION_ID
          ? `${path}: the case's creation was interrupted before anything was stored: run the ingest or triage again (or delete ${path})`
          : `${path}: an SQLite file with no tables and no case mark: a case whose creation was interrupted before anything was stored (run the ingest or triage again, or delete ${path}), or an empty database of another program (pass --db a case file)`,
        'E_NO_CASE',
      )
    }
  }
  if (current > LATEST_SCHEMA) {
    throw new IntegrityError(
      `${path}: case database has schema ${current}, newer than this crosstalk knows (${LATEST_SCHEMA}); upgrade crosstalk`,
      'E_SCHEMA_FROM_FUTURE',
    )
  }
  if (current < LATEST_SCHEMA && readonly) {
    throw new IntegrityError(
      `${path}: the case has schema ${current} and needs migrating to schema ${LATEST_SCHEMA}, which this command does not do (it only reads the case): run, as a user who may write the case, any command that writes to it once (crosstalk timeline, say: opening the case migrates it), then this one again`,
    )
  }
}

/**
 * Another live process that holds the case's ingest claim (an ingest, drop or scan running now),
 * or null. A claim left by a killed process holds nothing.
 */
export function liveIngestClaimant(db: Db): number | null {
  const row = db.prepare('SELECT ingest_pid, ingest_claim FROM case_settings WHERE id = 1').get() as {ingest_pid: number | null; ingest_claim: string | null} | undefined
  if (!row || row.ingest_pid === null) return null
  let identity: ProcessIdentity | null = null
  try {
    identity = row.ingest_claim === null ? null : (JSON.parse(row.ingest_claim) as ProcessIdentity)
  } catch {
    identity = null
  }
  // One that cannot be judged from here (another PID namespace or host) holds it too: its indexes stay as they are.
  return otherClaimHolds({pid: row.ingest_pid, identity}) === null ? null : row.ingest_pid
}
