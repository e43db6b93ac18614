import {contaminationRows} from '../store/findings.js'
import type {CaseDb} from '../store/open-case.js'
import {canaryFigures, type CanaryFigures} from './compute-scope.js'

/**
 * The canary verdict of a case whose markers are classified: scope's canary figures, computed
 * by the same function from the same rows, so that the verdict triage prints first is the
 * one its scope prints last. Provenance, personal data and the at-risk count never change it.
 */
export function canaryVerdict(db: CaseDb): CanaryFigures {
  return canaryFigures(contaminationRows(db))
}
