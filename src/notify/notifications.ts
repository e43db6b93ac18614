import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {InputError} from '../errors.js'
import {insertNotification, listNotificationRows, type NotificationRow} from '../store/notifications.js'
import type {CaseDb} from '../store/open-case.js'

// Each submission is kept with the SHA-256 of exactly what was sent, so the case can later
// show which draft the authority (or, for a processor, each controller) received and when.

export type Phase = 'initial' | 'follow-up'

export type NotificationRecord = NotificationRow

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
  return insertNotification(db, {
    phase: options.phase, at: options.at, reference, recipient: options.recipient,
    filePath: options.file ?? null, fileSha256: sha256, fileSize: size, recordedAt: options.now.toISOString(),
  })
}

export function listNotifications(db: CaseDb): NotificationRecord[] {
  return listNotificationRows(db)
}

/**
 * When the clock stopped: the first initial notification to the authority; for a
 * processor (whose duty under Art. 33(2) is towards its controllers), the first initial
 * notice to anyone.
 */
export function firstInitialNotification(notifications: NotificationRecord[], role: 'controller' | 'processor'): NotificationRecord | null {
  return notifications.find((n) => n.phase === 'initial' && (role === 'processor' || n.recipient === 'authority')) ?? null
}
