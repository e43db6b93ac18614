import type {CaseDb} from './open-case.js'

// Connection-level settings and explicit transactions: how a stage asks for a bulk load, a
// transaction that spans awaits, or a checkpoint, without writing SQL.

/** A transaction that stays open across awaits (better-sqlite3's db.transaction() is synchronous only). */
export function begin(db: CaseDb): void {
  db.exec('BEGIN')
}

export function commit(db: CaseDb): void {
  db.exec('COMMIT')
}

/** Rolls back the open transaction, if any. */
export function rollback(db: CaseDb): void {
  if (db.inTransaction) db.exec('ROLLBACK')
}

/**
 * Settings for a bulk load; returns the function that puts the previous ones back.
 * - synchronous = NORMAL: in WAL mode it syncs only when a checkpoint copies the log into the
 *   database file, so an OS crash or power loss mid-ingest loses at most the transactions
 *   since the last checkpoint (the file stays 'loading' and the next ingest redoes it) and
 *   never corrupts what earlier ingests stored. OFF would skip those syncs too, and a power
 *   cut during a checkpoint could then tear pages that hold older evidence; it bought 3-4%
 *   at 200k records (measured), not worth the evidence.
 * - a small page cache: a bulk load touches each page about once, and the default 16 MB
 *   only raises the peak memory.
 */
export function enterBulkLoad(db: CaseDb): () => void {
  const cacheSize = db.pragma('cache_size', {simple: true}) as number
  db.pragma('synchronous = NORMAL')
  db.pragma('cache_size = -8000')
  return () => {
    db.pragma(`cache_size = ${Math.trunc(cacheSize)}`)
  }
}

/**
 * Runs `fn` with foreign-key checks off: for passes whose every row references a record or
 * file written or read in the same pass, where SQLite's per-row lookups prove nothing.
 */
export function withoutForeignKeyChecks<T>(db: CaseDb, fn: () => T): T {
  const on = db.pragma('foreign_keys', {simple: true}) as number
  if (on) db.pragma('foreign_keys = OFF')
  try {
    return fn()
  } finally {
    if (on) db.pragma('foreign_keys = ON')
  }
}

/** The same for a pass that yields between its steps (a generator): checks off until the returned function puts them back. */
export function foreignKeyChecksOff(db: CaseDb): () => void {
  const on = db.pragma('foreign_keys', {simple: true}) as number
  if (on) db.pragma('foreign_keys = OFF')
  return () => {
    if (on) db.pragma('foreign_keys = ON')
  }
}

/** Nested and overlapping async passes with checks off, per connection: checks come back when the last one ends. */
const checksOff = new WeakMap<CaseDb, {passes: number; restore: boolean}>()

/**
 * The same, for passes that await (the caller keeps the rows' references valid). Passes may
 * overlap (ingest writes one file's last units while it reads the next): the checks stay off
 * until the last of them ends.
 */
export async function withoutForeignKeyChecksAsync<T>(db: CaseDb, fn: () => Promise<T>): Promise<T> {
  let off = checksOff.get(db)
  if (off === undefined) checksOff.set(db, (off = {passes: 0, restore: false}))
  if (off.passes++ === 0) {
    off.restore = (db.pragma('foreign_keys', {simple: true}) as number) === 1
    if (off.restore) db.pragma('foreign_keys = OFF')
  }
  try {
    return await fn()
  } finally {
    if (--off.passes === 0 && off.restore) db.pragma('foreign_keys = ON')
  }
}

/**
 * Runs `fn` with foreign-key checks on (a delete that relies on ON DELETE CASCADE), also
 * while a pass above has them off. SQLite cannot change them inside a transaction: there,
 * with checks off, this refuses rather than leave the rows the cascade would remove.
 */
export function withForeignKeyChecks<T>(db: CaseDb, fn: () => T): T {
  if ((db.pragma('foreign_keys', {simple: true}) as number) === 1) return fn()
  if (db.inTransaction) throw new Error('a cascading delete inside a transaction with foreign-key checks off')
  db.pragma('foreign_keys = ON')
  try {
    return fn()
  } finally {
    db.pragma('foreign_keys = OFF')
  }
}

/** Sets the connection's page cache (KiB), for a connection whose reads are scattered and seldom read a page twice. */
export function setPageCache(db: CaseDb, kib: number): void {
  db.pragma(`cache_size = -${Math.trunc(kib)}`)
}

/** Copies the WAL into the database file and truncates it (the end of a load: one sync of everything). */
export function checkpoint(db: CaseDb): void {
  db.pragma('wal_checkpoint(TRUNCATE)')
}

/** Frees what SQLite can of its page cache (between the steps of one long command). */
/** Page cache while a sort over the whole case runs (KiB). */
export const SORT_CACHE_KIB = 4000

/**
 * Runs `fn` with a small page cache and no sorter helper threads. SQLite's sorter writes a
 * sorted run to a temporary file each time its records reach the main database's cache size,
 * and holds several times that in memory while it fills: a GROUP BY over the sessions of 1M
 * records took 50 MB with the default 16 MB cache and 25 MB with 4 MB, in the same time
 * (measured). Each helper thread (PRAGMA threads) fills a run of its own beside the main
 * thread's: provenance's record order over 1M records peaked 30 MB above its arrays with two
 * helpers and 14 MB with none, scope's sessions served 14 MB and 0 (measured). The helpers
 * bought time on a large sort: the record order over 5M records took 31.5 s with them and
 * 40-48 s without, alone on 2 cores; at 1M the difference was within the host's noise. For the queries that sort a whole case (provenance's record order,
 * scope's sessions served, a registry's staging), and for one sequential read of a whole
 * table (provenance's fingerprints), whose pages a larger cache would keep for nothing;
 * CREATE INDEX keeps its helpers.
 */
export function withSortCache<T>(db: CaseDb, fn: () => T): T {
  const restore = setSortCache(db)
  try {
    return fn()
  } finally {
    restore()
  }
}

/** withSortCache's settings alone; returns the function that puts the previous ones back. */
export function setSortCache(db: CaseDb): () => void {
  const cacheSize = db.pragma('cache_size', {simple: true}) as number
  const threads = db.pragma('threads', {simple: true}) as number
  db.pragma(`cache_size = -${SORT_CACHE_KIB}`)
  db.pragma('threads = 0')
  return () => {
    db.pragma(`cache_size = ${Math.trunc(cacheSize)}`)
    db.pragma(`threads = ${Math.trunc(threads)}`)
  }
}

export function shrinkMemory(db: CaseDb): void {
  db.pragma('shrink_memory')
}

export function schemaVersion(db: CaseDb): number {
  return db.pragma('user_version', {simple: true}) as number
}

/**
 * Runs `fn` in one transaction (nested calls become savepoints), holding the write lock from its
 * start (BEGIN IMMEDIATE): a deferred one that read first and then wrote could not take the lock
 * when another command had written since its read began (SQLITE_BUSY at once, no wait: "database
 * is locked" from two `incident open` at the same time). Now the second waits for the first.
 */
export function inTransaction<T>(db: CaseDb, fn: () => T): T {
  return db.transaction(fn).immediate()
}

/** fn as a function that runs in one transaction each time it is called (prepared once, for a hot loop). */
export function transactional<A extends unknown[], T>(db: CaseDb, fn: (...args: A) => T): (...args: A) => T {
  const run = db.transaction(fn)
  return (...args: A) => run(...args) as T
}

/** A consistent copy of the whole case into a new file (SQLite's online backup). */
export async function backupCase(db: CaseDb, destination: string): Promise<void> {
  await db.backup(destination)
}

/**
 * Runs `fn` inside a savepoint that is always rolled back: whatever it writes is gone when it
 * returns (a what-if that must leave the case as it was). Temporary tables are outside it.
 */
export function withRollback<T>(db: CaseDb, fn: () => T): T {
  db.exec('SAVEPOINT what_if')
  try {
    return fn()
  } finally {
    db.exec('ROLLBACK TO what_if')
    db.exec('RELEASE what_if')
  }
}
