import type {CaseDb} from './open-case.js'

// Each notification sent (to the authority, or by a processor to a controller), with the
// SHA-256 of exactly what was sent.

export interface NotificationRow {
  id: number
  phase: 'initial' | 'follow-up'
  at: string
  reference: string
  recipient: string
  file_path: string | null
  file_sha256: string | null
  file_size: number | null
  recorded_at: string
  /** the reasons for the delay sent with a late notification (Art. 33(1)) */
  delay_reason: string | null
  /** in a processor's case, the controller (tenant id) an authority notification was made for; null: none named (absent: a row built by hand, none named) */
  controller?: string | null
  /** whom it went to: the authority, the data subjects, or a controller (recipient is then its tenant id); absent: a row built by hand, read from recipient as before (recipientKind) */
  recipient_kind?: 'authority' | 'data-subjects' | 'controller' | null
  /** the scope it was based on, stored when it was recorded (migration 023); null: not recorded (recorded before); absent: a row built by hand */
  scope_at_notification?: NotificationScope | null
}

/**
 * The scope a notification was based on, as the case gave it when the notification was recorded.
 * `known` false: the case gave no scope then (never scanned, or findings that did not cover it):
 * every figure null. A null figure is not known, never 0.
 */
export interface NotificationScope {
  known: boolean
  /** whether detection covered everything the case held then (else the figures were at least these) */
  detection_complete: boolean
  /** responses carrying another session's data (by canary marker or verbatim text) */
  responses: number | null
  /** source sessions whose data reached another session */
  sessions: number | null
  /** customers (tenants) whose data reached another session */
  source_tenants: number | null
  /** at least this many sessions and customers, where a marker cut short named none of several (migration 025); null or absent: the counts above were the whole, or the bound was not kept then */
  sessions_low?: number | null
  source_tenants_low?: number | null
  /** customers whose users received another session's data */
  recipient_tenants: number | null
  /** customers (controllers) concerned: those a processor notifies */
  controllers: number | null
  data_subjects: {low: number; high: number | null} | null
  records: {low: number; high: number | null} | null
  first_seen: string | null
  last_seen: string | null
  /** the last finished scan it rests on: when it finished, its sighting rules and extract scheme; null: none */
  scan: {finished_at: string; sighting_rules: number | null; extract_scheme: string} | null
}

interface NotificationScopeRow {
  notification_id: number
  known: number
  detection_complete: number
  responses: number | null
  sessions: number | null
  source_tenants: number | null
  recipient_tenants: number | null
  controllers: number | null
  sessions_low?: number | null
  source_tenants_low?: number | null
  data_subjects_low: number | null
  data_subjects_high: number | null
  records_low: number | null
  records_high: number | null
  first_seen: string | null
  last_seen: string | null
  scan_finished_at: string | null
  sighting_rules: number | null
  extract_scheme: string | null
}

export interface NewNotification {
  phase: 'initial' | 'follow-up'
  at: Date
  reference: string
  recipient: string
  filePath: string | null
  fileSha256: string | null
  fileSize: number | null
  recordedAt: string
  delayReason: string | null
  controller: string | null
  recipientKind: 'authority' | 'data-subjects' | 'controller'
}

const NOTIFICATION_COLUMNS = 'id, phase, at, reference, recipient, file_path, file_sha256, file_size, recorded_at, delay_reason, controller, recipient_kind'

export function insertNotification(db: CaseDb, n: NewNotification): NotificationRow {
  const info = db
    .prepare('INSERT INTO notifications (phase, at, at_ms, reference, recipient, file_path, file_sha256, file_size, recorded_at, delay_reason, controller, recipient_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(n.phase, n.at.toISOString(), n.at.getTime(), n.reference, n.recipient, n.filePath, n.fileSha256, n.fileSize, n.recordedAt, n.delayReason, n.controller, n.recipientKind)
  return db.prepare(`SELECT ${NOTIFICATION_COLUMNS} FROM notifications WHERE id = ?`).get(info.lastInsertRowid) as NotificationRow
}

export function listNotificationRows(db: CaseDb): NotificationRow[] {
  const scopes = notificationScopes(db)
  return (db.prepare(`SELECT ${NOTIFICATION_COLUMNS} FROM notifications ORDER BY at_ms, id`).all() as NotificationRow[]).map((n) => ({...n, scope_at_notification: scopes.get(n.id) ?? null}))
}

/** Stores the scope a notification was based on (once, when it is recorded). */
export function insertNotificationScope(db: CaseDb, notificationId: number, s: NotificationScope): void {
  db.prepare(
    `INSERT INTO notification_scopes (notification_id, known, detection_complete, responses, sessions, source_tenants, recipient_tenants, controllers,
       data_subjects_low, data_subjects_high, records_low, records_high, first_seen, last_seen, scan_finished_at, sighting_rules, extract_scheme, sessions_low, source_tenants_low)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    notificationId, s.known ? 1 : 0, s.detection_complete ? 1 : 0, s.responses, s.sessions, s.source_tenants, s.recipient_tenants, s.controllers,
    s.data_subjects?.low ?? null, s.data_subjects?.high ?? null, s.records?.low ?? null, s.records?.high ?? null, s.first_seen, s.last_seen,
    s.scan?.finished_at ?? null, s.scan?.sighting_rules ?? null, s.scan?.extract_scheme ?? null, s.sessions_low ?? null, s.source_tenants_low ?? null,
  )
}

/** The stored scope of each notification that has one, by notification id (one recorded before migration 023 has none). */
export function notificationScopes(db: CaseDb): Map<number, NotificationScope> {
  const rows = db.prepare('SELECT * FROM notification_scopes').all() as NotificationScopeRow[]
  return new Map(
    rows.map((r) => [
      r.notification_id,
      {
        known: r.known === 1,
        detection_complete: r.detection_complete === 1,
        responses: r.responses,
        sessions: r.sessions,
        source_tenants: r.source_tenants,
        ...(r.sessions_low !== null && r.sessions_low !== undefined ? {sessions_low: r.sessions_low} : {}),
        ...(r.source_tenants_low !== null && r.source_tenants_low !== undefined ? {source_tenants_low: r.source_tenants_low} : {}),
        recipient_tenants: r.recipient_tenants,
        controllers: r.controllers,
        data_subjects: r.data_subjects_low === null ? null : {low: r.data_subjects_low, high: r.data_subjects_high},
        records: r.records_low === null ? null : {low: r.records_low, high: r.records_high},
        first_seen: r.first_seen,
        last_seen: r.last_seen,
        scan: r.scan_finished_at === null || r.extract_scheme === null ? null : {finished_at: r.scan_finished_at, sighting_rules: r.sighting_rules, extract_scheme: r.extract_scheme},
      },
    ]),
  )
}


/** Each notification's time in milliseconds (what orders them), by id. */
export function notificationTimesMs(db: CaseDb): Map<number, number> {
  const rows = db.prepare('SELECT id, at_ms FROM notifications').raw().all() as Array<[number, number]>
  return new Map(rows)
}
