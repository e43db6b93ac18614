import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {tableExists} from '../store/open-case.js'

// Each submission is kept with the SHA-256 of exactly what was sent, so the case can later
// show which draft the authority (or, for a processor, each controller) received and when.

export type Phase = 'initial' | 'follow-up'

export interface NotificationRecord {
  id: number
  phase: Phase
  at: string
  reference: string
  /** 'authority', or the controller tenant a processor notified (Art. 33(2)). */
  recipient: string
  file_path: string | null
  file_sha256: string | null
  file_size: number | null
  recorded_at: string
}

/** `crosstalk notify record --json` */
export type NotifyRecordResult = NotificationRecord

export interface RecordNotificationOptions {
  phase: Phase
  at: Date
  reference: string
  recipient: string
  file?: string
  now: Date
}

export function recordNotification(db: CaseDb, options: RecordNotificationOptions): NotificationRecord {
  const reference = options.reference.trim()
  if (!reference) throw new InputError('notify record: --reference must not be empty')
  let sha256: string | null = null
  let size: number | null = null
  if (options.file) {
    let bytes: Buffer
    try {
      bytes = readFileSync(options.file)
    } catch (error) {
      throw new InputError(`${options.file}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
    }
    sha256 = createHash('sha256').update(bytes).digest('hex')
    size = bytes.length
  }
  const info = db
    .prepare('INSERT INTO notifications (phase, at, at_ms, reference, recipient, file_path, file_sha256, file_size, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(options.phase, options.at.toISOString(), options.at.getTime(), reference, options.recipient, options.file ?? null, sha256, size, options.now.toISOString())
  return db.prepare('SELECT id, phase, at, reference, recipient, file_path, file_sha256, file_size, recorded_at FROM notifications WHERE id = ?').get(info.lastInsertRowid) as NotificationRecord
}

export function listNotifications(db: CaseDb): NotificationRecord[] {
  if (!tableExists(db, 'notifications')) return []
  return db.prepare('SELECT id, phase, at, reference, recipient, file_path, file_sha256, file_size, recorded_at FROM notifications ORDER BY at_ms, id').all() as NotificationRecord[]
}

/**
 * When the clock stopped: the first initial notification to the authority; for a
 * processor (whose duty under Art. 33(2) is towards its controllers), the first initial
 * notice to anyone.
 */
export function firstInitialNotification(notifications: NotificationRecord[], role: 'controller' | 'processor'): NotificationRecord | null {
  return notifications.find((n) => n.phase === 'initial' && (role === 'processor' || n.recipient === 'authority')) ?? null
}
