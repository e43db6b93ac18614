import {Flags} from '@oclif/core'
import {examineConflictingDuplicates, type ConflictingDuplicate} from '../detect/conflicting-duplicates.js'
import {grownMessage, judgeGate, textLeakLine, type GateInput, type GateVerdict} from '../detect/gate.js'
import type {TextLeakCounts} from '../store/findings.js'
import {GateTripped, InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {safeLine, quoted} from '../util/sanitize.js'

// The --fail-on-leak gate of scan and triage, once: contamination found sets exit 3 (the
// result is still printed, --json included); evidence it could not judge exits 1, or is noted
// beside a gate that tripped already.

export const leakGateFlags = {
  'fail-on-leak': Flags.boolean({
    description: 'Exit 3 when any cross_session or cross_tenant sighting exists, when provenance found a response repeating another session\'s text verbatim (with or without a canary registry; not with --no-provenance), or a line repeating an earlier request_id with a different answer carries another session\'s marker; exit 1 when a log file could not be judged (not read whole, answers that decoded to no text, or quarantined lines), when a directory walk reached an entry it could not read (triage), when a log source an earlier ingest into the case could not read is still open (crosstalk status lists them; crosstalk ingest dismiss settles one), when a log file in the case grew since it was ingested (the bytes added were never judged), or when no log record was judged at all.',
  }),
  'accept-bad-lines': Flags.boolean({
    description: 'Let --fail-on-leak pass over quarantined lines (they are never judged; list them with status --bad-lines).',
    dependsOn: ['fail-on-leak'],
  }),
}

export function applyLeakGate(db: CaseDb, result: GateInput, flags: LeakGateFlags, note: (line: string) => void): void {
  enforceLeakGate(decideLeakGate(db, result, flags, note))
}

type LeakGateFlags = {'fail-on-leak'?: boolean; 'accept-bad-lines'?: boolean}

/** The gate's decision, its lines noted now; null without --fail-on-leak. enforceLeakGate acts on it. */
export function decideLeakGate(db: CaseDb, result: GateInput, flags: LeakGateFlags, note: (line: string) => void): GateVerdict | null {
  if (!flags['fail-on-leak']) return null
  const verdict = bothVerdicts(judgeGate(db, result, {acceptBadLines: flags['accept-bad-lines'] ?? false}), duplicatesVerdict(db))
  // The lines quote paths from directory walks and the case: controls made visible, never sent to the terminal.
  if (verdict.tripped) note(`Gate: ${safeLine(new GateTripped(verdict.tripped).message)}`)
  if (verdict.tripped && verdict.cannotPass) note(`Gate: also: ${safeLine(verdict.cannotPass)}`)
  return verdict
}

/**
 * The gate over the lines ingest kept as duplicates but that differ from the line their record
 * was read from (conflicting-duplicates.ts): triage decides its gate at a quick verdict given
 * before ingest, and adds this once the lines are in the case. Null without --fail-on-leak.
 */
export function decideDuplicatesGate(db: CaseDb, flags: LeakGateFlags, note: (line: string) => void): GateVerdict | null {
  if (!flags['fail-on-leak']) return null
  const verdict = duplicatesVerdict(db)
  if (verdict.tripped) note(`Gate: ${safeLine(new GateTripped(verdict.tripped).message)}`)
  else if (verdict.cannotPass) note(`Gate: ${safeLine(verdict.cannotPass)}`)
  return verdict
}

function duplicatesVerdict(db: CaseDb): GateVerdict {
  const d = examineConflictingDuplicates(db)
  const where = (xs: readonly ConflictingDuplicate[]): string =>
    xs.slice(0, 5).map((x) => `${x.path}:${x.line_no} (request_id ${quoted(x.request_id.slice(0, 80))})`).join(', ') + (xs.length > 5 ? ', and more' : '')
  return {
    tripped: d.leaking.length > 0
      ? `contamination found in ${d.leaking.length} line${d.leaking.length === 1 ? '' : 's'} repeating an earlier request_id with a different answer, which the case counts as duplicates of the first: ${where(d.leaking)}`
      : null,
    cannotPass: d.unexamined.length > 0
      ? `--fail-on-leak cannot pass: ${d.unexamined.length} line${d.unexamined.length === 1 ? '' : 's'} repeating an earlier request_id with a different answer could not be read again to be judged: ${where(d.unexamined)} (${d.unexamined[0]!.why})`
      : null,
  }
}

/**
 * Triage's gate over provenance's findings: its verdict was decided on the canary markers before
 * provenance ran, so a response found carrying another session's text verbatim trips it now
 * (exit 3), and the line says so where the verdict above found no marker. `text`: the counts,
 * null where provenance did not run or is not current. Null without --fail-on-leak.
 */
export function decideTextLeakGate(text: TextLeakCounts | null, markers: GateVerdict | null, flags: LeakGateFlags, note: (line: string) => void): GateVerdict | null {
  if (!flags['fail-on-leak']) return null
  const line = textLeakLine(text)
  if (line === null) return {tripped: null, cannotPass: null}
  if (markers?.tripped) note(`Gate: also: ${safeLine(line)}`)
  else {
    note(`Gate: ${safeLine(new GateTripped(`contamination found after the canary verdict above: ${line}`).message)}`)
    // What the markers' gate could not judge (no registry, files not read) is no longer its error: said beside the 3.
    if (markers?.cannotPass) note(`Gate: also: ${safeLine(markers.cannotPass)}`)
  }
  return {tripped: `contamination found: ${line}`, cannotPass: null}
}

/**
 * Triage's gate once the case is complete: the verdict's gate was decided when the canary verdict
 * was known (before ingest, or when the scan had classified the markers), and a log that grew
 * after it was read (its appended lines never judged) fails it now, as `scan --fail-on-leak`
 * fails on the same case. Null without --fail-on-leak.
 */
export function finalTriageGate(db: CaseDb, gate: GateVerdict | null, flags: LeakGateFlags, note: (line: string) => void): GateVerdict | null {
  if (!flags['fail-on-leak']) return gate
  const grown = grownMessage(db)
  if (grown === null || gate?.cannotPass?.includes(grown)) return gate
  if (gate?.tripped) note(`Gate: also: ${safeLine(grown)}`)
  return mergeVerdicts(gate, {tripped: null, cannotPass: `--fail-on-leak cannot pass: ${grown}`})
}

/** Both verdicts in one: tripped if either tripped, and what neither could judge. */
export function mergeVerdicts(a: GateVerdict | null, b: GateVerdict | null): GateVerdict | null {
  return a && b ? bothVerdicts(a, b) : (a ?? b)
}

function bothVerdicts(a: GateVerdict, b: GateVerdict): GateVerdict {
  const join = (x: string | null, y: string | null): string | null => (x && y ? `${x}; also, ${y.replace(/^--fail-on-leak cannot pass: /, '')}` : (x ?? y))
  return {tripped: join(a.tripped, b.tripped), cannotPass: join(a.cannotPass, b.cannotPass)}
}

/** Exit 3 when the gate tripped; exit 1 (thrown) when it could not judge and did not trip. */
export function enforceLeakGate(verdict: GateVerdict | null): void {
  if (!verdict) return
  if (verdict.tripped) process.exitCode = new GateTripped(verdict.tripped).exit
  else if (verdict.cannotPass) throw new InputError(verdict.cannotPass, 'E_GATE_UNREADABLE')
}
