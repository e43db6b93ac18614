import type {CaseDb} from './open-case.js'
import {UNCONVENTIONAL_WHERE} from './canaries.js'

// What provider-scale audits (crosstalk extract / the Spark job / ingest findings) read from
// and write to a case: the registry as the job joins it.

export interface RegistryExportRow {
  marker_key: string
  marker: string
  tenant_id: string
  session_id: string
}

/** Every registered marker, in key order (the job joins tokens against these). */
export function allCanaries(db: CaseDb): RegistryExportRow[] {
  return db.prepare('SELECT marker_key, marker, tenant_id, session_id FROM canaries ORDER BY marker_key').all() as RegistryExportRow[]
}

/** The registry files the case holds (SHA-256, in ingest order). */
export function registryFileHashes(db: CaseDb): string[] {
  return db.prepare(`SELECT sha256 FROM files WHERE kind = 'canaries' AND state = 'complete' ORDER BY id`).pluck().all() as string[]
}

/** Registered markers outside the CANARY-<hex> convention. */
export function unconventionalCanaries(db: CaseDb): string[] {
  return db.prepare(`SELECT marker FROM canaries WHERE ${UNCONVENTIONAL_WHERE} ORDER BY marker`).pluck().all() as string[]
}
