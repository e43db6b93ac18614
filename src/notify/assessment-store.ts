import type {CaseDb} from '../store/open-case.js'
import {tableExists} from '../store/open-case.js'

export type Outcome = 'document' | 'notify' | 'notify-subjects'
export const OUTCOMES: readonly Outcome[] = ['document', 'notify', 'notify-subjects']

export interface AssessmentRecord {
  id: number
  at: string
  inputs: Record<string, unknown>
  dpc: number
  ei: number
  cb: number
  se: number
  band: string
  suggested: Outcome
  decision: Outcome
  rationale: string
  decided_by: string | null
}

export function insertAssessment(db: CaseDb, a: Omit<AssessmentRecord, 'id'>): AssessmentRecord {
  const info = db
    .prepare('INSERT INTO assessments (at, inputs, dpc, ei, cb, se, band, suggested, decision, rationale, decided_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
    .run(a.at, JSON.stringify(a.inputs), a.dpc, a.ei, a.cb, a.se, a.band, a.suggested, a.decision, a.rationale, a.decided_by)
  return {...a, id: Number(info.lastInsertRowid)}
}

/** The decision in force: the most recent one recorded. */
export function latestAssessment(db: CaseDb): AssessmentRecord | null {
  if (!tableExists(db, 'assessments')) return null
  const row = db.prepare('SELECT * FROM assessments ORDER BY id DESC LIMIT 1').get() as (Omit<AssessmentRecord, 'inputs'> & {inputs: string}) | undefined
  return row ? {...row, inputs: JSON.parse(row.inputs) as Record<string, unknown>} : null
}
