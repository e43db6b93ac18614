import {
  byNullableText,
  byText,
  factTimes,
  timeIsFact,
  DistinctPairs,
  hourStart,
  iso,
  minMax,
  PairMap,
  type AtRiskGroup,
  type ContaminationRow,
  type PiiScopeRow,
  type ProvenanceRow,
  type ScopeInputs,
} from './scope-data.js'
import type {DetectionCoverage} from '../detect/coverage.js'
import {computeExposure, eachExposureRow, sourceBounds, type Exposure} from './exposure.js'

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
  /** responses that carried another session's text verbatim and no marker of it (provenance only) */
  text_only_responses: number
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
  /**
   * Affected responses (canary or verbatim text) dated more than 5 minutes after their log file was
   * ingested: no answer can have been served after its log was read, so the time is no fact. They
   * are counted in every figure; their times are kept out of first_seen, last_seen, the bug window,
   * by_node and by_hour, and the drafts name them as an open item.
   */
  responses_dated_after_ingest: number
  /**
   * Contaminated responses dated before the registry's issued_at of the marker sighted in them: the
   * log's clock, zone or epoch unit, or the registry, is wrong. Counted as found; their times are
   * kept out of every first, last and window, and the drafts name them as an open item.
   */
  responses_dated_before_marker_issued: number
  /**
   * Contaminated responses holding a marker whose source session is not named (cut short of the
   * markers of several sessions): `exposed_sessions` counts named sessions only, so it is then
   * not the whole. Absent: none.
   */
  exposed_session_not_named?: number
  /** exposed sessions at least, counting the unnamed ones that cannot be among those named (exposure.ts sourceBounds); present with exposed_session_not_named */
  exposed_sessions_low?: number
  /** exposed tenants at least (1 where no tenant is named and a marker's owner is not); present with exposed_session_not_named */
  exposed_tenants_low?: number
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
  /**
   * Contaminated responses whose logs hold no prompt text (not logged, or empty): the echo check
   * (the user sent the marker) had nothing to read, so for these it is not ruled out.
   */
  contaminated_without_prompt: number | null
  /**
   * Contaminated responses whose request was read in part (its body holds members this release
   * does not read): the marker is not in what was read, and whether the user sent it in the rest
   * (an echo) is not known, so for these too it is not ruled out. Null where one's evidence could
   * not be read again.
   */
  contaminated_prompt_in_part: number | null
  /** Where contaminated_prompt_in_part is above 0: the request members not read, and the first such response's log file and line. */
  prompt_in_part: {members: string[]; first: {file_id: number; line: number}} | null
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
  /**
   * Records whose missing status or prompt size leaves open whether they were at risk: no status
   * and a prompt at or over the pool (or of unrecorded size), or status 200 and no prompt size.
   * Where at_risk_responses is null (no record gives both fields), every record lacking either.
   */
  at_risk_unknown_records: number | null
  /**
   * Records whose logs do not say a field, per field (a format without it, or lines without it):
   * counts that depend on the field (at risk: status and prompt_tokens; by_node: decode_node)
   * are unknown for these records, never zero.
   */
  unknown_fields: {status: number; prompt_tokens: number; decode_node: number}
  /** whether detection covered everything the case holds (see crosstalk scan) */
  detection: DetectionCoverage
  /**
   * Duplicate lines (a request id logged again: a retry) whose answer carries another session's
   * marker that the request's record does not. Each is a response served, yet no figure above
   * counts it (only a request's first line is a record with sightings): named here instead.
   */
  duplicate_leaks_not_counted: DuplicateLeak[]
  /** duplicate lines that differ from their record and could not be read again: whether they carry a marker is not known */
  duplicate_lines_not_examined: number
  /**
   * Responses holding personal data (an e-mail, a phone number, ...) that another session sent
   * earlier and the recipient's session never sent (a personal-data finding attributed by value),
   * with no canary marker and no verbatim text of another session: another session's data in an
   * answer, in no exposure figure (which counts markers and verbatim text), so every "none found"
   * is untrue over them and the exposure is a lower bound. Matched by value, not by text.
   */
  pii_attributed_only_responses: number
  /** the same, per (source tenant, recipient tenant): distinct responses */
  pii_attributed_only_flows: ScopeFlow[]
}

export interface DuplicateLeak {
  path: string
  line: number
  request_id: string
  class: 'cross_session' | 'cross_tenant'
}

/** The data-subject method's low bound, for the whole case (a controller's share says its own: notify/facts.ts). */
export const SUBJECTS_LOW = 'low: distinct sessions whose canary marker (cross_session/cross_tenant sightings) or verbatim content (provenance) reached another session. '

/** The contaminated responses whose request was read in part (ContaminationRow.prompt_in_part): how many, which members, where the first is. */
function promptInPart(contamination: readonly ContaminationRow[]): Pick<ScopeResult, 'contaminated_prompt_in_part' | 'prompt_in_part'> {
  const partial = contamination.filter((c) => c.prompt_in_part !== undefined)
  if (partial.some((c) => c.prompt_in_part === 'unknown')) return {contaminated_prompt_in_part: null, prompt_in_part: null}
  if (partial.length === 0) return {contaminated_prompt_in_part: 0, prompt_in_part: null}
  const members = new Set<string>()
  for (const c of partial) for (const m of c.prompt_in_part!.split(', ')) members.add(m)
  return {contaminated_prompt_in_part: new Set(partial.map((c) => c.record_id)).size, prompt_in_part: {members: [...members], first: {file_id: partial[0]!.file_id, line: partial[0]!.line_no}}}
}

export function computeScope(inputs: ScopeInputs): ScopeResult {
  const {contamination, provenance, atRisk, pool} = inputs
  const advertised = inputs.advertised

  const canary = canaryFigures(contamination)
  // The sets of responses several figures count, built once: at millions of records scope
  // holds tens of thousands of rows, and every set built per figure was garbage to collect.
  const ids = responseSets(contamination, provenance)
  const provCrossTenant = new Set<number>()
  const provCrossSession = new Set<number>()
  // A source provenance does not name (ambiguous, unknown) is neither: which it was is not known.
  for (const p of provenance) if (p.source_tenant !== null) (p.source_tenant !== p.recipient_tenant ? provCrossTenant : provCrossSession).add(p.record_id)

  const flows = canary.flows
  const unknown = inputs.unknownForAtRisk

  // The contract's key order: the canary figures, the at-risk count, then the flows.
  const {flows: _flows, ...figures} = canary
  return {
    ...figures,
    at_risk_responses: atRisk === null ? null : sum(atRisk.map((g) => g.n)),
    flows,
    exposure: computeExposure(eachExposureRow(inputs)),
    pool_tokens: pool,
    advertised_tokens: advertised,
    at_risk_error_responses: atRisk === null ? null : sum(atRisk.map((g) => g.errors)),
    over_advertised_responses: atRisk === null || advertised === null ? null : sum(atRisk.map((g) => g.over_advertised)),
    orphan_sightings: inputs.orphans,
    provenance_responses: ids.provenance.size,
    provenance_cross_tenant_responses: provCrossTenant.size,
    provenance_cross_session_responses: provCrossSession.size,
    provenance_only_responses: ids.provenanceOnly,
    // Not known (null) where a contaminated response's evidence could not be read again.
    contaminated_without_prompt: contamination.some((c) => c.prompt_words === null) ? null : new Set(contamination.filter((c) => c.prompt_words === 0).map((c) => c.record_id)).size,
    ...promptInPart(contamination),
    // A source provenance does not name (ambiguous, unknown) is no flow from any one tenant.
    provenance_flows: countFlows(provenance.filter((p) => p.source_tenant !== null)),
    flow_matrix: flowMatrix(flows),
    by_node: byNode(contamination, provenance, atRisk),
    by_hour: byHour(contamination, provenance, atRisk),
    data_categories: dataCategories(canary, ids, inputs.pii),
    ...estimates(inputs, ids),
    bug_window: bugWindow(contamination, provenance, atRisk),
    pool_basis: inputs.pool_basis,
    at_risk_unknown_records: pool === null || inputs.narrowed ? null : inputs.atRiskUndecided,
    unknown_fields: {status: unknown.no_status, prompt_tokens: unknown.no_prompt_tokens, decode_node: unknown.no_decode_node},
    detection: inputs.detection,
    duplicate_leaks_not_counted: (inputs.duplicates?.leaking ?? []).map((d) => ({path: d.path, line: d.line_no, request_id: d.request_id, class: d.class})),
    duplicate_lines_not_examined: inputs.duplicates?.unexamined ?? 0,
    ...piiAttributedOnly(inputs.pii, ids.leaked),
    responses_dated_after_ingest: new Set([...contamination, ...provenance].filter((r) => r.after_ingest).map((r) => r.record_id)).size,
    responses_dated_before_marker_issued: new Set(contamination.filter((c) => c.before_issued).map((c) => c.record_id)).size,
  }
}

/** The responses whose only evidence of another session's data is an attributed personal-data finding (ScopeResult.pii_attributed_only_responses). */
function piiAttributedOnly(pii: readonly PiiScopeRow[], leaked: ReadonlySet<number>): Pick<ScopeResult, 'pii_attributed_only_responses' | 'pii_attributed_only_flows'> {
  const rows = pii.filter((p) => p.source_tenant !== null && !leaked.has(p.record_id))
  return {
    pii_attributed_only_responses: new Set(rows.map((p) => p.record_id)).size,
    pii_attributed_only_flows: countFlows(rows),
  }
}

/** What the canary markers alone say: scope's contract figures, and the whole of the canary verdict triage prints first. */
export type CanaryFigures = Pick<
  ScopeResult,
  | 'contaminated_responses' | 'cross_tenant_responses' | 'cross_session_responses' | 'exposed_sessions' | 'exposed_tenants' | 'recipient_tenants' | 'first_seen' | 'last_seen' | 'flows'
  | 'exposed_session_not_named' | 'exposed_sessions_low' | 'exposed_tenants_low'
>

/** Pure: the canary figures of the contaminating sightings (cross_session and cross_tenant rows). */
export type CanaryRow = Pick<ContaminationRow, 'record_id' | 'class' | 'source_session' | 'source_tenant' | 'recipient_tenant' | 'ts_ms' | 'after_ingest' | 'before_issued'>

export function canaryFigures(contamination: readonly CanaryRow[]): CanaryFigures {
  const ids = (rows: readonly CanaryRow[]): number => new Set(rows.map((c) => c.record_id)).size
  const seen = minMax(factTimes(contamination))
  const notNamed = ids(contamination.filter((c) => c.source_session === null))
  const bounds = notNamed > 0 ? sourceBounds(contamination) : null
  return {
    contaminated_responses: ids(contamination),
    cross_tenant_responses: ids(contamination.filter((c) => c.class === 'cross_tenant')),
    cross_session_responses: ids(contamination.filter((c) => c.class === 'cross_session')),
    exposed_sessions: sourceSessions(contamination).size,
    // A sighting whose source is ambiguous (a token cut short of markers of several sessions)
    // names no session, and no tenant where its candidates' tenants differ: it counts its
    // response, never a source it cannot name.
    exposed_tenants: new Set(contamination.flatMap((c) => (c.source_tenant === null ? [] : [c.source_tenant]))).size,
    recipient_tenants: new Set(contamination.map((c) => c.recipient_tenant)).size,
    first_seen: iso(seen?.[0]),
    last_seen: iso(seen?.[1]),
    flows: countFlows(contamination),
    // A marker whose session is not named is still someone's session: the figures above are then named ones, beside their lower bounds.
    ...(bounds ? {exposed_session_not_named: notNamed, exposed_sessions_low: bounds.sessions_low, exposed_tenants_low: bounds.tenants_low} : {}),
  }
}

/** Responses by their evidence: a contaminating sighting, a provenance attribution, either. */
interface ResponseSets {
  contaminated: Set<number>
  provenance: Set<number>
  leaked: Set<number>
  /** responses attributed by provenance that carry no contaminating sighting */
  provenanceOnly: number
}

function responseSets(contamination: readonly ContaminationRow[], provenance: readonly ProvenanceRow[]): ResponseSets {
  const contaminated = new Set<number>()
  for (const c of contamination) contaminated.add(c.record_id)
  const attributed = new Set<number>()
  for (const p of provenance) attributed.add(p.record_id)
  const leaked = new Set(contaminated)
  let provenanceOnly = 0
  for (const id of attributed) {
    if (contaminated.has(id)) continue
    leaked.add(id)
    provenanceOnly++
  }
  return {contaminated, provenance: attributed, leaked, provenanceOnly}
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0)
}

function countFlows(rows: ReadonlyArray<{record_id: number; source_tenant: string | null; recipient_tenant: string}>): ScopeFlow[] {
  const pairs = new PairMap<Set<number>>()
  for (const row of rows) if (row.source_tenant !== null) pairs.at(row.source_tenant, row.recipient_tenant, newIds).add(row.record_id)
  return [...pairs.entries()]
    .map(([source, recipient, ids]) => ({source_tenant: source!, recipient_tenant: recipient!, responses: ids.size}))
    .sort((a, b) => byText(a.source_tenant, b.source_tenant) || byText(a.recipient_tenant, b.recipient_tenant))
}

const newIds = (): Set<number> => new Set()

/** The distinct (tenant, session) pairs whose data the rows say reached another session. */
function sourceSessions(rows: ReadonlyArray<{source_tenant: string | null; source_session: string | null}>, into = new DistinctPairs()): DistinctPairs {
  for (const r of rows) if (r.source_session !== null) into.add(r.source_tenant, r.source_session)
  return into
}

function flowMatrix(flows: ScopeFlow[]): {tenants: string[]; responses: number[][]} {
  const tenants = [...new Set(flows.flatMap((f) => [f.source_tenant, f.recipient_tenant]))].sort(byText)
  const index = new Map(tenants.map((t, i) => [t, i]))
  const responses = tenants.map(() => tenants.map(() => 0))
  for (const f of flows) responses[index.get(f.source_tenant)!]![index.get(f.recipient_tenant)!] = f.responses
  return {tenants, responses}
}

function byNode(contamination: ContaminationRow[], provenance: ProvenanceRow[], atRisk: AtRiskGroup[] | null): ScopeNodeRow[] {
  interface Node {
    contaminated: Set<number>
    crossTenant: Set<number>
    crossSession: Set<number>
    provenance: Set<number>
    seen: [number, number] | null
    risk: {n: number; first: number; last: number} | null
  }
  const nodes = new Map<string | null, Node>()
  const at = (node: string | null): Node => {
    let n = nodes.get(node)
    if (!n) nodes.set(node, (n = {contaminated: new Set(), crossTenant: new Set(), crossSession: new Set(), provenance: new Set(), seen: null, risk: null}))
    return n
  }
  for (const c of contamination) {
    const n = at(c.decode_node)
    n.contaminated.add(c.record_id)
    if (c.class === 'cross_tenant') n.crossTenant.add(c.record_id)
    else if (c.class === 'cross_session') n.crossSession.add(c.record_id)
    if (timeIsFact(c)) n.seen = n.seen ? [Math.min(n.seen[0], c.ts_ms), Math.max(n.seen[1], c.ts_ms)] : [c.ts_ms, c.ts_ms]
  }
  for (const p of provenance) at(p.decode_node).provenance.add(p.record_id)
  for (const g of atRisk ?? []) {
    const n = at(g.decode_node)
    n.risk = n.risk ? {n: n.risk.n + g.n, first: Math.min(n.risk.first, g.first_ms), last: Math.max(n.risk.last, g.last_ms)} : {n: g.n, first: g.first_ms, last: g.last_ms}
  }
  return [...nodes]
    .sort((x, y) => byNullableText(x[0], y[0]))
    .map(([node, n]) => ({
      decode_node: node,
      contaminated_responses: n.contaminated.size,
      cross_tenant_responses: n.crossTenant.size,
      cross_session_responses: n.crossSession.size,
      provenance_responses: n.provenance.size,
      at_risk_responses: atRisk === null ? null : (n.risk?.n ?? 0),
      first_seen: iso(n.seen?.[0]),
      last_seen: iso(n.seen?.[1]),
      at_risk_first: iso(n.risk?.first),
      at_risk_last: iso(n.risk?.last),
    }))
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
    if (!timeIsFact(c)) continue
    const row = at(c.ts_ms)
    row.c.add(c.record_id)
    if (c.class === 'cross_tenant') row.t.add(c.record_id)
  }
  for (const p of provenance) if (timeIsFact(p)) at(p.ts_ms).p.add(p.record_id)
  for (const g of atRisk ?? []) at(g.hour).risk += g.n
  return [...hours.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([h, row]) => ({
      hour: iso(h)!,
      contaminated_responses: row.c.size,
      cross_tenant_responses: row.t.size,
      provenance_responses: row.p.size,
      text_only_responses: [...row.p].filter((id) => !row.c.has(id)).length,
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

function dataCategories(canary: CanaryFigures, ids: ResponseSets, pii: readonly PiiScopeRow[]): ScopeDataCategory[] {
  const out: ScopeDataCategory[] = []
  if (canary.cross_tenant_responses > 0)
    out.push({category: 'conversation_content_cross_tenant', label: "another customer's end-user conversation content (canary-marked prompts)", evidence: 'sightings', responses: canary.cross_tenant_responses, findings: null, distinct_values: null})
  if (canary.cross_session_responses > 0)
    out.push({category: 'conversation_content_cross_session', label: "another end user's conversation content, same customer (canary-marked prompts)", evidence: 'sightings', responses: canary.cross_session_responses, findings: null, distinct_values: null})
  // Verbatim text without any marker: the canary-less part of the exposure (responses that also
  // carry a marker are counted once, above), so the categories add up to the exposure.
  if (ids.provenanceOnly > 0)
    out.push({category: 'conversation_content_attributed', label: "another session's prompt or answer, reproduced verbatim without a canary marker", evidence: 'provenance', responses: ids.provenanceOnly, findings: null, distinct_values: null})
  // PII counts where it is someone else's: in a response that carries another session's
  // data (a contaminating sighting or provenance), or a finding the detector attributed.
  const leaked = ids.leaked
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

function estimates(inputs: ScopeInputs, ids: ResponseSets): {data_subjects: ScopeEstimate; records_concerned: ScopeEstimate} {
  const {contamination, provenance, atRisk, pool} = inputs
  const confirmed = sourceSessions(contamination)
  const markerSources = confirmed.size
  // Provenance that names no source (ambiguous, unknown) has no session: it is counted apart, never
  // as one more session (all such rows together read as one (null, null) pair).
  const namedProvenance = provenance.filter((p) => p.source_session !== null)
  const provSources = sourceSessions(namedProvenance).size
  sourceSessions(namedProvenance, confirmed)
  // Evidence that names no source session, by kind: verbatim text whose source is ambiguous or
  // unknown (provenance), and a canary marker cut short of the markers of several sessions.
  const textNotNamed = new Set<number>()
  for (const p of provenance) if (p.source_session === null) textNotNamed.add(p.record_id)
  const markerNotNamed = new Set<number>()
  for (const c of contamination) if (c.source_session === null) markerNotNamed.add(c.record_id)
  // Someone's data reached each of those responses: at least one session where none counted can
  // be it (no session counted at all, or none of the marker's tenant), otherwise it may be one
  // already counted (exposure.ts sourceBounds, as scope's exposure counts them).
  const low = sourceBounds([...contamination, ...provenance]).sessions_low
  const extra = low - confirmed.size

  const leakedResponses = ids.leaked
  const provSourceRecords = new Set<number>()
  for (const p of provenance) if (p.source_record_id !== null) provSourceRecords.add(p.source_record_id)

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
  // Records whose status or prompt size is not recorded may have been at risk: they are counted
  // too, so that the bound stays one (a confirmed leak among them is counted once).
  let recordsHigh: number | null = null
  const undecided = inputs.atRiskUndecided ?? 0
  if (atRiskCount !== null && pool !== null) {
    const confirmedElsewhere = new Set<number>()
    for (const rows of [contamination, provenance])
      for (const r of rows) if (!(r.status === 200 && r.prompt_tokens !== null && r.prompt_tokens >= pool) && !undecidedRecord(r, pool, inputs.atRiskUndecidedRule)) confirmedElsewhere.add(r.record_id)
    recordsHigh = atRiskCount + undecided + confirmedElsewhere.size
  }

  // Why a bound is missing, said as it is: no pool size, a customer's share of the case (the
  // bounds are the whole case's), or logs that never give both status and prompt size.
  const unbounded = (by: string): string =>
    pool === null
      ? `high: not bounded; give --pool-tokens to bound it by ${by}.`
      : inputs.narrowed
        ? `high: not computed for one customer's share of the case (crosstalk scope bounds the whole case by ${by}).`
        : 'high: not bounded: no record gives both its HTTP status and its prompt size, so no response can be judged at risk.'
  return {
    data_subjects: {
      low,
      high,
      method:
        'One session is counted as one data subject (the end user of that conversation; people named inside the content are not counted). ' +
        SUBJECTS_LOW +
        unnamedSentence(textNotNamed.size, markerNotNamed.size, extra, confirmed.size) +
        (high === null
          ? unbounded('exposure')
          : 'high: distinct sessions whose prompts were served by a decode node with at-risk or contaminated responses' +
            (undecided > 0 ? ' (or records whose status or prompt size is not recorded, which may have been at risk)' : '') +
            ", between that node's first and last such response, plus the confirmed sessions."),
      evidence: {
        sighting_source_sessions: markerSources,
        provenance_source_sessions: provSources,
        provenance_source_not_named_responses: textNotNamed.size,
        sighting_source_session_not_named_responses: markerNotNamed.size,
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
          ? unbounded('the at-risk responses')
          : 'high: every status-200 response whose prompt was at or over the pool (each could carry stale pages)' +
            (undecided > 0 ? `, every record whose status or prompt size is not recorded where that leaves open whether it was one (${undecided})` : '') +
            ', plus confirmed leaks outside that set.'),
      evidence: {
        sighting_responses: ids.contaminated.size,
        provenance_responses: ids.provenance.size,
        provenance_source_records: provSourceRecords.size,
        at_risk_responses: atRiskCount,
      },
    },
  }
}

/**
 * The data-subjects method's sentence on responses whose source session cannot be named, by kind
 * (verbatim text whose source is ambiguous or unknown; a canary marker cut short of the markers of
 * several sessions), and how they are counted: `extra` sessions beyond the `named` ones.
 */
function unnamedSentence(text: number, marker: number, extra: number, named: number): string {
  const parts = [
    text > 0 ? `${text === 1 ? 'One response repeats' : `${text} responses repeat`} another session's text whose source cannot be named (several tenants' texts alike, or only answers whose prompts were not logged)` : null,
    marker > 0 ? `${marker === 1 ? 'One response holds' : `${marker} responses hold`} a canary marker cut short, a prefix of the markers of several sessions, so whose session it is cannot be named (the case lists its possible sources)` : null,
  ].filter((x): x is string => x !== null)
  if (parts.length === 0) return ''
  const one = text + marker === 1
  const clause =
    extra > 0
      ? `${one ? 'it counts' : 'they count'} as ${extra === 1 ? 'one session' : `${extra} sessions`}, since someone's data reached ${one ? 'it' : 'them'}${named > 0 ? ` and the sessions counted cannot be ${one ? 'its' : 'their'} source` : ''}`
      : `${one ? 'it adds' : 'they add'} none, since ${one ? 'it' : 'they'} may hold data of sessions already counted`
  return parts.length === 1 ? `${parts[0]}: ${clause}. ` : `${parts.join('. ')}. ${clause.charAt(0).toUpperCase()}${clause.slice(1)}. `
}

function bugWindow(contamination: ContaminationRow[], provenance: ProvenanceRow[], atRisk: AtRiskGroup[] | null): ScopeResult['bug_window'] {
  const points = [...factTimes(contamination), ...factTimes(provenance), ...(atRisk ?? []).flatMap((g) => [g.first_ms, g.last_ms])]
  const range = minMax(points)
  if (range === null) return null
  const basis = [contamination.length > 0 ? 'contaminating sightings' : null, provenance.length > 0 ? 'provenance' : null, atRisk && atRisk.length > 0 ? 'at-risk responses' : null]
    .filter((x) => x !== null)
    .join(', ')
  return {start: iso(range[0])!, end: iso(range[1])!, basis: `first to last of: ${basis}`}
}

/** Whether a record is among those atRiskUndecided counts (its fields leave open whether it was at risk), by the rule the count was made with. */
function undecidedRecord(r: {status: number | null; prompt_tokens: number | null}, pool: number, rule: ScopeInputs['atRiskUndecidedRule']): boolean {
  if (rule === 'either_missing') return r.status === null || r.prompt_tokens === null
  return (r.status === null && (r.prompt_tokens === null || r.prompt_tokens >= pool)) || (r.status === 200 && r.prompt_tokens === null)
}
