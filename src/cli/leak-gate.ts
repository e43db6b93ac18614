import {Flags} from '@oclif/core'
import {judgeGate, type GateInput} from '../detect/gate.js'
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

export function applyLeakGate(db: CaseDb, result: GateInput, flags: {'fail-on-leak'?: boolean; 'accept-bad-lines'?: boolean}, note: (line: string) => void): void {
  if (!flags['fail-on-leak']) return
  const verdict = judgeGate(db, result, {acceptBadLines: flags['accept-bad-lines'] ?? false})
  if (verdict.tripped) {
    const gate = new GateTripped(verdict.tripped)
    note(`Gate: ${gate.message}`)
    process.exitCode = gate.exit
  }
  if (verdict.cannotPass) {
    if (verdict.tripped) note(`Gate: also: ${verdict.cannotPass}`)
    else throw new InputError(verdict.cannotPass, 'E_GATE_UNREADABLE')
  }
}
