import type {ClockResult} from '../notify/clock.js'
import {formatDuration, formatInZone} from '../notify/time.js'

const LABEL: Record<ClockResult['status'], string> = {
  open: 'OPEN',
  due_soon: 'DUE SOON (under 24 h left)',
  overdue: 'OVERDUE: a late notification must give reasons for the delay (Art. 33(1))',
  notified: 'NOTIFIED',
}

export function renderClock(clock: ClockResult, tz: string): string {
  const lines = [
    `Status:     ${LABEL[clock.status]}`,
    `Aware at:   ${clock.aware_at}  |  ${formatInZone(new Date(clock.aware_at), tz)}`,
    `Deadline:   ${clock.deadline}  |  ${formatInZone(new Date(clock.deadline), tz)}`,
    `Remaining:  ${formatDuration(clock.remaining_seconds)}  (72 elapsed hours from awareness; weekends, holidays and DST do not move it)`,
  ]
  if (clock.notified_at) lines.push(`Notified:   ${clock.notified_at}  |  ${formatInZone(new Date(clock.notified_at), tz)}`)
  return lines.join('\n')
}
