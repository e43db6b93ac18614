import type {AuditEntry} from '../store/audit.js'
import type {DetectionCoverage} from '../detect/coverage.js'
import {knownScanSummary} from '../detect/scan-case.js'
import {computeExposure, exposureRows, type Exposure} from './exposure.js'
import {retryLeaks, type RetryLeak} from './retry-leaks.js'
import {byNullableText, byText, factTimes, hourStart, HOUR_MS, iso, minMax, timeIsFact, type AtRiskGroup, type ContaminationRow, type ScopeInputs} from './scope-data.js'

/** The source of a marker cut short of the markers of several tenants' sessions, in the timeline's sentences. */
const SOURCE_NOT_NAMED = 'source not named (a marker cut short of several sessions\' markers)'

// One chronological story of the incident: when each node and each tenant pair first and
// last leaked, the bug window those imply, every contaminating sighting, and what the
// responders did to the case (the audit log) — the "facts ... and remedial action" an
// Art. 33(5) register entry has to show.

export interface TimelineOptions {
  /** Hours with nothing in them inside the window are filled with zeros up to this many hours. */
  maxHours?: number
}

export type TimelineEventKind =
  | 'bug_window_start'
  | 'bug_window_end'
  | 'node_first_contamination'
  | 'node_last_contamination'
  | 'node_first_at_risk'
  | 'node_last_at_risk'
  | 'pair_first_contamination'
  | 'pair_last_contamination'
  | 'sighting'
  | 'text_leak'
  | 'audit'

export interface TimelineEvent {
  at: string
  kind: TimelineEventKind
  description: string
  decode_node?: string | null
  source_tenant?: string | null
  recipient_tenant?: string
  request_id?: string
  class?: string
  audit_seq?: number
  command?: string
  summary?: unknown
}

export interface TimelineNode {
  decode_node: string | null
  first_contaminated: string | null
  last_contaminated: string | null
  first_at_risk: string | null
  last_at_risk: string | null
}

/** One tenant pair over all the evidence (the exposure): canary sightings and verbatim text. */
export interface TimelinePair {
  source_tenant: string
  recipient_tenant: string
  responses: number
  by_canary: number
  by_text_only: number
  /** null: every time of the pair is no fact (dated after its ingest, or before its marker was issued) */
  first_seen: string | null
  last_seen: string | null
}

export interface TimelineHour {
  hour: string
  /** responses with another session's canary marker (cross_session/cross_tenant sightings) */
  contaminated_responses: number
  sightings: number
  /** responses that carried another session's text verbatim and no such marker (provenance only) */
  text_only_responses: number
  at_risk_responses: number | null
}

export interface TimelineResult {
  bug_window: {start: string; end: string; basis: string} | null
  /** the same exposure as scope --json's `exposure` key */
  exposure: Exposure
  nodes: TimelineNode[]
  pairs: TimelinePair[]
  hours: TimelineHour[]
  events: TimelineEvent[]
  /** whether detection covered everything the case holds (see crosstalk scan) */
  detection: DetectionCoverage
  /**
   * How the at-risk responses are known: counted at a pool size, or unknown for want of one, or
   * because no record gives both its status and its prompt size. "None" is said only when counted.
   */
  at_risk_basis: 'counted' | 'no_pool' | 'no_status_or_prompt_size'
  /**
   * Records whose missing status or prompt size leaves open whether they were at risk (as
   * `scope --json`'s key): with `counted`, the at-risk figures are of the records that could be
   * tested, and "none" is said only when this is 0. null without a pool size.
   */
  at_risk_unknown_records: number | null
  /**
   * Retries logged under the request id of a response already counted whose answer carried
   * another session's marker (scope --json's duplicate_leaks_not_counted), in time order, with
   * the tenants each line records: responses served that no event, pair, node or hour above
   * counts (a request's first line is its record). Empty where there are none.
   */
  retry_leaks_not_counted: RetryLeak[]
  /** lines repeating a request id with a different answer that could not be read again (scope --json's key): whether they leaked is not known */
  duplicate_lines_not_examined: number
}

const KIND_ORDER: TimelineEventKind[] = [
  'bug_window_start',
  'node_first_at_risk',
  'node_first_contamination',
  'pair_first_contamination',
  'sighting',
  'text_leak',
  'pair_last_contamination',
  'node_last_contamination',
  'node_last_at_risk',
  'bug_window_end',
  'audit',
]

export function buildTimeline(inputs: ScopeInputs, audit: readonly AuditEntry[], options: TimelineOptions = {}): TimelineResult {
  const {contamination, provenance} = inputs
  const atRisk: AtRiskGroup[] | null = inputs.atRisk
  const events: TimelineEvent[] = []

  const nodeNames = [...new Set<string | null>([...contamination.map((c) => c.decode_node), ...(atRisk ?? []).map((g) => g.decode_node)])].sort(byNullableText)
  const nodes = nodeNames.map((node): TimelineNode => {
    const c = minMax(factTimes(contamination.filter((r) => r.decode_node === node)))
    const groups = (atRisk ?? []).filter((g) => g.decode_node === node)
    const first = minMax(groups.map((g) => g.first_ms))
    const last = minMax(groups.map((g) => g.last_ms))
    const label = node ?? '(unknown node)'
    if (c) {
      events.push({at: iso(c[0])!, kind: 'node_first_contamination', decode_node: node, description: `first response with another session's marker on ${label}`})
      events.push({at: iso(c[1])!, kind: 'node_last_contamination', decode_node: node, description: `last response with another session's marker on ${label}`})
    }
    if (first && last) {
      events.push({at: iso(first[0])!, kind: 'node_first_at_risk', decode_node: node, description: `first at-risk response (prompt at or over the pool) on ${label}`})
      events.push({at: iso(last[1])!, kind: 'node_last_at_risk', decode_node: node, description: `last at-risk response on ${label}`})
    }
    return {decode_node: node, first_contaminated: iso(c?.[0]), last_contaminated: iso(c?.[1]), first_at_risk: iso(first?.[0]), last_at_risk: iso(last?.[1])}
  })

  // Tenant pairs over all the evidence, so the timeline tells the story the drafts tell.
  const rows = exposureRows(inputs)
  const pairMap = new Map<string, {source_tenant: string; recipient_tenant: string; ids: Set<number>; canary: Set<number>; lo: number; hi: number}>()
  for (const r of rows) {
    // Text whose source provenance does not name (ambiguous, unknown) is no tenant pair.
    if (r.by === 'text' && r.source_tenant === '') continue
    const key = JSON.stringify([r.source_tenant, r.recipient_tenant])
    let p = pairMap.get(key)
    if (!p) pairMap.set(key, (p = {source_tenant: r.source_tenant, recipient_tenant: r.recipient_tenant, ids: new Set(), canary: new Set(), lo: Infinity, hi: -Infinity}))
    p.ids.add(r.record_id)
    if (r.by === 'canary') p.canary.add(r.record_id)
    // A time after the file's ingest or before the marker was issued is no fact: out of the pair's first and last.
    if (timeIsFact(r)) {
      p.lo = Math.min(p.lo, r.ts_ms)
      p.hi = Math.max(p.hi, r.ts_ms)
    }
  }
  const pairs = [...pairMap.values()]
    .sort((a, b) => byText(a.source_tenant, b.source_tenant) || byText(a.recipient_tenant, b.recipient_tenant))
    .map((p): TimelinePair => {
      // A marker cut short of the markers of several tenants' sessions names no source tenant: said so, never an empty name.
      const what = `${p.source_tenant === '' ? SOURCE_NOT_NAMED : p.source_tenant} → ${p.recipient_tenant}`
      const timed = Number.isFinite(p.lo)
      if (timed) events.push({at: iso(p.lo)!, kind: 'pair_first_contamination', source_tenant: p.source_tenant, recipient_tenant: p.recipient_tenant, description: `first leak ${what}`})
      if (timed) events.push({at: iso(p.hi)!, kind: 'pair_last_contamination', source_tenant: p.source_tenant, recipient_tenant: p.recipient_tenant, description: `last leak ${what}`})
      const textOnly = [...p.ids].filter((id) => !p.canary.has(id)).length
      return {source_tenant: p.source_tenant, recipient_tenant: p.recipient_tenant, responses: p.ids.size, by_canary: p.canary.size, by_text_only: textOnly, first_seen: timed ? iso(p.lo)! : null, last_seen: timed ? iso(p.hi)! : null}
    })

  // Responses that carried another session's text with no marker: the canary-less part of the exposure.
  const marked = new Set(contamination.map((c) => c.record_id))
  const textOnly = new Map<number, (typeof provenance)[number]>()
  for (const p of provenance) if (!marked.has(p.record_id) && !textOnly.has(p.record_id)) textOnly.set(p.record_id, p)
  for (const p of textOnly.values())
    events.push({
      at: iso(p.ts_ms)!,
      kind: 'text_leak',
      request_id: p.request_id,
      decode_node: p.decode_node,
      source_tenant: p.source_tenant,
      recipient_tenant: p.recipient_tenant,
      description: `verbatim text of another session (${p.overlap_words} words, no marker) in ${p.request_id}: ${p.source_tenant === null ? (p.source_tenants > 1 ? `source ambiguous (${p.source_tenants} tenants)` : 'source unknown') : p.source_tenant} → ${p.recipient_tenant}${timeNotFact(p)}`,
    })

  for (const c of contamination)
    events.push({
      at: iso(c.ts_ms)!,
      kind: 'sighting',
      class: c.class,
      request_id: c.request_id,
      decode_node: c.decode_node,
      source_tenant: c.source_tenant,
      recipient_tenant: c.recipient_tenant,
      description: `${c.class} sighting in ${c.request_id}: ${c.source_tenant ?? SOURCE_NOT_NAMED} → ${c.recipient_tenant}${timeNotFact(c)}`,
    })

  const points = [...factTimes(contamination), ...factTimes(provenance), ...(atRisk ?? []).flatMap((g) => [g.first_ms, g.last_ms])]
  const range = minMax(points)
  const basis = [contamination.length ? 'contaminating sightings' : null, provenance.length ? 'provenance' : null, atRisk?.length ? 'at-risk responses' : null].filter(Boolean).join(', ')
  const bugWindow = range ? {start: iso(range[0])!, end: iso(range[1])!, basis: `first to last of: ${basis}`} : null
  if (bugWindow) {
    events.push({at: bugWindow.start, kind: 'bug_window_start', description: `bug window opens (${bugWindow.basis})`})
    events.push({at: bugWindow.end, kind: 'bug_window_end', description: `bug window closes (${bugWindow.basis})`})
  }

  for (const entry of audit) {
    let summary: unknown = entry.summary
    try {
      summary = JSON.parse(entry.summary)
    } catch {
      // kept as text
    }
    // A scan with no canary registry attributed no marker: its classes and contamination counts are not known (null), though entries recorded before this release hold 0.
    events.push({at: entry.at, kind: 'audit', audit_seq: entry.seq, command: entry.command, summary: knownScanSummary(summary), description: `crosstalk ${entry.command}`})
  }

  events.sort((a, b) => byText(a.at, b.at) || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.audit_seq ?? 0) - (b.audit_seq ?? 0))
  const atRiskBasis = atRisk !== null ? 'counted' : inputs.pool === null ? 'no_pool' : 'no_status_or_prompt_size'
  return {bug_window: bugWindow, exposure: computeExposure(rows), nodes, pairs, hours: hours(contamination, [...textOnly.values()], atRisk, options.maxHours ?? 24 * 31), events, detection: inputs.detection, at_risk_basis: atRiskBasis, at_risk_unknown_records: inputs.pool === null || inputs.narrowed ? null : inputs.atRiskUndecided, retry_leaks_not_counted: retryLeaks(inputs.duplicates?.leaking), duplicate_lines_not_examined: inputs.duplicates?.unexamined ?? 0}
}

/** Said of an event whose logged time is no fact (scope-data.ts timeIsFact): it stands in the list as logged, never as when it happened. */
function timeNotFact(r: {after_ingest?: number; before_issued?: number}): string {
  if (r.after_ingest) return ' (logged time after its log file was ingested: not when it was served)'
  if (r.before_issued) return " (logged time before its marker was issued: the log's clock, zone or unit, or the registry, is wrong)"
  return ''
}

function hours(contamination: readonly ContaminationRow[], textOnly: ReadonlyArray<{ts_ms: number; after_ingest?: number}>, atRisk: AtRiskGroup[] | null, maxHours: number): TimelineHour[] {
  const map = new Map<number, {ids: Set<number>; sightings: number; text: number; risk: number}>()
  const at = (h: number) => {
    let row = map.get(h)
    if (!row) map.set(h, (row = {ids: new Set(), sightings: 0, text: 0, risk: 0}))
    return row
  }
  for (const c of contamination) {
    if (!timeIsFact(c)) continue
    const row = at(hourStart(c.ts_ms))
    row.ids.add(c.record_id)
    row.sightings++
  }
  // One entry per response (textOnly holds each record once).
  for (const p of textOnly) if (timeIsFact(p)) at(hourStart(p.ts_ms)).text++
  for (const g of atRisk ?? []) at(g.hour).risk += g.n
  const keys = [...map.keys()].sort((a, b) => a - b)
  const first = keys[0]
  const last = keys.at(-1)
  // Fill the quiet hours in between so the histogram's x axis is time, not just busy hours.
  if (first !== undefined && last !== undefined && (last - first) / HOUR_MS < maxHours) for (let h = first; h <= last; h += HOUR_MS) at(h)
  return [...map.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([h, row]) => ({hour: iso(h)!, contaminated_responses: row.ids.size, sightings: row.sightings, text_only_responses: row.text, at_risk_responses: atRisk === null ? null : row.risk}))
}
