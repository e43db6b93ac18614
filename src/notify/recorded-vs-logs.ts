import {scopeFiguresKnown} from '../scope/unscanned.js'
import {computeScope} from '../scope/compute-scope.js'
import {exposureRows} from '../scope/exposure.js'
import {loadScopeInputs, timeIsFact, type ScopeInputs} from '../scope/scope-data.js'
import type {CaseDb} from '../store/open-case.js'

// Facts a responder records (the breach window, the data subjects per country) that the logs can
// contradict. A recorded fact stays as recorded, but where the logs show it cannot be right (a leaked
// answer before the recorded start or after the recorded end; fewer data subjects across the
// countries than the sessions the logs show affected) every draft shows the contradiction as an
// open item, and the command that records it warns.

/** The references of the open items these contradictions raise in the Article 33 draft: its form fields find them by these. */
export const WINDOW_START_CONTRADICTED = 'Art. 33(3)(a); EDPB template 46'
export const WINDOW_END_CONTRADICTED = 'Art. 33(3)(a); EDPB template 47'
export const PER_COUNTRY_BELOW = 'Art. 33(3)(a); EDPB template 117'

export interface WindowContradiction {
  bound: 'start' | 'end'
  /** the recorded bound */
  recorded: string
  /** the first (start) or last (end) affected response in the logs */
  logs: string
}

/** The affected responses in the logs that fall outside the recorded breach window, by bound. */
export function breachWindowContradictions(
  recorded: {breach_started_at: string | null; breach_ended_at: string | null} | null,
  logs: {first: string | null; last: string | null} | null,
): WindowContradiction[] {
  if (!recorded || !logs) return []
  const out: WindowContradiction[] = []
  if (recorded.breach_started_at && logs.first && Date.parse(logs.first) < Date.parse(recorded.breach_started_at)) out.push({bound: 'start', recorded: recorded.breach_started_at, logs: logs.first})
  if (recorded.breach_ended_at && logs.last && Date.parse(logs.last) > Date.parse(recorded.breach_ended_at)) out.push({bound: 'end', recorded: recorded.breach_ended_at, logs: logs.last})
  return out
}

/**
 * The total of a recorded "data subjects per country" ("FR 12; DE 3", "IE: 40, FR: 2"): the sum of
 * one whole number per entry; null where an entry gives none or several (it cannot be added up).
 */
export function perCountryTotal(text: string | null | undefined): number | null {
  if (!text || !text.trim()) return null
  const entries = text.split(/[;,\n]/).map((e) => e.trim()).filter(Boolean)
  let total = 0
  for (const e of entries) {
    const numbers = e.match(/\d+/g)
    if (!numbers || numbers.length !== 1) return null
    total += Number(numbers[0])
  }
  return entries.length > 0 ? total : null
}

/** A per-country total below the lower bound of data subjects the logs show; null where it is not (or cannot be added up). */
export function perCountryShortfall(text: string | null | undefined, low: number | null | undefined): {total: number; low: number} | null {
  const total = perCountryTotal(text)
  return total !== null && low !== null && low !== undefined && total < low ? {total, low} : null
}

/** First and last affected response of the whole case (canary or verbatim text); null where there is none. */
export function exposureWindow(inputs: Pick<ScopeInputs, 'contamination' | 'provenance'>): {first: string; last: string} | null {
  let first = Infinity
  let last = -Infinity
  for (const r of exposureRows(inputs)) {
    // A time after the file's ingest or before the marker was issued is no fact (scope-data.ts timeIsFact).
    if (!timeIsFact(r)) continue
    if (r.ts_ms < first) first = r.ts_ms
    if (r.ts_ms > last) last = r.ts_ms
  }
  return first === Infinity ? null : {first: new Date(first).toISOString(), last: new Date(last).toISOString()}
}

/**
 * The warnings a command that records these facts prints: only where detection's figures are known
 * (scope's rule); a case not yet scanned contradicts nothing yet, and the drafts say so themselves.
 */
export function recordedFactWarnings(db: CaseDb, incident: {breach_started_at: string | null; breach_ended_at: string | null; subjects_per_country: string | null}): string[] {
  const inputs = loadScopeInputs(db)
  if (!scopeFiguresKnown(inputs.detection)) return []
  const out: string[] = []
  for (const c of breachWindowContradictions(incident, exposureWindow(inputs))) {
    out.push(
      c.bound === 'start'
        ? `warning: the recorded breach start ${c.recorded} is after the first affected response in the logs (${c.logs}): the drafts show this as an open item until the start is corrected (incident set --breach-started-at ISO)`
        : `warning: the recorded breach end ${c.recorded} is before the last affected response in the logs (${c.logs}): the drafts show this as an open item until the end is corrected (incident set --breach-ended-at ISO)`,
    )
  }
  if (incident.subjects_per_country) {
    const short = perCountryShortfall(incident.subjects_per_country, computeScope(inputs).data_subjects.low)
    if (short) out.push(`warning: the data subjects per country recorded add up to ${short.total}, below the at least ${short.low} data subjects the logs show: the drafts flag the figure until it is corrected (incident set --subjects-per-country ...)`)
  }
  return out
}
