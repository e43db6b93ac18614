import {z} from 'zod'
import {InputError} from '../errors.js'
import {quoted} from '../util/sanitize.js'
import {recipientInMessage} from './recipients.js'
import {listNotificationRows} from '../store/notifications.js'
import {amendAwareAt, amendRole, getIncidentRow, insertIncidentRow, listAmendmentRows, updateIncidentRow, type AmendmentRow, type IncidentRow} from '../store/incident.js'
import type {CaseDb} from '../store/open-case.js'

// The incident record. EDPB Guidelines 9/2022 separate detection (first alert), the start
// of a short investigation, and awareness ("a reasonable degree of certainty"), which
// starts the 72 hours; all three are kept, with who decided awareness and why. At hour
// one nobody knows everything: every field but title, role and awareness is optional and
// a draft lists what is missing as open items instead of refusing.

export const ROLES = ['controller', 'processor'] as const
export type Role = (typeof ROLES)[number]

/** Optional fields settable by `incident open` and `incident set` (never aware_at). */
export const INCIDENT_TEXT_FIELDS = [
  'awareness_basis',
  'awareness_decided_by',
  'discovery',
  'controller_name',
  'controller_contact',
  'processor_name',
  'dpo_name',
  'dpo_contact',
  'lead_authority',
  'countries',
  'systems',
  'measures_taken',
  'measures_proposed',
  'internal_reference',
  'cause',
  'reporting_person',
  'reporting_person_role',
  'economic_activity',
  'eea_representative',
  'informed_by',
  'measures_before',
  'police_report',
  'other_authorities',
  'establishment_countries',
  'subjects_per_country',
  'authorities_notified',
  'delay_reason',
] as const
export const INCIDENT_TIME_FIELDS = ['detected_at', 'investigation_started_at', 'breach_started_at', 'breach_ended_at', 'informed_at'] as const
/** Fields with a fixed set of values (EDPB common template rows 61, 14, 15-16, 113, 57). */
export const INCIDENT_CHOICE_FIELDS = {
  cause_category: ['internal-non-malicious', 'internal-malicious', 'external-non-malicious', 'external-malicious', 'unknown'],
  sector: ['private', 'public'],
  organisation_size: ['micro', 'sme', 'large', 'other'],
  cross_border: ['yes', 'no'],
  data_unintelligible: ['protection-intact', 'protection-likely-subvertible', 'no', 'cannot-assess'],
} as const
export const INCIDENT_INTEGER_FIELDS = ['controller_deadline_hours'] as const
/** A time still to come: when the next update will be sent (Art. 33(4)); flag --next-update. */
export const NEXT_UPDATE_FIELD = 'next_update_at'

export type IncidentTextField = (typeof INCIDENT_TEXT_FIELDS)[number]
export type IncidentTimeField = (typeof INCIDENT_TIME_FIELDS)[number]
export type IncidentChoiceField = keyof typeof INCIDENT_CHOICE_FIELDS
export type IncidentIntegerField = (typeof INCIDENT_INTEGER_FIELDS)[number]

/** Whether a recorded text says anything: the documents read ";" and line breaks as item separators (statements.ts splitList), so a value of nothing else records nothing. */
export function hasText(value: string): boolean {
  return value.split(/;|\n/).some((s) => s.trim() !== '')
}

const text = z.string().trim().min(1).max(4000).refine(hasText, 'holds nothing but white space and the item separator ";"')
const time = z.date()

export const incidentPatchSchema = z
  .object({
    title: text.max(300),
    role: z.enum(ROLES),
    ...Object.fromEntries(INCIDENT_TEXT_FIELDS.map((f) => [f, text])),
    ...Object.fromEntries(INCIDENT_TIME_FIELDS.map((f) => [f, time])),
    cause_category: z.enum(INCIDENT_CHOICE_FIELDS.cause_category),
    sector: z.enum(INCIDENT_CHOICE_FIELDS.sector),
    organisation_size: z.enum(INCIDENT_CHOICE_FIELDS.organisation_size),
    cross_border: z.enum(INCIDENT_CHOICE_FIELDS.cross_border),
    data_unintelligible: z.enum(INCIDENT_CHOICE_FIELDS.data_unintelligible),
    // Art. 33(2) sets no number; contracts commonly say 24 or 48 hours. A week is the sane upper end.
    controller_deadline_hours: z.number().int().min(1).max(168),
    next_update_at: time,
  })
  .partial()
  .strict()

export type IncidentPatch = Partial<
  {title: string; role: Role} & Record<IncidentTextField, string> & Record<IncidentTimeField, Date> & {[K in IncidentChoiceField]: (typeof INCIDENT_CHOICE_FIELDS)[K][number]} & Record<IncidentIntegerField, number> & {next_update_at: Date}
>

export type IncidentRecord = IncidentRow

export type AwarenessAmendment = AmendmentRow

/** `crosstalk incident show --json` */
export interface IncidentShowResult {
  incident: IncidentRecord
  /** the awareness time's amendments (field `aware_at`) */
  amendments: AwarenessAmendment[]
  /** each change of the role (field `role`: the old and new role, the reason and who) */
  role_changes: AwarenessAmendment[]
}

export interface OpenIncidentOptions {
  title: string
  role: Role
  awareAt: Date
  fields?: IncidentPatch
  now: Date
}

function validate(patch: IncidentPatch): IncidentPatch {
  const parsed = incidentPatchSchema.safeParse(patch)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new InputError(`incident: ${issue?.path.join('.') ?? 'value'}: ${issue?.message ?? 'invalid'}`)
  }
  return parsed.data as IncidentPatch
}

function toColumns(patch: IncidentPatch): Record<string, string | number> {
  const out: Record<string, string | number> = {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue
    out[key] = value instanceof Date ? value.toISOString() : typeof value === 'number' ? value : String(value)
  }
  return out
}

/** A few minutes for clocks that disagree (notify record allows the same). */
const FUTURE_TOLERANCE_MS = 5 * 60_000

/**
 * Times no draft can state: one after `now` (a breach, a detection or an awareness that has not
 * happened yet), or a breach that ends before it starts. `times` is the incident as it would be
 * stored (ISO strings); `what` names the command in the message.
 */
function checkIncidentTimes(what: string, times: Partial<Record<IncidentTimeField | 'aware_at' | 'next_update_at', string | null>>, now: Date): void {
  for (const [field, value] of Object.entries(times)) {
    if (!value || field === NEXT_UPDATE_FIELD) continue
    if (Date.parse(value) > now.getTime() + FUTURE_TOLERANCE_MS) {
      throw new InputError(`${what}: --${field.replace(/_/g, '-')} ${value} is in the future (now ${now.toISOString()}): record a time once it has happened`)
    }
  }
  // A promise of a next update is of a time to come: one already past when it is recorded is a typo or stale.
  const next = times.next_update_at
  if (next && Date.parse(next) < now.getTime() - FUTURE_TOLERANCE_MS) {
    throw new InputError(`${what}: --next-update ${next} is in the past (now ${now.toISOString()}): give when the next update will be sent`)
  }
  const start = times.breach_started_at
  const end = times.breach_ended_at
  if (start && end && Date.parse(end) < Date.parse(start)) {
    throw new InputError(`${what}: --breach-ended-at ${end} is before --breach-started-at ${start}: a breach cannot end before it starts`)
  }
}

/** The incident's times as stored, with a patch's over them. */
function timesOf(record: Partial<IncidentRecord>, patch: IncidentPatch): Partial<Record<IncidentTimeField | 'aware_at' | 'next_update_at', string | null>> {
  const out: Partial<Record<IncidentTimeField | 'aware_at' | 'next_update_at', string | null>> = {aware_at: record.aware_at ?? null}
  for (const f of INCIDENT_TIME_FIELDS) out[f] = patch[f] ? patch[f]!.toISOString() : (record[f] ?? null)
  // Only a new next-update date is checked against now: one recorded earlier may since have passed.
  if (patch.next_update_at) out.next_update_at = patch.next_update_at.toISOString()
  return out
}

export function getIncident(db: CaseDb): IncidentRecord | null {
  return getIncidentRow(db)
}

export function requireIncident(db: CaseDb): IncidentRecord {
  const incident = getIncident(db)
  if (!incident) throw new InputError('no incident in this case yet: run `crosstalk incident open --title ... --aware-at ISO --role controller|processor`', 'E_NO_INCIDENT')
  return incident
}

export function openIncident(db: CaseDb, options: OpenIncidentOptions): IncidentRecord {
  if (getIncident(db)) throw new InputError('this case already has an incident; change it with `crosstalk incident set`', 'E_INCIDENT_EXISTS')
  const patch = validate({...options.fields, title: options.title, role: options.role})
  checkIncidentTimes('incident open', timesOf({aware_at: options.awareAt.toISOString()}, patch), options.now)
  insertIncidentRow(db, {
    ...toColumns(patch),
    aware_at: options.awareAt.toISOString(),
    aware_at_ms: options.awareAt.getTime(),
    created_at: options.now.toISOString(),
    updated_at: options.now.toISOString(),
  })
  return requireIncident(db)
}

/** The fields `incident set --clear` withdraws (back to not recorded: every draft shows each as an open item again). The title, role and awareness time are not among them: they are never unknown. */
export const INCIDENT_CLEARABLE_FIELDS = [...INCIDENT_TEXT_FIELDS, ...INCIDENT_TIME_FIELDS, ...(Object.keys(INCIDENT_CHOICE_FIELDS) as IncidentChoiceField[]), ...INCIDENT_INTEGER_FIELDS, NEXT_UPDATE_FIELD] as const
export type IncidentClearableField = (typeof INCIDENT_CLEARABLE_FIELDS)[number]

export function updateIncident(db: CaseDb, patch: IncidentPatch, now: Date, clear: readonly IncidentClearableField[] = []): IncidentRecord {
  const before = requireIncident(db)
  const valid = validate(patch)
  const both = clear.filter((f) => f in valid)
  if (both.length > 0) throw new InputError(`incident set: ${both.map((f) => `--${f.replace(/_/g, '-')}`).join(', ')} both set and cleared: give one`)
  const unknown = clear.filter((f) => !(INCIDENT_CLEARABLE_FIELDS as readonly string[]).includes(f))
  if (unknown.length > 0) throw new InputError(`incident set: --clear ${unknown[0]}: not a field that can be cleared`)
  const afterClear = {...before, ...Object.fromEntries(clear.map((f) => [f, null]))}
  checkIncidentTimes('incident set', timesOf(afterClear, valid), now)
  const columns: Record<string, string | number | null> = {...toColumns(valid), ...Object.fromEntries(clear.map((f) => [f, null]))}
  if (Object.keys(columns).length === 0) throw new InputError('incident set: nothing to change (give at least one field flag)')
  updateIncidentRow(db, columns, now.toISOString())
  return requireIncident(db)
}

export interface AmendAwarenessOptions {
  awareAt: Date
  reason: string
  amendedBy?: string
  now: Date
  /** the command named in a refusal (default amend-awareness) */
  command?: string
}

/** The only way the awareness time changes: kept with the old value, the reason and who. */
export function amendAwareness(db: CaseDb, options: AmendAwarenessOptions): IncidentRecord {
  const reason = options.reason.trim()
  if (!reason) throw new InputError('amend-awareness: --reason must say why the awareness time changes')
  const before = requireIncident(db)
  const what = options.command ?? 'amend-awareness'
  checkIncidentTimes(what, {aware_at: options.awareAt.toISOString()}, options.now)
  // A notification already sent shows awareness by then at the latest: the awareness time cannot move after it.
  const sent = listNotificationRows(db).filter((n) => Date.parse(n.at) < options.awareAt.getTime()).sort((a, b) => Date.parse(a.at) - Date.parse(b.at))[0]
  if (sent) {
    throw new InputError(
      `${what}: --aware-at ${options.awareAt.toISOString()} is after the notification recorded at ${sent.at} (to ${recipientInMessage(sent)}, reference ${quoted(sent.reference.slice(0, 80))}): whoever notified was aware by then; an awareness time after it cannot be right`,
    )
  }
  amendAwareAt(db, {field: 'aware_at', old_value: before.aware_at, new_value: options.awareAt.toISOString(), reason, amended_by: options.amendedBy ?? null, at: options.now.toISOString()}, options.awareAt)
  return requireIncident(db)
}

export interface ChangeRoleOptions {
  role: Role
  reason: string
  amendedBy?: string
  now: Date
}

/**
 * The role decides the duty and its clock (a controller's 72 hours to the authority, Art. 33(1); a
 * processor's notice to each controller, Art. 33(2)), so it changes only with a reason, kept as an
 * amendment beside the awareness time's.
 */
export function changeRole(db: CaseDb, options: ChangeRoleOptions): IncidentRecord {
  const reason = options.reason.trim()
  if (!reason) throw new InputError('incident set: --reason must say why the role changes')
  const role = validate({role: options.role}).role!
  const before = requireIncident(db)
  if (before.role === role) throw new InputError(`incident set: the incident's role is already ${role}`)
  amendRole(db, {field: 'role', old_value: before.role, new_value: role, reason, amended_by: options.amendedBy ?? null, at: options.now.toISOString()})
  return requireIncident(db)
}

/** The amendments of the awareness time, oldest first. */
export function listAmendments(db: CaseDb): AwarenessAmendment[] {
  return listAmendmentRows(db).filter((a) => a.field === 'aware_at')
}

/** The changes of the incident's role, oldest first. */
export function listRoleChanges(db: CaseDb): AwarenessAmendment[] {
  return listAmendmentRows(db).filter((a) => a.field === 'role')
}
