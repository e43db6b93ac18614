import {byText, DistinctPairs, PairMap, type ContaminationRow, type ProvenanceRow, type ScopeInputs} from './scope-data.js'

// One exposure: who received whose data, counted once over all the evidence. A response is
// exposed when a canary marker of another session was sighted in it (cross_session /
// cross_tenant), or when verbatim text of another session's earlier prompt or answer was
// attributed to it (provenance), or both. Every number a draft or notice gives about the
// breach comes from here, so scope, the timeline, the Article 33/34 drafts, the register and
// the processor notices cannot tell two different stories. The canary-only keys of
// `scope --json` (the contract's original keys) stay beside it, unchanged.

/** One piece of evidence that a response carried another session's data. */
export interface ExposureRow {
  record_id: number
  request_id: string
  ts_ms: number
  /** as ContaminationRow's: 1 where this time is no fact (scope-data.ts timeIsFact) */
  after_ingest?: number
  before_issued?: number
  /** 'canary': a registered marker of the source session was sighted; 'text': verbatim overlap (provenance) */
  by: 'canary' | 'text'
  /** '' where the evidence names no source (provenance: ambiguous or unknown): no tenant is counted as its source. */
  source_tenant: string
  source_session: string | null
  recipient_tenant: string
  recipient_session: string
  decode_node: string | null
  /** provenance whose source is ambiguous: its possible sources; null or absent there: not recorded */
  possible_sources?: ReadonlyArray<{tenant_id: string; session_id: string}> | null
}

export interface ExposureFlow {
  source_tenant: string
  recipient_tenant: string
  responses: number
}

/** `scope --json` key `exposure` (CONTRACT.md). */
export interface Exposure {
  /** distinct responses carrying another session's data, by canary or by verbatim text */
  responses: number
  /** of which with a contaminating canary sighting */
  by_canary: number
  /** of which with verbatim text only (no contaminating sighting) */
  by_text_only: number
  /** distinct source sessions (tenant, session) whose data reached another session */
  sessions: number
  /** tenants owning those sessions */
  source_tenants: number
  /** tenants that received another session's data */
  recipient_tenants: number
  /** one entry per (source tenant, recipient tenant), distinct responses */
  flows: ExposureFlow[]
  /**
   * of `responses`, those whose only evidence names no source: the same text in the prompts of
   * several tenants (ambiguous) or only in answers whose prompts were not logged (unknown). They
   * count as received, in no flow, and no tenant's data is counted as certainly exposed by them.
   */
  source_not_named?: number
  /**
   * of `responses`, those carrying evidence whose source session is not named (a canary marker
   * cut short of several sessions' markers; text whose source is ambiguous or unknown): someone's
   * session reached each, so `sessions_low` counts at least one for them where none already
   * counted can be it. Absent: none.
   */
  session_not_named?: number
  /** of `session_not_named`, those carrying a canary marker cut short of several sessions' markers (not verbatim text) */
  marker_session_not_named?: number
  /** of `marker_session_not_named`, those whose marker names no tenant either (its candidates are several tenants' sessions) */
  marker_source_not_named?: number
  /** distinct sessions whose data reached another session, at least: `sessions` plus those the unnamed evidence shows to be others (absent: `sessions`) */
  sessions_low?: number
  /** tenants whose data reached another session, at least: `source_tenants`, or 1 where none is named and a response's source is not */
  source_tenants_low?: number
}

/** One row of evidence, as far as its source goes ('' or null: not named). */
export interface SourceOfRow {
  source_tenant: string | null
  source_session: string | null
}

/**
 * The lower bounds of the sessions and tenants whose data reached another session, where some
 * evidence names no source session. Every named session counts. A row naming its tenant and not
 * its session (a marker cut short of markers of several of that tenant's sessions) is one more
 * session where no session of that tenant is already counted (it cannot be one of them); a row
 * naming neither counts one session and one tenant only where nothing else is counted (it may be
 * any of them). Never zero where someone's data was seen to reach another session.
 */
export function sourceBounds(rows: Iterable<SourceOfRow>): {sessions: number; sessions_low: number; tenants: number; tenants_low: number; unnamed_rows: number} {
  const sessions = new DistinctPairs()
  const tenantsOfSessions = new Set<string>()
  const tenants = new Set<string>()
  const tenantOnly = new Set<string>()
  let noTenant = false
  let unnamed = 0
  for (const r of rows) {
    const t = r.source_tenant ?? ''
    if (r.source_session === null || t === '') unnamed++
    if (t === '') {
      noTenant = true
      continue
    }
    tenants.add(t)
    if (r.source_session === null) tenantOnly.add(t)
    else {
      sessions.add(t, r.source_session)
      tenantsOfSessions.add(t)
    }
  }
  let sessionsLow = sessions.size + [...tenantOnly].filter((t) => !tenantsOfSessions.has(t)).length
  if (sessionsLow === 0 && noTenant) sessionsLow = 1
  return {sessions: sessions.size, sessions_low: sessionsLow, tenants: tenants.size, tenants_low: tenants.size === 0 && noTenant ? 1 : tenants.size, unnamed_rows: unnamed}
}

const fromSighting = (c: ContaminationRow): ExposureRow => ({
  record_id: c.record_id,
  request_id: c.request_id,
  ts_ms: c.ts_ms,
  after_ingest: c.after_ingest ?? 0,
  before_issued: c.before_issued ?? 0,
  by: 'canary',
  source_tenant: c.source_tenant ?? '',
  source_session: c.source_session,
  recipient_tenant: c.recipient_tenant,
  recipient_session: c.recipient_session,
  decode_node: c.decode_node,
  // A marker cut short of several customers' sessions' markers: the customers it may come from (scope-data.ts sets them) are possible sources, as for text.
  ...(c.source_tenant === null && c.possible_sources ? {possible_sources: c.possible_sources} : {}),
})
const fromText = (p: ProvenanceRow): ExposureRow => ({
  record_id: p.record_id,
  request_id: p.request_id,
  ts_ms: p.ts_ms,
  after_ingest: p.after_ingest ?? 0,
  by: 'text',
  source_tenant: p.source_tenant ?? '',
  source_session: p.source_session,
  recipient_tenant: p.recipient_tenant,
  recipient_session: p.recipient_session,
  decode_node: p.decode_node,
  // Only an ambiguous source has possible sources; a named or an unknown one has none to record.
  possible_sources: p.source_tenant === null && p.source_tenants > 1 ? (p.possible_sources ?? null) : [],
})

/** The evidence rows of the exposure: every contaminating sighting and every provenance attribution. */
export function exposureRows(inputs: Pick<ScopeInputs, 'contamination' | 'provenance'>): ExposureRow[] {
  return [...eachExposureRow(inputs)]
}

/** exposureRows one at a time: scope at millions of records counts them without holding them. */
export function* eachExposureRow(inputs: Pick<ScopeInputs, 'contamination' | 'provenance'>): Generator<ExposureRow> {
  for (const c of inputs.contamination) yield fromSighting(c)
  for (const p of inputs.provenance) yield fromText(p)
}

export function computeExposure(rows: Iterable<ExposureRow>): Exposure {
  const responses = new Set<number>()
  const canary = new Set<number>()
  const sessions = new DistinctPairs()
  const sources = new Set<string>()
  const recipients = new Set<string>()
  const flows = new PairMap<{source_tenant: string; recipient_tenant: string; ids: Set<number>}>()
  const named = new Set<number>()
  const sessionNotNamed = new Set<number>()
  const markerNotNamed = new Set<number>()
  const markerNoTenant = new Set<number>()
  const bounds: SourceOfRow[] = []
  for (const r of rows) {
    if (r.source_session === null || r.source_tenant === '') {
      // Kept for the bounds only where the row names no session: the named ones are counted in `sessions`.
      bounds.push({source_tenant: r.source_tenant, source_session: r.source_session})
      sessionNotNamed.add(r.record_id)
      if (r.by === 'canary') markerNotNamed.add(r.record_id)
      if (r.by === 'canary' && r.source_tenant === '') markerNoTenant.add(r.record_id)
    }
    responses.add(r.record_id)
    if (r.by === 'canary') canary.add(r.record_id)
    recipients.add(r.recipient_tenant)
    // Evidence that names no source (provenance: ambiguous or unknown; a marker cut short of
    // markers of several tenants' sessions) counts the response, not a source.
    if (r.source_tenant === '') continue
    named.add(r.record_id)
    // A marker cut short of markers of several sessions of one tenant names the tenant, not the session.
    if (r.source_session !== null) {
      sessions.add(r.source_tenant, r.source_session)
      bounds.push({source_tenant: r.source_tenant, source_session: r.source_session})
    }
    sources.add(r.source_tenant)
    flows.at(r.source_tenant, r.recipient_tenant, () => ({source_tenant: r.source_tenant, recipient_tenant: r.recipient_tenant, ids: new Set()})).ids.add(r.record_id)
  }
  return {
    responses: responses.size,
    by_canary: canary.size,
    by_text_only: responses.size - canary.size,
    sessions: sessions.size,
    source_tenants: sources.size,
    recipient_tenants: recipients.size,
    flows: [...flows.entries()]
      .map(([, , f]) => ({source_tenant: f.source_tenant, recipient_tenant: f.recipient_tenant, responses: f.ids.size}))
      .sort((a, b) => byText(a.source_tenant, b.source_tenant) || byText(a.recipient_tenant, b.recipient_tenant)),
    source_not_named: responses.size - named.size,
    // Present only where some evidence names no source session: elsewhere every bound is the named count.
    ...(sessionNotNamed.size > 0 ? {session_not_named: sessionNotNamed.size, marker_session_not_named: markerNotNamed.size, marker_source_not_named: markerNoTenant.size, ...boundsOf(bounds)} : {}),
  }
}

function boundsOf(rows: SourceOfRow[]): {sessions_low: number; source_tenants_low: number} {
  const b = sourceBounds(rows)
  return {sessions_low: b.sessions_low, source_tenants_low: b.tenants_low}
}

/**
 * Every tenant on either side of the exposure, and every possible source of text whose source is
 * ambiguous (its data may have been disclosed: Art. 33(2) asks no certainty), sorted: the
 * controllers a processor notifies.
 */
export function exposureTenants(rows: readonly ExposureRow[]): string[] {
  return [...new Set(rows.flatMap((r) => [r.source_tenant, r.recipient_tenant, ...(r.possible_sources ?? []).map((c) => c.tenant_id)]))].filter((t) => t !== '').sort(byText)
}
