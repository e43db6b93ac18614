import {randomBytes} from 'node:crypto'
import {IntegrityError} from '../errors.js'
import type {CaseDb} from './open-case.js'
import type {ProcessIdentity, StoredClaim} from '../util/process-identity.js'

// The case's own facts (table case_settings, one row): typed, recorded, never inferred.

export interface CaseSettings {
  case_id: string
  created_at: string
  registry_version: number
  pool_tokens: number | null
  advertised_tokens: number | null
  pool_set_at: string | null
}

/** Every case is created with its one settings row and no command removes it: without it, the case was damaged by hand. */
function missingSettings(db: CaseDb): IntegrityError {
  return new IntegrityError(`${db.name}: the case settings row (case id, registry version, pool size) is missing: the case was damaged outside crosstalk`, 'E_DAMAGED_CASE')
}

export function getSettings(db: CaseDb): CaseSettings {
  const row = db
    .prepare('SELECT case_id, created_at, registry_version, pool_tokens, advertised_tokens, pool_set_at FROM case_settings WHERE id = 1')
    .get() as CaseSettings | undefined
  if (!row) throw missingSettings(db)
  return row
}

export function registryVersion(db: CaseDb): number {
  const version = db.prepare('SELECT registry_version FROM case_settings WHERE id = 1').pluck().get() as number | undefined
  if (version === undefined) throw missingSettings(db)
  return version
}

/** The serving stack's pool and advertised window, as the responder gave them. */
export function setPool(db: CaseDb, poolTokens: number, advertisedTokens: number | null, at: Date): void {
  db.prepare('UPDATE case_settings SET pool_tokens = ?, advertised_tokens = ?, pool_set_at = ? WHERE id = 1').run(poolTokens, advertisedTokens, at.toISOString())
}

/**
 * The key personal-data references are made under (detect/pii-ref.ts). Made once, by the
 * scan that the audit log records; a case that cannot be written (an evidence copy mounted
 * read-only) gets a key for this run only, so its references differ between runs.
 */
export function piiRefKey(db: CaseDb, options: {create: boolean}): Buffer | null {
  const read = (): Buffer | null => (db.prepare('SELECT pii_ref_key FROM case_settings WHERE id = 1').pluck().get() as Buffer | null) ?? null
  const stored = read()
  if (stored || !options.create) return stored
  if (db.readonly) return randomBytes(32)
  // Another process's key, written meanwhile, is kept.
  db.prepare('UPDATE case_settings SET pii_ref_key = ? WHERE id = 1 AND pii_ref_key IS NULL').run(randomBytes(32))
  return read()
}

/** The pid of the process ingesting into this case, if one claimed it. */
export function ingestClaimant(db: CaseDb): number | null {
  return (db.prepare('SELECT ingest_pid FROM case_settings WHERE id = 1').pluck().get() as number | null) ?? null
}

/** The case's ingest claim with who made it (util/process-identity.ts judges it), or null. */
export function ingestClaim(db: CaseDb): StoredClaim | null {
  const row = db.prepare('SELECT ingest_pid, ingest_claim FROM case_settings WHERE id = 1').get() as {ingest_pid: number | null; ingest_claim: string | null} | undefined
  if (!row || row.ingest_pid === null) return null
  let identity: ProcessIdentity | null = null
  try {
    identity = row.ingest_claim === null ? null : (JSON.parse(row.ingest_claim) as ProcessIdentity)
  } catch {
    identity = null
  }
  return {pid: row.ingest_pid, identity}
}

/**
 * Takes the case's ingest claim for `me` where the claim held now (null: none) passes `free`,
 * read and written under one write lock (BEGIN IMMEDIATE): two claims made at once on two
 * connections are judged one after the other, so the second sees the first's and is refused.
 * Returns the claim found when it was not free, else null.
 */
export function claimIngestIfFree(db: CaseDb, me: ProcessIdentity, free: (held: StoredClaim | null) => boolean): StoredClaim | null {
  return db.transaction((): StoredClaim | null => {
    const held = ingestClaim(db)
    if (!free(held)) return held
    db.prepare('UPDATE case_settings SET ingest_pid = ?, ingest_claim = ? WHERE id = 1').run(me.pid, JSON.stringify(me))
    return null
  }).immediate()
}

/** Clears the claim where it is still `pid`'s (a release, or a claim broken by hand); returns whether it was. */
export function clearIngestClaim(db: CaseDb, pid: number): boolean {
  return db.prepare('UPDATE case_settings SET ingest_pid = NULL, ingest_claim = NULL WHERE id = 1 AND ingest_pid = ?').run(pid).changes === 1
}

/** Sets the claim to a bare pid (judged by the pid alone, as a claim of an earlier version), or clears it; `onlyIf`: where it is that pid's. */
export function setIngestClaimant(db: CaseDb, pid: number | null, onlyIf?: number): void {
  if (onlyIf === undefined) db.prepare('UPDATE case_settings SET ingest_pid = ?, ingest_claim = NULL WHERE id = 1').run(pid)
  else db.prepare('UPDATE case_settings SET ingest_pid = ?, ingest_claim = NULL WHERE id = 1 AND ingest_pid = ?').run(pid, onlyIf)
}
