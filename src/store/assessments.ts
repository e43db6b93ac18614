import type {CaseDb} from './open-case.js'

// Each risk assessment with the human decision taken on it.

export interface AssessmentRow {
  id: number
  at: string
  /** JSON */
  inputs: string
  dpc: number
  ei: number
  cb: number
  se: number
  band: string
  suggested: 'document' | 'notify' | 'notify-subjects'
  decision: 'document' | 'notify' | 'notify-subjects'
  rationale: string
  decided_by: string | null
}

export function insertAssessmentRow(db: CaseDb, a: Omit<AssessmentRow, 'id'>): number {
  return Number(
    db
      .prepare('INSERT INTO assessments (at, inputs, dpc, ei, cb, se, band, suggested, decision, rationale, decided_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(a.at, a.inputs, a.dpc, a.ei, a.cb, a.se, a.band, a.suggested, a.decision, a.rationale, a.decided_by).lastInsertRowid,
  )
}

/** The decision in force: the most recent one recorded. */
export function latestAssessmentRow(db: CaseDb): AssessmentRow | null {
  return (db.prepare('SELECT * FROM assessments ORDER BY id DESC LIMIT 1').get() as AssessmentRow | undefined) ?? null
}

export function listAssessmentRows(db: CaseDb): AssessmentRow[] {
  return db.prepare('SELECT * FROM assessments ORDER BY id').all() as AssessmentRow[]
}
