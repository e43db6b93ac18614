import {insertAssessmentRow, latestAssessmentRow} from '../store/assessments.js'
import type {CaseDb} from '../store/open-case.js'

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
  const id = insertAssessmentRow(db, {...a, inputs: JSON.stringify(a.inputs)})
  return {...a, id}
}

/** The decision in force: the most recent one recorded. */
export function latestAssessment(db: CaseDb): AssessmentRecord | null {
  const row = latestAssessmentRow(db)
  return row ? {...row, inputs: JSON.parse(row.inputs) as Record<string, unknown>} : null
}
