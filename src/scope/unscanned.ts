import type {ScopeHourRow, ScopeNodeRow, ScopeResult} from './compute-scope.js'
import {type DetectionCoverage, nothingSearched} from '../detect/coverage.js'
import type {TenantDirection, TenantViewResult} from './tenant-view.js'
import type {TimelineResult} from './build-timeline.js'

// `scope --allow-incomplete` on a case that was never scanned: no sighting, provenance or
// personal-data finding exists yet, so every count detection makes is unknown, not zero (the
// contract: unknown is never printed as zero). What does not rest on detection stays: the
// at-risk test reads the records themselves, and the pool, window and unknown-field counts.

type Unknown<T> = {[K in keyof T]: T[K] | null}

export type UnscannedNodeRow = Unknown<ScopeNodeRow> & Pick<ScopeNodeRow, 'decode_node' | 'at_risk_responses'>
export type UnscannedHourRow = Unknown<ScopeHourRow> & Pick<ScopeHourRow, 'hour' | 'at_risk_responses'>

export type UnscannedScope = Omit<Unknown<ScopeResult>, 'by_node' | 'by_hour' | 'detection' | 'duplicate_leaks_not_counted' | 'duplicate_lines_not_examined'> & {
  by_node: UnscannedNodeRow[]
  by_hour: UnscannedHourRow[]
  detection: ScopeResult['detection']
} & Pick<ScopeResult, 'duplicate_leaks_not_counted' | 'duplicate_lines_not_examined'>

/** The scope of a never-scanned case as it can be said: detection's counts null, the rest as computed. */
export function unscannedScope(r: ScopeResult): UnscannedScope {
  return {
    contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null, exposed_sessions: null, exposed_tenants: null,
    recipient_tenants: null, first_seen: null, last_seen: null, at_risk_responses: r.at_risk_responses, flows: null,
    exposure: null, pool_tokens: r.pool_tokens, advertised_tokens: r.advertised_tokens, at_risk_error_responses: r.at_risk_error_responses,
    over_advertised_responses: r.over_advertised_responses, orphan_sightings: null, provenance_responses: null, provenance_cross_tenant_responses: null,
    provenance_cross_session_responses: null, provenance_only_responses: null, contaminated_without_prompt: null, contaminated_prompt_in_part: null, prompt_in_part: null,
    provenance_flows: null, flow_matrix: null, pii_attributed_only_responses: null, pii_attributed_only_flows: null,
    by_node: r.by_node.map((x) => ({
      ...x, contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null, provenance_responses: null, first_seen: null, last_seen: null,
    })),
    by_hour: r.by_hour.map((x) => ({...x, contaminated_responses: null, cross_tenant_responses: null, provenance_responses: null})),
    data_categories: null, data_subjects: null, records_concerned: null, bug_window: null, pool_basis: r.pool_basis,
    at_risk_unknown_records: r.at_risk_unknown_records, unknown_fields: r.unknown_fields, detection: r.detection,
    // Judged from the lines and the registry, not from a scan: as computed.
    duplicate_leaks_not_counted: r.duplicate_leaks_not_counted, duplicate_lines_not_examined: r.duplicate_lines_not_examined,
    responses_dated_after_ingest: null, responses_dated_before_marker_issued: null,
  }
}

/**
 * The scope of a case with no canary registry: no marker can be attributed to a session, so
 * every count the canary markers make is unknown, not zero; the verbatim-text evidence, the
 * at-risk test and what does not rest on markers stay as computed.
 */
export type RegistrylessScope = Omit<ScopeResult, 'data_subjects' | 'records_concerned' | 'contaminated_without_prompt' | 'contaminated_prompt_in_part' | 'prompt_in_part' | 'contaminated_responses' | 'cross_tenant_responses' | 'cross_session_responses' | 'exposed_sessions' | 'exposed_tenants' | 'recipient_tenants' | 'first_seen' | 'last_seen' | 'flows' | 'flow_matrix' | 'exposure' | 'by_node' | 'by_hour'> & {
  /** the low bound null where the exposure is not known and nothing bounds it (registrylessEstimates) */
  data_subjects: LowUnknown<ScopeResult['data_subjects']>
  records_concerned: LowUnknown<ScopeResult['records_concerned']>
  contaminated_responses: null
  contaminated_without_prompt: null
  contaminated_prompt_in_part: null
  prompt_in_part: null
  cross_tenant_responses: null
  cross_session_responses: null
  exposed_sessions: null
  exposed_tenants: null
  recipient_tenants: null
  first_seen: null
  last_seen: null
  flows: null
  flow_matrix: null
  /** null where answers hold marker-shaped tokens (orphans): whose data they carry is not known, so neither is the total */
  exposure: (Omit<ScopeResult['exposure'], 'by_canary'> & {by_canary: null}) | null
  by_node: Array<Omit<ScopeNodeRow, 'contaminated_responses' | 'cross_tenant_responses' | 'cross_session_responses' | 'first_seen' | 'last_seen'> & {contaminated_responses: null; cross_tenant_responses: null; cross_session_responses: null; first_seen: null; last_seen: null}>
  by_hour: Array<Omit<ScopeHourRow, 'contaminated_responses' | 'cross_tenant_responses'> & {contaminated_responses: null; cross_tenant_responses: null}>
}

/**
 * The estimates' evidence without a canary registry: the parts the markers would count (their
 * source sessions, their responses) are unknown, not 0; the low bounds rest on the verbatim text.
 */
export function registrylessEstimates<E extends {low: number; high: number | null; evidence: Record<string, number | string | null>}>(data_subjects: E, records_concerned: E, orphans = 0): {data_subjects: LowUnknown<E>; records_concerned: LowUnknown<E>} {
  // Where answers hold markers of no registered session (exposureKnown false), a low bound of 0 with no high bound is no finding: not known (null), never 0.
  const low = (e: E): LowUnknown<E> => (exposureKnown(false, orphans) || e.high !== null || e.low > 0 ? e : {...e, low: null})
  return {
    data_subjects: low({...data_subjects, evidence: {...data_subjects.evidence, sighting_source_sessions: null}}),
    records_concerned: low({...records_concerned, evidence: {...records_concerned.evidence, sighting_responses: null}}),
  }
}

/** An estimate whose low bound may be not known (null): registrylessEstimates. */
export type LowUnknown<E extends {low: number}> = Omit<E, 'low'> & {low: number | null}

/**
 * Whether the exposure (markers and verbatim text together) is known. With no canary registry a
 * marker-shaped token found in an answer (an orphan) is attributed to no session: whose data it
 * carries is not known, so neither is any exposure figure; what verbatim text shows is then a
 * lower bound (0 included), never the total. The one rule every output applies (scope --json's
 * `exposure: null`, the drafts' "not known", the clock's controllers).
 */
export function exposureKnown(registry: boolean, orphans: number | null): boolean {
  return registry || (orphans ?? 0) === 0
}

/** The verbatim-text category's label where the case holds no canary registry (the drafts' own). */
export const NO_REGISTRY_VERBATIM_LABEL = "another session's prompt or answer, reproduced verbatim (whether with a canary marker is not known: no canary registry)"

/**
 * The data categories of a case with no canary registry: a response counted by its verbatim text
 * is not known to hold no canary marker (no marker can be attributed), so its category never
 * says "without a canary marker".
 */
export function registrylessCategories<C extends {category: string; label: string}>(categories: readonly C[]): C[] {
  return categories.map((c) => (c.category === 'conversation_content_attributed' ? {...c, label: NO_REGISTRY_VERBATIM_LABEL} : c))
}

export function registrylessScope(r: ScopeResult): RegistrylessScope {
  return {
    ...r,
    data_categories: registrylessCategories(r.data_categories),
    ...registrylessEstimates(r.data_subjects, r.records_concerned, r.orphan_sightings),
    contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null, exposed_sessions: null, exposed_tenants: null,
    recipient_tenants: null, first_seen: null, last_seen: null, flows: null, flow_matrix: null, contaminated_without_prompt: null,
    contaminated_prompt_in_part: null, prompt_in_part: null,
    // A marker in an answer attributed to no session may be another session's: the exposure is then not known, never the verbatim count as the whole.
    exposure: exposureKnown(false, r.orphan_sightings) ? {...r.exposure, by_canary: null} : null,
    by_node: r.by_node.map((x) => ({...x, contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null, first_seen: null, last_seen: null})),
    by_hour: r.by_hour.map((x) => ({...x, contaminated_responses: null, cross_tenant_responses: null})),
  }
}

/** One tenant's view of a case with no canary registry: the markers' figures null, as in registrylessScope. */
export type RegistrylessTenantView = ReturnType<typeof registrylessTenantView>

export function registrylessTenantView(v: TenantViewResult) {
  const side = (d: TenantDirection) => ({
    ...d,
    responses: null, cross_tenant_responses: null, cross_session_responses: null, own_sessions: null, other_sessions: null, other_tenants: null,
    first_seen: null, last_seen: null,
    exposure: {...d.exposure, by_canary: null},
    counterparts: d.counterparts.map((c) => ({...c, responses: null, first_seen: null, last_seen: null})),
  })
  return {...v, received: side(v.received), leaked: side(v.leaked)}
}

/**
 * The timeline of a case with no canary registry: the markers' figures (each pair's and each
 * hour's marker counts, the nodes' first and last marker responses) null, as in registrylessScope;
 * the exposure null where answers hold marker-shaped tokens (exposureKnown); the verbatim-text
 * evidence, the at-risk counts and the events stay.
 */
export function registrylessTimeline(t: TimelineResult, orphans = 0) {
  return {
    ...t,
    // A marker in an answer attributed to no session may be another session's: the exposure is not known (as scope --json's).
    exposure: exposureKnown(false, orphans) ? {...t.exposure, by_canary: null} : null,
    nodes: t.nodes.map((n) => ({...n, first_contaminated: null, last_contaminated: null})),
    pairs: t.pairs.map((p) => ({...p, by_canary: null})),
    hours: t.hours.map((h) => ({...h, contaminated_responses: null, sightings: null})),
  }
}
export type RegistrylessTimeline = ReturnType<typeof registrylessTimeline>

/**
 * The scope of a case whose canary-less provenance does not cover it (a scan skipped it with
 * --no-provenance after records were added, or evidence was dropped since it ran): every figure
 * that counts verbatim-text evidence is unknown, not zero, and so is every total built on it
 * (the exposure, the estimates, the data categories, the bug window). The markers' figures and
 * the at-risk test stay as computed.
 */
type ProvenanceKeys = 'provenance_responses' | 'provenance_cross_tenant_responses' | 'provenance_cross_session_responses' | 'provenance_only_responses' | 'provenance_flows' | 'exposure' | 'data_subjects' | 'records_concerned' | 'data_categories' | 'bug_window' | 'pii_attributed_only_responses' | 'pii_attributed_only_flows'

export type ProvenancelessScope<T extends ScopeResult | RegistrylessScope | MarkersStaleScope> = Omit<T, ProvenanceKeys | 'by_node' | 'by_hour'> & {[K in ProvenanceKeys]: null} & {
  by_node: Array<Omit<T['by_node'][number], 'provenance_responses'> & {provenance_responses: null}>
  by_hour: Array<Omit<T['by_hour'][number], 'provenance_responses' | 'text_only_responses'> & {provenance_responses: null; text_only_responses: null}>
}

export function provenancelessScope<T extends ScopeResult | RegistrylessScope | MarkersStaleScope>(r: T): ProvenancelessScope<T> {
  return {
    ...r,
    provenance_responses: null, provenance_cross_tenant_responses: null, provenance_cross_session_responses: null, provenance_only_responses: null, provenance_flows: null,
    exposure: null, data_subjects: null, records_concerned: null, data_categories: null, bug_window: null,
    // Counted apart from the verbatim text, which is not known: neither is what it leaves.
    pii_attributed_only_responses: null, pii_attributed_only_flows: null,
    by_node: r.by_node.map((x) => ({...x, provenance_responses: null})),
    by_hour: r.by_hour.map((x) => ({...x, provenance_responses: null, text_only_responses: null})),
  }
}

/** The line the console prints above a scope whose provenance does not cover the case. */
export const PROVENANCE_STALE_SCOPE_NOTE =
  'Canary-less provenance does not cover the case as it is (a scan skipped it with --no-provenance, or evidence was dropped, since it ran): the provenance figures, the exposure, the estimates and the data categories below are not known (crosstalk scan).'

/**
 * The scope of a case whose canary registry changed since the last scan (a registry ingested
 * after the logs were scanned, or one added to): the stored sightings were classified against
 * another registry, so every count the markers make is unknown until a scan, not 0; so is every
 * total built on them (the exposure, the estimates, the data categories, the bug window). The
 * verbatim-text figures and the at-risk test stay as computed.
 */
type MarkerTotals = 'exposure' | 'data_subjects' | 'records_concerned' | 'data_categories' | 'bug_window' | 'orphan_sightings' | 'pii_attributed_only_responses' | 'pii_attributed_only_flows'

export type MarkersStaleScope = Omit<RegistrylessScope, MarkerTotals> & {[K in MarkerTotals]: null}

export function markersStaleScope(r: ScopeResult): MarkersStaleScope {
  return {...registrylessScope(r), orphan_sightings: null, exposure: null, data_subjects: null, records_concerned: null, data_categories: null, bug_window: null, pii_attributed_only_responses: null, pii_attributed_only_flows: null}
}

/** What the stored findings cannot speak for, as the case is now: each is unknown until a scan. */
export interface StaleFindings {
  /** the markers' classes may no longer be the case's: the registry changed, or the sighting rules did, since the last scan */
  markers: boolean
  /** why the markers' classes are stale (null: they are not) */
  markers_cause: MarkersStaleCause | null
  /** canary-less provenance does not cover the case (a scan skipped it, or evidence was dropped, since it ran) */
  provenance: boolean
}

/** What made the markers' classes stale: a registry changed since the scan, sighting rules changed since (SIGHTING_RULES), or both. */
export type MarkersStaleCause = 'registry' | 'rules' | 'both'

export function staleFindings(d: DetectionCoverage): StaleFindings {
  const scanned = !nothingSearched(d)
  // A scan that classified under earlier sighting rules decided each class by another rule than
  // this version's (an echo that is now a leak, a partial read as another marker): as stale as a
  // class decided against another registry, and unknown until a scan for the same reason.
  const registry = scanned && d.registry_changed
  const rules = scanned && d.sighting_rules_changed
  return {markers: registry || rules, markers_cause: registry && rules ? 'both' : registry ? 'registry' : rules ? 'rules' : null, provenance: scanned && d.provenance !== 'current'}
}

/** Why the markers' classes are stale, in a few words (English; phrases-fr.ts has the French). */
export function markersStaleReason(cause: MarkersStaleCause): string {
  const registry = 'the canary registry changed since the last scan, so the markers found were classified against another registry'
  const rules = 'the last scan classified the markers found under earlier sighting rules than this version\'s, so their classes may differ now'
  return cause === 'registry' ? registry : cause === 'rules' ? rules : `${registry}; ${rules}`
}

/** Whether every figure the findings give is known: scanned, and nothing stale (the drafts state figures only then). */
export function scopeFiguresKnown(d: DetectionCoverage): boolean {
  const stale = staleFindings(d)
  return !nothingSearched(d) && !stale.markers && !stale.provenance
}

/** Why the figures built on stale findings are unknown, in a few words (said with every output that leaves them out). */
export function staleFindingsReason(s: StaleFindings): string | null {
  const parts = [
    s.markers ? markersStaleReason(s.markers_cause ?? 'registry') : null,
    s.provenance ? 'canary-less provenance does not cover the case as it is (a scan skipped it with --no-provenance, or evidence was dropped, since it ran)' : null,
  ].filter((x) => x !== null)
  return parts.length === 0 ? null : parts.join('; ')
}

export type KnownScope = ScopeResult | UnscannedScope | RegistrylessScope | MarkersStaleScope | ProvenancelessScope<ScopeResult | RegistrylessScope | MarkersStaleScope>

/**
 * The scope as it can be said: every figure whose findings do not cover the case is null, never
 * an under-count. The one place that decides it: `scope`, and every draft and notice built from
 * the same facts (notify/facts.ts), read it from here.
 */
export function knownScope(r: ScopeResult, registry: boolean): KnownScope {
  const d = r.detection
  if (nothingSearched(d)) return unscannedScope(r)
  const stale = staleFindings(d)
  const markers = !registry ? registrylessScope(r) : stale.markers ? markersStaleScope(r) : r
  return stale.provenance ? provenancelessScope(markers) : markers
}

/**
 * One tenant's view as it can be said: without a registry, or with one changed since the scan,
 * the markers' figures are null; where provenance does not cover the case, the verbatim-text
 * figures are; either way the totals built on both (each side's exposure) are.
 */
export function knownTenantView(v: TenantViewResult, d: DetectionCoverage, registry: boolean, orphans = 0) {
  const stale = staleFindings(d)
  const base = registry && !stale.markers ? v : registrylessTenantView(v)
  // No registry and marker-shaped tokens in answers (orphans): whose data they carry is not known, so
  // neither side's exposure is (a lower bound read as a total), as scope --json gives the case's.
  if (!stale.markers && !stale.provenance && exposureKnown(base === v, orphans)) return base
  if (!stale.markers && !stale.provenance) {
    const orphaned = (x: typeof base.received) => ({...x, exposure: null, pii_attributed_only_responses: null, counterparts: x.counterparts.map((c) => ({...c, exposure_responses: null, sessions: null}))})
    return {...base, received: orphaned(base.received), leaked: orphaned(base.leaked)}
  }
  const side = (x: typeof base.received) => ({
    ...x,
    exposure: null,
    pii_attributed_only_responses: null,
    ...(stale.provenance ? {provenance_responses: null, provenance_only_responses: null, provenance_other_tenants: null} : {}),
    counterparts: x.counterparts.map((c) => ({...c, exposure_responses: null, sessions: null, ...(stale.provenance ? {provenance_responses: null} : {})})),
  })
  return {...base, received: side(base.received), leaked: side(base.leaked)}
}
export type KnownTenantView = ReturnType<typeof knownTenantView>

/** The line the console prints above a scope whose canary registry changed since the last scan. */
export const REGISTRY_CHANGED_SCOPE_NOTE =
  'The canary registry changed since the last scan: the markers found were classified against another registry, so the marker figures, the exposure, the estimates and the data categories below are not known (crosstalk scan).'

/** The line the console prints above a scope whose markers' classes are stale (staleFindings), saying why. */
export function markersStaleScopeNote(cause: MarkersStaleCause): string {
  if (cause === 'registry') return REGISTRY_CHANGED_SCOPE_NOTE
  const why = markersStaleReason(cause)
  return `${why.charAt(0).toUpperCase()}${why.slice(1)}: the marker figures, the exposure, the estimates and the data categories below are not known (crosstalk scan).`
}
