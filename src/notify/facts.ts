import {safeLine} from '../cli/sanitize.js'
import {recordTextLoader} from '../ingest/record-texts.js'
import type {CaseDb} from '../store/open-case.js'
import {tableExists} from '../store/open-case.js'
import {computeClock, type ClockResult} from './clock.js'
import {getIncident, listAmendments, type AwarenessAmendment, type IncidentRecord} from './incident.js'
import {firstInitialNotification, listNotifications, type NotificationRecord} from './notifications.js'
import {latestAssessment, type AssessmentRecord} from './assessment-store.js'
import {CATEGORY_LABELS} from './phrases.js'
import {computeScope, type ScopeFlow, type ScopeResult} from '../scope/compute-scope.js'
import {computeTenantView, type TenantCounterpart, type TenantDirection, type TenantViewResult} from '../scope/tenant-view.js'
import {listReplayResults, type StoredReplayResult} from '../replay/replay-store.js'
import {wilsonInterval} from '../replay/wilson.js'

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
  /** null when detection has not run yet (no sightings table) */
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
  /** defaults to the pool size the last `scan --pool-tokens` stored in the case */
  poolTokens?: number
}

const CONTAMINATING = `('cross_session', 'cross_tenant')`
const COMPLETE = `r.file_id IN (SELECT id FROM files WHERE state = 'complete')`

export const PII_LABELS: Record<string, string> = CATEGORY_LABELS.en

/** `CANARY-3f2a…`: enough to recognise a marker, never enough to reproduce it. */
export function truncateMarker(marker: string): string {
  const m = /^(CANARY-)([0-9a-fA-F]{4})/.exec(marker)
  const head = m ? `${m[1]}${m[2]}` : marker.slice(0, 4)
  return `${safeLine(head)}…`
}

export function gatherFacts(db: CaseDb, options: GatherFactsOptions): CaseFacts {
  const incident = getIncident(db)
  const notifications = listNotifications(db).map((n) => ({...n, recipient: safeLine(n.recipient), reference: safeLine(n.reference)}))
  let clock: ClockResult | null = null
  if (incident) {
    const first = firstInitialNotification(notifications, incident.role)
    clock = computeClock(new Date(incident.aware_at), options.now, first ? new Date(first.at) : null)
  }
  const count = (sql: string): number => (db.prepare(sql).get() as {n: number}).n
  const totals = {
    records: count(`SELECT COUNT(*) AS n FROM records r WHERE ${COMPLETE}`),
    tenants: count(`SELECT COUNT(DISTINCT tenant_id) AS n FROM records r WHERE ${COMPLETE}`),
    sessions: count(`SELECT COUNT(DISTINCT session_id) AS n FROM records r WHERE ${COMPLETE}`),
    files: count(`SELECT COUNT(*) AS n FROM files WHERE state = 'complete'`),
    bad_lines: count('SELECT COUNT(*) AS n FROM bad_lines'),
  }
  const evidence = (
    db.prepare(`SELECT path, sha256, size, kind, records FROM files WHERE state = 'complete' ORDER BY id`).all() as EvidenceFile[]
  ).map((f) => ({...f, path: safeLine(f.path)}))
  const hasSightings = tableExists(db, 'sightings')
  const hasPii = tableExists(db, 'pii_findings')
  const poolTokens = options.poolTokens ?? storedPoolTokens(db)
  const full = hasSightings ? computeScope(db, {poolTokens}) : null
  const scope = full ? scopeFacts(full) : null
  const tenants = full ? tenantExposures(db, full, hasPii, poolTokens) : []
  let provenance: CaseFacts['provenance'] = null
  if (tableExists(db, 'provenance')) {
    const row = db.prepare('SELECT COUNT(DISTINCT record_id) AS n, COALESCE(MAX(overlap_words), 0) AS w FROM provenance').get() as {n: number; w: number}
    provenance = {attributed_responses: row.n, max_overlap_words: row.w}
  }
  return {
    generated_at: options.now.toISOString(),
    incident: incident ? sanitizeRecord(incident) : null,
    amendments: listAmendments(db).map((a) => sanitizeRecord(a)),
    clock,
    notifications,
    assessment: latestAssessment(db),
    totals,
    scope,
    tenants,
    provenance,
    replay: replayFacts(listReplayResults(db)),
    evidence,
    excerpts: options.includeExcerpts && hasSightings ? gatherExcerpts(db) : null,
  }
}

function sanitizeRecord<T extends object>(record: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(record)) out[k] = typeof v === 'string' ? safeLine(v) : v
  return out as T
}

/** The pool size `crosstalk scan --pool-tokens N` persisted, so reports agree with the scan. */
function storedPoolTokens(db: CaseDb): number | undefined {
  if (!tableExists(db, 'scan_state')) return undefined
  const row = db.prepare(`SELECT value FROM scan_state WHERE key = 'pool_tokens'`).get() as {value: string} | undefined
  const n = row ? Number(row.value) : NaN
  return Number.isInteger(n) && n > 0 ? n : undefined
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

const EMPTY_DIRECTION: TenantDirection = {
  responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, own_sessions: 0, other_sessions: 0, other_tenants: 0,
  first_seen: null, last_seen: null, provenance_responses: 0, provenance_only_responses: 0, provenance_other_tenants: 0, counterparts: [],
}

/**
 * Every tenant on either side of a flow (sightings or provenance). Counts come from the scope
 * module's tenant view (other tenants as opaque labels); the lists a processor may give a
 * customer about itself (its own session ids, truncated markers, PII kinds) are read here.
 */
function tenantExposures(db: CaseDb, scope: ScopeResult, hasPii: boolean, poolTokens: number | undefined): TenantExposure[] {
  const base = `FROM sightings s JOIN records r ON r.id = s.record_id WHERE s.class IN ${CONTAMINATING} AND ${COMPLETE}`
  const tenants = [...new Set([...scope.flows, ...scope.provenance_flows].flatMap((f) => [f.source_tenant, f.recipient_tenant]))]
    .filter((t) => t !== '')
    .sort()
  const piiFor = (sql: string, tenant: string): Category[] =>
    hasPii
      ? (db.prepare(sql).all(tenant) as Array<{kind: string; count: number; responses: number}>).map((r) => ({
          kind: safeLine(r.kind),
          label: CATEGORY_LABELS.en[r.kind] ?? safeLine(r.kind),
          count: r.count,
          responses: r.responses,
        }))
      : []
  const others = (cs: TenantCounterpart[]): Counterpart[] =>
    cs
      .filter((c) => !c.same_tenant)
      .map((c) => ({label: safeLine(c.tenant), responses: c.responses, provenance_responses: c.provenance_responses, sessions: c.sessions, first_seen: c.first_seen, last_seen: c.last_seen}))
  return tenants.map((t) => {
    let view: TenantViewResult
    try {
      view = computeTenantView(db, {tenant: t, poolTokens})
    } catch {
      // a source tenant known only from the canary registry has no records of its own
      view = {tenant: t, tenants_revealed: false, received: EMPTY_DIRECTION, leaked: EMPTY_DIRECTION, at_risk_responses: null}
    }
    // recipients of its markers, split by whether they are its own users (sightings only, like the other counts)
    const recipients = db
      .prepare(
        `SELECT COUNT(DISTINCT CASE WHEN r.tenant_id = s.source_tenant THEN r.session_id END) AS same,
                COUNT(DISTINCT CASE WHEN r.tenant_id <> s.source_tenant THEN r.tenant_id || char(0) || r.session_id END) AS other
         ${base} AND s.source_tenant = ?`,
      )
      .get(t) as {same: number; other: number}
    const leakedSessions = db.prepare(`SELECT DISTINCT s.source_session ${base} AND s.source_tenant = ? AND s.source_session IS NOT NULL ORDER BY 1`).pluck().all(t) as string[]
    const markers = db.prepare(`SELECT DISTINCT s.marker ${base} AND s.source_tenant = ? ORDER BY 1`).pluck().all(t) as string[]
    const receivingSessions = db.prepare(`SELECT DISTINCT r.session_id ${base} AND s.class = 'cross_tenant' AND r.tenant_id = ? ORDER BY 1`).pluck().all(t) as string[]
    return {
      tenant_id: safeLine(t),
      leaked_sessions: leakedSessions.map(safeLine),
      responses_carrying_its_data: view.leaked.responses,
      recipient_sessions_same_tenant: recipients.same,
      recipient_sessions_other_tenants: recipients.other,
      recipient_tenants_other: view.leaked.other_tenants,
      first_leaked: view.leaked.first_seen,
      last_leaked: view.leaked.last_seen,
      provenance_only_leaked: view.leaked.provenance_only_responses,
      markers_truncated: [...new Set(markers.map(truncateMarker))],
      pii_in_leaked: piiFor(
        `SELECT kind, COUNT(DISTINCT value_sha256) AS count, COUNT(DISTINCT record_id) AS responses FROM pii_findings WHERE source_tenant = ? GROUP BY 1 ORDER BY 1`,
        t,
      ),
      received_foreign_responses: view.received.cross_tenant_responses,
      receiving_sessions: receivingSessions.map(safeLine),
      received_from_tenants: view.received.other_tenants,
      pii_in_received: piiFor(
        `SELECT p.kind, COUNT(DISTINCT p.value_sha256) AS count, COUNT(DISTINCT p.record_id) AS responses FROM pii_findings p JOIN records r ON r.id = p.record_id
         WHERE r.tenant_id = ? AND p.source_tenant IS NOT NULL AND p.source_tenant <> r.tenant_id GROUP BY 1 ORDER BY 1`,
        t,
      ),
      counterparts_leaked_to: others(view.leaked.counterparts),
      counterparts_received_from: others(view.received.counterparts),
      at_risk_responses: view.at_risk_responses,
    }
  })
}

/** Only with --include-excerpts: short windows around each marker, controls made visible. */
function gatherExcerpts(db: CaseDb): Excerpt[] {
  const rows = db
    .prepare(
      `SELECT r.id, r.request_id, r.ts_ms, s.marker FROM sightings s JOIN records r ON r.id = s.record_id
       WHERE s.class IN ${CONTAMINATING} AND ${COMPLETE} ORDER BY r.ts_ms, s.id LIMIT 200`,
    )
    .all() as Array<{id: number; request_id: string; ts_ms: number; marker: string}>
  const texts = recordTextLoader(db)
  return rows.map((r) => {
    const text = texts(r.id).response_text ?? ''
    const at = Math.max(0, text.indexOf(r.marker))
    const window = text.slice(Math.max(0, at - 80), at + 80 + r.marker.length).split(r.marker).join(truncateMarker(r.marker))
    return {request_id: safeLine(r.request_id), ts: new Date(r.ts_ms).toISOString(), marker_truncated: truncateMarker(r.marker), text: safeLine(window)}
  })
}
