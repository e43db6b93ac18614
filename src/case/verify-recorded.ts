import type {AuditEntry} from '../store/audit.js'
import {getIncidentRow, listAmendmentRows} from '../store/incident.js'
import {listNotificationRows, notificationTimesMs} from '../store/notifications.js'
import type {CaseDb} from '../store/open-case.js'
import {INCIDENT_CHOICE_FIELDS, INCIDENT_INTEGER_FIELDS, INCIDENT_TEXT_FIELDS, INCIDENT_TIME_FIELDS} from '../notify/incident.js'
import {parseInstant} from '../notify/time.js'
import {Problems, shown} from './verify-problems.js'

// The incident's facts, its amendments and the notifications are replayed from the audit
// entries of the commands that wrote them: each entry keeps the flags the command was given,
// and the command stores them as given (text trimmed, times as UTC ISO), at the entry's time.
// Every field those entries set must hold what they set, and every field none set must be
// empty: a fact edited, filled in or removed with sqlite is named here, with the entry that
// recorded its true value.

type Flags = Record<string, unknown>

/** The flags an audit entry recorded its command with ({} where none could be read). */
export function flagsOf(entry: AuditEntry): Flags {
  try {
    const args = JSON.parse(entry.args) as {flags?: unknown} | null
    return args !== null && typeof args.flags === 'object' && args.flags !== null ? (args.flags as Flags) : {}
  } catch {
    return {}
  }
}

/** An audit entry's summary as an object ({} where none could be read). */
export function summaryOf(entry: AuditEntry): Record<string, unknown> {
  try {
    const v = JSON.parse(entry.summary) as unknown
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

const kebab = (s: string): string => s.replace(/_/g, '-')

/** An instant as the command stored it (null: not one it could have stored). */
function instant(value: unknown): Date | null {
  if (typeof value !== 'string') return null
  try {
    return parseInstant(value, 'audited time', 'data')
  } catch {
    return null
  }
}

function trimmed(value: unknown): string | null {
  return typeof value === 'string' ? value.trim() : null
}

/** The incident's columns as `incident open` / `incident set` store them from their flags. */
function incidentColumns(flags: Flags): Map<string, string | number> {
  const out = new Map<string, string | number>()
  const title = trimmed(flags.title)
  if (title !== null) out.set('title', title)
  for (const f of INCIDENT_TEXT_FIELDS) {
    const v = trimmed(flags[kebab(f)])
    if (v !== null) out.set(f, v)
  }
  for (const f of Object.keys(INCIDENT_CHOICE_FIELDS)) {
    const v = flags[kebab(f)]
    if (typeof v === 'string') out.set(f, v)
  }
  for (const f of INCIDENT_INTEGER_FIELDS) {
    const v = flags[kebab(f)]
    if (typeof v === 'number') out.set(f, v)
  }
  for (const f of INCIDENT_TIME_FIELDS) {
    const v = instant(flags[kebab(f)])
    if (v) out.set(f, v.toISOString())
  }
  return out
}

export function checkRecordedIncident(db: CaseDb, entries: readonly AuditEntry[], problems: Problems): void {
  const incident = getIncidentRow(db) as unknown as Record<string, unknown> | null
  if (!incident) return
  const opened = entries.find((e) => e.command === 'incident:open')
  // Without the opening's entry (already reported) the fields it set are unknown.
  if (!opened) return
  const expected = new Map<string, {value: string | number; seq: number}>()
  for (const e of entries) {
    if (e.command !== 'incident:open' && e.command !== 'incident:set') continue
    for (const [column, value] of incidentColumns(flagsOf(e))) expected.set(column, {value, seq: e.seq})
  }
  const columns = ['title', ...INCIDENT_TEXT_FIELDS, ...Object.keys(INCIDENT_CHOICE_FIELDS), ...INCIDENT_INTEGER_FIELDS, ...INCIDENT_TIME_FIELDS]
  for (const column of columns) {
    const want = expected.get(column)
    const now = incident[column] ?? null
    if ((want?.value ?? null) === now) continue
    problems.add(
      'recorded', `incident ${column}`,
      want ? `is ${shown(now)}, but audit entry ${want.seq} recorded ${shown(want.value)}` : `is ${shown(now)}, but no audit entry sets it`,
      'incident',
    )
  }
  if (incident.created_at !== opened.at) problems.add('recorded', 'incident created_at', `is ${shown(incident.created_at)}, but the incident was opened at ${opened.at} (audit entry ${opened.seq})`, 'incident')
  checkAmendmentDetails(db, entries, problems)
}

/** Each amendment's reason, author and time, against the entry of the command that made it. */
function checkAmendmentDetails(db: CaseDb, entries: readonly AuditEntry[], problems: Problems): void {
  const expected: Record<'aware_at' | 'role', Array<{reason: string | null; amended_by: string | null; at: string; seq: number}>> = {aware_at: [], role: []}
  for (const e of entries) {
    const flags = flagsOf(e)
    const made = {reason: trimmed(flags.reason), amended_by: typeof flags['amended-by'] === 'string' ? flags['amended-by'] : null, at: e.at, seq: e.seq}
    if (e.command === 'incident:amend-awareness') expected.aware_at.push(made)
    else if (e.command === 'incident:set') {
      if (typeof flags['aware-at'] === 'string' && made.reason !== null) expected.aware_at.push(made)
      if (typeof flags.role === 'string' && made.reason !== null) expected.role.push(made)
    }
  }
  for (const field of ['aware_at', 'role'] as const) {
    const label = field === 'aware_at' ? 'awareness amendment' : 'role change'
    listAmendmentRows(db).filter((a) => a.field === field).forEach((a, i) => {
      const want = expected[field][i]
      if (!want) return // reported with the amendments' replay
      for (const [what, now, should] of [['reason', a.reason, want.reason], ['amended_by', a.amended_by, want.amended_by], ['at', a.at, want.at]] as const) {
        if (should !== null && now !== should) problems.add('recorded', `${label} ${i + 1} (${a.at})`, `its ${what} is ${shown(now)}, but audit entry ${want.seq} recorded ${shown(should)}`, 'incident')
      }
    })
  }
}

/** Each recorded notification against the flags of the `notify record` that recorded it; each audited one must still be there. */
export function checkRecordedNotifications(db: CaseDb, entries: readonly AuditEntry[], problems: Problems): void {
  const rows = new Map(listNotificationRows(db).map((n) => [n.id, n]))
  const times = notificationTimesMs(db)
  for (const e of entries) {
    if (e.command !== 'notify:record') continue
    const id = summaryOf(e).notification
    if (typeof id !== 'number') continue
    const n = rows.get(id)
    if (!n) {
      problems.add('recorded', `notification ${id}`, `audit entry ${e.seq} records it, but the case no longer holds it: removed outside crosstalk`, 'notifications')
      continue
    }
    const flags = flagsOf(e)
    const at = instant(flags.at)
    const fields: Array<[string, unknown, unknown]> = [
      ['phase', n.phase, flags.phase],
      ['at', n.at, at?.toISOString()],
      ['at (milliseconds)', times.get(id), at?.getTime()],
      ['reference', n.reference, trimmed(flags.reference)],
      ['recipient', n.recipient, trimmed(flags.recipient ?? 'authority')],
      ['file_path', n.file_path, typeof flags.file === 'string' ? flags.file : null],
      ['delay_reason', n.delay_reason, trimmed(flags['delay-reason']) || null],
      ['recorded_at', n.recorded_at, e.at],
    ]
    for (const [field, now, should] of fields) {
      if (should !== undefined && now !== should) problems.add('recorded', `notification ${id}`, `its ${field} is ${shown(now)}, but audit entry ${e.seq} recorded ${shown(should)}`, 'notifications')
    }
  }
}
