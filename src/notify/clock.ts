import {noticeController, toAuthority, type RecipientKind, type RecipientOf} from './recipients.js'

// GDPR Art. 33(1): notify "not later than 72 hours after having become aware". The
// period is counted in elapsed hours (Reg. 1182/71: periods in hours do not roll to a
// working day), so the deadline is plain millisecond arithmetic: a weekend, a holiday or
// a daylight-saving change inside the window never moves it.
//
// Art. 33(2): a processor notifies each controller "without undue delay". The GDPR sets no
// number; a contract often does (Art. 28(3)(f): 24 or 48 hours are common). A processor's
// clock therefore runs per controller, against the contractual period when one is recorded
// (incident set --controller-deadline-hours) and against no fixed deadline otherwise: it is
// never given the controller's 72 hours to the authority.

export const DEADLINE_MS = 72 * 3600_000
/** Under this much time left the clock says due_soon (a quarter of a short contractual period). */
export const DUE_SOON_MS = 24 * 3600_000

export type ClockStatus = 'open' | 'due_soon' | 'overdue' | 'notified'

/** Why a processor's controllers are not known: detection incomplete, markers not attributable, responses set aside as boilerplate. */
export type ControllersUnknownBecause = 'detection' | 'markers' | 'boilerplate'

/** What the deadline is counted from and against. */
export type ClockBasis = 'art33(1)' | 'art33(2)-contract' | 'art33(2)-without-undue-delay'

/** One controller a processor must notify (Art. 33(2)): its own state. */
export interface ControllerClock {
  tenant_id: string
  deadline: string | null
  remaining_seconds: number | null
  status: ClockStatus
  notified_at: string | null
  /** notified after the deadline, or still not notified after it; null: not known (no fixed deadline: without undue delay is a judgement, not a count of hours) */
  late: boolean | null
}

/**
 * `crosstalk clock --json`: the contract's four keys first (aware_at, deadline,
 * remaining_seconds, status), then `late` and what the deadline rests on. A processor with no
 * contractual period has no fixed deadline: deadline and remaining_seconds are null then.
 */
export interface ClockResult {
  aware_at: string
  deadline: string | null
  remaining_seconds: number | null
  status: ClockStatus
  /**
   * the notification came after the deadline, or there is none and the deadline has passed.
   * null: it cannot be known: there is no fixed deadline (a processor without a contractual
   * period), or a processor's deadline has passed and the controllers it must notify are not
   * known yet (detection has found no exposure). Never false for "not known".
   */
  late: boolean | null
  notified_at?: string | null
  basis?: ClockBasis
  /** a processor's controllers, each with its own state; the processor is "notified" only when all are */
  controllers?: ControllerClock[]
  /**
   * a processor's: whether `controllers` is every controller to notify. False while detection does
   * not cover the case (logs not scanned, findings stale): more may be found, so how many
   * controllers are to be notified is not known, and the processor is never "notified" then.
   */
  controllers_known?: boolean
  /**
   * where controllers_known is false, why: detection does not cover the case, or (markers) the case
   * holds no canary registry and answers hold marker-shaped tokens whose owners are not known, or
   * (boilerplate) responses repeating text seen in several customers' sessions were set aside
   * unattributed: each is not known to be free of another session's data, so whose data it carries is not known
   */
  controllers_unknown_because?: ControllersUnknownBecause | null
  /** where controllers_unknown_because is boilerplate: the responses set aside as boilerplate, whose source customers are not established */
  boilerplate_responses?: number
  /**
   * a processor's controllers notified of an exposure the case no longer shows (after a drop or a
   * rescan) and owed a correcting follow-up not yet recorded: not among `controllers` (no longer
   * affected), never counted as notified; absent where none is owed
   */
  corrections_owed?: Array<{tenant_id: string; notified_at: string}>
  /** a processor's case where detection covered every log file and found no controller affected: no notice is owed (absent otherwise) */
  nothing_owed?: true
}

/**
 * `crosstalk clock --json` as the contract fixes it: `deadline` is always awareness + 72 elapsed
 * hours (Art. 33(1)) and `remaining_seconds` and `status` count against it, whatever the role, so
 * a script written against the contract reads the same thing for every case. A processor's own
 * duty (Art. 33(2): each controller, within the contractual period or without undue delay) is
 * in the added keys `basis`, `duty_deadline`, `duty_remaining_seconds`, `duty_status` (null
 * deadline: none fixed), `late` and `controllers`. For a controller the duty is the 72 hours.
 */
export interface ClockJson extends Omit<ClockResult, 'deadline' | 'remaining_seconds'> {
  deadline: string
  remaining_seconds: number
  duty_deadline: string | null
  duty_remaining_seconds: number | null
  duty_status: ClockStatus
}

export function clockJson(c: ClockResult, now: Date): ClockJson {
  const notified = c.status === 'notified' && c.notified_at ? new Date(c.notified_at) : null
  const ref = computeClock(new Date(c.aware_at), now, notified)
  const {aware_at, status: dutyStatus, deadline: dutyDeadline, remaining_seconds: dutyRemaining, ...rest} = c
  return {
    aware_at, deadline: ref.deadline!, remaining_seconds: ref.remaining_seconds!, status: ref.status,
    ...rest, duty_deadline: dutyDeadline, duty_remaining_seconds: dutyRemaining, duty_status: dutyStatus,
  }
}

/** The 72-hour clock (or any fixed period); `periodMs` null: no fixed deadline ("without undue delay"). */
export function computeClock(awareAt: Date, now: Date, notifiedAt?: Date | null, periodMs: number | null = DEADLINE_MS): ClockResult {
  const deadline = periodMs === null ? null : new Date(awareAt.getTime() + periodMs)
  const remainingMs = deadline === null ? null : deadline.getTime() - now.getTime()
  // Whole seconds, rounded toward the deadline so a countdown never shows time that is gone.
  const remaining_seconds = remainingMs === null ? null : Math.floor(remainingMs / 1000)
  const dueSoon = periodMs === null ? 0 : Math.min(DUE_SOON_MS, periodMs / 3)
  let status: ClockStatus
  if (notifiedAt) status = 'notified'
  else if (remainingMs !== null && remainingMs < 0) status = 'overdue'
  else if (remainingMs !== null && remainingMs < dueSoon) status = 'due_soon'
  else status = 'open'
  const late = deadline === null ? null : notifiedAt ? notifiedAt.getTime() > deadline.getTime() : now.getTime() > deadline.getTime()
  const result: ClockResult = {aware_at: awareAt.toISOString(), deadline: deadline?.toISOString() ?? null, remaining_seconds, status, late}
  if (notifiedAt) result.notified_at = notifiedAt.toISOString()
  return result
}

/** True when a notification made at `at` came after the 72 hours (Art. 33(1): reasons needed). */
export function isLate(awareAt: Date, at: Date, periodMs: number | null = DEADLINE_MS): boolean {
  return periodMs !== null && at.getTime() > awareAt.getTime() + periodMs
}

export interface CaseClockInput {
  role: 'controller' | 'processor'
  aware_at: string
  controller_deadline_hours: number | null
}

export interface ClockNotification extends RecipientOf {
  phase: 'initial' | 'follow-up'
  at: string
}

/** The period a notice to this kind of recipient is due within, from awareness; null: without undue delay. */
export function noticePeriodMs(incident: CaseClockInput, kind: RecipientKind): number | null {
  if (kind === 'data-subjects') return null // Art. 34(1): without undue delay
  if (incident.role === 'controller') return kind === 'authority' ? DEADLINE_MS : null
  // A processor: to a controller, the contractual period if any (Art. 28(3)(f)); to an authority
  // (only on a controller's behalf) the controller's own clock, which the processor does not hold.
  return kind === 'authority' || incident.controller_deadline_hours === null ? null : incident.controller_deadline_hours * 3600_000
}

/**
 * The case's clock. A controller: the 72 hours to the authority, stopped by the first initial
 * notification to it. A processor: one clock per controller in the exposure (`controllers`),
 * stopped by the first initial notice to that tenant; the whole is "notified" only once every
 * controller is, and "late" when any is.
 */
export function computeCaseClock(incident: CaseClockInput, notifications: readonly ClockNotification[], now: Date, controllers: readonly string[] = [], controllersKnown = true, unknownBecause: ControllersUnknownBecause = 'detection', boilerplateResponses = 0, correctionsOwed: ReadonlyArray<{tenant_id: string; notified_at: string}> = []): ClockResult {
  const aware = new Date(incident.aware_at)
  const firstInitial = (to: (n: ClockNotification) => boolean): Date | null => {
    const times = notifications.filter((n) => n.phase === 'initial' && to(n)).map((n) => Date.parse(n.at))
    return times.length === 0 ? null : new Date(Math.min(...times))
  }
  if (incident.role === 'controller') return {...computeClock(aware, now, firstInitial(toAuthority)), basis: 'art33(1)'}
  const period = noticePeriodMs(incident, 'controller')
  const basis: ClockBasis = period === null ? 'art33(2)-without-undue-delay' : 'art33(2)-contract'
  const each: ControllerClock[] = controllers.map((tenant) => {
    const c = computeClock(aware, now, firstInitial((n) => noticeController(n) === tenant), period)
    return {tenant_id: tenant, deadline: c.deadline, remaining_seconds: c.remaining_seconds, status: c.status, notified_at: c.notified_at ?? null, late: c.late}
  })
  // Detection covered the case and found no controller affected: no notice is owed, so nothing is
  // due, overdue or late (the clock said OVERDUE (LATE) with "controllers not known yet").
  const owed = correctionsOwed.length > 0 ? {corrections_owed: [...correctionsOwed]} : {}
  if (controllersKnown && each.length === 0 && correctionsOwed.length === 0) {
    return {aware_at: aware.toISOString(), deadline: null, remaining_seconds: null, status: 'open', late: false, basis, controllers: [], controllers_known: true, controllers_unknown_because: null, nothing_owed: true}
  }
  // Every controller notified is said only where every controller is known: detection incomplete may find more.
  // With every controller known and none affected now, the notices sent are those owed a correction:
  // each controller once affected was notified, and the clock is judged by those notices (in time or
  // late), never OVERDUE with "late: not known" for a notice nobody owes any more.
  const onlyCorrections = controllersKnown && each.length === 0 && correctionsOwed.length > 0
  const all = onlyCorrections || (controllersKnown && each.length > 0 && each.every((c) => c.notified_at !== null))
  const sentAt = onlyCorrections ? correctionsOwed.map((c) => Date.parse(c.notified_at)) : each.map((c) => Date.parse(c.notified_at ?? ''))
  const lastNotice = all ? new Date(Math.max(...sentAt)) : null
  const whole = computeClock(aware, now, lastNotice, period)
  // Late when any controller is; not late only when each is known not to be (or the deadline,
  // where there is one, has not passed: nobody is late before it). Otherwise not known.
  const late = onlyCorrections
    ? whole.late
    : each.some((c) => c.late === true) ? true : controllersKnown && each.length > 0 && each.every((c) => c.late === false) ? false : whole.late === false ? false : null
  return {
    ...whole, late, basis, controllers: each, controllers_known: controllersKnown, controllers_unknown_because: controllersKnown ? null : unknownBecause,
    ...(!controllersKnown && unknownBecause === 'boilerplate' ? {boilerplate_responses: boilerplateResponses} : {}),
    ...owed,
  }
}
