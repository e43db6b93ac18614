import {createHash} from 'node:crypto'
import {canonicalJson} from '../util/canonical-json.js'
import type {CaseDb} from './open-case.js'

// The case's own chain of custody: every command that changed the case, with its
// arguments and the tool version. Each entry commits to the previous one's hash, so an
// edited or removed entry breaks every link after it.

export const GENESIS_HASH = '0'.repeat(64)

export interface AuditEntry {
  seq: number
  at: string
  command: string
  args: string
  version: string
  summary: string
  prev_hash: string
  hash: string
}

export interface AuditInput {
  at: Date
  command: string
  args: unknown
  version: string
  summary: unknown
}

export function hashAuditEntry(entry: Omit<AuditEntry, 'hash'>): string {
  return createHash('sha256').update(canonicalJson(entry)).digest('hex')
}

export function appendAudit(db: CaseDb, input: AuditInput): AuditEntry {
  // The last entry is read under the write lock: two commands ending on one case at once each read
  // the same last entry outside a transaction, and the second's insert failed on its seq ("UNIQUE
  // constraint failed: audit_log.seq"), the command's work unrecorded. Inside a caller's
  // transaction, that transaction holds the lock already.
  return db.inTransaction ? appendAuditLocked(db, input) : db.transaction(appendAuditLocked).immediate(db, input)
}

function appendAuditLocked(db: CaseDb, input: AuditInput): AuditEntry {
  const last = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as
    | {seq: number; hash: string}
    | undefined
  const body = {
    seq: (last?.seq ?? 0) + 1,
    at: input.at.toISOString(),
    command: input.command,
    args: canonicalJson(input.args),
    version: input.version,
    summary: canonicalJson(input.summary ?? null),
    prev_hash: last?.hash ?? GENESIS_HASH,
  }
  const entry = {...body, hash: hashAuditEntry(body)}
  db.prepare(
    'INSERT INTO audit_log (seq, at, command, args, version, summary, prev_hash, hash) VALUES (@seq, @at, @command, @args, @version, @summary, @prev_hash, @hash)',
  ).run(entry)
  return entry
}

/** The entries of one command (e.g. drop), oldest first. */
export function auditEntriesOf(db: CaseDb, command: string): AuditEntry[] {
  return db.prepare('SELECT * FROM audit_log WHERE command = ? ORDER BY seq').all(command) as AuditEntry[]
}

/** Whether this entry is in the case's audit log (committed; not in a transaction still open, nor one rolled back). */
export function auditEntryStored(db: CaseDb, entry: {seq: number; hash: string}): boolean {
  if (!db.open || db.inTransaction) return false
  return db.prepare('SELECT 1 FROM audit_log WHERE seq = ? AND hash = ?').get(entry.seq, entry.hash) !== undefined
}

export function listAudit(db: CaseDb): AuditEntry[] {
  return db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as AuditEntry[]
}

/** The first entry whose hash or link does not check out, or null when the chain is whole. */
export function findBrokenAuditLink(db: CaseDb): {seq: number; reason: string} | null {
  let prev = GENESIS_HASH
  let expectedSeq = 1
  for (const entry of db.prepare('SELECT * FROM audit_log ORDER BY seq').iterate() as IterableIterator<AuditEntry>) {
    if (entry.seq !== expectedSeq) return {seq: expectedSeq, reason: `entry ${expectedSeq} is missing`}
    if (entry.prev_hash !== prev) return {seq: entry.seq, reason: 'does not link to the entry before it'}
    const {hash, ...body} = entry
    if (hashAuditEntry(body) !== hash) return {seq: entry.seq, reason: 'content does not match its hash'}
    prev = hash
    expectedSeq++
  }
  return null
}

/** The append-only triggers of the audit log, still in place (a forger must drop them to edit or delete an entry). */
export function auditTriggersInPlace(db: CaseDb): {no_update: boolean; no_delete: boolean} {
  const names = new Set(db.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'audit_log'`).pluck().all() as string[])
  return {no_update: names.has('audit_log_no_update'), no_delete: names.has('audit_log_no_delete')}
}
