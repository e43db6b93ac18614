import {InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {claimIngestIfFree, clearIngestClaim, ingestClaim} from '../store/settings.js'
import {currentProcessIdentity, otherClaimHolds, type StoredClaim} from '../util/process-identity.js'

// One ingest at a time per case: duplicates are detected in memory while the unique index
// is down, so a second ingest running at the same time would not see the first's records.
// The claim is the ingesting process, said so that another can judge it (util/process-identity.ts):
// one that is no longer alive (a killed ingest) does not hold the case; one that cannot be judged
// from here (another host, a container's PID namespace that still runs) holds it until
// `crosstalk ingest release` breaks it. The claim is read and taken under one write lock: read
// then written apart, two ingests started together both found it free, both suspended the unique
// index and stored every record twice.

export const RELEASE_COMMAND = 'crosstalk ingest release --reason "..."'

export function claimIngest(db: CaseDb): void {
  const me = currentProcessIdentity()
  const held = claimIngestIfFree(db, me, (claim) => otherClaimHolds(claim, me) === null)
  if (held !== null) throw busy(held, otherClaimHolds(held, me) ?? 'alive')
}

function busy(claim: StoredClaim, state: 'alive' | 'unknown'): InputError {
  if (state === 'alive') return new InputError(`another ingest, scan or drop (process ${claim.pid}) is writing to this case; wait for it to finish`, 'E_BUSY')
  const where = claim.identity?.host !== currentProcessIdentity().host ? `on host ${claim.identity?.host}` : 'in another PID namespace (a container)'
  return new InputError(
    `another ingest, scan or drop (process ${claim.pid} ${where}) claimed this case, and whether it still runs cannot be told from here; wait for it to finish, or, if it is no longer running (killed), break its claim: ${RELEASE_COMMAND}`,
    'E_BUSY',
  )
}

export function releaseIngest(db: CaseDb): void {
  clearIngestClaim(db, process.pid)
}

/** The case's ingest claim as this process judges it: null where none holds the case. */
export function ingestHolder(db: CaseDb): (StoredClaim & {state: 'alive' | 'unknown'}) | null {
  const claim = ingestClaim(db)
  const state = otherClaimHolds(claim)
  return claim === null || state === null ? null : {...claim, state}
}

/**
 * Breaks a claim this process cannot judge (another host, another PID namespace): the user says
 * it no longer runs. A claim of a live process here is refused (it is running: wait for it), and
 * so is a case no claim holds. Returns the claim broken.
 */
export function breakIngestClaim(db: CaseDb): StoredClaim {
  const claim = ingestClaim(db)
  const state = otherClaimHolds(claim)
  if (claim === null || state === null) throw new InputError('no ingest, scan or drop holds this case: nothing to release', 'E_NOT_HELD')
  if (state === 'alive') throw new InputError(`process ${claim.pid} is running and holds this case (an ingest, scan or drop): wait for it to finish, or end it`, 'E_BUSY')
  clearIngestClaim(db, claim.pid)
  return claim
}
