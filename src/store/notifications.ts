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
}

const NOTIFICATION_COLUMNS = 'id, phase, at, reference, recipient, file_path, file_sha256, file_size, recorded_at, delay_reason, controller'

export function insertNotification(db: CaseDb, n: NewNotification): NotificationRow {
  const info = db
    .prepare('INSERT INTO notifications (phase, at, at_ms, reference, recipient, file_path, file_sha256, file_size, recorded_at, delay_reason, controller) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(n.phase, n.at.toISOString(), n.at.getTime(), n.reference, n.recipient, n.filePath, n.fileSha256, n.fileSize, n.recordedAt, n.delayReason, n.controller)
  return db.prepare(`SELECT ${NOTIFICATION_COLUMNS} FROM notifications WHERE id = ?`).get(info.lastInsertRowid) as NotificationRow
}

export function listNotificationRows(db: CaseDb): NotificationRow[] {
  return db.prepare(`SELECT ${NOTIFICATION_COLUMNS} FROM notifications ORDER BY at_ms, id`).all() as NotificationRow[]
}


/** Each notification's time in milliseconds (what orders them), by id. */
export function notificationTimesMs(db: CaseDb): Map<number, number> {
  const rows = db.prepare('SELECT id, at_ms FROM notifications').raw().all() as Array<[number, number]>
  return new Map(rows)
}
