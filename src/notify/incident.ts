import {z} from 'zod'
import {InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {tableExists} from '../store/open-case.js'

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
] as const
export const INCIDENT_TIME_FIELDS = ['detected_at', 'investigation_started_at', 'breach_started_at', 'breach_ended_at'] as const

export type IncidentTextField = (typeof INCIDENT_TEXT_FIELDS)[number]
export type IncidentTimeField = (typeof INCIDENT_TIME_FIELDS)[number]

const text = z.string().trim().min(1).max(4000)
const time = z.date()

export const incidentPatchSchema = z
  .object({
    title: text.max(300),
    role: z.enum(ROLES),
    ...Object.fromEntries(INCIDENT_TEXT_FIELDS.map((f) => [f, text])),
    ...Object.fromEntries(INCIDENT_TIME_FIELDS.map((f) => [f, time])),
  })
  .partial()
  .strict()

export type IncidentPatch = Partial<{title: string; role: Role} & Record<IncidentTextField, string> & Record<IncidentTimeField, Date>>

export interface IncidentRecord {
  title: string
  role: Role
  aware_at: string
  awareness_basis: string | null
  awareness_decided_by: string | null
  detected_at: string | null
  investigation_started_at: string | null
  breach_started_at: string | null
  breach_ended_at: string | null
  discovery: string | null
  controller_name: string | null
  controller_contact: string | null
  processor_name: string | null
  dpo_name: string | null
  dpo_contact: string | null
  lead_authority: string | null
  countries: string | null
  systems: string | null
  measures_taken: string | null
  measures_proposed: string | null
  internal_reference: string | null
  created_at: string
  updated_at: string
}

export interface AwarenessAmendment {
  field: string
  old_value: string | null
  new_value: string | null
  reason: string
  amended_by: string | null
  at: string
}

/** `crosstalk incident show --json` */
export interface IncidentShowResult {
  incident: IncidentRecord
  amendments: AwarenessAmendment[]
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

function toColumns(patch: IncidentPatch): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue
    out[key] = value instanceof Date ? value.toISOString() : String(value)
  }
  return out
}

export function getIncident(db: CaseDb): IncidentRecord | null {
  if (!tableExists(db, 'incident')) return null
  const row = db.prepare('SELECT * FROM incident WHERE id = 1').get() as (IncidentRecord & {id: number; aware_at_ms: number}) | undefined
  if (!row) return null
  const {id: _id, aware_at_ms: _ms, ...incident} = row
  return incident
}

export function requireIncident(db: CaseDb): IncidentRecord {
  const incident = getIncident(db)
  if (!incident) throw new InputError('no incident in this case yet: run `crosstalk incident open --title ... --aware-at ISO --role controller|processor`', 'E_NO_INCIDENT')
  return incident
}

export function openIncident(db: CaseDb, options: OpenIncidentOptions): IncidentRecord {
  if (getIncident(db)) throw new InputError('this case already has an incident; change it with `crosstalk incident set`', 'E_INCIDENT_EXISTS')
  const patch = validate({...options.fields, title: options.title, role: options.role})
  const columns = {
    ...toColumns(patch),
    aware_at: options.awareAt.toISOString(),
    aware_at_ms: String(options.awareAt.getTime()),
    created_at: options.now.toISOString(),
    updated_at: options.now.toISOString(),
  }
  const names = Object.keys(columns)
  db.prepare(`INSERT INTO incident (id, ${names.join(', ')}) VALUES (1, ${names.map((n) => `@${n}`).join(', ')})`).run({
    ...columns,
    aware_at_ms: options.awareAt.getTime(),
  })
  return requireIncident(db)
}

export function updateIncident(db: CaseDb, patch: IncidentPatch, now: Date): IncidentRecord {
  requireIncident(db)
  const columns = toColumns(validate(patch))
  const names = Object.keys(columns)
  if (names.length === 0) throw new InputError('incident set: nothing to change (give at least one field flag)')
  db.prepare(`UPDATE incident SET ${names.map((n) => `${n} = @${n}`).join(', ')}, updated_at = @updated_at WHERE id = 1`).run({
    ...columns,
    updated_at: now.toISOString(),
  })
  return requireIncident(db)
}

export interface AmendAwarenessOptions {
  awareAt: Date
  reason: string
  amendedBy?: string
  now: Date
}

/** The only way the awareness time changes: kept with the old value, the reason and who. */
export function amendAwareness(db: CaseDb, options: AmendAwarenessOptions): IncidentRecord {
  const reason = options.reason.trim()
  if (!reason) throw new InputError('amend-awareness: --reason must say why the awareness time changes')
  return db.transaction(() => {
    const before = requireIncident(db)
    db.prepare('INSERT INTO incident_amendments (field, old_value, new_value, reason, amended_by, at) VALUES (?, ?, ?, ?, ?, ?)').run(
      'aware_at',
      before.aware_at,
      options.awareAt.toISOString(),
      reason,
      options.amendedBy ?? null,
      options.now.toISOString(),
    )
    db.prepare('UPDATE incident SET aware_at = ?, aware_at_ms = ?, updated_at = ? WHERE id = 1').run(
      options.awareAt.toISOString(),
      options.awareAt.getTime(),
      options.now.toISOString(),
    )
    return requireIncident(db)
  })()
}

export function listAmendments(db: CaseDb): AwarenessAmendment[] {
  if (!tableExists(db, 'incident_amendments')) return []
  return db.prepare('SELECT field, old_value, new_value, reason, amended_by, at FROM incident_amendments ORDER BY id').all() as AwarenessAmendment[]
}
