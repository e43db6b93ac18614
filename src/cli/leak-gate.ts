import {Flags} from '@oclif/core'
import {judgeGate, type GateInput, type GateVerdict} from '../detect/gate.js'
import {GateTripped, InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'

// The --fail-on-leak gate of scan and triage, once: contamination found sets exit 3 (the
// result is still printed, --json included); evidence it could not judge exits 1, or is noted
// beside a gate that tripped already.

export const leakGateFlags = {
  'fail-on-leak': Flags.boolean({
    description: 'Exit 3 when any cross_session or cross_tenant sighting exists; exit 1 when a log file could not be judged (not read whole, answers that decoded to no text, or quarantined lines).',
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
  const verdict = judgeGate(db, result, {acceptBadLines: flags['accept-bad-lines'] ?? false})
  if (verdict.tripped) note(`Gate: ${new GateTripped(verdict.tripped).message}`)
  if (verdict.tripped && verdict.cannotPass) note(`Gate: also: ${verdict.cannotPass}`)
  return verdict
}

/** Exit 3 when the gate tripped; exit 1 (thrown) when it could not judge and did not trip. */
export function enforceLeakGate(verdict: GateVerdict | null): void {
  if (!verdict) return
  if (verdict.tripped) process.exitCode = new GateTripped(verdict.tripped).exit
  else if (verdict.cannotPass) throw new InputError(verdict.cannotPass, 'E_GATE_UNREADABLE')
}
