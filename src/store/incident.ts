import type {CaseDb} from './open-case.js'

// The incident (one per case) and the amendments of its awareness time.

/** The incident row as stored (aware_at_ms omitted). Column names are the only dynamic SQL here, and they come from the caller's fixed lists. */
export interface IncidentRow {
  title: string
  role: 'controller' | 'processor'
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
  // migration 003: the rest of the authorities' forms, the cause, delay reasons, the processor's deadline
  cause: string | null
  cause_category: 'internal-non-malicious' | 'internal-malicious' | 'external-non-malicious' | 'external-malicious' | 'unknown' | null
  reporting_person: string | null
  reporting_person_role: string | null
  sector: 'private' | 'public' | null
  organisation_size: 'micro' | 'sme' | 'large' | 'other' | null
  economic_activity: string | null
  eea_representative: string | null
  informed_by: string | null
  informed_at: string | null
  measures_before: string | null
  police_report: string | null
  other_authorities: string | null
  establishment_countries: string | null
  subjects_per_country: string | null
  authorities_notified: string | null
  delay_reason: string | null
  controller_deadline_hours: number | null
  // migration 010: cross-border processing [113], data unintelligible to its recipients [57]
  cross_border: 'yes' | 'no' | null
  data_unintelligible: 'protection-intact' | 'protection-likely-subvertible' | 'no' | 'cannot-assess' | null
  // migration 013: when the next update (a follow-up notice, Art. 33(4)) will be sent; absent in a row read before it
  next_update_at?: string | null
}

const COLUMN = /^[a-z_]+$/

function columnsOf(values: Record<string, string | number | null>): string[] {
  const names = Object.keys(values)
  for (const n of names) if (!COLUMN.test(n)) throw new Error(`incident: bad column name ${JSON.stringify(n)}`)
  return names
}

export function getIncidentRow(db: CaseDb): IncidentRow | null {
  const row = db.prepare('SELECT * FROM incident WHERE id = 1').get() as (IncidentRow & {id: number; aware_at_ms: number}) | undefined
  if (!row) return null
  const {id: _id, aware_at_ms: _ms, ...incident} = row
  return incident
}

export function insertIncidentRow(db: CaseDb, values: Record<string, string | number>): void {
  const names = columnsOf(values)
  db.prepare(`INSERT INTO incident (id, ${names.join(', ')}) VALUES (1, ${names.map((n) => `@${n}`).join(', ')})`).run(values)
}

export function updateIncidentRow(db: CaseDb, values: Record<string, string | number | null>, updatedAt: string): void {
  const names = columnsOf(values)
  db.prepare(`UPDATE incident SET ${names.map((n) => `${n} = @${n}`).join(', ')}, updated_at = @updated_at WHERE id = 1`).run({...values, updated_at: updatedAt})
}

export interface AmendmentRow {
  field: string
  old_value: string | null
  new_value: string | null
  reason: string
  amended_by: string | null
  at: string
}

/** Moves the awareness time and keeps the amendment, in one transaction. */
export function amendAwareAt(db: CaseDb, amendment: AmendmentRow, awareAt: Date): void {
  db.transaction(() => {
    db.prepare('INSERT INTO incident_amendments (field, old_value, new_value, reason, amended_by, at) VALUES (?, ?, ?, ?, ?, ?)').run(
      amendment.field, amendment.old_value, amendment.new_value, amendment.reason, amendment.amended_by, amendment.at,
    )
    db.prepare('UPDATE incident SET aware_at = ?, aware_at_ms = ?, updated_at = ? WHERE id = 1').run(awareAt.toISOString(), awareAt.getTime(), amendment.at)
  })()
}

/** Changes the incident's role (controller or processor) and keeps the change as an amendment, in one transaction. */
export function amendRole(db: CaseDb, amendment: AmendmentRow): void {
  db.transaction(() => {
    db.prepare('INSERT INTO incident_amendments (field, old_value, new_value, reason, amended_by, at) VALUES (?, ?, ?, ?, ?, ?)').run(
      amendment.field, amendment.old_value, amendment.new_value, amendment.reason, amendment.amended_by, amendment.at,
    )
    db.prepare('UPDATE incident SET role = ?, updated_at = ? WHERE id = 1').run(amendment.new_value, amendment.at)
  })()
}

export function listAmendmentRows(db: CaseDb): AmendmentRow[] {
  return db.prepare('SELECT field, old_value, new_value, reason, amended_by, at FROM incident_amendments ORDER BY id').all() as AmendmentRow[]
}

/** The awareness time as stored twice (text and milliseconds), and when the incident was opened. */
export function incidentAwareness(db: CaseDb): {aware_at: string; aware_at_ms: number; created_at: string} | null {
  return (db.prepare('SELECT aware_at, aware_at_ms, created_at FROM incident WHERE id = 1').get() as {aware_at: string; aware_at_ms: number; created_at: string} | undefined) ?? null
}
