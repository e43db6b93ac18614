import {
  byNullableText,
  byText,
  hourStart,
  iso,
  minMax,
  sessionKey,
  type AtRiskGroup,
  type ContaminationRow,
  type PiiScopeRow,
  type ProvenanceRow,
  type ScopeInputs,
} from './scope-data.js'
import type {DetectionCoverage} from '../detect/coverage.js'
import {computeExposure, exposureRows, type Exposure} from './exposure.js'

export type {AtRiskGroup} from './scope-data.js'
export type {Exposure, ExposureFlow} from './exposure.js'
export {minMax} from './scope-data.js'

// GDPR Art. 33(3)(a): "the categories and approximate number of data subjects concerned
// and the categories and approximate number of personal data records concerned".
// The contract's keys are sighting-based (CONTRACT.md "scope"); everything canary-less
// (provenance, PII findings, exposure) is an extension under its own key, and every
// estimate names the evidence it rests on.

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
  /** all evidence, canary and verbatim text together: the one set of numbers every draft and notice uses */
  exposure: Exposure
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
  /** where the pool size came from: given for this run, recorded in the case by scan, or unknown */
  pool_basis: 'given' | 'recorded' | 'unknown'
  /** records whose status or prompt size (either) the logs did not give: the at-risk test could not be applied to them */
  at_risk_unknown_records: number | null
  /**
   * Records whose logs do not say a field, per field (a format without it, or lines without it):
   * counts that depend on the field (at risk: status and prompt_tokens; by_node: decode_node)
   * are unknown for these records, never zero.
   */
  unknown_fields: {status: number; prompt_tokens: number; decode_node: number}
  /** whether detection covered everything the case holds (see crosstalk scan) */
  detection: DetectionCoverage
}

export function computeScope(inputs: ScopeInputs): ScopeResult {
  const {contamination, provenance, atRisk, pool} = inputs
  const advertised = inputs.advertised

  const canary = canaryFigures(contamination)
  const contaminated = new Set(contamination.map((c) => c.record_id))

  const provResponses = new Set(provenance.map((p) => p.record_id))
  const provCrossTenant = new Set(provenance.filter((p) => p.source_tenant !== p.recipient_tenant).map((p) => p.record_id))
  const provCrossSession = new Set(provenance.filter((p) => p.source_tenant === p.recipient_tenant).map((p) => p.record_id))
  const provOnly = new Set([...provResponses].filter((id) => !contaminated.has(id)))

  const flows = canary.flows
  const unknown = inputs.unknownForAtRisk

  // The contract's key order: the canary figures, the at-risk count, then the flows.
  const {flows: _flows, ...figures} = canary
  return {
    ...figures,
    at_risk_responses: atRisk === null ? null : sum(atRisk.map((g) => g.n)),
    flows,
    exposure: computeExposure(exposureRows(inputs)),
    pool_tokens: pool,
    advertised_tokens: advertised,
    at_risk_error_responses: atRisk === null ? null : sum(atRisk.map((g) => g.errors)),
    over_advertised_responses: atRisk === null || advertised === null ? null : sum(atRisk.map((g) => g.over_advertised)),
    orphan_sightings: inputs.orphans,
    provenance_responses: provResponses.size,
    provenance_cross_tenant_responses: provCrossTenant.size,
    provenance_cross_session_responses: provCrossSession.size,
    provenance_only_responses: provOnly.size,
    provenance_flows: countFlows(provenance),
    flow_matrix: flowMatrix(flows),
    by_node: byNode(contamination, provenance, atRisk),
    by_hour: byHour(contamination, provenance, atRisk),
    data_categories: dataCategories(contamination, provenance, inputs.pii),
    ...estimates(inputs),
    bug_window: bugWindow(contamination, provenance, atRisk),
    pool_basis: inputs.pool_basis,
    at_risk_unknown_records: pool === null ? null : unknown.no_status_or_prompt_tokens,
    unknown_fields: {status: unknown.no_status, prompt_tokens: unknown.no_prompt_tokens, decode_node: unknown.no_decode_node},
    detection: inputs.detection,
  }
}

/** What the canary markers alone say: scope's contract figures, and the whole of the canary verdict triage prints first. */
export type CanaryFigures = Pick<
  ScopeResult,
  'contaminated_responses' | 'cross_tenant_responses' | 'cross_session_responses' | 'exposed_sessions' | 'exposed_tenants' | 'recipient_tenants' | 'first_seen' | 'last_seen' | 'flows'
>

/** Pure: the canary figures of the contaminating sightings (cross_session and cross_tenant rows). */
export type CanaryRow = Pick<ContaminationRow, 'record_id' | 'class' | 'source_session' | 'source_tenant' | 'recipient_tenant' | 'ts_ms'>

export function canaryFigures(contamination: readonly CanaryRow[]): CanaryFigures {
  const ids = (rows: readonly CanaryRow[]): number => new Set(rows.map((c) => c.record_id)).size
  const seen = minMax(contamination.map((c) => c.ts_ms))
  return {
    contaminated_responses: ids(contamination),
    cross_tenant_responses: ids(contamination.filter((c) => c.class === 'cross_tenant')),
    cross_session_responses: ids(contamination.filter((c) => c.class === 'cross_session')),
    exposed_sessions: new Set(contamination.map((c) => sessionKey(c.source_tenant, c.source_session))).size,
    exposed_tenants: new Set(contamination.map((c) => c.source_tenant)).size,
    recipient_tenants: new Set(contamination.map((c) => c.recipient_tenant)).size,
    first_seen: iso(seen?.[0]),
    last_seen: iso(seen?.[1]),
    flows: countFlows(contamination),
  }
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0)
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

function dataCategories(contamination: ContaminationRow[], provenance: ProvenanceRow[], pii: readonly PiiScopeRow[]): ScopeDataCategory[] {
  const out: ScopeDataCategory[] = []
  const marked = (cls: string) => new Set(contamination.filter((c) => c.class === cls).map((c) => c.record_id)).size
  if (marked('cross_tenant') > 0)
    out.push({category: 'conversation_content_cross_tenant', label: "another customer's end-user conversation content (canary-marked prompts)", evidence: 'sightings', responses: marked('cross_tenant'), findings: null, distinct_values: null})
  if (marked('cross_session') > 0)
    out.push({category: 'conversation_content_cross_session', label: "another end user's conversation content, same customer (canary-marked prompts)", evidence: 'sightings', responses: marked('cross_session'), findings: null, distinct_values: null})
  // Verbatim text without any marker: the canary-less part of the exposure (responses that also
  // carry a marker are counted once, above), so the categories add up to the exposure.
  const withMarker = new Set(contamination.map((c) => c.record_id))
  const textOnly = new Set(provenance.map((p) => p.record_id).filter((id) => !withMarker.has(id))).size
  if (textOnly > 0)
    out.push({category: 'conversation_content_attributed', label: "another session's prompt or answer, reproduced verbatim without a canary marker", evidence: 'provenance', responses: textOnly, findings: null, distinct_values: null})
  // PII counts where it is someone else's: in a response that carries another session's
  // data (a contaminating sighting or provenance), or a finding the detector attributed.
  const leaked = new Set([...contamination.map((c) => c.record_id), ...provenance.map((p) => p.record_id)])
  const byKind = new Map<string, {findings: number; responses: Set<number>; values: Set<string>}>()
  for (const p of pii) {
    if (p.source_session === null && p.source_tenant === null && !leaked.has(p.record_id)) continue
    let k = byKind.get(p.kind)
    if (!k) byKind.set(p.kind, (k = {findings: 0, responses: new Set(), values: new Set()}))
    k.findings++
    k.responses.add(p.record_id)
    k.values.add(p.value_sha256)
  }
  for (const [kind, k] of [...byKind].sort((a, b) => byText(a[0], b[0])))
    out.push({category: kind, label: PII_LABELS[kind] ?? kind, evidence: 'pii_findings', responses: k.responses.size, findings: k.findings, distinct_values: k.values.size})
  return out
}

function estimates(inputs: ScopeInputs): {data_subjects: ScopeEstimate; records_concerned: ScopeEstimate} {
  const {contamination, provenance, atRisk, pool} = inputs
  const markerSources = new Set(contamination.map((c) => sessionKey(c.source_tenant, c.source_session)))
  const provSources = new Set(provenance.map((p) => sessionKey(p.source_tenant, p.source_session)))
  const confirmed = new Set([...markerSources, ...provSources])

  const leakedResponses = new Set([...contamination.map((c) => c.record_id), ...provenance.map((p) => p.record_id)])
  const provSourceRecords = new Set(provenance.map((p) => p.source_record_id).filter((id) => id !== null))

  // Upper bound (exposure): every session whose prompt a suspect decode node served
  // while that node was leaking, i.e. between its first and last at-risk or contaminated
  // response; stale pages can only hold what that node processed. Confirmed sources
  // are added in case one was served just before its node's window opened.
  const high = inputs.exposure === null ? null : inputs.exposure.withConfirmed
  const exposure = inputs.exposure?.served ?? 0
  const windows = inputs.exposure?.windows ?? 0
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
