import {createRequire} from 'node:module'
import {Worker} from 'node:worker_threads'
import type {CaseDb} from './open-case.js'

// A bulk load's checkpoints, on a thread of their own. In WAL mode every committed page is
// written twice: into the -wal file by the commit, then into the database file by a
// checkpoint. SQLite runs that checkpoint inside the COMMIT that takes the log past
// wal_autocheckpoint pages, on the writing thread: a 200,000-record ingest (846 MB case) spent
// 4.3 s of its main thread in COMMIT, 0.8 s once checkpoints were left out of it (measured).
// Here a second connection, on a worker thread, copies committed frames into the database
// file (PRAGMA wal_checkpoint(PASSIVE): it never blocks the writer and never waits for it)
// while the main thread goes on writing; once the copy has caught up, the writer's next
// transaction starts the log again from its beginning, so the log stays small (66 MB at most
// in a 200,000-record triage, measured; the writer alone checkpointed at 1000 pages, 32 MB).
// The writer keeps a larger wal_autocheckpoint as a bound: should the thread fall behind (or
// fail to start), SQLite checkpoints on the writer as before. What a kill -9 leaves is what it
// left before: committed transactions in the log or the file, the same pages.

/** The writer's own checkpoint threshold while the thread runs (pages: 256 MiB of a case's 32 KiB pages). */
const WRITER_AUTOCHECKPOINT = 8192
/** How long the thread waits between checkpoints (ms). */
const IDLE_MS = 15

const WORKER = `
const {parentPort, workerData} = require('node:worker_threads')
let db = null
let timer = null
try {
  const Database = require(workerData.module)
  db = new Database(workerData.path, {fileMustExist: true})
  db.pragma('cache_size = -1000')
} catch {
  // No connection, no checkpoints: the writer's own threshold bounds the log.
  db = null
}
const tick = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch {}
  timer = setTimeout(tick, ${IDLE_MS})
}
if (db) tick()
parentPort.on('message', () => {
  if (timer) clearTimeout(timer)
  try { if (db) db.close() } catch {}
  parentPort.close()
})
`

export interface Checkpointer {
  /** Stops the thread (after the checkpoint it is in, if any) and puts the writer's threshold back. */
  stop(): Promise<void>
}

/**
 * Starts checkpointing `db`'s log on a worker thread, for the length of a bulk load. Null for a
 * database not in WAL mode (an in-memory one) or where CROSSTALK_CHECKPOINTER=0.
 */
export function startCheckpointer(db: CaseDb): Checkpointer | null {
  if (process.env.CROSSTALK_CHECKPOINTER === '0' || db.memory || db.readonly) return null
  if (db.pragma('journal_mode', {simple: true}) !== 'wal') return null
  const before = db.pragma('wal_autocheckpoint', {simple: true}) as number
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {module: createRequire(import.meta.url).resolve('better-sqlite3'), path: db.name},
    resourceLimits: {maxYoungGenerationSizeMb: 2, maxOldGenerationSizeMb: 16},
  })
  // Unref'd: a load that ends by an error never waits on it; stop() is the way out.
  worker.unref()
  // A thread that fails costs speed, never data: the writer checkpoints as it did without one.
  worker.on('error', () => undefined)
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  db.pragma(`wal_autocheckpoint = ${WRITER_AUTOCHECKPOINT}`)
  let stopped = false
  return {
    async stop() {
      if (stopped) return
      stopped = true
      db.pragma(`wal_autocheckpoint = ${Math.trunc(before)}`)
      // Held again while it stops: an unref'd thread is not waited for, and nothing else may be.
      worker.ref()
      worker.postMessage('stop')
      await exited
    },
  }
}
