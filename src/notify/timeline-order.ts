// Times the incident record holds that cannot all be right: nobody detects, investigates or
// becomes aware of a breach before it has begun, and nobody becomes aware of it or starts
// investigating it before its first alert (the detection is the first sign of it). A breach ending
// before it starts is refused when recorded (incident.ts); these are recorded as given (the start is
// the likely error: logs often show the first affected answer only later), but no draft states both
// as established: each shows the pair as an open item, and the commands that record or show the
// incident warn.

/** The references of the open items these raise in the Article 33 draft: its form fields find them by these. */
export const AWARE_BEFORE_START = 'Art. 33(3)(a); EDPB template 46, 48'
export const DETECTED_BEFORE_START = 'Art. 33(3)(a); EDPB template 46, 50-53'
export const AWARE_BEFORE_DETECTION = 'Art. 33(3)(a); EDPB template 48, 50-53'
export const INVESTIGATION_BEFORE_DETECTION = 'Art. 33(3)(a); EDPB template 50-53'

export type OrderField = 'aware_at' | 'detected_at' | 'investigation_started_at'
/** The recorded time a field must not precede. */
export type OrderReference = 'breach_started_at' | 'detected_at'

export interface OutOfOrder {
  field: OrderField
  /** the recorded time that precedes the reference */
  at: string
  reference: OrderReference
  /** the recorded time of the reference */
  referenceAt: string
}

export function timelineOrderRef(p: Pick<OutOfOrder, 'field' | 'reference'>): string {
  if (p.reference === 'detected_at') return p.field === 'aware_at' ? AWARE_BEFORE_DETECTION : INVESTIGATION_BEFORE_DETECTION
  return p.field === 'aware_at' ? AWARE_BEFORE_START : DETECTED_BEFORE_START
}

/** Each pair (field, the time it must not precede), in the order the checks are listed. */
const PAIRS: ReadonlyArray<readonly [OrderField, OrderReference]> = [
  ['aware_at', 'breach_started_at'],
  ['detected_at', 'breach_started_at'],
  ['investigation_started_at', 'breach_started_at'],
  ['aware_at', 'detected_at'],
  ['investigation_started_at', 'detected_at'],
]

export type RecordedTimes = Partial<Record<OrderField | 'breach_started_at', string | null | undefined>> | null | undefined

/** Each recorded time earlier than a recorded time it must follow: the breach start, or the detection (first alert). */
export function timesOutOfOrder(times: RecordedTimes): OutOfOrder[] {
  if (!times) return []
  const out: OutOfOrder[] = []
  for (const [field, reference] of PAIRS) {
    const at = times[field]
    const referenceAt = times[reference]
    if (at && referenceAt && Date.parse(at) < Date.parse(referenceAt)) out.push({field, at, reference, referenceAt})
  }
  return out
}

/** Only those that precede the recorded breach start (what a letter giving the start must not state). */
export function timesBeforeBreachStart(times: RecordedTimes): OutOfOrder[] {
  return timesOutOfOrder(times).filter((p) => p.reference === 'breach_started_at')
}

const NAMES: Record<OrderField, string> = {aware_at: 'awareness', detected_at: 'detection (first alert)', investigation_started_at: 'start of the investigation'}
const REFERENCE_NAMES: Record<OrderReference, string> = {breach_started_at: 'start of the breach', detected_at: 'detection (first alert)'}
const FLAGS: Record<OrderField, string> = {aware_at: 'incident amend-awareness --aware-at ISO --reason ...', detected_at: 'incident set --detected-at ISO', investigation_started_at: 'incident set --investigation-started-at ISO'}
const REFERENCE_FLAGS: Record<OrderReference, string> = {breach_started_at: 'incident set --breach-started-at ISO', detected_at: 'incident set --detected-at ISO'}

/** The command an open item names to settle it. */
export function timelineOrderRemedy(p: Pick<OutOfOrder, 'field' | 'reference'>): string {
  return `crosstalk ${REFERENCE_FLAGS[p.reference]}; crosstalk ${FLAGS[p.field]}`
}

/** What a command recording or showing the incident prints (stderr) for each. */
export function timelineOrderWarnings(times: RecordedTimes): string[] {
  return timesOutOfOrder(times).map(
    (p) => `warning: the recorded ${NAMES[p.field]} ${p.at} precedes the recorded ${REFERENCE_NAMES[p.reference]} ${p.referenceAt}: one of them is wrong (check both); the drafts show this as an open item until it is corrected (${timelineOrderRemedy(p)})`,
  )
}
