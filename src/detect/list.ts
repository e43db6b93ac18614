import {randomBytes} from 'node:crypto'
import type {z} from 'zod'
import {recordTextLoader} from '../evidence/record-texts.js'
import {CONTAMINATION_CLASSES, possibleSources, type MarkerRegistry, type SightingClass} from '../extract/markers.js'
import {findPii, hashPii, type PiiKind} from '../extract/pii.js'
import {tokenizeWords, wordsText} from '../extract/words.js'
import {listPiiFindingRows, listProvenanceRows, listSightingRows} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {piiRef, referenceKey} from './pii-ref.js'
import {sqliteRegistry} from './registry.js'
import type {piiFindingSchema, provenanceEntrySchema, sightingSchema} from './schemas.js'

// Read side of detection: the contract's --json shapes, built from the stored findings.

export type Sighting = z.infer<typeof sightingSchema>
export type SightingsResult = Sighting[]

export function listSightings(db: CaseDb, options: {classes?: readonly SightingClass[]} = {}): SightingsResult {
  return listSightingsWithNode(db, options).map(({decode_node: _node, ...s}) => s)
}

/** The sightings with the decode node of the response each was found in (null where the log gives none): the case report's rows. */
export function listSightingsWithNode(db: CaseDb, options: {classes?: readonly SightingClass[]} = {}): Array<Sighting & {decode_node: string | null}> {
  const classes = options.classes && options.classes.length > 0 ? [...new Set(options.classes)] : null
  let registry: MarkerRegistry | undefined
  // A marker cut short of markers of several sessions names no source session: the sessions it
  // may come from are listed, never one picked.
  const possible = (cls: string, ss: string | null, marker: string): Array<{tenant: string; session: string}> =>
    cls === 'orphan' || ss !== null ? [] : possibleSources((registry ??= sqliteRegistry(db)), marker)
  return listSightingRows(db, classes).map(([request_id, ts, cls, marker, partial, rs, rt, ss, st, node, logSource]) => ({
    request_id,
    ts: new Date(ts).toISOString(),
    class: cls as SightingClass,
    marker,
    partial: partial === 1,
    recipient_session: rs,
    recipient_tenant: rt,
    source_session: ss,
    source_tenant: st,
    possible_sources: possible(cls, ss, marker),
    log_source: logSource,
    decode_node: node,
  }))
}

export function isContamination(cls: SightingClass): boolean {
  return CONTAMINATION_CLASSES.includes(cls)
}

export type ProvenanceEntry = z.infer<typeof provenanceEntrySchema>
export type ProvenanceResult = ProvenanceEntry[]

export function listProvenance(db: CaseDb, options: {showText?: boolean; minWords?: number} = {}): ProvenanceResult {
  const rows = listProvenanceRows(db, options.minWords ?? 0)
  const texts = options.showText ? recordTextLoader(db) : null
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
      source_order: row.source_order,
      source_status: row.source_status,
      source_tenants: row.source_tenants,
      // Only an ambiguous source has possible sources; not recorded (an earlier scan, imported findings) is null, never none.
      possible_sources: row.source_status !== 'ambiguous' ? [] : row.source_candidates === null ? null : (JSON.parse(row.source_candidates) as Array<{tenant_id: string; session_id: string}>).map((c) => ({tenant: c.tenant_id, session: c.session_id})),
    }
    if (texts) {
      const text = texts(row.id).response_text ?? ''
      entry.overlap_text = wordsText(text, tokenizeWords(text), row.word_start, row.overlap_words)
    }
    return entry
  })
}

export type PiiFinding = z.infer<typeof piiFindingSchema>
export type PiiResult = PiiFinding[]

export function listPiiFindings(db: CaseDb, options: {showValues?: boolean} = {}): PiiResult {
  const rows = listPiiFindingRows(db)
  const texts = options.showValues ? recordTextLoader(db) : null
  const valuesCache = new Map<number, Map<string, string>>()
  // Made by the scan that found these (a listing writes nothing); without one, a key for this run only.
  const key = rows.length > 0 ? (referenceKey(db, {create: false}) ?? randomBytes(32)) : null
  return rows.map((row) => {
    const finding: PiiFinding = {
      request_id: row.request_id,
      ts: new Date(row.ts_ms).toISOString(),
      kind: row.kind as PiiKind,
      value_ref: piiRef(key!, row.value_sha256),
      recipient_session: row.session_id,
      recipient_tenant: row.tenant_id,
      source_request_id: row.source_request_id,
      source_session: row.source_session,
      source_tenant: row.source_tenant,
    }
    if (texts) {
      let values = valuesCache.get(row.id)
      if (!values) {
        values = new Map(findPii(texts(row.id).response_text ?? '').map((v) => [hashPii(v.kind, v.value), v.value]))
        valuesCache.set(row.id, values)
      }
      finding.value = values.get(row.value_sha256) ?? '(not recomputable)'
      // As revealing as the value itself (enumerable), so only where the value is asked for.
      finding.value_sha256 = row.value_sha256
    }
    return finding
  })
}
