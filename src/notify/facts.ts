import {safeLine} from '../cli/sanitize.js'
import type {CaseDb} from '../store/open-case.js'
import {tableExists} from '../store/open-case.js'
import {computeClock, type ClockResult} from './clock.js'
import {getIncident, listAmendments, type AwarenessAmendment, type IncidentRecord} from './incident.js'
import {firstInitialNotification, listNotifications, type NotificationRecord} from './notifications.js'
import {latestAssessment, type AssessmentRecord} from './assessment-store.js'

// Everything a report needs, read once from the case. Reports are built from this plain
// object only, so they can be tested with a hand-built fixture and never reach back into
// the database. Every string that came from a log passes through safeLine here, so no
// report format can receive a raw terminal escape; leaked content itself is never read
// unless the user asked for excerpts.

export interface Flow {
  source_tenant: string
  recipient_tenant: string
  responses: number
}

export interface Range {
  low: number
  high: number
  method: string
}

export interface Category {
  /** e.g. 'email', 'iban', or 'free_text' */
  kind: string
  label: string
  /** distinct values (by hash) found in leaked content */
  count: number
}

export interface ScopeFacts {
  contaminated_responses: number
  cross_tenant_responses: number
  cross_session_responses: number
  exposed_sessions: number
  exposed_tenants: number
  recipient_tenants: number
  first_seen: string | null
  last_seen: string | null
  at_risk_responses: number | null
  flows: Flow[]
  by_hour: Array<{hour: string; responses: number}>
  by_node: Array<{node: string; phase: 'prefill' | 'decode'; responses: number}>
  data_subjects: Range
  records: Range
  categories: Category[]
  /** how the numbers were computed (shown with every range) */
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
  replay: {results: number} | null
  evidence: EvidenceFile[]
  excerpts: Excerpt[] | null
}

export interface GatherFactsOptions {
  now: Date
  includeExcerpts?: boolean
  poolTokens?: number
}

const CONTAMINATING = `('cross_session', 'cross_tenant')`
const COMPLETE = `r.file_id IN (SELECT id FROM files WHERE state = 'complete')`

export const PII_LABELS: Record<string, string> = {
  email: 'contact details (e-mail addresses)',
  phone: 'contact details (phone numbers)',
  iban: 'financial data (IBANs / bank accounts)',
  card: 'financial data (payment card numbers)',
  ipv4: 'online identifiers (IP addresses)',
  ipv6: 'online identifiers (IP addresses)',
  free_text: 'free text of prompts and completions (content not classified: may include any category, incl. Art. 9 data)',
}

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
  const scope = hasSightings ? scopeFromSightings(db, hasPii, options.poolTokens) : null
  const tenants = hasSightings ? tenantExposures(db, hasPii) : []
  let provenance: CaseFacts['provenance'] = null
  if (tableExists(db, 'provenance')) {
    const row = db.prepare('SELECT COUNT(DISTINCT record_id) AS n, COALESCE(MAX(overlap_words), 0) AS w FROM provenance').get() as {n: number; w: number}
    provenance = {attributed_responses: row.n, max_overlap_words: row.w}
  }
  const replay = tableExists(db, 'replay_results') ? {results: count('SELECT COUNT(*) AS n FROM replay_results')} : null
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
    replay,
    evidence,
    excerpts: options.includeExcerpts && hasSightings ? gatherExcerpts(db) : null,
  }
}

function sanitizeRecord<T extends object>(record: T): T {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(record)) out[k] = typeof v === 'string' ? safeLine(v) : v
  return out as T
}

/**
 * Contract scope numbers from the sightings table. Stand-in until the scope module's
 * computeScope lands on main: swap this call for it (same keys).
 */
export function scopeFromSightings(db: CaseDb, hasPii: boolean, poolTokens?: number): ScopeFacts {
  const base = `FROM sightings s JOIN records r ON r.id = s.record_id WHERE s.class IN ${CONTAMINATING} AND ${COMPLETE}`
  const n = (sql: string): number => (db.prepare(sql).get() as {n: number}).n
  const contaminated = n(`SELECT COUNT(DISTINCT s.record_id) AS n ${base}`)
  const window = db.prepare(`SELECT MIN(r.ts_ms) AS a, MAX(r.ts_ms) AS b ${base}`).get() as {a: number | null; b: number | null}
  const flows = (
    db
      .prepare(
        `SELECT s.source_tenant AS source_tenant, r.tenant_id AS recipient_tenant, COUNT(DISTINCT s.record_id) AS responses ${base}
         AND s.source_tenant IS NOT NULL GROUP BY 1, 2 ORDER BY responses DESC, 1, 2`,
      )
      .all() as Flow[]
  ).map((f) => ({...f, source_tenant: safeLine(f.source_tenant), recipient_tenant: safeLine(f.recipient_tenant)}))
  const by_hour = db
    .prepare(`SELECT strftime('%Y-%m-%dT%H:00:00.000Z', r.ts_ms / 1000, 'unixepoch') AS hour, COUNT(DISTINCT s.record_id) AS responses ${base} GROUP BY 1 ORDER BY 1`)
    .all() as Array<{hour: string; responses: number}>
  const by_node = (
    db
      .prepare(
        `SELECT node, phase, COUNT(DISTINCT id) AS responses FROM (
           SELECT r.prefill_node AS node, 'prefill' AS phase, s.record_id AS id ${base} AND r.prefill_node IS NOT NULL
           UNION ALL SELECT r.decode_node, 'decode', s.record_id ${base} AND r.decode_node IS NOT NULL)
         GROUP BY 1, 2 ORDER BY responses DESC, 1`,
      )
      .all() as ScopeFacts['by_node']
  ).map((r) => ({...r, node: safeLine(r.node)}))
  const exposedSessions = n(`SELECT COUNT(DISTINCT s.source_session) AS n ${base}`)
  const categories: Category[] = []
  let distinctPii = 0
  if (hasPii) {
    const rows = db
      .prepare(
        `SELECT p.kind AS kind, COUNT(DISTINCT p.value_sha256) AS count FROM pii_findings p
         WHERE p.source_tenant IS NOT NULL OR p.record_id IN (SELECT s.record_id ${base}) GROUP BY 1 ORDER BY 1`,
      )
      .all() as Array<{kind: string; count: number}>
    for (const r of rows) {
      categories.push({kind: safeLine(r.kind), label: PII_LABELS[r.kind] ?? safeLine(r.kind), count: r.count})
      if (r.kind === 'email' || r.kind === 'phone' || r.kind === 'iban' || r.kind === 'card') distinctPii += r.count
    }
  }
  categories.push({kind: 'free_text', label: PII_LABELS.free_text!, count: contaminated})
  const atRisk =
    poolTokens === undefined
      ? null
      : (db.prepare(`SELECT COUNT(*) AS n FROM records r WHERE r.status = 200 AND r.prompt_tokens >= ? AND ${COMPLETE}`).get(poolTokens) as {n: number}).n
  return {
    contaminated_responses: contaminated,
    cross_tenant_responses: n(`SELECT COUNT(DISTINCT s.record_id) AS n ${base} AND s.class = 'cross_tenant'`),
    cross_session_responses: n(`SELECT COUNT(DISTINCT s.record_id) AS n ${base} AND s.class = 'cross_session'`),
    exposed_sessions: exposedSessions,
    exposed_tenants: n(`SELECT COUNT(DISTINCT s.source_tenant) AS n ${base}`),
    recipient_tenants: n(`SELECT COUNT(DISTINCT r.tenant_id) AS n ${base}`),
    first_seen: window.a === null ? null : new Date(window.a).toISOString(),
    last_seen: window.b === null ? null : new Date(window.b).toISOString(),
    at_risk_responses: atRisk,
    flows,
    by_hour,
    by_node,
    data_subjects: {
      low: exposedSessions,
      high: exposedSessions + distinctPii,
      method:
        'low: one end user per exposed session (a session whose canary reached another session); high: adds every distinct e-mail address, phone number, IBAN or card number (counted by hash) found in leaked content, as possibly separate people named in the text',
    },
    records: {
      low: contaminated,
      high: contaminated,
      method: 'one record = one model response delivered to the wrong session holding another session\'s data (responses with a cross-session or cross-tenant canary sighting); responses leaking data without a canary are not counted',
    },
    categories,
    method: 'canary sightings: responses holding a marker registered to another session (cross_session) or another tenant (cross_tenant), in completely loaded log files',
  }
}

function tenantExposures(db: CaseDb, hasPii: boolean): TenantExposure[] {
  const base = `FROM sightings s JOIN records r ON r.id = s.record_id WHERE s.class IN ${CONTAMINATING} AND ${COMPLETE}`
  const tenants = db
    .prepare(`SELECT t FROM (SELECT s.source_tenant AS t ${base} AND s.source_tenant IS NOT NULL UNION SELECT r.tenant_id ${base} AND s.class = 'cross_tenant') ORDER BY t`)
    .pluck()
    .all() as string[]
  const piiFor = (sql: string, tenant: string): Category[] =>
    hasPii
      ? (db.prepare(sql).all(tenant) as Array<{kind: string; count: number}>).map((r) => ({kind: safeLine(r.kind), label: PII_LABELS[r.kind] ?? safeLine(r.kind), count: r.count}))
      : []
  return tenants.map((t) => {
    const out = db
      .prepare(
        `SELECT COUNT(DISTINCT s.record_id) AS responses,
                COUNT(DISTINCT CASE WHEN r.tenant_id = s.source_tenant THEN r.session_id END) AS same,
                COUNT(DISTINCT CASE WHEN r.tenant_id <> s.source_tenant THEN r.tenant_id || char(0) || r.session_id END) AS other_sessions,
                COUNT(DISTINCT CASE WHEN r.tenant_id <> s.source_tenant THEN r.tenant_id END) AS other_tenants,
                MIN(r.ts_ms) AS a, MAX(r.ts_ms) AS b ${base} AND s.source_tenant = ?`,
      )
      .get(t) as {responses: number; same: number; other_sessions: number; other_tenants: number; a: number | null; b: number | null}
    const leakedSessions = db.prepare(`SELECT DISTINCT s.source_session ${base} AND s.source_tenant = ? AND s.source_session IS NOT NULL ORDER BY 1`).pluck().all(t) as string[]
    const markers = db.prepare(`SELECT DISTINCT s.marker ${base} AND s.source_tenant = ? ORDER BY 1`).pluck().all(t) as string[]
    const received = db
      .prepare(
        `SELECT COUNT(DISTINCT s.record_id) AS responses, COUNT(DISTINCT s.source_tenant) AS from_tenants
         ${base} AND s.class = 'cross_tenant' AND r.tenant_id = ?`,
      )
      .get(t) as {responses: number; from_tenants: number}
    const receivingSessions = db.prepare(`SELECT DISTINCT r.session_id ${base} AND s.class = 'cross_tenant' AND r.tenant_id = ? ORDER BY 1`).pluck().all(t) as string[]
    return {
      tenant_id: safeLine(t),
      leaked_sessions: leakedSessions.map(safeLine),
      responses_carrying_its_data: out.responses,
      recipient_sessions_same_tenant: out.same,
      recipient_sessions_other_tenants: out.other_sessions,
      recipient_tenants_other: out.other_tenants,
      first_leaked: out.a === null ? null : new Date(out.a).toISOString(),
      last_leaked: out.b === null ? null : new Date(out.b).toISOString(),
      markers_truncated: [...new Set(markers.map(truncateMarker))],
      pii_in_leaked: piiFor(`SELECT kind, COUNT(DISTINCT value_sha256) AS count FROM pii_findings WHERE source_tenant = ? GROUP BY 1 ORDER BY 1`, t),
      received_foreign_responses: received.responses,
      receiving_sessions: receivingSessions.map(safeLine),
      received_from_tenants: received.from_tenants,
      pii_in_received: piiFor(
        `SELECT p.kind, COUNT(DISTINCT p.value_sha256) AS count FROM pii_findings p JOIN records r ON r.id = p.record_id
         WHERE r.tenant_id = ? AND p.source_tenant IS NOT NULL AND p.source_tenant <> r.tenant_id GROUP BY 1 ORDER BY 1`,
        t,
      ),
    }
  })
}

/** Only with --include-excerpts: short windows around each marker, controls made visible. */
function gatherExcerpts(db: CaseDb): Excerpt[] {
  const rows = db
    .prepare(
      `SELECT r.request_id, r.ts, s.marker, r.response_text FROM sightings s JOIN records r ON r.id = s.record_id
       WHERE s.class IN ${CONTAMINATING} AND ${COMPLETE} ORDER BY r.ts_ms, s.id LIMIT 200`,
    )
    .all() as Array<{request_id: string; ts: string; marker: string; response_text: string | null}>
  return rows.map((r) => {
    const text = r.response_text ?? ''
    const at = Math.max(0, text.indexOf(r.marker))
    const window = text.slice(Math.max(0, at - 80), at + 80 + r.marker.length).split(r.marker).join(truncateMarker(r.marker))
    return {request_id: safeLine(r.request_id), ts: r.ts, marker_truncated: truncateMarker(r.marker), text: safeLine(window)}
  })
}
