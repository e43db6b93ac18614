import type {CaseDb} from '../store/open-case.js'
import {tableExists} from '../store/open-case.js'
import {computeClock, type ClockResult} from '../notify/clock.js'
import {getIncident} from '../notify/incident.js'
import {firstInitialNotification, listNotifications} from '../notify/notifications.js'

/** `crosstalk status --json`: contract keys first, then what else the case holds. */
export interface StatusResult {
  files: number
  records: number
  bad_lines: number
  canaries: number
  sightings: number
  duplicates: number
  blank_lines: number
  incomplete_files: number
  first_record: string | null
  last_record: string | null
  tenants: number
  sessions: number
  sightings_by_class: Record<string, number>
  schema_version: number
  audit_entries: number
  /** the incident once `crosstalk incident open` ran (title and role as entered, sanitised on display) */
  incident: {title: string; role: 'controller' | 'processor'; aware_at: string} | null
  /** the 72-hour clock of that incident at `now` (as `crosstalk clock --json`) */
  clock: ClockResult | null
}

export function caseStatus(db: CaseDb, now: Date = new Date()): StatusResult {
  const f = db
    .prepare(
      `SELECT count(*) AS files, coalesce(sum(bad_lines), 0) AS bad_lines, coalesce(sum(duplicates), 0) AS duplicates,
              coalesce(sum(blank_lines), 0) AS blank_lines, coalesce(sum(state <> 'complete'), 0) AS incomplete
       FROM files WHERE kind = 'log'`,
    )
    .get() as {files: number; bad_lines: number; duplicates: number; blank_lines: number; incomplete: number}
  const r = db
    .prepare(
      `SELECT count(*) AS records, min(ts_ms) AS first_ms, max(ts_ms) AS last_ms,
              count(DISTINCT tenant_id) AS tenants, count(DISTINCT session_id) AS sessions FROM records`,
    )
    .get() as {records: number; first_ms: number | null; last_ms: number | null; tenants: number; sessions: number}
  const byClass: Record<string, number> = {}
  let sightings = 0
  if (tableExists(db, 'sightings')) {
    for (const row of db.prepare('SELECT class, count(*) AS n FROM sightings GROUP BY class ORDER BY class').all() as {class: string; n: number}[]) {
      byClass[row.class] = row.n
      sightings += row.n
    }
  }
  return {
    files: f.files,
    records: r.records,
    bad_lines: f.bad_lines,
    canaries: (db.prepare('SELECT count(*) FROM canaries').pluck().get() as number) ?? 0,
    sightings,
    duplicates: f.duplicates,
    blank_lines: f.blank_lines,
    incomplete_files: f.incomplete,
    first_record: r.first_ms === null ? null : new Date(r.first_ms).toISOString(),
    last_record: r.last_ms === null ? null : new Date(r.last_ms).toISOString(),
    tenants: r.tenants,
    sessions: r.sessions,
    sightings_by_class: byClass,
    schema_version: db.pragma('user_version', {simple: true}) as number,
    audit_entries: db.prepare('SELECT count(*) FROM audit_log').pluck().get() as number,
    ...incidentStatus(db, now),
  }
}

function incidentStatus(db: CaseDb, now: Date): Pick<StatusResult, 'incident' | 'clock'> {
  const incident = getIncident(db)
  if (!incident) return {incident: null, clock: null}
  const first = firstInitialNotification(listNotifications(db), incident.role)
  return {
    incident: {title: incident.title, role: incident.role, aware_at: incident.aware_at},
    clock: computeClock(new Date(incident.aware_at), now, first ? new Date(first.at) : null),
  }
}

export interface BadLineRow {
  file: string
  line: number
  byte_offset: number
  byte_len: number
  reason: string
}

export function listBadLines(db: CaseDb, limit = 1000): BadLineRow[] {
  return db
    .prepare(
      `SELECT f.path AS file, b.line_no AS line, b.byte_offset, b.byte_len, b.reason
       FROM bad_lines b JOIN files f ON f.id = b.file_id ORDER BY f.id, b.line_no LIMIT ?`,
    )
    .all(limit) as BadLineRow[]
}
