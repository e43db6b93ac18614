import {examineConflictingDuplicates, type LeakingDuplicate} from '../detect/conflicting-duplicates.js'
import {detectionCoverage, type DetectionCoverage} from '../detect/coverage.js'
import {sqliteRegistry} from '../detect/registry.js'
import {possibleSources} from '../extract/markers.js'
import {recordTextLoader} from '../evidence/record-texts.js'
import {UNREAD_REQUEST} from '../extract/parse-record.js'
import {filesWithNote} from '../store/files.js'
import {contaminationRows, orphanSightingCount, piiScopeRows, provenanceRows, type ContaminationRow, type PiiScopeRow, type ProvenanceRow, type TextPool} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {atRiskByTenant, atRiskGroups, atRiskJudgeable, atRiskUndecided, atRiskUndecidedByTenant, atRiskUndecidedSpans, countSessionsServed, recordsMissingAtRiskFields, recordsMissingAtRiskFieldsByTenant, type AtRiskGroup, type UnknownFieldCounts} from '../store/records.js'
import {getSettings} from '../store/settings.js'
import {storedTenantLabels, tenantLabelsFirstGiven, type TenantLabelNumbers} from '../store/tenant-labels.js'
import {withSortCache} from '../store/session.js'
import {checkTokenWindow} from '../detect/token-window.js'

export type {AtRiskGroup} from '../store/records.js'
export type {ContaminationRow, PiiScopeRow, ProvenanceRow} from '../store/findings.js'

// Everything scope, the tenant views, the timeline and the reports are computed from, read
// from the case once. Contamination is rare next to the records (thousands of sightings
// against millions of responses), so the contaminating sightings, provenance rows and
// personal-data findings are read whole; the questions that range over every record (at
// risk, sessions served by a leaking node) are answered by the store on their indexes.
// Everything after this is pure: computeScope(inputs), computeTenantView(inputs, tenant),
// buildTimeline(inputs, audit), gatherFacts(...).

export const CONTAMINATING = ['cross_session', 'cross_tenant'] as const
export type ContaminatingClass = (typeof CONTAMINATING)[number]

export interface ScopeInputs {
  /** the other customers' labels already given (tenant -> other -> N of tenant#N), kept for the case's life; absent: none stored */
  tenantLabels?: TenantLabelNumbers
  /** tenant -> when its first label was stored (tenant-labels.ts); absent: none stored */
  tenantLabelsFirstGiven?: ReadonlyMap<string, string>
  /** The prefill KV pool in force: given for this run, else recorded in the case by scan, else null. */
  pool: number | null
  advertised: number | null
  /** Where the pool came from. */
  pool_basis: 'given' | 'recorded' | 'unknown'
  contamination: ContaminationRow[]
  /** Provenance rows that point at another session (a session's own earlier turn is not a leak). */
  provenance: ProvenanceRow[]
  /** null without a pool size, or when no record gives both status and prompt size (unknown) */
  atRisk: AtRiskGroup[] | null
  /** at-risk responses per recipient tenant; null when atRisk is */
  atRiskByTenant: Map<string, number> | null
  /** records whose status, prompt size or node is unknown (per field; the at-risk test cannot be applied without status and prompt size) */
  unknownForAtRisk: UnknownFieldCounts
  /**
   * Records whose missing status or prompt size leaves open whether they were at risk at this
   * pool (atRiskUndecided); null without a pool size. Every record lacking either field where no
   * record gives both (the at-risk figures are unknown then), or on a case of a Spark job that
   * made no count.
   */
  atRiskUndecided: number | null
  /** how atRiskUndecided was counted: exactly, or (findings of a Spark job that made no count) every record lacking either field */
  atRiskUndecidedRule: 'exact' | 'either_missing'
  /** atRiskUndecided per recipient tenant; null without a pool size or where not counted per tenant */
  atRiskUndecidedByTenant: Map<string, number> | null
  orphans: number
  pii: PiiScopeRow[]
  /** sessions served by a suspect node inside its window (null without a pool size) */
  exposure: {served: number; withConfirmed: number; windows: number} | null
  /**
   * Set when the rows are one customer's share (a processor drafting for a controller): the
   * case-wide bounds (at-risk responses, sessions a leaking node served) are left out, not
   * narrowed, though the pool is known.
   */
  narrowed?: boolean
  detection: DetectionCoverage
  /**
   * Lines kept as duplicates of a request id (a retry logged under the same id) whose answer
   * carries another session's marker that the request's record does not: responses someone
   * received, which no figure counts (the first line of a request id is its record, and only
   * records have sightings), so every output names them beside the figures. `unexamined`:
   * such lines that differ from their record and could not be read again; `unexamined_tenants`:
   * for each of them, the tenant of the record it repeats (null: none recorded). Absent: inputs
   * built by hand, holding none.
   */
  duplicates?: {leaking: LeakingDuplicate[]; unexamined: number; unexamined_tenants?: Array<string | null>}
}

export interface LoadScopeOptions {
  /** What-if: another pool size than the one recorded in the case. */
  poolTokens?: number
  advertisedTokens?: number
}

export function loadScopeInputs(db: CaseDb, options: LoadScopeOptions = {}): ScopeInputs {
  const settings = getSettings(db)
  const given = options.poolTokens !== undefined
  const pool = given ? options.poolTokens! : settings.pool_tokens
  // A window given applies at the pool in force (given or recorded); else the recorded one with the recorded pool.
  const advertised = options.advertisedTokens ?? (given ? null : settings.advertised_tokens)
  // The same rule as scan's, for every command that takes the pair (scope, report case): a window given below the pool it is judged at is a usage error.
  if (options.advertisedTokens !== undefined) checkTokenWindow(pool, options.advertisedTokens, !given)
  const {contamination, provenance} = loadExposureInputs(db)
  const unknownForAtRisk = recordsMissingAtRiskFields(db)
  // When no record says both its status and its prompt size (LiteLLM and Langfuse record no
  // HTTP status), the at-risk test can judge nothing: every at-risk figure (per node, per hour,
  // per tenant, the bounds built on them) is unknown, not zero.
  const judgeable = atRiskJudgeable(unknownForAtRisk)
  const atRisk = pool === null || !judgeable ? null : atRiskGroups(db, pool, advertised)
  // Where no record gives both fields, the at-risk figures are unknown (null) and the count beside them stays every record lacking either.
  const undecided = pool === null || !judgeable ? undefined : atRiskUndecided(db, pool)
  let exposure: ScopeInputs['exposure'] = null
  if (atRisk !== null) {
    // A record that may have been at risk (its status or prompt size not recorded) widens its node's window as an at-risk one does: the bound stays an upper bound.
    const windows = nodeWindows(contamination, provenance, [...atRisk, ...(atRiskUndecidedSpans(db, pool!) ?? [])])
    const confirmed = confirmedSources(contamination, provenance)
    exposure = {...countSessionsServed(db, windows, confirmed), windows: windows.size}
  }
  return {
    tenantLabels: storedTenantLabels(db),
    tenantLabelsFirstGiven: tenantLabelsFirstGiven(db),
    pool,
    advertised,
    pool_basis: given ? 'given' : pool !== null ? 'recorded' : 'unknown',
    contamination,
    provenance,
    atRisk,
    atRiskByTenant: atRisk === null ? null : atRiskByTenant(db, pool!),
    unknownForAtRisk,
    atRiskUndecided: pool === null ? null : (undecided ?? unknownForAtRisk.no_status_or_prompt_tokens),
    atRiskUndecidedRule: undecided === undefined ? 'either_missing' : 'exact',
    // By the same rule as the whole case's count: where nothing can be judged, every record lacking either field.
    atRiskUndecidedByTenant: pool === null ? null : ((undecided === undefined ? recordsMissingAtRiskFieldsByTenant(db) : atRiskUndecidedByTenant(db, pool)) ?? null),
    orphans: orphanSightingCount(db),
    pii: piiScopeRows(db),
    exposure,
    detection: detectionCoverage(db),
    duplicates: duplicateLeaks(db),
  }
}

function duplicateLeaks(db: CaseDb): NonNullable<ScopeInputs['duplicates']> {
  const d = examineConflictingDuplicates(db)
  return {leaking: d.leaking, unexamined: d.unexamined.length, unexamined_tenants: d.unexamined.map((u) => u.tenant_id)}
}

/** Per node: from the first to the last at-risk or contaminated response on it. */
export function nodeWindows(
  contamination: readonly ContaminationRow[],
  provenance: readonly ProvenanceRow[],
  atRisk: ReadonlyArray<Pick<AtRiskGroup, 'decode_node' | 'first_ms' | 'last_ms'>> | null,
): Map<string | null, [number, number]> {
  const windows = new Map<string | null, [number, number]>()
  const widen = (node: string | null, lo: number, hi: number): void => {
    const w = windows.get(node)
    windows.set(node, w ? [Math.min(w[0], lo), Math.max(w[1], hi)] : [lo, hi])
  }
  for (const c of contamination) if (timeIsFact(c)) widen(c.decode_node, c.ts_ms, c.ts_ms)
  for (const p of provenance) if (timeIsFact(p)) widen(p.decode_node, p.ts_ms, p.ts_ms)
  for (const g of atRisk ?? []) widen(g.decode_node, g.first_ms, g.last_ms)
  return windows
}

/** The (tenant, session) pairs whose data reached another session, by marker or by verbatim text. */
export function confirmedSources(contamination: readonly ContaminationRow[], provenance: readonly ProvenanceRow[]): Array<[string | null, string | null]> {
  const seen = new DistinctPairs()
  for (const rows of [contamination, provenance]) for (const r of rows) seen.add(r.source_tenant, r.source_session)
  return [...seen.pairs()]
}

export const HOUR_MS = 3_600_000

export function iso(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString()
}

export function hourStart(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS
}

/** A session is only unique within its tenant: count (tenant, session) pairs. */
export function sessionKey(tenant: string | null, session: string | null): string {
  return JSON.stringify([tenant, session])
}

/**
 * Values by a pair of texts (a session: tenant and session id; a flow: source and recipient
 * tenant), null distinct from every text, kept without a joined key per pair: scope reads each
 * contaminating sighting and provenance row several times (tens of thousands at 5M records),
 * and a key built per row each time was most of its garbage.
 */
export class PairMap<T> {
  private readonly outer = new Map<string | null, Map<string | null, T>>()
  size = 0

  /** The value of (a, b), made by `make` the first time the pair is seen. */
  at(a: string | null, b: string | null, make: () => T): T {
    let inner = this.outer.get(a)
    if (inner === undefined) this.outer.set(a, (inner = new Map()))
    let value = inner.get(b)
    if (value === undefined) {
      inner.set(b, (value = make()))
      this.size++
    }
    return value
  }

  /** Every pair with its value, in the order the pairs' first elements, then the pairs, were first seen. */
  *entries(): Generator<[string | null, string | null, T]> {
    for (const [a, inner] of this.outer) for (const [b, value] of inner) yield [a, b, value]
  }
}

/** Distinct pairs of texts (see PairMap). */
export class DistinctPairs {
  private readonly map = new PairMap<true>()

  add(a: string | null, b: string | null): void {
    this.map.at(a, b, yes)
  }

  get size(): number {
    return this.map.size
  }

  *pairs(): Generator<[string | null, string | null]> {
    for (const [a, b] of this.map.entries()) yield [a, b]
  }
}

const yes = (): true => true

export function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Orders null last, then by code unit. */
export function byNullableText(a: string | null, b: string | null): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return byText(a, b)
}

/**
 * Whether a row's time is a fact a window may be drawn from: not dated after its file was ingested
 * (a time in the future when the log was read) nor before its marker was issued (a wrong log clock,
 * zone or unit, or a wrong registry). Such rows are counted as found everywhere; only their times
 * are kept out of every first, last and window, and the drafts name them as open items.
 */
export const timeIsFact = (r: {after_ingest?: number; before_issued?: number}): boolean => !r.after_ingest && !r.before_issued

/** The times of the rows that are facts (timeIsFact). */
export const factTimes = (rows: ReadonlyArray<{ts_ms: number; after_ingest?: number; before_issued?: number}>): number[] => rows.filter(timeIsFact).map((r) => r.ts_ms)

export function minMax(values: readonly number[]): [number, number] | null {
  if (values.length === 0) return null
  let lo = Infinity
  let hi = -Infinity
  for (const v of values) {
    if (v < lo) lo = v
    if (v > hi) hi = v
  }
  return [lo, hi]
}

/**
 * Only what the exposure needs (the contaminating sightings and the provenance rows that point
 * at another session), for callers that do not need the rest of the scope inputs: a
 * processor's clock lists its controllers from it.
 */
export function loadExposureInputs(db: CaseDb): Pick<ScopeInputs, 'contamination' | 'provenance'> {
  // One pool of texts for both: a sighting's and a provenance row's tenants, sessions and nodes are the same strings.
  const pool: TextPool = new Map()
  // Both join their rows to random pages of the records table, read once, and sort them by
  // time: a small cache and no sorter threads (see withSortCache).
  const rows = withSortCache(db, () => ({
    contamination: contaminationRows(db, pool),
    provenance: provenanceRows(db, pool).filter((p) => p.source_session !== p.recipient_session || p.source_tenant !== p.recipient_tenant),
  }))
  promptsFromEvidence(db, rows.contamination)
  promptsReadInPart(db, rows.contamination)
  markerPossibleSources(db, rows.contamination)
  return rows
}

/** Each sighting of a marker cut short of several customers' markers (no source customer): the sessions it may come from, from the registry. */
function markerPossibleSources(db: CaseDb, contamination: ContaminationRow[]): void {
  const cut = contamination.filter((c) => c.source_tenant === null)
  if (cut.length === 0) return
  const registry = sqliteRegistry(db)
  for (const c of cut) c.possible_sources = possibleSources(registry, c.marker).map((p) => ({tenant_id: p.tenant, session_id: p.session}))
}

/**
 * Marks each contaminated response whose request was read in part (its body holds members this
 * release does not read: the record's note, which its file's notes count): the echo check did not
 * find the marker in what was read, and cannot say it is not in the rest. Only the records of files
 * whose notes say they hold such requests are read again from the evidence; one whose evidence
 * cannot be read is 'unknown', never read whole.
 */
function promptsReadInPart(db: CaseDb, contamination: ContaminationRow[]): void {
  if (contamination.length === 0) return
  const files = filesWithNote(db, UNREAD_REQUEST)
  if (files.size === 0) return
  const texts = recordTextLoader(db)
  const known = new Map<number, string | 'unknown' | undefined>()
  for (const c of contamination) {
    if (!files.has(c.file_id)) continue
    if (!known.has(c.record_id)) {
      let members: string | 'unknown' | undefined
      try {
        const note = texts(c.record_id).request_unread_note
        members = note === undefined ? undefined : note.slice(UNREAD_REQUEST.length + 2)
      } catch {
        members = 'unknown'
      }
      known.set(c.record_id, members)
    }
    const members = known.get(c.record_id)
    if (members !== undefined) c.prompt_in_part = members
  }
}

/**
 * Whether each contaminated response's prompt was logged, where the case keeps no extract of it
 * (a Spark audit's findings bring no fingerprint rows): read from the record's evidence, so that
 * 0 is never said for not known. A record whose evidence cannot be read stays null (unknown).
 */
function promptsFromEvidence(db: CaseDb, contamination: ContaminationRow[]): void {
  if (contamination.every((c) => c.prompt_words !== null)) return
  const texts = recordTextLoader(db)
  const known = new Map<number, number | null>()
  for (const c of contamination) {
    if (c.prompt_words !== null) continue
    let words = known.get(c.record_id)
    if (words === undefined) {
      try {
        words = (texts(c.record_id).request_text ?? '').trim() === '' ? 0 : 1
      } catch {
        words = null
      }
      known.set(c.record_id, words)
    }
    c.prompt_words = words
  }
}
