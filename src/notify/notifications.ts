import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {InputError} from '../errors.js'
import {insertNotification, insertNotificationScope, listNotificationRows, type NotificationRow, type NotificationScope} from '../store/notifications.js'
import type {CaseDb} from '../store/open-case.js'
import {DEADLINE_MS, isLate, noticePeriodMs} from './clock.js'
import type {IncidentRecord} from './incident.js'
import {quoted} from '../util/sanitize.js'
import {closestName} from '../util/edit-distance.js'
import {AUTHORITY, DATA_SUBJECTS, noticeController, recipientKind, type RecipientKind} from './recipients.js'
import {UsageError} from '../errors.js'

// Each submission is kept with the SHA-256 of exactly what was sent, so the case can later
// show which draft the authority (or, for a processor, each controller) received and when.
// A notification is a statement the drafts repeat ("we notified X at T"), so it is checked
// against the incident before it is stored: it cannot precede awareness or lie in the
// future, a follow-up needs an initial notification to the same recipient before it, and a
// late initial notification needs the reasons for the delay (Art. 33(1)).

export type Phase = 'initial' | 'follow-up'

export type NotificationRecord = NotificationRow

/** `crosstalk notify record --json` */
/** `late` null: not known (no fixed deadline: "without undue delay" is judged, not counted), never false for that. */
export type NotifyRecordResult = NotificationRecord & {late: boolean | null}

export {AUTHORITY, DATA_SUBJECTS} from './recipients.js'

/** Clock skew tolerated between the machine that sent and this one. */
const FUTURE_TOLERANCE_MS = 5 * 60_000

export interface RecordNotificationOptions {
  phase: Phase
  at: Date
  reference: string
  /** "authority" (the default where neither is given), "data-subjects", or a controller's tenant id (notify record --recipient) */
  recipient?: string
  /** a controller's tenant id, taken as one whatever it reads (notify record --controller-recipient) */
  controllerRecipient?: string
  file?: string
  delayReason?: string
  /** a processor's case: the controller (tenant id) an authority notification was made for (notify record --controller) */
  controller?: string
  now: Date
  /** Whether the case holds records of this tenant (a processor's notice goes to a tenant it served). */
  knownTenant?: (tenant: string) => boolean
  /** the scope it is based on (notificationScopeNow), stored with it; absent: none stored (it reads as not recorded) */
  scope?: NotificationScope
  /** Every tenant id the case holds, exactly as written (read only to name them when an id is refused). */
  caseTenants?: () => string[]
}

type IncidentForCheck = Pick<IncidentRecord, 'role' | 'aware_at' | 'controller_deadline_hours' | 'delay_reason'>

export interface NewNotificationCheck {
  phase: Phase
  at: Date
  recipient: string
  /** whom it goes to; absent: read from recipient (recipientKind) */
  recipient_kind?: RecipientKind | null
  delayReason?: string | null
  /** the controller an authority notification was made for (a processor's case); null or absent: none named */
  controller?: string | null
}

/** Refuses (InputError) a notification the incident contradicts. Pure: the caller passes what is recorded. */
export function checkNewNotification(incident: IncidentForCheck, existing: readonly NotificationRecord[], n: NewNotificationCheck, now: Date, knownTenant?: (t: string) => boolean, caseTenants?: () => string[]): void {
  // Tenant ids are kept exactly as written (ingest, --tenant): trimming here recorded a notice to
  // "acme " as one to "acme", another customer.
  const recipient = n.recipient
  const kind = recipientKind(n)
  if (!recipient.trim()) throw new InputError('notify record: --recipient must not be empty')
  if (incident.role === 'controller' && kind === 'controller') {
    throw new InputError(`notify record: as controller you notify the authority (--recipient ${AUTHORITY}) or inform the data subjects (--recipient ${DATA_SUBJECTS}), not ${quoted(recipient.slice(0, 80))}`)
  }
  if (incident.role === 'processor' && kind === 'data-subjects') {
    throw new InputError('notify record: informing the data subjects is the controller\'s duty (Art. 34); as processor record your notices to each controller (--recipient TENANT)')
  }
  if (incident.role === 'processor' && kind === 'controller' && knownTenant && !knownTenant(recipient)) throw unknownTenant(recipient, caseTenants)
  const controller = n.controller ?? null
  if (controller !== null && !controller.trim()) throw new InputError('notify record: --controller must not be empty')
  if (controller !== null) {
    if (incident.role !== 'processor') throw new InputError('notify record: --controller names the controller a processor notified the authority for; in a controller\'s case the notification is its own')
    if (kind !== 'authority') throw new InputError(`notify record: --controller goes with --recipient ${AUTHORITY} (the controller an authority notification was made for); a notice to a controller names it with --recipient TENANT`)
    if (knownTenant && !knownTenant(controller)) throw unknownTenant(controller, caseTenants)
  }
  if (n.at.getTime() > now.getTime() + FUTURE_TOLERANCE_MS) {
    throw new InputError(`notify record: --at ${n.at.toISOString()} is in the future (now ${now.toISOString()}): record a notification once it has been sent`)
  }
  const aware = new Date(incident.aware_at)
  if (n.at.getTime() < aware.getTime()) {
    throw new InputError(
      `notify record: --at ${n.at.toISOString()} is before the awareness time ${incident.aware_at}: nothing can be notified before it is known; if awareness was earlier, amend it first (crosstalk incident amend-awareness)`,
    )
  }
  // In a processor's case, notifications to the authority made for different controllers (or for none named) are apart: each has its own initial one.
  const same = existing.filter((e) => recipientKind(e) === kind && e.recipient === recipient && (incident.role !== 'processor' || kind !== 'authority' || (e.controller ?? null) === controller))
  const whom = incident.role === 'processor' && kind === 'authority' ? (controller === null ? ' (for no controller named)' : ` for controller ${quoted(controller.slice(0, 80))}`) : ''
  const initial = same.find((e) => e.phase === 'initial')
  if (n.phase === 'initial' && initial) {
    throw new InputError(`notify record: an initial notification to ${quoted(recipient.slice(0, 80))}${whom} is already recorded (${initial.at}, ref ${initial.reference.slice(0, 80)}): record this one with --phase follow-up`)
  }
  if (n.phase === 'follow-up' && (!initial || Date.parse(initial.at) > n.at.getTime())) {
    throw new InputError(
      initial
        ? `notify record: a follow-up at ${n.at.toISOString()} comes before the initial notification to ${quoted(recipient.slice(0, 80))}${whom} (${initial.at})`
        : `notify record: no initial notification to ${quoted(recipient.slice(0, 80))}${whom} is recorded: record it first (--phase initial), Art. 33(4) phases follow an initial notification`,
    )
  }
  const period = noticePeriodMs({role: incident.role, aware_at: incident.aware_at, controller_deadline_hours: incident.controller_deadline_hours}, kind)
  if (n.phase === 'initial' && isLate(aware, n.at, period) && !n.delayReason?.trim() && !incident.delay_reason?.trim()) {
    const deadline = new Date(aware.getTime() + period!).toISOString()
    // A processor's notice to a controller falls under Art. 33(2), which asks for no reasons; the
    // reasons are still required here (house rule): the controller needs them for its own notification.
    const toController = incident.role === 'processor' && kind === 'controller'
    throw new InputError(
      toController
        ? `notify record: this notice to the controller at ${n.at.toISOString()} is after the contractual deadline ${deadline}: Art. 33(2) asks no reasons for a delay, but crosstalk records them so the controller can account for it in its own notification (Art. 33(1)); pass --delay-reason TEXT (or record it with incident set --delay-reason)`
        : `notify record: this initial notification at ${n.at.toISOString()} is after the deadline ${deadline}: a late notification must be accompanied by the reasons for the delay (GDPR Art. 33(1)); pass --delay-reason TEXT (or record it with incident set --delay-reason)`,
      'E_DELAY_REASON',
    )
  }
  // A processor's notification to the authority for a controller: that controller's own 72 hours (Art. 33(1)) ran from its
  // awareness, our first notice to it (EDPB Guidelines 9/2022); after them, the reasons for the delay go with it too.
  const controllerAware = controllerAwareAt(incident, {recipient, recipient_kind: kind, controller}, existing)
  if (n.phase === 'initial' && controllerAware && isLate(new Date(controllerAware), n.at, DEADLINE_MS) && !n.delayReason?.trim() && !incident.delay_reason?.trim()) {
    throw new InputError(
      `notify record: this initial notification to the authority for controller ${quoted(controller!.slice(0, 80))} at ${n.at.toISOString()} is after that controller's 72-hour deadline ${new Date(Date.parse(controllerAware) + DEADLINE_MS).toISOString()} (it became aware with our notice of ${controllerAware}, EDPB Guidelines 9/2022): a late notification must be accompanied by the reasons for the delay (GDPR Art. 33(1)); pass --delay-reason TEXT (or record it with incident set --delay-reason)`,
      'E_DELAY_REASON',
    )
  }
}

/**
 * Whom --recipient / --controller-recipient name. "authority" and "data-subjects" are reserved
 * recipients, and a customer's tenant id may be either: in a processor's case holding such a
 * tenant, --recipient WORD is refused as ambiguous (one notice was read as two facts: the
 * authority notified, and that customer); leaving --recipient out names the authority, and
 * --controller-recipient ID names a controller whatever its id reads.
 */
export function resolveRecipient(incident: Pick<IncidentRecord, 'role'>, options: Pick<RecordNotificationOptions, 'recipient' | 'controllerRecipient' | 'knownTenant'>): {recipient: string; kind: RecipientKind} {
  if (options.controllerRecipient !== undefined) {
    if (options.recipient !== undefined) throw new UsageError('notify record: --recipient and --controller-recipient both name the recipient: give one')
    if (incident.role !== 'processor') throw new InputError('notify record: --controller-recipient names the controller a processor notified; as controller you notify the authority (leave --recipient out) or inform the data subjects (--recipient data-subjects)')
    return {recipient: options.controllerRecipient, kind: 'controller'}
  }
  const recipient = options.recipient ?? AUTHORITY
  if (recipient !== AUTHORITY && recipient !== DATA_SUBJECTS) return {recipient, kind: 'controller'}
  if (options.recipient !== undefined && incident.role === 'processor' && options.knownTenant?.(recipient)) {
    const reserved = recipient === AUTHORITY ? 'the supervisory authority (leave --recipient out: the authority is the default)' : 'the data subjects (Art. 34: the controller\'s duty, not recorded in a processor\'s case)'
    throw new UsageError(`notify record: --recipient ${recipient} is ambiguous: it names ${reserved}, and this case holds a customer whose tenant id is ${quoted(recipient)} (for that controller pass --controller-recipient ${recipient})`)
  }
  return {recipient, kind: recipient}
}

/** A tenant id the case does not hold; where ids differ from it only by white space at either end, they are named exactly (none is taken for it). */
function unknownTenant(id: string, caseTenants?: () => string[]): InputError {
  const tenants = caseTenants?.() ?? []
  const near = tenants.filter((t) => t !== id && t.trim() === id.trim()).slice(0, 5)
  // A mistyped id: the closest one the case holds, as a mistyped command or flag gets.
  const typo = near.length > 0 ? null : closestName(id, tenants)
  const hint = near.length > 0
    ? `: tenant ids are kept exactly as written, white space included; the case holds ${near.map((t) => quoted(t.slice(0, 80))).join(', ')}`
    : typo !== null ? `: did you mean ${quoted(typo.slice(0, 80))}?` : ': check the spelling (crosstalk scope lists the tenants)'
  return new InputError(`notify record: tenant ${quoted(id.slice(0, 80))} is not in this case (no log record of it and no canary registered to it)${hint}`)
}

export function recordNotification(db: CaseDb, incident: IncidentForCheck, options: RecordNotificationOptions): NotifyRecordResult {
  const reference = options.reference.trim()
  if (!reference) throw new InputError('notify record: --reference must not be empty')
  const {recipient, kind} = resolveRecipient(incident, options)
  checkNewNotification(incident, listNotifications(db), {phase: options.phase, at: options.at, recipient, recipient_kind: kind, delayReason: options.delayReason, controller: options.controller}, options.now, options.knownTenant, options.caseTenants)
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
  const row = insertNotification(db, {
    phase: options.phase, at: options.at, reference, recipient, recipientKind: kind, delayReason: options.delayReason?.trim() || null,
    filePath: options.file ?? null, fileSha256: sha256, fileSize: size, recordedAt: options.now.toISOString(), controller: options.controller ?? null,
  })
  // What it was based on, kept as it is now: a later scan changes the case's figures, never what was notified.
  if (options.scope) insertNotificationScope(db, row.id, options.scope)
  return {...row, scope_at_notification: options.scope ?? null, late: notificationLate(incident, row, listNotifications(db))}
}

/**
 * Whether a recorded initial notification came after its deadline; null where it has none (a
 * processor's notice to a controller with no contractual period, a notice to the data subjects:
 * "without undue delay" is judged, not counted), as `clock` says it: not known, never "not late".
 * A follow-up is never late: Art. 33(4) lets information be given in phases after the initial
 * notification, and the deadline is the initial one's.
 * A processor's notification to the authority made for a controller is that controller's: Art. 33(1),
 * 72 hours from the controller's awareness (controllerAwareAt), never the Art. 33(2) rule; not
 * known where that awareness is not.
 */
export function notificationLate(incident: Pick<IncidentRecord, 'role' | 'aware_at' | 'controller_deadline_hours'>, n: Pick<NotificationRecord, 'at' | 'recipient' | 'recipient_kind' | 'phase' | 'controller'>, all: ReadonlyArray<Pick<NotificationRecord, 'at' | 'recipient' | 'recipient_kind' | 'phase'>> = []): boolean | null {
  if (n.phase !== 'initial') return false
  const controllerAware = controllerAwareAt(incident, n, all)
  if (controllerAware !== undefined) return controllerAware === null ? null : isLate(new Date(controllerAware), new Date(n.at), DEADLINE_MS)
  const period = noticePeriodMs({role: incident.role, aware_at: incident.aware_at, controller_deadline_hours: incident.controller_deadline_hours}, recipientKind(n))
  if (period === null) return null
  return isLate(new Date(incident.aware_at), new Date(n.at), period)
}

/**
 * A processor's notification to the authority: the awareness of the controller it was made for,
 * which its Art. 33(1) 72 hours count from. A controller becomes aware when its processor's notice
 * reaches it (EDPB 9/2022), taken as the first initial notice to it recorded in this case (as the
 * controller's draft clock takes it). null: not known (no controller named, or no notice to it
 * recorded); undefined: not a processor's notification to the authority.
 */
export function controllerAwareAt(incident: Pick<IncidentRecord, 'role'>, n: Pick<NotificationRecord, 'recipient' | 'recipient_kind' | 'controller'>, all: ReadonlyArray<Pick<NotificationRecord, 'at' | 'recipient' | 'recipient_kind' | 'phase'>>): string | null | undefined {
  if (incident.role !== 'processor' || recipientKind(n) !== 'authority') return undefined
  const controller = n.controller ?? null
  if (controller === null) return null
  const times = all.filter((e) => e.phase === 'initial' && noticeController(e) === controller).map((e) => Date.parse(e.at))
  return times.length === 0 ? null : new Date(Math.min(...times)).toISOString()
}

/**
 * What a recorded notification contradicts now (the awareness time can be amended after it was
 * recorded): each problem is shown by the drafts as an open item, never silently.
 */
export function notificationProblems(incident: IncidentForCheck, notifications: readonly NotificationRecord[], now: Date, only: (n: NotificationRecord) => boolean = () => true): string[] {
  const problems: string[] = []
  for (const n of notifications) {
    if (!only(n)) continue
    try {
      checkNewNotification(incident, notifications.filter((e) => e.id < n.id), {phase: n.phase, at: new Date(n.at), recipient: n.recipient, recipient_kind: n.recipient_kind, delayReason: n.delay_reason, controller: n.controller}, now)
    } catch (error) {
      if (error instanceof InputError) problems.push(`${n.phase} notification ${n.id} (ref ${n.reference.slice(0, 80)}): ${error.message.replace(/^notify record: /, '')}`)
      else throw error
    }
  }
  return problems
}

export function listNotifications(db: CaseDb): NotificationRecord[] {
  return listNotificationRows(db)
}
