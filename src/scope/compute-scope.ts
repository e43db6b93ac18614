import {tableExists, type CaseDb} from '../store/open-case.js'
import {
  byNullableText,
  byText,
  completeOnly,
  ensureScopeIndexes,
  hourStart,
  iso,
  loadContamination,
  loadProvenance,
  sessionKey,
  type ContaminationRow,
  type ProvenanceRow,
} from './scope-data.js'

// GDPR Art. 33(3)(a): "the categories and approximate number of data subjects concerned
// and the categories and approximate number of personal data records concerned".
// The contract's keys are sighting-based (CONTRACT.md "scope"); everything canary-less
// (provenance, PII findings, exposure) is an extension under its own key, and every
// estimate names the evidence it rests on.

export interface ScopeOptions {
  /** The prefill KV pool: prompts at or over it were served from stale pages. */
  poolTokens?: number
  /** The advertised context window (prompts at or over it should never have been served). */
  advertisedTokens?: number
}

export interface ScopeFlow {
  source_tenant: string
  recipient_tenant: string
  responses: number
}

export interface ScopeNodeRow {
  decode_node: string | null
  contaminated_responses: number
  cross_tenant_responses: number
  cross_session_responses: number
  provenance_responses: number
  /** null without --pool-tokens */
  at_risk_responses: number | null
  first_seen: string | null
  last_seen: string | null
  /** first/last at-risk response on this node (null without --pool-tokens or when none) */
  at_risk_first: string | null
  at_risk_last: string | null
}

export interface ScopeHourRow {
  hour: string
  contaminated_responses: number
  cross_tenant_responses: number
  provenance_responses: number
  at_risk_responses: number | null
}

export interface ScopeDataCategory {
  category: string
  label: string
  evidence: 'sightings' | 'provenance' | 'pii_findings'
  responses: number
  findings: number | null
  distinct_values: number | null
}

export interface ScopeEstimate {
  low: number
  /** null when there is nothing to bound it with (see method) */
  high: number | null
  method: string
  evidence: Record<string, number | string | null>
}

export interface ScopeResult {
  contaminated_responses: number
  cross_tenant_responses: number
  cross_session_responses: number
  exposed_sessions: number
  exposed_tenants: number
  recipient_tenants: number
  first_seen: string | null
  last_seen: string | null
  at_risk_responses: number | null
  flows: ScopeFlow[]
  // ---- extensions ----
  pool_tokens: number | null
  advertised_tokens: number | null
  /** at-risk responses that ended in an error event inside the 200 stream (they still count as at risk) */
  at_risk_error_responses: number | null
  /** status-200 responses whose prompt was at or over the advertised window */
  over_advertised_responses: number | null
  orphan_sightings: number
  provenance_responses: number
  provenance_cross_tenant_responses: number
  provenance_cross_session_responses: number
  /** attributed by provenance but carrying no contaminating sighting (canary-less leaks) */
  provenance_only_responses: number
  provenance_flows: ScopeFlow[]
  flow_matrix: {tenants: string[]; responses: number[][]}
  by_node: ScopeNodeRow[]
  by_hour: ScopeHourRow[]
  data_categories: ScopeDataCategory[]
  data_subjects: ScopeEstimate
  records_concerned: ScopeEstimate
  bug_window: {start: string; end: string; basis: string} | null
}

export interface AtRiskGroup {
  decode_node: string | null
  hour: number
  n: number
  errors: number
  over_advertised: number
  first_ms: number
  last_ms: number
}

export function computeScope(db: CaseDb, options: ScopeOptions = {}): ScopeResult {
  ensureScopeIndexes(db)
  const pool = options.poolTokens ?? null
  const advertised = options.advertisedTokens ?? null
  const contamination = loadContamination(db)
  const provenance = loadProvenance(db)
  const atRisk = pool === null ? null : loadAtRisk(db, pool, advertised)

  const contaminated = new Set(contamination.map((c) => c.record_id))
  const crossTenant = new Set(contamination.filter((c) => c.class === 'cross_tenant').map((c) => c.record_id))
  const crossSession = new Set(contamination.filter((c) => c.class === 'cross_session').map((c) => c.record_id))
  const exposedSessions = new Set(contamination.map((c) => sessionKey(c.source_tenant, c.source_session)))
  const exposedTenants = new Set(contamination.map((c) => c.source_tenant))
  const recipientTenants = new Set(contamination.map((c) => c.recipient_tenant))
  const seen = minMax(contamination.map((c) => c.ts_ms))

  const provResponses = new Set(provenance.map((p) => p.record_id))
  const provCrossTenant = new Set(provenance.filter((p) => p.source_tenant !== p.recipient_tenant).map((p) => p.record_id))
  const provCrossSession = new Set(provenance.filter((p) => p.source_tenant === p.recipient_tenant).map((p) => p.record_id))
  const provOnly = new Set([...provResponses].filter((id) => !contaminated.has(id)))

  const flows = countFlows(contamination)
  const orphans = tableExists(db, 'sightings')
    ? (db.prepare(`SELECT COUNT(*) AS n FROM sightings s JOIN records r ON r.id = s.record_id WHERE s.class = 'orphan'${completeOnly(db)}`).get() as {n: number}).n
    : 0

  return {
    contaminated_responses: contaminated.size,
    cross_tenant_responses: crossTenant.size,
    cross_session_responses: crossSession.size,
    exposed_sessions: exposedSessions.size,
    exposed_tenants: exposedTenants.size,
    recipient_tenants: recipientTenants.size,
    first_seen: iso(seen?.[0]),
    last_seen: iso(seen?.[1]),
    at_risk_responses: atRisk === null ? null : sum(atRisk.map((g) => g.n)),
    flows,
    pool_tokens: pool,
    advertised_tokens: advertised,
    at_risk_error_responses: atRisk === null ? null : sum(atRisk.map((g) => g.errors)),
    over_advertised_responses: atRisk === null || advertised === null ? null : sum(atRisk.map((g) => g.over_advertised)),
    orphan_sightings: orphans,
    provenance_responses: provResponses.size,
    provenance_cross_tenant_responses: provCrossTenant.size,
    provenance_cross_session_responses: provCrossSession.size,
    provenance_only_responses: provOnly.size,
    provenance_flows: countFlows(provenance),
    flow_matrix: flowMatrix(flows),
    by_node: byNode(contamination, provenance, atRisk),
    by_hour: byHour(contamination, provenance, atRisk),
    data_categories: dataCategories(db, contamination, provenance),
    ...estimates(db, contamination, provenance, atRisk, pool),
    bug_window: bugWindow(contamination, provenance, atRisk),
  }
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0)
}

export function minMax(values: number[]): [number, number] | null {
  if (values.length === 0) return null
  let lo = Infinity
  let hi = -Infinity
  for (const v of values) {
    if (v < lo) lo = v
    if (v > hi) hi = v
  }
  return [lo, hi]
}

// Contract: status == 200 and prompt_tokens >= pool, read literally. A 200 stream that
// ended in an error event (is_error = 1) was still answered 200 and still decoded from
// the stale pages, so it counts; it is also reported apart (at_risk_error_responses).
export function loadAtRisk(db: CaseDb, pool: number, advertised: number | null): AtRiskGroup[] {
  return db
    .prepare(
      `SELECT r.decode_node, (r.ts_ms / 3600000) * 3600000 AS hour, COUNT(*) AS n, SUM(r.is_error) AS errors,
              SUM(CASE WHEN @adv IS NOT NULL AND r.prompt_tokens >= @adv THEN 1 ELSE 0 END) AS over_advertised,
              MIN(r.ts_ms) AS first_ms, MAX(r.ts_ms) AS last_ms
         FROM records r
        WHERE r.status = 200 AND r.prompt_tokens >= @pool${completeOnly(db)}
        GROUP BY r.decode_node, hour`,
    )
    .all({pool, adv: advertised}) as AtRiskGroup[]
}

function countFlows(rows: ReadonlyArray<{record_id: number; source_tenant: string | null; recipient_tenant: string}>): ScopeFlow[] {
  const pairs = new Map<string, {source_tenant: string; recipient_tenant: string; ids: Set<number>}>()
  for (const row of rows) {
    const source = row.source_tenant ?? ''
    const key = JSON.stringify([source, row.recipient_tenant])
    let pair = pairs.get(key)
    if (!pair) pairs.set(key, (pair = {source_tenant: source, recipient_tenant: row.recipient_tenant, ids: new Set()}))
    pair.ids.add(row.record_id)
  }
  return [...pairs.values()]
    .map((p) => ({source_tenant: p.source_tenant, recipient_tenant: p.recipient_tenant, responses: p.ids.size}))
    .sort((a, b) => byText(a.source_tenant, b.source_tenant) || byText(a.recipient_tenant, b.recipient_tenant))
}

function flowMatrix(flows: ScopeFlow[]): {tenants: string[]; responses: number[][]} {
  const tenants = [...new Set(flows.flatMap((f) => [f.source_tenant, f.recipient_tenant]))].sort(byText)
  const index = new Map(tenants.map((t, i) => [t, i]))
  const responses = tenants.map(() => tenants.map(() => 0))
  for (const f of flows) responses[index.get(f.source_tenant)!]![index.get(f.recipient_tenant)!] = f.responses
  return {tenants, responses}
}

function byNode(contamination: ContaminationRow[], provenance: ProvenanceRow[], atRisk: AtRiskGroup[] | null): ScopeNodeRow[] {
  const nodes = new Set<string | null>([...contamination.map((c) => c.decode_node), ...provenance.map((p) => p.decode_node), ...(atRisk ?? []).map((g) => g.decode_node)])
  return [...nodes].sort(byNullableText).map((node) => {
    const c = contamination.filter((r) => r.decode_node === node)
    const risk = atRisk?.filter((g) => g.decode_node === node) ?? null
    const times = minMax(c.map((r) => r.ts_ms))
    return {
      decode_node: node,
      contaminated_responses: new Set(c.map((r) => r.record_id)).size,
      cross_tenant_responses: new Set(c.filter((r) => r.class === 'cross_tenant').map((r) => r.record_id)).size,
      cross_session_responses: new Set(c.filter((r) => r.class === 'cross_session').map((r) => r.record_id)).size,
      provenance_responses: new Set(provenance.filter((p) => p.decode_node === node).map((p) => p.record_id)).size,
      at_risk_responses: risk === null ? null : sum(risk.map((g) => g.n)),
      first_seen: iso(times?.[0]),
      last_seen: iso(times?.[1]),
      at_risk_first: iso(minMax(risk?.map((g) => g.first_ms) ?? [])?.[0]),
      at_risk_last: iso(minMax(risk?.map((g) => g.last_ms) ?? [])?.[1]),
    }
  })
}

function byHour(contamination: ContaminationRow[], provenance: ProvenanceRow[], atRisk: AtRiskGroup[] | null): ScopeHourRow[] {
  const hours = new Map<number, {c: Set<number>; t: Set<number>; p: Set<number>; risk: number}>()
  const at = (ms: number) => {
    const h = hourStart(ms)
    let row = hours.get(h)
    if (!row) hours.set(h, (row = {c: new Set(), t: new Set(), p: new Set(), risk: 0}))
    return row
  }
  for (const c of contamination) {
    const row = at(c.ts_ms)
    row.c.add(c.record_id)
    if (c.class === 'cross_tenant') row.t.add(c.record_id)
  }
  for (const p of provenance) at(p.ts_ms).p.add(p.record_id)
  for (const g of atRisk ?? []) at(g.hour).risk += g.n
  return [...hours.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([h, row]) => ({
      hour: iso(h)!,
      contaminated_responses: row.c.size,
      cross_tenant_responses: row.t.size,
      provenance_responses: row.p.size,
      at_risk_responses: atRisk === null ? null : row.risk,
    }))
}

const PII_LABELS: Record<string, string> = {
  email: 'e-mail addresses',
  phone: 'telephone numbers',
  iban: 'bank account numbers (IBAN)',
  card: 'payment card numbers',
  ipv4: 'IP addresses (v4)',
  ipv6: 'IP addresses (v6)',
}

function dataCategories(db: CaseDb, contamination: ContaminationRow[], provenance: ProvenanceRow[]): ScopeDataCategory[] {
  const out: ScopeDataCategory[] = []
  const marked = (cls: string) => new Set(contamination.filter((c) => c.class === cls).map((c) => c.record_id)).size
  if (marked('cross_tenant') > 0)
    out.push({category: 'conversation_content_cross_tenant', label: "another customer's end-user conversation content (canary-marked prompts)", evidence: 'sightings', responses: marked('cross_tenant'), findings: null, distinct_values: null})
  if (marked('cross_session') > 0)
    out.push({category: 'conversation_content_cross_session', label: "another end user's conversation content, same customer (canary-marked prompts)", evidence: 'sightings', responses: marked('cross_session'), findings: null, distinct_values: null})
  const prov = new Set(provenance.map((p) => p.record_id)).size
  if (prov > 0) out.push({category: 'conversation_content_attributed', label: "another session's prompt or answer, reproduced verbatim", evidence: 'provenance', responses: prov, findings: null, distinct_values: null})
  if (!tableExists(db, 'pii_findings')) return out
  // PII counts where it is someone else's: in a response that carries another session's
  // data (a contaminating sighting or provenance), or a finding the detector attributed.
  const exists = [
    tableExists(db, 'sightings') ? `EXISTS (SELECT 1 FROM sightings s WHERE s.record_id = p.record_id AND s.class IN ('cross_session', 'cross_tenant'))` : null,
    tableExists(db, 'provenance') ? `EXISTS (SELECT 1 FROM provenance v WHERE v.record_id = p.record_id)` : null,
  ].filter((x) => x !== null)
  const rows = db
    .prepare(
      `SELECT p.kind, COUNT(*) AS findings, COUNT(DISTINCT p.record_id) AS responses, COUNT(DISTINCT p.value_sha256) AS distinct_values
         FROM pii_findings p JOIN records r ON r.id = p.record_id
        WHERE (p.source_session IS NOT NULL OR p.source_tenant IS NOT NULL${exists.map((e) => ` OR ${e}`).join('')})${completeOnly(db)}
        GROUP BY p.kind ORDER BY p.kind`,
    )
    .all() as Array<{kind: string; findings: number; responses: number; distinct_values: number}>
  for (const r of rows)
    out.push({category: r.kind, label: PII_LABELS[r.kind] ?? r.kind, evidence: 'pii_findings', responses: r.responses, findings: r.findings, distinct_values: r.distinct_values})
  return out
}

/** Per node: from the first to the last at-risk or contaminated response on it. */
export function nodeWindows(contamination: ContaminationRow[], provenance: ProvenanceRow[], atRisk: AtRiskGroup[] | null): Map<string | null, [number, number]> {
  const windows = new Map<string | null, [number, number]>()
  const widen = (node: string | null, lo: number, hi: number) => {
    const w = windows.get(node)
    windows.set(node, w ? [Math.min(w[0], lo), Math.max(w[1], hi)] : [lo, hi])
  }
  for (const c of contamination) widen(c.decode_node, c.ts_ms, c.ts_ms)
  for (const p of provenance) widen(p.decode_node, p.ts_ms, p.ts_ms)
  for (const g of atRisk ?? []) widen(g.decode_node, g.first_ms, g.last_ms)
  return windows
}

/**
 * Distinct sessions served in the node windows (exposure), and the same together with the
 * confirmed source sessions. At a million records the windows hold most rows; SQLite
 * counts them in one grouped pass over the covering index (records_scope_node_ts), about
 * twice as fast as a JS set of string keys and without the keys' memory.
 */
function countExposure(db: CaseDb, nodes: Map<string | null, [number, number]>, confirmed: ReadonlySet<string>): {exposure: number; withConfirmed: number} {
  if (nodes.size === 0 && confirmed.size === 0) return {exposure: 0, withConfirmed: 0}
  db.exec('CREATE TEMP TABLE IF NOT EXISTS scope_confirmed (tenant_id TEXT, session_id TEXT); DELETE FROM temp.scope_confirmed')
  try {
    const insert = db.prepare('INSERT INTO temp.scope_confirmed (tenant_id, session_id) VALUES (?, ?)')
    db.transaction(() => {
      for (const key of confirmed) insert.run(...(JSON.parse(key) as [string | null, string | null]))
    })()
    const complete = completeOnly(db)
    const served = [...nodes.keys()].map(
      () => `SELECT r.tenant_id AS t, r.session_id AS s, 1 AS w FROM records r WHERE r.decode_node IS ? AND r.ts_ms BETWEEN ? AND ?${complete}`,
    )
    served.push('SELECT tenant_id, session_id, 0 FROM temp.scope_confirmed')
    const params = [...nodes].flatMap(([node, [lo, hi]]) => [node, lo, hi])
    const [exposure, withConfirmed] = db
      .prepare(`SELECT ifnull(SUM(w), 0), COUNT(*) FROM (SELECT MAX(w) AS w FROM (${served.join(' UNION ALL ')}) GROUP BY t, s)`)
      .raw()
      .get(...params) as [number, number]
    return {exposure, withConfirmed}
  } finally {
    db.exec('DELETE FROM temp.scope_confirmed')
  }
}

function estimates(
  db: CaseDb,
  contamination: ContaminationRow[],
  provenance: ProvenanceRow[],
  atRisk: AtRiskGroup[] | null,
  pool: number | null,
): {data_subjects: ScopeEstimate; records_concerned: ScopeEstimate} {
  const markerSources = new Set(contamination.map((c) => sessionKey(c.source_tenant, c.source_session)))
  const provSources = new Set(provenance.map((p) => sessionKey(p.source_tenant, p.source_session)))
  const confirmed = new Set([...markerSources, ...provSources])

  const leakedResponses = new Set([...contamination.map((c) => c.record_id), ...provenance.map((p) => p.record_id)])
  const provSourceRecords = new Set(provenance.map((p) => p.source_record_id).filter((id) => id !== null))

  // Upper bound (exposure): every session whose prompt a suspect decode node served
  // while that node was leaking, i.e. between its first and last at-risk or contaminated
  // response; stale pages can only hold what that node processed. Confirmed sources
  // are added in case one was served just before its node's window opened.
  let high: number | null = null
  let exposure = 0
  let windows = 0
  if (atRisk !== null) {
    const nodes = nodeWindows(contamination, provenance, atRisk)
    windows = nodes.size
    const counted = countExposure(db, nodes, confirmed)
    exposure = counted.exposure
    high = counted.withConfirmed
  }
  const atRiskCount = atRisk === null ? null : sum(atRisk.map((g) => g.n))
  // records concerned, upper bound: every at-risk response may have carried someone else's
  // data; confirmed leaks outside the at-risk set are added.
  let recordsHigh: number | null = null
  if (atRiskCount !== null && pool !== null) {
    const confirmedNotAtRisk = new Set(
      [...contamination, ...provenance].filter((r) => !(r.status === 200 && r.prompt_tokens !== null && r.prompt_tokens >= pool)).map((r) => r.record_id),
    )
    recordsHigh = atRiskCount + confirmedNotAtRisk.size
  }

  return {
    data_subjects: {
      low: confirmed.size,
      high,
      method:
        'One session is counted as one data subject (the end user of that conversation; people named inside the content are not counted). ' +
        'low: distinct sessions whose canary marker (cross_session/cross_tenant sightings) or verbatim content (provenance) reached another session. ' +
        (high === null
          ? 'high: not bounded; give --pool-tokens to bound it by exposure.'
          : 'high: distinct sessions whose prompts were served by a decode node with at-risk or contaminated responses, between that node\'s first and last such response, plus the confirmed sessions.'),
      evidence: {
        sighting_source_sessions: markerSources.size,
        provenance_source_sessions: provSources.size,
        exposure_sessions: high === null ? null : exposure,
        exposure_node_windows: high === null ? null : windows,
        pool_tokens: pool,
      },
    },
    records_concerned: {
      low: leakedResponses.size,
      high: recordsHigh,
      method:
        'A record concerned is a response that disclosed another session\'s data. ' +
        'low: responses with a cross_session/cross_tenant sighting or a provenance attribution. ' +
        (recordsHigh === null
          ? 'high: not bounded; give --pool-tokens to bound it by the at-risk responses.'
          : 'high: every status-200 response whose prompt was at or over the pool (each could carry stale pages), plus confirmed leaks outside that set.'),
      evidence: {
        sighting_responses: new Set(contamination.map((c) => c.record_id)).size,
        provenance_responses: new Set(provenance.map((p) => p.record_id)).size,
        provenance_source_records: provSourceRecords.size,
        at_risk_responses: atRiskCount,
      },
    },
  }
}

function bugWindow(contamination: ContaminationRow[], provenance: ProvenanceRow[], atRisk: AtRiskGroup[] | null): ScopeResult['bug_window'] {
  const points = [...contamination.map((c) => c.ts_ms), ...provenance.map((p) => p.ts_ms), ...(atRisk ?? []).flatMap((g) => [g.first_ms, g.last_ms])]
  const range = minMax(points)
  if (range === null) return null
  const basis = [contamination.length > 0 ? 'contaminating sightings' : null, provenance.length > 0 ? 'provenance' : null, atRisk && atRisk.length > 0 ? 'at-risk responses' : null]
    .filter((x) => x !== null)
    .join(', ')
  return {start: iso(range[0])!, end: iso(range[1])!, basis: `first to last of: ${basis}`}
}
