import {InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {claimIngestIfFree, setIngestClaimant} from '../store/settings.js'
import {processAlive} from '../util/process-alive.js'

// One ingest at a time per case: duplicates are detected in memory while the unique index
// is down, so a second ingest running at the same time would not see the first's records.
// The claim is the ingesting process's pid in the case; a pid that is no longer alive (a
// killed ingest) does not hold the case. The claim is read and taken under one write lock: read
// then written apart, two ingests started together both found it free, both suspended the unique
// index and stored every record twice.

export function claimIngest(db: CaseDb): void {
  const held = claimIngestIfFree(db, process.pid, (pid) => pid === null || pid === process.pid || !processAlive(pid))
  if (held !== null) {
    throw new InputError(`another ingest, scan or drop (process ${held}) is writing to this case; wait for it to finish`, 'E_BUSY')
  }
}

export function releaseIngest(db: CaseDb): void {
  setIngestClaimant(db, null, process.pid)
}
