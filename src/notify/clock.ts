// GDPR Art. 33(1): notify "not later than 72 hours after having become aware". The
// period is counted in elapsed hours (Reg. 1182/71: periods in hours do not roll to a
// working day), so the deadline is plain millisecond arithmetic: a weekend, a holiday or
// a daylight-saving change inside the window never moves it.

export const DEADLINE_MS = 72 * 3600_000
/** Under this much time left the clock says due_soon. */
export const DUE_SOON_MS = 24 * 3600_000

export type ClockStatus = 'open' | 'due_soon' | 'overdue' | 'notified'

/** `crosstalk clock --json` (contract shape; extra keys may follow the four). */
export interface ClockResult {
  aware_at: string
  deadline: string
  remaining_seconds: number
  status: ClockStatus
  notified_at?: string | null
}

export function computeClock(awareAt: Date, now: Date, notifiedAt?: Date | null): ClockResult {
  const deadline = new Date(awareAt.getTime() + DEADLINE_MS)
  const remainingMs = deadline.getTime() - now.getTime()
  // Whole seconds, rounded toward the deadline so a countdown never shows time that is gone.
  const remaining_seconds = Math.floor(remainingMs / 1000)
  let status: ClockStatus
  if (notifiedAt) status = 'notified'
  else if (remainingMs < 0) status = 'overdue'
  else if (remainingMs < DUE_SOON_MS) status = 'due_soon'
  else status = 'open'
  const result: ClockResult = {aware_at: awareAt.toISOString(), deadline: deadline.toISOString(), remaining_seconds, status}
  if (notifiedAt) result.notified_at = notifiedAt.toISOString()
  return result
}

/** True when a notification made at `at` came after the 72 hours (Art. 33(1): reasons needed). */
export function isLate(awareAt: Date, at: Date): boolean {
  return at.getTime() > awareAt.getTime() + DEADLINE_MS
}
