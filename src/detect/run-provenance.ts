import type {CaseDb} from '../store/open-case.js'
import {computeProvenance, type ProvenanceStats} from './provenance.js'
import {readScanState, scanMarkers} from './scan-case.js'

/**
 * Brings the provenance table up to date for the given parameters: fingerprints records
 * not scanned yet and recomputes when the parameters or the case changed. Returns the
 * stats when it recomputed (the case changed), null when the stored table was current.
 */
export function ensureProvenance(db: CaseDb, options: {now: Date; minWords: number; boilerplateTenants: number}): ProvenanceStats | null {
  const params = JSON.stringify({minWords: options.minWords, boilerplateTenants: options.boilerplateTenants})
  const marker = scanMarkers(db, {now: options.now})
  if (marker.fresh === 0 && marker.refingerprinted === 0 && readScanState(db, 'provenance_params') === params) return null
  const stats = computeProvenance(db, {minWords: options.minWords, boilerplateTenants: options.boilerplateTenants})
  db.prepare(`INSERT INTO scan_state (key, value) VALUES ('provenance_params', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`).run(params)
  return stats
}
