import type {z} from 'zod'
import {recordTextLoader} from '../ingest/record-texts.js'
import type {CaseDb} from '../store/open-case.js'
import type {piiFindingSchema, provenanceEntrySchema, sightingSchema} from './schemas.js'
import {CONTAMINATION_CLASSES, type SightingClass} from './markers.js'
import {findPii, hashPii, type PiiKind} from './pii.js'
import {piiRef, piiRefKey} from './pii-ref.js'
import {tokenizeWords, wordsText} from './words.js'

// Read side of detection: the contract's --json shapes, built from the stored tables.

export type Sighting = z.infer<typeof sightingSchema>
export type SightingsResult = Sighting[]

export function listSightings(db: CaseDb, options: {classes?: readonly SightingClass[]} = {}): SightingsResult {
  const classes = options.classes && options.classes.length > 0 ? [...new Set(options.classes)] : null
  const where = classes ? `AND s.class IN (${classes.map(() => '?').join(', ')})` : ''
  const rows = db
    .prepare(
      `SELECT r.request_id, r.ts_ms, s.class, s.marker, s.partial, r.session_id, r.tenant_id, s.source_session, s.source_tenant
       FROM sightings s JOIN records r ON r.id = s.record_id JOIN files f ON f.id = r.file_id
       WHERE f.state = 'complete' ${where}
       ORDER BY r.ts_ms, r.id, s.position, s.id`,
    )
    .raw()
    .all(...(classes ?? [])) as Array<[string, number, SightingClass, string, number, string, string, string | null, string | null]>
  return rows.map(([request_id, ts, cls, marker, partial, rs, rt, ss, st]) => ({
    request_id,
    ts: new Date(ts).toISOString(),
    class: cls,
    marker,
    partial: partial === 1,
    recipient_session: rs,
    recipient_tenant: rt,
    source_session: ss,
    source_tenant: st,
  }))
}

export function isContamination(cls: SightingClass): boolean {
  return CONTAMINATION_CLASSES.includes(cls)
}

export type ProvenanceEntry = z.infer<typeof provenanceEntrySchema>
export type ProvenanceResult = ProvenanceEntry[]

export function listProvenance(db: CaseDb, options: {showText?: boolean; minWords?: number} = {}): ProvenanceResult {
  const rows = db
    .prepare(
      `SELECT r.request_id, r.ts_ms, r.session_id, r.tenant_id, s.request_id AS source_request_id, s.ts_ms AS source_ts,
              p.source_session, p.source_tenant, p.overlap_words, p.overlap_sha256, p.matched, p.candidates, p.word_start, r.id
       FROM provenance p JOIN records r ON r.id = p.record_id JOIN records s ON s.id = p.source_record_id
       WHERE p.overlap_words >= ?
       ORDER BY r.ts_ms, r.id`,
    )
    .all(options.minWords ?? 0) as Array<{
    request_id: string
    ts_ms: number
    session_id: string
    tenant_id: string
    source_request_id: string
    source_ts: number
    source_session: string
    source_tenant: string
    overlap_words: number
    overlap_sha256: string
    matched: 'prompt' | 'response'
    candidates: number
    word_start: number
    id: number
  }>
  const texts = recordTextLoader(db)
  return rows.map((row) => {
    const entry: ProvenanceEntry = {
      request_id: row.request_id,
      ts: new Date(row.ts_ms).toISOString(),
      recipient_session: row.session_id,
      recipient_tenant: row.tenant_id,
      source_request_id: row.source_request_id,
      source_ts: new Date(row.source_ts).toISOString(),
      source_session: row.source_session,
      source_tenant: row.source_tenant,
      overlap_words: row.overlap_words,
      overlap_sha256: row.overlap_sha256,
      matched: row.matched,
      candidates: row.candidates,
    }
    if (options.showText) {
      const text = texts(row.id).response_text ?? ''
      entry.overlap_text = wordsText(text, tokenizeWords(text), row.word_start, row.overlap_words)
    }
    return entry
  })
}

export type PiiFinding = z.infer<typeof piiFindingSchema>
export type PiiResult = PiiFinding[]

export function listPiiFindings(db: CaseDb, options: {showValues?: boolean} = {}): PiiResult {
  const rows = db
    .prepare(
      `SELECT r.id, r.request_id, r.ts_ms, p.kind, p.value_sha256, r.session_id, r.tenant_id, s.request_id AS source_request_id,
              p.source_session, p.source_tenant
       FROM pii_findings p JOIN records r ON r.id = p.record_id LEFT JOIN records s ON s.id = p.source_record_id
       ORDER BY r.ts_ms, r.id, p.kind, p.value_sha256`,
    )
    .all() as Array<{
    id: number
    request_id: string
    ts_ms: number
    kind: PiiKind
    value_sha256: string
    session_id: string
    tenant_id: string
    source_request_id: string | null
    source_session: string | null
    source_tenant: string | null
  }>
  const loadTexts = recordTextLoader(db)
  const responseOf = {get: (id: number): string | null => loadTexts(id).response_text}
  const valuesCache = new Map<number, Map<string, string>>()
  const key = rows.length > 0 ? piiRefKey(db) : null
  return rows.map((row) => {
    const finding: PiiFinding = {
      request_id: row.request_id,
      ts: new Date(row.ts_ms).toISOString(),
      kind: row.kind,
      value_ref: piiRef(key!, row.value_sha256),
      recipient_session: row.session_id,
      recipient_tenant: row.tenant_id,
      source_request_id: row.source_request_id,
      source_session: row.source_session,
      source_tenant: row.source_tenant,
    }
    if (options.showValues) {
      let values = valuesCache.get(row.id)
      if (!values) {
        values = new Map(findPii((responseOf.get(row.id) as string | null) ?? '').map((v) => [hashPii(v.kind, v.value), v.value]))
        valuesCache.set(row.id, values)
      }
      finding.value = values.get(row.value_sha256) ?? '(not recomputable)'
      // As revealing as the value itself (enumerable), so only where the value is asked for.
      finding.value_sha256 = row.value_sha256
    }
    return finding
  })
}
