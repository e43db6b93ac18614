import type {ScopeHourRow, ScopeNodeRow, ScopeResult} from './compute-scope.js'
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
    provenance_cross_session_responses: null, provenance_only_responses: null, contaminated_without_prompt: null, provenance_flows: null, flow_matrix: null,
    by_node: r.by_node.map((x) => ({
      ...x, contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null, provenance_responses: null, first_seen: null, last_seen: null,
    })),
    by_hour: r.by_hour.map((x) => ({...x, contaminated_responses: null, cross_tenant_responses: null, provenance_responses: null})),
    data_categories: null, data_subjects: null, records_concerned: null, bug_window: null, pool_basis: r.pool_basis,
    at_risk_unknown_records: r.at_risk_unknown_records, unknown_fields: r.unknown_fields, detection: r.detection,
    // Judged from the lines and the registry, not from a scan: as computed.
    duplicate_leaks_not_counted: r.duplicate_leaks_not_counted, duplicate_lines_not_examined: r.duplicate_lines_not_examined,
  }
}

/**
 * The scope of a case with no canary registry: no marker can be attributed to a session, so
 * every count the canary markers make is unknown, not zero; the verbatim-text evidence, the
 * at-risk test and what does not rest on markers stay as computed.
 */
export type RegistrylessScope = Omit<ScopeResult, 'contaminated_without_prompt' | 'contaminated_responses' | 'cross_tenant_responses' | 'cross_session_responses' | 'exposed_sessions' | 'exposed_tenants' | 'recipient_tenants' | 'first_seen' | 'last_seen' | 'flows' | 'flow_matrix' | 'exposure' | 'by_node' | 'by_hour'> & {
  contaminated_responses: null
  contaminated_without_prompt: null
  cross_tenant_responses: null
  cross_session_responses: null
  exposed_sessions: null
  exposed_tenants: null
  recipient_tenants: null
  first_seen: null
  last_seen: null
  flows: null
  flow_matrix: null
  exposure: Omit<ScopeResult['exposure'], 'by_canary'> & {by_canary: null}
  by_node: Array<Omit<ScopeNodeRow, 'contaminated_responses' | 'cross_tenant_responses' | 'cross_session_responses' | 'first_seen' | 'last_seen'> & {contaminated_responses: null; cross_tenant_responses: null; cross_session_responses: null; first_seen: null; last_seen: null}>
  by_hour: Array<Omit<ScopeHourRow, 'contaminated_responses' | 'cross_tenant_responses'> & {contaminated_responses: null; cross_tenant_responses: null}>
}

/**
 * The estimates' evidence without a canary registry: the parts the markers would count (their
 * source sessions, their responses) are unknown, not 0; the low bounds rest on the verbatim text.
 */
export function registrylessEstimates<E extends {evidence: Record<string, number | string | null>}>(data_subjects: E, records_concerned: E): {data_subjects: E; records_concerned: E} {
  return {
    data_subjects: {...data_subjects, evidence: {...data_subjects.evidence, sighting_source_sessions: null}},
    records_concerned: {...records_concerned, evidence: {...records_concerned.evidence, sighting_responses: null}},
  }
}

export function registrylessScope(r: ScopeResult): RegistrylessScope {
  return {
    ...r,
    ...registrylessEstimates(r.data_subjects, r.records_concerned),
    contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null, exposed_sessions: null, exposed_tenants: null,
    recipient_tenants: null, first_seen: null, last_seen: null, flows: null, flow_matrix: null, contaminated_without_prompt: null,
    exposure: {...r.exposure, by_canary: null},
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
 * the verbatim-text evidence, the at-risk counts and the events stay.
 */
export function registrylessTimeline(t: TimelineResult) {
  return {
    ...t,
    exposure: {...t.exposure, by_canary: null},
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
type ProvenanceKeys = 'provenance_responses' | 'provenance_cross_tenant_responses' | 'provenance_cross_session_responses' | 'provenance_only_responses' | 'provenance_flows' | 'exposure' | 'data_subjects' | 'records_concerned' | 'data_categories' | 'bug_window'

export type ProvenancelessScope<T extends ScopeResult | RegistrylessScope> = Omit<T, ProvenanceKeys | 'by_node' | 'by_hour'> & {[K in ProvenanceKeys]: null} & {
  by_node: Array<Omit<T['by_node'][number], 'provenance_responses'> & {provenance_responses: null}>
  by_hour: Array<Omit<T['by_hour'][number], 'provenance_responses' | 'text_only_responses'> & {provenance_responses: null; text_only_responses: null}>
}

export function provenancelessScope<T extends ScopeResult | RegistrylessScope>(r: T): ProvenancelessScope<T> {
  return {
    ...r,
    provenance_responses: null, provenance_cross_tenant_responses: null, provenance_cross_session_responses: null, provenance_only_responses: null, provenance_flows: null,
    exposure: null, data_subjects: null, records_concerned: null, data_categories: null, bug_window: null,
    by_node: r.by_node.map((x) => ({...x, provenance_responses: null})),
    by_hour: r.by_hour.map((x) => ({...x, provenance_responses: null, text_only_responses: null})),
  }
}

/** The line the console prints above a scope whose provenance does not cover the case. */
export const PROVENANCE_STALE_SCOPE_NOTE =
  'Canary-less provenance does not cover the case as it is (a scan skipped it with --no-provenance, or evidence was dropped, since it ran): the provenance figures, the exposure, the estimates and the data categories below are not known (crosstalk scan).'
