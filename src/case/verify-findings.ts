import {join} from 'node:path'
import {detectionCoverage, describeGap} from '../detect/coverage.js'
import {scanCase} from '../detect/scan-case.js'
import {EXTRACT_SCHEME} from '../extract/extract.js'
import {
  inconsistentFindings, iterateAllPiiFindings, iterateAllProvenance, iterateAllSightings, provenanceWithoutCandidates,
  type PiiFindingStored, type ProvenanceStored, type SightingStored,
} from '../store/findings.js'
import {completeLogFiles} from '../store/files.js'
import {openCase, type CaseDb} from '../store/open-case.js'
import {recordById} from '../store/records.js'
import {lastFinishedScan, resetDetection} from '../store/scan-runs.js'
import {backupCase} from '../store/session.js'
import {ident, Problems, shown, sqliteLess} from './verify-problems.js'

// Findings are derived data: whatever the tables say must be what detection computes from
// the case's records, extracts and registry. By default the cheap part is checked (each
// provenance and personal-data finding names its source's real session and tenant;
// sightings are re-derived per record in the line walk). With --deep the whole detection is
// run again, by the real `scan` with the parameters of the last one, on a scratch copy of
// the case, and every sighting, provenance match and personal-data finding is compared.

export function verifyFindingSources(db: CaseDb, problems: Problems): void {
  for (const f of inconsistentFindings(db)) {
    const record = recordById(db, f.record_id)
    problems.add('finding', `${f.table} of record ${ident(record?.request_id ?? `#${f.record_id}`)}`, `its ${f.detail} is not the session or tenant it names`, f.table)
  }
}

export interface DeepFindingsCheck {
  /** Whether detection was run again and compared (false: detection is not current, see note). */
  compared: boolean
  note: string | null
}

export async function verifyFindingsDeep(db: CaseDb, problems: Problems, scratchDir: string): Promise<DeepFindingsCheck> {
  const last = lastFinishedScan(db)
  const coverage = detectionCoverage(db)
  // Findings are compared with what the last scan would have made of the same case; a case
  // changed since (new logs, a changed registry) legitimately differs until it is scanned.
  if (last === null || !coverage.complete) {
    return {compared: false, note: `findings not re-derived: ${last === null ? 'the case was never scanned' : describeGap(coverage)}; run \`crosstalk scan\` first`}
  }
  // A scan of the copy would extract such files again under the current rules and derive other
  // findings from the same evidence: a difference that says nothing about the case (verify.ts notes them).
  if (completeLogFiles(db).some((f) => f.extract_scheme !== EXTRACT_SCHEME)) return {compared: false, note: null}
  const path = join(scratchDir, 'detection.db')
  await backupCase(db, path)
  const copy = openCase(path)
  try {
    resetDetection(copy)
    scanCase(copy, {
      now: new Date(last.started_at),
      provenance: {minWords: last.min_words, boilerplateTenants: last.boilerplate_tenants},
    })
    const name = (id: number): string => ident(recordById(db, id)?.request_id ?? `#${id}`)
    compareOrdered<SightingStored>(
      iterateAllSightings(db), iterateAllSightings(copy), (s) => `${String(s.record_id).padStart(12, '0')}\u0000${s.marker}`,
      ['class', 'marker_key', 'partial', 'source_session', 'source_tenant', 'position', 'token'],
      (s) => `${s.class} sighting of ${shown(s.marker)} in record ${name(s.record_id)}`, 'sighting', problems,
    )
    // Possible sources not recorded (a scan before schema 13, imported findings) are not a difference: the case says so itself.
    const unrecorded = provenanceWithoutCandidates(db)
    compareOrdered<ProvenanceStored>(
      iterateAllProvenance(db), withoutCandidatesOf(iterateAllProvenance(copy), unrecorded), (p) => String(p.record_id).padStart(12, '0'),
      ['source_record_id', 'source_session', 'source_tenant', 'overlap_words', 'overlap_sha256', 'matched', 'word_start', 'candidates', 'source_order', 'source_status', 'source_tenants', 'source_candidates'],
      (p) => `provenance of record ${name(p.record_id)} (from ${shown(p.source_tenant)}/${shown(p.source_session)}, ${p.overlap_words} words)`, 'finding', problems,
    )
    compareOrdered<PiiFindingStored>(
      iterateAllPiiFindings(db), iterateAllPiiFindings(copy), (p) => `${String(p.record_id).padStart(12, '0')}\u0000${p.kind}\u0000${p.value_sha256}\u0000${p.source_record_id ?? ''}`,
      ['source_session', 'source_tenant'],
      (p) => `personal-data finding (${p.kind}) in record ${name(p.record_id)}`, 'finding', problems,
    )
  } finally {
    copy.close()
  }
  return {compared: true, note: null}
}

/** The re-derived findings, their possible sources left unrecorded where the case's are. */
function* withoutCandidatesOf(rows: Iterable<ProvenanceStored>, unrecorded: ReadonlySet<number>): Generator<ProvenanceStored> {
  for (const p of rows) yield unrecorded.has(p.record_id) ? {...p, source_candidates: null} : p
}

/** Walks two lists sorted by `key` (the same order the store returns them in) and reports what differs. */
function compareOrdered<T extends object>(
  stored: Iterator<T>, derived: Iterator<T>, key: (t: T) => string, fields: ReadonlyArray<keyof T & string>,
  describe: (t: T) => string, kind: 'sighting' | 'finding', problems: Problems,
): void {
  let a = stored.next()
  let b = derived.next()
  while (!a.done || !b.done) {
    const ka = a.done ? null : key(a.value)
    const kb = b.done ? null : key(b.value)
    if (kb === null || (ka !== null && sqliteLess(ka, kb))) {
      problems.add(kind, describe(a.value!), 'is in the case, but detection run again does not find it', `deep:${kind}`)
      a = stored.next()
    } else if (ka === null || sqliteLess(kb, ka)) {
      problems.add(kind, describe(b.value), 'is found by detection run again, but missing from the case', `deep:${kind}`)
      b = derived.next()
    } else {
      const field = fields.find((f) => a.value![f] !== b.value![f])
      if (field) problems.add(kind, describe(a.value!), `${field} is ${shown(a.value![field])} in the case, ${shown(b.value![field])} when detection is run again`, `deep:${kind}`)
      a = stored.next()
      b = derived.next()
    }
  }
}
