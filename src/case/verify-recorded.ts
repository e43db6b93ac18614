import type {AuditEntry} from '../store/audit.js'
import {getIncidentRow, listAmendmentRows} from '../store/incident.js'
import {listNotificationRows, notificationTimesMs} from '../store/notifications.js'
import type {CaseDb} from '../store/open-case.js'
import {listUnreadSources} from '../store/unread-sources.js'
import {INCIDENT_CHOICE_FIELDS, INCIDENT_INTEGER_FIELDS, INCIDENT_TEXT_FIELDS, INCIDENT_TIME_FIELDS, NEXT_UPDATE_FIELD} from '../notify/incident.js'
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

function kindAsGiven(flags: Flags): string | undefined {
  if (typeof flags['controller-recipient'] === 'string') return 'controller'
  const r = flags.recipient ?? 'authority'
  // (An id with white space at either end was trimmed by releases before this one: its kind is not checked.)
  return typeof r !== 'string' || r !== r.trim() ? undefined : r === 'authority' || r === 'data-subjects' ? r : 'controller'
}

function recipientAsGiven(stored: string, given: unknown): string | null {
  return typeof given !== 'string' ? null : stored === given.trim() ? stored : given
}

/** The incident's columns as `incident open` / `incident set` store them from their flags. */
function incidentColumns(flags: Flags): Map<string, string | number | null> {
  const out = new Map<string, string | number | null>()
  // `incident set --clear FIELD` withdraws a recorded fact: the column is null again.
  if (Array.isArray(flags.clear)) for (const f of flags.clear) if (typeof f === 'string') out.set(f.replace(/-/g, '_'), null)
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
  // Kept apart from the other times (one still to come), under its own flag.
  const next = instant(flags['next-update'])
  if (next) out.set(NEXT_UPDATE_FIELD, next.toISOString())
  return out
}

export function checkRecordedIncident(db: CaseDb, entries: readonly AuditEntry[], problems: Problems): void {
  const incident = getIncidentRow(db) as unknown as Record<string, unknown> | null
  const opened = entries.find((e) => e.command === 'incident:open')
  if (!incident) {
    // No command removes the incident: without it every draft says none was opened.
    if (opened) problems.add('recorded', 'incident', `audit entry ${opened.seq} records its opening, but the case no longer holds it: removed outside crosstalk`, 'incident')
    return
  }
  // Without the opening's entry (already reported) the fields it set are unknown.
  if (!opened) return
  const expected = new Map<string, {value: string | number | null; seq: number}>()
  for (const e of entries) {
    if (e.command !== 'incident:open' && e.command !== 'incident:set') continue
    for (const [column, value] of incidentColumns(flagsOf(e))) expected.set(column, {value, seq: e.seq})
  }
  const columns = ['title', ...INCIDENT_TEXT_FIELDS, ...Object.keys(INCIDENT_CHOICE_FIELDS), ...INCIDENT_INTEGER_FIELDS, ...INCIDENT_TIME_FIELDS, NEXT_UPDATE_FIELD]
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
    const size = summaryOf(e).file_size
    const fields: Array<[string, unknown, unknown]> = [
      ['phase', n.phase, flags.phase],
      ['at', n.at, at?.toISOString()],
      ['at (milliseconds)', times.get(id), at?.getTime()],
      ['reference', n.reference, trimmed(flags.reference)],
      // Kept exactly as given; releases before this one stored it trimmed.
      ['recipient', n.recipient, recipientAsGiven(n.recipient, flags['controller-recipient'] ?? flags.recipient ?? 'authority')],
      // Whom it went to, as the flags said (--controller-recipient: a controller whatever its id reads).
      ['recipient_kind', n.recipient_kind, kindAsGiven(flags)],
      ['file_path', n.file_path, typeof flags.file === 'string' ? flags.file : null],
      ['delay_reason', n.delay_reason, trimmed(flags['delay-reason']) || null],
      // The controller it was made for decides which controller's drafts take it as their notification.
      ['controller', n.controller, trimmed(flags.controller) || null],
      // Entries written before the size was kept speak for it only where no file was given.
      ['file_size', n.file_size, typeof size === 'number' ? size : typeof flags.file === 'string' ? undefined : null],
      ['recorded_at', n.recorded_at, e.at],
    ]
    for (const [field, now, should] of fields) {
      if (should !== undefined && now !== should) problems.add('recorded', `notification ${id}`, `its ${field} is ${shown(now)}, but audit entry ${e.seq} recorded ${shown(should)}`, 'notifications')
    }
  }
}

/** An unread source as the audit entries recorded and settled it. */
interface AuditedUnread {
  path: unknown
  sha256: unknown
  reason: unknown
  seq: number
  settled: {by: 'ingest' | 'dismiss'; seq: number; at: string | null; note: string | null} | null
}

/**
 * The log sources an ingest could not read (migration 009), replayed from the entries of the
 * ingests that recorded and settled them and of `ingest dismiss`: an open entry removed or
 * settled by hand would let a gate pass over a log nobody read, so each must stand as those
 * entries left it.
 */
export function checkRecordedUnreadSources(db: CaseDb, entries: readonly AuditEntry[], problems: Problems): void {
  const expected = new Map<number, AuditedUnread>()
  const objects = (v: unknown): Array<Record<string, unknown>> => (Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => x !== null && typeof x === 'object') : [])
  for (const e of entries) {
    const s = summaryOf(e)
    if (e.command === 'ingest:dismiss') {
      for (const d of objects(s.dismissed)) {
        const a = typeof d.id === 'number' ? expected.get(d.id) : undefined
        if (a) a.settled = {by: 'dismiss', seq: e.seq, at: e.at, note: typeof s.reason === 'string' ? s.reason : null}
      }
      continue
    }
    if (e.command !== 'ingest:logs' && e.command !== 'triage') continue
    const u = s.unread_sources as {recorded?: unknown; settled?: unknown} | undefined
    if (!u || typeof u !== 'object') continue
    for (const r of objects(u.recorded)) {
      if (typeof r.id === 'number' && !expected.has(r.id)) expected.set(r.id, {path: r.path, sha256: r.source_sha256, reason: r.reason, seq: e.seq, settled: null})
    }
    for (const id of Array.isArray(u.settled) ? u.settled : []) {
      const a = typeof id === 'number' ? expected.get(id) : undefined
      if (a) a.settled = {by: 'ingest', seq: e.seq, at: null, note: null}
    }
  }
  const rows = listUnreadSources(db)
  for (const row of rows) {
    const where = `unread source ${row.id} (${row.path})`
    const a = expected.get(row.id)
    expected.delete(row.id)
    if (!a) {
      problems.add('unaudited', where, 'no audit entry records it', 'unread-sources')
      continue
    }
    for (const [field, now, should] of [['path', row.path, a.path], ['sha256', row.sha256, a.sha256], ['reason', row.reason, a.reason]] as const) {
      if (now !== (should ?? null)) problems.add('recorded', where, `its ${field} is ${shown(now)}, but audit entry ${a.seq} recorded ${shown(should)}`, 'unread-sources')
    }
    if (a.settled === null) {
      if (row.settled_at !== null) problems.add('recorded', where, `is settled (${shown(row.settled_by)}, ${row.settled_at}), but no audit entry settles it: settled outside crosstalk`, 'unread-sources')
      continue
    }
    const st = a.settled
    if (row.settled_at === null) problems.add('recorded', where, `is open, but audit entry ${st.seq} settled it`, 'unread-sources')
    else if (row.settled_by !== st.by || (st.at !== null && row.settled_at !== st.at) || (st.note !== null && row.settle_note !== st.note)) {
      problems.add('recorded', where, `is settled as ${shown(row.settled_by)} at ${row.settled_at} (${shown(row.settle_note)}), but audit entry ${st.seq} recorded ${st.by}${st.at ? ` at ${st.at}` : ''}${st.note === null ? '' : ` (${shown(st.note)})`}`, 'unread-sources')
    }
  }
  for (const [id, a] of expected) {
    problems.add('audit', `unread source ${id} (${shown(a.path)})`, `audit entry ${a.seq} records it, but the case no longer holds it: removed outside crosstalk`, 'unread-sources')
  }
}
