import type {ClockResult} from '../notify/clock.js'
import {formatDuration, formatInZone} from '../notify/time.js'
import {safeId} from '../util/sanitize.js'
import {idNames, padEndWidth} from './text-width.js'

// The human clock. "NOTIFIED" never stands beside an overdue countdown without saying
// whether the notification was late; a processor's clock lists its controllers.

const LABEL: Record<ClockResult['status'], string> = {
  open: 'OPEN',
  due_soon: 'DUE SOON',
  overdue: 'OVERDUE: a late notification must give reasons for the delay (Art. 33(1))',
  notified: 'NOTIFIED',
}

/** One line: "notified LATE (16h 00m 00s after the deadline)", "overdue by ...", "12h 00m 00s left". */
export function clockSummary(c: Pick<ClockResult, 'status' | 'late' | 'deadline' | 'remaining_seconds' | 'notified_at' | 'nothing_owed'>): string {
  if (c.nothing_owed) return 'nothing owed: no controller is affected by what the case holds'
  if (c.status === 'notified') {
    if (c.deadline === null) return `notified ${c.notified_at ?? ''} (no fixed deadline: without undue delay)`.replace('  ', ' ')
    const after = Math.round((Date.parse(c.notified_at ?? c.deadline) - Date.parse(c.deadline)) / 1000)
    return c.late ? `notified LATE, ${formatDuration(after).replace(/^overdue by /, '')} after the deadline` : `notified in time, ${formatDuration(-after)} before the deadline`
  }
  if (c.remaining_seconds === null) return 'no fixed deadline: without undue delay (Art. 33(2))'
  return c.remaining_seconds < 0 ? `${formatDuration(c.remaining_seconds)} (LATE)` : `${formatDuration(c.remaining_seconds)} left`
}

/**
 * A processor's deadline is its contract's (Art. 28(3)(f)) for a duty of Art. 33(2), "without undue
 * delay after becoming aware": the 72 hours and the reasons for delay of Art. 33(1) are the controller's.
 */
const PROCESSOR_OVERDUE = 'OVERDUE: past the contractual period for the notice to a controller (Art. 33(2): without undue delay after becoming aware; Art. 28(3)(f))'

export function renderClock(clock: ClockResult, tz: string): string {
  const processor = clock.basis === 'art33(2)-contract' || clock.basis === 'art33(2)-without-undue-delay'
  const lateText = processor
    ? 'LATE (after the contractual period; Art. 33(2): without undue delay after becoming aware; record the reasons so the controller can account for them)'
    : 'LATE (after the deadline: the reasons for the delay must accompany it, Art. 33(1))'
  const status = clock.status === 'notified' ? `NOTIFIED ${clock.late ? lateText : clock.deadline === null ? '' : '(in time)'}`.trim() : processor && clock.status === 'overdue' ? PROCESSOR_OVERDUE : LABEL[clock.status]
  if (clock.nothing_owed) {
    return [
      'Status:     NOTHING OWED: detection covered every ingested log file and found no response carrying another session\'s data, so no controller is affected by what the case holds and no notice is due (logs not ingested are not covered)',
      `Basis:      ${basisText(clock)}`,
      `Aware at:   ${clock.aware_at}  |  ${formatInZone(new Date(clock.aware_at), tz)}`,
      'Deadline:   none: no controller to notify',
      '',
      'Controllers (Art. 33(2)): none affected',
    ].join('\n')
  }
  const lines = [
    `Status:     ${status}`,
    `Basis:      ${basisText(clock)}`,
    `Aware at:   ${clock.aware_at}  |  ${formatInZone(new Date(clock.aware_at), tz)}`,
    clock.deadline === null
      ? 'Deadline:   none fixed: notify each controller without undue delay (Art. 33(2)); a contractual period: incident set --controller-deadline-hours N'
      : `Deadline:   ${clock.deadline}  |  ${formatInZone(new Date(clock.deadline), tz)}`,
    `Remaining:  ${clockSummary(clock)}${clock.deadline !== null && clock.status !== 'notified' ? `  (${clock.basis === 'art33(2)-contract' ? 'the contractual period' : '72 elapsed hours'} from awareness; weekends, holidays and DST do not move it)` : ''}`,
  ]
  // Unknown is said, never shown as "not late".
  if (clock.late === null) lines.push(`Late:       not known: ${clock.deadline === null ? 'no fixed deadline (without undue delay is judged, not counted)' : 'the deadline has passed and the controllers to notify are not known yet (crosstalk scan)'}`)
  if (clock.notified_at) lines.push(`Notified:   ${clock.notified_at}  |  ${formatInZone(new Date(clock.notified_at), tz)}`)
  if (clock.controllers) {
    const done = clock.controllers.filter((c) => c.notified_at !== null).length
    const late = clock.controllers.some((c) => c.late) ? ', some LATE' : ''
    // While detection does not cover the case more controllers may be found: their number is not known, never "N of N".
    if (clock.controllers_known === false) lines.push('', `Controllers (Art. 33(2)): ${done} notified; how many are to be notified is not known yet: ${clock.controllers_unknown_because === 'markers' ? 'marker-shaped tokens found in answers could not be attributed to any session, as the case holds no canary registry (crosstalk ingest canaries FILE; crosstalk scan)' : clock.controllers_unknown_because === 'boilerplate' ? `${clock.boilerplate_responses ?? 'some'} response${clock.boilerplate_responses === 1 ? ' was' : 's were'} set aside as boilerplate (text seen in several customers' sessions): not known to be free of another session's data, whose data ${clock.boilerplate_responses === 1 ? 'it carries' : 'they carry'} is not established (crosstalk provenance --boilerplate-tenants N to review)` : 'detection is incomplete (crosstalk scan)'}${late}`)
    else lines.push('', `Controllers (Art. 33(2)): ${done} of ${clock.controllers.length} notified${late}`)
    // controllers_known is true only where the last scan covers every ingested log file: then an
    // empty list is what detection found, said as such (it speaks for the logs ingested, no others).
    if (clock.controllers.length === 0 && clock.controllers_known !== false) lines.push('  none: detection covered every ingested log file and found no response carrying another session\'s data, so no controller is affected by what the case holds (logs not ingested are not covered)')
    // Controller ids cut in the middle (idNames): cut at the end, `...-cluster-01` notified and
    // `...-cluster-02` overdue printed alike.
    const controller = idNames([...clock.controllers, ...(clock.corrections_owed ?? [])].map((c) => safeId(c.tenant_id)), 40)
    const shown = (id: string) => padEndWidth(controller(safeId(id)), 40)
    for (const c of clock.controllers.slice(0, 50)) lines.push(`  ${shown(c.tenant_id)}  ${c.status.padEnd(9)} ${clockSummary(c)}`)
    if (clock.controllers.length > 50) lines.push(`  ... ${clock.controllers.length - 50} more (clock --json lists every one)`)
    // Notified of an exposure the case no longer shows: not affected now, owed a correction (as the register lists it).
    for (const c of (clock.corrections_owed ?? []).slice(0, 50)) lines.push(`  ${shown(c.tenant_id)}  correction owed: notified ${c.notified_at} of an exposure the case no longer shows (report processor-notice --tenant ID --phase follow-up)`)
  }
  return lines.join('\n')
}

function basisText(c: ClockResult): string {
  switch (c.basis) {
    case 'art33(2)-contract':
      return 'processor: notice to each controller within the contractual period (Art. 33(2), Art. 28(3)(f))'
    case 'art33(2)-without-undue-delay':
      return 'processor: notice to each controller without undue delay (Art. 33(2)); no contractual period recorded'
    default:
      return 'controller: notification to the supervisory authority within 72 hours of awareness (Art. 33(1))'
  }
}
