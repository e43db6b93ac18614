import type {DetectionCoverage} from '../detect/coverage.js'
import {recordTextLoader} from '../evidence/record-texts.js'
import {listReplayResults, type StoredReplayResult} from '../replay/replay-store.js'
import {wilsonInterval} from '../replay/wilson.js'
import {computeScope, type ScopeFlow, type ScopeResult} from '../scope/compute-scope.js'
import {loadScopeInputs, type ScopeInputs} from '../scope/scope-data.js'
import {computeTenantView, type TenantCounterpart} from '../scope/tenant-view.js'
import {contaminationRows} from '../store/findings.js'
import {completeFiles, fileTotals, type FileTotals} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {recordTotals, type RecordTotals} from '../store/records.js'
import {safeLine} from '../util/sanitize.js'
import {latestAssessment, type AssessmentRecord} from './assessment-store.js'
import {computeClock, type ClockResult} from './clock.js'
import {getIncident, listAmendments, type AwarenessAmendment, type IncidentRecord} from './incident.js'
import {firstInitialNotification, listNotifications, type NotificationRecord} from './notifications.js'
import {CATEGORY_LABELS} from './labels.js'

// Everything a report needs, read once from the case. Reports are built from this plain
// object only, so they can be tested with a hand-built fixture and never reach back into
// the database. Every string that came from a log passes through safeLine here, so no
// report format can receive a raw terminal escape; leaked content itself is never read
// unless the user asked for excerpts.

export type Flow = ScopeFlow

export interface Range {
  low: number
  /** null when nothing bounds it yet (see method) */
  high: number | null
  method: string
}

export interface Category {
  /** a pii_findings kind ('email', 'iban', ...), a conversation-content category from scope, or 'free_text' */
  kind: string
  /** English label; reports translate by kind (phrases.ts) */
  label: string
  /** distinct values (by hash) for personal-data kinds; responses for content categories */
  count: number
  /** responses that carried this category */
  responses: number
}

/** The contract's scope keys, exactly as computeScope returns them (strings made inert). */
type ScopeContractKeys = Pick<
  ScopeResult,
  | 'contaminated_responses' | 'cross_tenant_responses' | 'cross_session_responses' | 'exposed_sessions' | 'exposed_tenants'
  | 'recipient_tenants' | 'first_seen' | 'last_seen' | 'at_risk_responses' | 'flows'
>

export interface ScopeFacts extends ScopeContractKeys {
  // extensions used by the reports
  pool_tokens: number | null
  orphan_sightings: number
  provenance_responses: number
  provenance_only_responses: number
  by_hour: Array<{hour: string; responses: number; cross_tenant_responses: number; provenance_responses: number; at_risk_responses: number | null}>
  by_node: Array<{node: string; responses: number; cross_tenant_responses: number; cross_session_responses: number; provenance_responses: number; at_risk_responses: number | null; first_seen: string | null; last_seen: string | null}>
  data_subjects: Range
  records: Range
  categories: Category[]
  bug_window: {start: string; end: string; basis: string} | null
  /** how the contract numbers were computed */
  method: string
}

/** One controller's own exposure: what a processor may tell that tenant (Art. 33(2)). */
export interface TenantExposure {
  tenant_id: string
  /** this tenant's sessions whose data reached another session */
  leaked_sessions: string[]
  /** responses (to anyone else) that carried this tenant's data */
  responses_carrying_its_data: number
  /** other sessions of this same tenant that received it */
  recipient_sessions_same_tenant: number
  /** sessions of other tenants that received it (count only: never their ids) */
  recipient_sessions_other_tenants: number
  /** number of other tenants that received it (count only) */
  recipient_tenants_other: number
  first_leaked: string | null
  last_leaked: string | null
  /** responses attributed to its data by verbatim overlap only (no canary) */
  provenance_only_leaked: number
  /** markers of this tenant seen elsewhere, truncated */
  markers_truncated: string[]
  /** PII kinds found in this tenant's leaked content (counts of distinct values) */
  pii_in_leaked: Category[]
  /** responses this tenant received that carried another tenant's data */
  received_foreign_responses: number
  /** its sessions that received foreign data */
  receiving_sessions: string[]
  /** number of tenants whose data it received (count only) */
  received_from_tenants: number
  pii_in_received: Category[]
  /** the other customers on each side, as opaque labels (tenant#1, ...) from computeTenantView */
  counterparts_leaked_to: Counterpart[]
  counterparts_received_from: Counterpart[]
  /** its own status-200 responses at or over the pool (null without a pool size) */
  at_risk_responses: number | null
}

export interface Counterpart {
  label: string
  /** responses with a canary marker */
  responses: number
  /** responses attributed by verbatim overlap */
  provenance_responses: number
  /** the other side's sessions (marker or verbatim) */
  sessions: number
  first_seen: string | null
  last_seen: string | null
}

export interface ReplayFacts {
  runs: number
  results: number
  confirmed: number
  not_reproduced: number
  rejected: number
  trials: number
  reproduced: number
  /** pooled over every result: reproduced / trials with a 95 % Wilson interval */
  rate: number
  wilson_low: number
  wilson_high: number
  targets: string[]
  original_prompt: boolean
  items: Array<{request_id: string; verdict: 'confirmed' | 'not_reproduced' | 'rejected'; trials: number; reproduced: number; rate: number; wilson_low: number; wilson_high: number}>
}

export interface EvidenceFile {
  path: string
  sha256: string
  size: number
  kind: string
  records: number
}

export interface Excerpt {
  request_id: string
  ts: string
  marker_truncated: string
  /** up to 160 characters around the marker, controls made visible */
  text: string
}

export interface CaseFacts {
  generated_at: string
  incident: IncidentRecord | null
  amendments: AwarenessAmendment[]
  clock: ClockResult | null
  notifications: NotificationRecord[]
  assessment: AssessmentRecord | null
  totals: {records: number; tenants: number; sessions: number; files: number; bad_lines: number}
  /** whether detection covered everything the case holds */
  detection: DetectionCoverage
  /** null when detection never ran over any log */
  scope: ScopeFacts | null
  tenants: TenantExposure[]
  provenance: {attributed_responses: number; max_overlap_words: number} | null
  /** null when no replay is recorded in the case */
  replay: ReplayFacts | null
  evidence: EvidenceFile[]
  excerpts: Excerpt[] | null
}

export interface GatherFactsOptions {
  now: Date
  includeExcerpts?: boolean
  /** What-if: another pool size than the one recorded in the case by `scan --pool-tokens`. */
  poolTokens?: number
}

/** Everything a report reads from the case, read once (loadFactsInputs); the rest is pure. */
export interface FactsInputs {
  scope: ScopeInputs
  incident: IncidentRecord | null
  amendments: AwarenessAmendment[]
  notifications: NotificationRecord[]
  assessment: AssessmentRecord | null
  replay: StoredReplayResult[]
  files: EvidenceFile[]
  fileTotals: FileTotals
  /** counts over every record of complete files (a full pass: read for the drafts, not for scope) */
  recordTotals: RecordTotals
  excerpts: Excerpt[] | null
}

export const PII_LABELS: Record<string, string> = CATEGORY_LABELS.en

/** `CANARY-3f2a…`: enough to recognise a marker, never enough to reproduce it. */
export function truncateMarker(marker: string): string {
  const m = /^(CANARY-)([0-9a-fA-F]{4})/.exec(marker)
  const head = m ? `${m[1]}${m[2]}` : marker.slice(0, 4)
  return `${safeLine(head)}…`
}

export function loadFactsInputs(db: CaseDb, options: Omit<GatherFactsOptions, 'now'> = {}): FactsInputs {
  return {
    scope: loadScopeInputs(db, {poolTokens: options.poolTokens}),
    incident: getIncident(db),
    amendments: listAmendments(db),
    notifications: listNotifications(db),
    assessment: latestAssessment(db),
    replay: listReplayResults(db),
    files: completeFiles(db).map((f) => ({path: f.name, sha256: f.sha256, size: f.size, kind: f.kind, records: f.records})),
    fileTotals: fileTotals(db),
    recordTotals: recordTotals(db),
    excerpts: options.includeExcerpts ? gatherExcerpts(db) : null,
  }
}

export function gatherFacts(db: CaseDb, options: GatherFactsOptions): CaseFacts {
  return buildFacts(loadFactsInputs(db, options), options.now)
}

/** The facts every report is built from, computed from what loadFactsInputs read. Pure. */
export function buildFacts(inputs: FactsInputs, now: Date): CaseFacts {
  const incident = inputs.incident
  const notifications = inputs.notifications.map((n) => ({...n, recipient: safeLine(n.recipient), reference: safeLine(n.reference)}))
  let clock: ClockResult | null = null
  if (incident) {
    const first = firstInitialNotification(notifications, incident.role)
    clock = computeClock(new Date(incident.aware_at), now, first ? new Date(first.at) : null)
  }
  const s = inputs.scope
  const totals = {
    records: inputs.recordTotals.records,
    tenants: inputs.recordTotals.tenants,
    sessions: inputs.recordTotals.sessions,
    files: inputs.files.length,
    bad_lines: inputs.fileTotals.bad_lines,
  }
  const full = s.detection.never_scanned ? null : computeScope(s)
  const provenanceIds = new Set(s.provenance.map((p) => p.record_id))
  return {
    generated_at: now.toISOString(),
    incident: incident ? sanitizeRecord(incident) : null,
    amendments: inputs.amendments.map((a) => sanitizeRecord(a)),
    clock,
    notifications,
    assessment: inputs.assessment,
    totals,
    detection: s.detection,
    scope: full ? scopeFacts(full) : null,
    tenants: full ? tenantExposures(s, full) : [],
    provenance: full ? {attributed_responses: provenanceIds.size, max_overlap_words: s.provenance.reduce((m, p) => Math.max(m, p.overlap_words), 0)} : null,
    replay: replayFacts(inputs.replay),
    evidence: inputs.files.map((f) => ({...f, path: safeLine(f.path)})),
    excerpts: inputs.excerpts,
  }
}

function sanitizeRecord<T extends object>(record: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(record)) out[k] = typeof v === 'string' ? safeLine(v) : v
  return out as T
}

/** computeScope's result reduced to what reports show; every log-derived string made inert. */
export function scopeFacts(s: ScopeResult): ScopeFacts {
  const categories: Category[] = s.data_categories.map((c) => ({
    kind: safeLine(c.category),
    label: CATEGORY_LABELS.en[c.category] ?? safeLine(c.label),
    count: c.distinct_values ?? c.responses,
    responses: c.responses,
  }))
  const leaked = s.contaminated_responses + s.provenance_only_responses
  categories.push({kind: 'free_text', label: CATEGORY_LABELS.en.free_text!, count: leaked, responses: leaked})
  return {
    contaminated_responses: s.contaminated_responses,
    cross_tenant_responses: s.cross_tenant_responses,
    cross_session_responses: s.cross_session_responses,
    exposed_sessions: s.exposed_sessions,
    exposed_tenants: s.exposed_tenants,
    recipient_tenants: s.recipient_tenants,
    first_seen: s.first_seen,
    last_seen: s.last_seen,
    at_risk_responses: s.at_risk_responses,
    flows: s.flows.map((f) => ({source_tenant: safeLine(f.source_tenant), recipient_tenant: safeLine(f.recipient_tenant), responses: f.responses})),
    pool_tokens: s.pool_tokens,
    orphan_sightings: s.orphan_sightings,
    provenance_responses: s.provenance_responses,
    provenance_only_responses: s.provenance_only_responses,
    by_hour: s.by_hour.map((h) => ({
      hour: h.hour,
      responses: h.contaminated_responses,
      cross_tenant_responses: h.cross_tenant_responses,
      provenance_responses: h.provenance_responses,
      at_risk_responses: h.at_risk_responses,
    })),
    by_node: s.by_node
      .filter((n) => n.contaminated_responses > 0 || n.provenance_responses > 0)
      .map((n) => ({
        node: n.decode_node === null ? '(unknown)' : safeLine(n.decode_node),
        responses: n.contaminated_responses,
        cross_tenant_responses: n.cross_tenant_responses,
        cross_session_responses: n.cross_session_responses,
        provenance_responses: n.provenance_responses,
        at_risk_responses: n.at_risk_responses,
        first_seen: n.first_seen,
        last_seen: n.last_seen,
      })),
    data_subjects: {low: s.data_subjects.low, high: s.data_subjects.high, method: s.data_subjects.method},
    records: {low: s.records_concerned.low, high: s.records_concerned.high, method: s.records_concerned.method},
    categories,
    bug_window: s.bug_window,
    method:
      'canary sightings: responses holding a marker registered to another session (cross_session) or another tenant (cross_tenant), in completely loaded log files; verbatim-overlap provenance and personal-data findings are reported beside them',
  }
}

function replayFacts(rows: StoredReplayResult[]): ReplayFacts | null {
  if (rows.length === 0) return null
  const trials = rows.reduce((a, r) => a + r.trials, 0)
  const reproduced = rows.reduce((a, r) => a + r.reproduced, 0)
  const pooled = wilsonInterval(reproduced, trials)
  const verdicts = (v: string) => rows.filter((r) => r.verdict === v).length
  return {
    runs: new Set(rows.map((r) => r.run_id)).size,
    results: rows.length,
    confirmed: verdicts('confirmed'),
    not_reproduced: verdicts('not_reproduced'),
    rejected: verdicts('rejected'),
    trials,
    reproduced,
    rate: trials > 0 ? reproduced / trials : 0,
    wilson_low: pooled.low,
    wilson_high: pooled.high,
    targets: [...new Set(rows.map((r) => safeLine(r.target)))],
    original_prompt: rows.some((r) => r.original_prompt),
    items: rows.map((r) => ({
      request_id: safeLine(r.request_id),
      verdict: r.verdict,
      trials: r.trials,
      reproduced: r.reproduced,
      rate: r.rate,
      wilson_low: r.wilson_low,
      wilson_high: r.wilson_high,
    })),
  }
}

/**
 * Every tenant on either side of a flow (sightings or provenance). Counts come from the scope
 * module's tenant view (other tenants as opaque labels); the lists a processor may give a
 * customer about itself (its own session ids, truncated markers, PII kinds) come from the
 * same rows.
 */
function tenantExposures(inputs: ScopeInputs, scope: ScopeResult): TenantExposure[] {
  const tenants = [...new Set([...scope.flows, ...scope.provenance_flows].flatMap((f) => [f.source_tenant, f.recipient_tenant]))]
    .filter((t) => t !== '')
    .sort()
  const piiBy = (keep: (p: ScopeInputs['pii'][number]) => boolean): Category[] => {
    const byKind = new Map<string, {values: Set<string>; responses: Set<number>}>()
    for (const p of inputs.pii) {
      if (!keep(p)) continue
      let k = byKind.get(p.kind)
      if (!k) byKind.set(p.kind, (k = {values: new Set(), responses: new Set()}))
      k.values.add(p.value_sha256)
      k.responses.add(p.record_id)
    }
    return [...byKind]
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([kind, k]) => ({kind: safeLine(kind), label: CATEGORY_LABELS.en[kind] ?? safeLine(kind), count: k.values.size, responses: k.responses.size}))
  }
  const others = (cs: TenantCounterpart[]): Counterpart[] =>
    cs
      .filter((c) => !c.same_tenant)
      .map((c) => ({label: safeLine(c.tenant), responses: c.responses, provenance_responses: c.provenance_responses, sessions: c.sessions, first_seen: c.first_seen, last_seen: c.last_seen}))
  const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort()
  return tenants.map((t) => {
    const view = computeTenantView(inputs, {tenant: t})
    // its markers seen elsewhere (sightings only, like the other counts)
    const out = inputs.contamination.filter((c) => c.source_tenant === t)
    const same = new Set(out.filter((c) => c.recipient_tenant === t).map((c) => c.recipient_session))
    const other = new Set(out.filter((c) => c.recipient_tenant !== t).map((c) => JSON.stringify([c.recipient_tenant, c.recipient_session])))
    return {
      tenant_id: safeLine(t),
      leaked_sessions: sorted(out.filter((c) => c.source_session !== null).map((c) => c.source_session!)).map(safeLine),
      responses_carrying_its_data: view.leaked.responses,
      recipient_sessions_same_tenant: same.size,
      recipient_sessions_other_tenants: other.size,
      recipient_tenants_other: view.leaked.other_tenants,
      first_leaked: view.leaked.first_seen,
      last_leaked: view.leaked.last_seen,
      provenance_only_leaked: view.leaked.provenance_only_responses,
      markers_truncated: [...new Set(sorted(out.map((c) => c.marker)).map(truncateMarker))],
      pii_in_leaked: piiBy((p) => p.source_tenant === t),
      received_foreign_responses: view.received.cross_tenant_responses,
      receiving_sessions: sorted(inputs.contamination.filter((c) => c.class === 'cross_tenant' && c.recipient_tenant === t).map((c) => c.recipient_session)).map(safeLine),
      received_from_tenants: view.received.other_tenants,
      pii_in_received: piiBy((p) => p.recipient_tenant === t && p.source_tenant !== null && p.source_tenant !== t),
      counterparts_leaked_to: others(view.leaked.counterparts),
      counterparts_received_from: others(view.received.counterparts),
      at_risk_responses: view.at_risk_responses,
    }
  })
}

/** Only with --include-excerpts: short windows around each marker, controls made visible. */
function gatherExcerpts(db: CaseDb): Excerpt[] {
  const rows = contaminationRows(db).slice(0, 200)
  const texts = recordTextLoader(db)
  return rows.map((r) => {
    const text = texts(r.record_id).response_text ?? ''
    const at = Math.max(0, text.indexOf(r.marker))
    const window = text.slice(Math.max(0, at - 80), at + 80 + r.marker.length).split(r.marker).join(truncateMarker(r.marker))
    return {request_id: safeLine(r.request_id), ts: new Date(r.ts_ms).toISOString(), marker_truncated: truncateMarker(r.marker), text: safeLine(window)}
  })
}
