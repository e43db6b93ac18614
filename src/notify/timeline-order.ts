// Times the incident record holds that cannot all be right: nobody detects, investigates or
// becomes aware of a breach before it has begun. A breach ending before it starts is refused when
// recorded (incident.ts); these are recorded as given (the start is the likely error: logs often
// show the first affected answer only later), but no draft states both as established: each shows
// the pair as an open item, and the commands that record or show the incident warn.

/** The references of the open items these raise in the Article 33 draft: its form fields find them by these. */
export const AWARE_BEFORE_START = 'Art. 33(3)(a); EDPB template 46, 48'
export const DETECTED_BEFORE_START = 'Art. 33(3)(a); EDPB template 46, 50-53'

export function timelineOrderRef(field: BeforeStartField): string {
  return field === 'aware_at' ? AWARE_BEFORE_START : DETECTED_BEFORE_START
}

export type BeforeStartField = 'aware_at' | 'detected_at' | 'investigation_started_at'

export interface BeforeStart {
  field: BeforeStartField
  /** the recorded time that precedes the start */
  at: string
  /** the recorded start of the breach */
  start: string
}

const FIELDS: readonly BeforeStartField[] = ['aware_at', 'detected_at', 'investigation_started_at']

/** Each recorded awareness, detection or investigation time earlier than the recorded breach start. */
export function timesBeforeBreachStart(times: Partial<Record<BeforeStartField | 'breach_started_at', string | null | undefined>> | null | undefined): BeforeStart[] {
  const start = times?.breach_started_at
  if (!times || !start) return []
  const out: BeforeStart[] = []
  for (const field of FIELDS) {
    const at = times[field]
    if (at && Date.parse(at) < Date.parse(start)) out.push({field, at, start})
  }
  return out
}

const NAMES: Record<BeforeStartField, string> = {aware_at: 'awareness', detected_at: 'detection (first alert)', investigation_started_at: 'start of the investigation'}
const FLAGS: Record<BeforeStartField, string> = {aware_at: 'incident amend-awareness --aware-at ISO --reason ...', detected_at: 'incident set --detected-at ISO', investigation_started_at: 'incident set --investigation-started-at ISO'}

/** The command an open item names to settle it. */
export function timelineOrderRemedy(p: BeforeStart): string {
  return `crosstalk incident set --breach-started-at ISO; crosstalk ${FLAGS[p.field]}`
}

/** What a command recording or showing the incident prints (stderr) for each. */
export function timelineOrderWarnings(times: Parameters<typeof timesBeforeBreachStart>[0]): string[] {
  return timesBeforeBreachStart(times).map(
    (p) => `warning: the recorded ${NAMES[p.field]} ${p.at} precedes the recorded start of the breach ${p.start}: one of them is wrong (check both); the drafts show this as an open item until it is corrected (${timelineOrderRemedy(p)})`,
  )
}
