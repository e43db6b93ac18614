import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {UsageError} from '../errors.js'
import {safeLine, quoted} from '../util/sanitize.js'
import {planAssessment, type AssessInputs, type AssessResult} from '../notify/assess.js'
import {insertAssessment, OUTCOMES, type Outcome} from '../notify/assessment-store.js'
import {gatherFacts} from '../notify/facts.js'
import {inTransaction} from '../store/session.js'

export default class Assess extends BaseCommand {
  static override description = `Risk assessment: ENISA severity SE = DPC x EI + CB from explicit inputs (defaults from the case, each with its reason), a suggested outcome, and the human decision with its rationale. The suggestion never decides.

DPC is the base score of the data category (--dpc 1-4), adjusted a whole step for ENISA's context factors: vulnerable data subjects (+1), a large volume of data about each person (+1), data already public (-1), inaccurate data (-1). After scoring, the number of individuals (--individuals; default the scope's high bound, or its low bound when the high bound is not known) and unintelligible data weigh on the suggestion too. --reason NAME=TEXT records why an input was set.`
  static override examples = [
    '<%= config.bin %> assess',
    '<%= config.bin %> assess --dpc 2 --cb-confidentiality 0.5',
    '<%= config.bin %> assess --special-categories --vulnerable-subjects --reason "vulnerable_subjects=a children\'s education tenant is among the sources"',
    '<%= config.bin %> assess --decide notify --rationale "cross-tenant disclosure of customer chat content; risk cannot be shown unlikely" --decided-by "DPO J. Doe"',
  ]
  static override flags = {
    db: dbFlag,
    dpc: Flags.integer({description: 'Data processing context base score, a whole number 1-4 (simple 1, behavioural 2, financial 3, sensitive 4).', min: 1, max: 4}),
    ei: Flags.string({description: 'Ease of identification.', options: ['0.25', '0.5', '0.75', '1']}),
    'cb-confidentiality': Flags.string({description: 'Loss of confidentiality: 0, 0.25 (known recipients), 0.5 (unknown recipients).', options: ['0', '0.25', '0.5']}),
    'cb-integrity': Flags.string({description: 'Loss of integrity: 0, 0.25, 0.5.', options: ['0', '0.25', '0.5']}),
    'cb-availability': Flags.string({description: 'Loss of availability: 0, 0.25, 0.5.', options: ['0', '0.25', '0.5']}),
    malicious: Flags.boolean({description: 'Malicious intent (+0.5).', allowNo: true}),
    'special-categories': Flags.boolean({description: 'Art. 9/10 data was in the breach (the default DPC base becomes 4).', allowNo: true}),
    'vulnerable-subjects': Flags.boolean({description: 'Children or other vulnerable data subjects (DPC +1).', allowNo: true}),
    'data-volume': Flags.string({description: 'Data about each person: high (a detailed profile, DPC +1) or normal.', options: ['high', 'normal']}),
    'public-data': Flags.boolean({description: 'The data was publicly available before the breach (DPC -1).', allowNo: true}),
    'inaccurate-data': Flags.boolean({description: 'The data was invalid or inaccurate (DPC -1).', allowNo: true}),
    unintelligible: Flags.boolean({description: "The data was unintelligible to whoever got it (e.g. encrypted, key not compromised). Default: the case's recorded fact (incident set --data-unintelligible); a flag that contradicts it is used and reported as a conflict.", allowNo: true}),
    individuals: Flags.integer({description: 'Number of individuals affected (default: the scope\'s high bound; its low bound, said as such, when the high bound is not known).', min: 0}),
    reason: Flags.string({description: 'Why an input was set, NAME=TEXT (repeatable; NAME as in --json inputs, e.g. vulnerable_subjects).', multiple: true, helpValue: 'NAME=TEXT'}),
    decide: Flags.string({description: 'Record the human decision.', options: [...OUTCOMES]}),
    rationale: Flags.string({description: 'Why (required with --decide).', dependsOn: ['decide']}),
    'decided-by': Flags.string({description: 'Who decided.', dependsOn: ['decide']}),
  }

  public async run(): Promise<AssessResult> {
    const {flags} = await this.parse(Assess)
    // A flag missing beside another is a usage error (exit 2), as --rationale without --decide is.
    if (flags.decide !== undefined && !(flags.rationale ?? '').trim()) throw new UsageError('--decide needs --rationale: the register must show why (Art. 33(5))')
    const reasons = parseReasons(flags.reason ?? [])
    // Without --decide nothing is recorded: the case is read only (a reader's copy, a read-only mount), as the other views read it.
    const db = this.openCase(flags.db, flags.decide === undefined ? {readsOnly: true} : undefined)
    const now = new Date()
    const overrides: Partial<AssessInputs> = {}
    if (flags.dpc !== undefined) overrides.dpc = flags.dpc
    if (flags.ei !== undefined) overrides.ei = Number(flags.ei)
    if (flags['cb-confidentiality'] !== undefined) overrides.cb_confidentiality = Number(flags['cb-confidentiality'])
    if (flags['cb-integrity'] !== undefined) overrides.cb_integrity = Number(flags['cb-integrity'])
    if (flags['cb-availability'] !== undefined) overrides.cb_availability = Number(flags['cb-availability'])
    if (flags.malicious !== undefined) overrides.malicious = flags.malicious
    if (flags['special-categories'] !== undefined) overrides.special_categories = flags['special-categories']
    if (flags['vulnerable-subjects'] !== undefined) overrides.vulnerable_subjects = flags['vulnerable-subjects']
    if (flags['data-volume'] !== undefined) overrides.data_volume_high = flags['data-volume'] === 'high'
    if (flags['public-data'] !== undefined) overrides.public_data = flags['public-data']
    if (flags['inaccurate-data'] !== undefined) overrides.inaccurate_data = flags['inaccurate-data']
    if (flags.unintelligible !== undefined) overrides.unintelligible = flags.unintelligible
    if (flags.individuals !== undefined) overrides.individuals = flags.individuals
    const result = planAssessment(gatherFacts(db, {now}), {
      overrides,
      reasons,
      decide: flags.decide ? {outcome: flags.decide as Outcome, rationale: flags.rationale ?? '', decidedBy: flags['decided-by']} : undefined,
      now,
    })
    if (result.decision) {
      inTransaction(db, () => {
        insertAssessment(db, {
          at: result.decision!.at,
          inputs: Object.fromEntries(result.inputs.map((i) => [i.name, {value: i.value, source: i.source, why: i.why}])),
          dpc: result.severity.dpc,
          ei: result.severity.ei,
          cb: result.severity.cb,
          se: result.severity.se,
          band: result.severity.band,
          suggested: result.suggested,
          decision: result.decision!.outcome,
          rationale: result.decision!.rationale,
          decided_by: result.decision!.decided_by,
        })
        this.audit(db, {flags}, {se: result.severity.se, suggested: result.suggested, decision: result.decision!.outcome}, now)
      })
    }
    if (!this.jsonEnabled()) {
      // An input the case does not know (null) is said as not known, never as a value.
      for (const i of result.inputs) this.log(`${i.name.padEnd(20)} ${(i.value === null ? 'not known' : String(i.value)).padEnd(6)} ${i.source === 'given' ? '(given)' : i.source === 'case record' ? '(recorded)' : '(default)'}  ${safeLine(i.why)}`)
      this.log('')
      for (const c of result.conflicts) this.log(`CONFLICT ${safeLine(c)}`)
      if (result.conflicts.length > 0) this.log('')
      const s = result.severity
      // The sum is shown only when there is one: "DPC = 3 = 3" read like a slip.
      // DPC is on a 1-4 scale: a sum outside it is shown, then where it was held, never as an equation that does not hold.
      const sum = s.dpc_base + s.dpc_adjustments.reduce((n, a) => n + a.step, 0)
      const held = sum === s.dpc ? `${s.dpc}` : `${sum}, ${sum > s.dpc ? 'capped' : 'held'} at ${s.dpc} (DPC is 1 to 4)`
      this.log(s.dpc_adjustments.length === 0 ? `DPC = ${s.dpc}` : `DPC = ${s.dpc_base}${s.dpc_adjustments.map((a) => ` ${a.step > 0 ? '+' : '-'} ${Math.abs(a.step)}`).join('')} = ${held}`)
      this.log(`SE = DPC x EI + CB = ${s.dpc} x ${s.ei} + ${s.cb} = ${s.se}  (${s.band})`)
      this.log(`Suggested: ${result.suggested}`)
      for (const r of result.suggestion_reasons) this.log(`  - ${r}`)
      if (result.role_note) this.log(result.role_note)
      if (result.decision) this.log(`Decision: ${result.decision.outcome}: ${safeLine(result.decision.rationale)}`)
      this.log(result.note)
    }
    return result
  }
}

const INPUT_NAMES = new Set(['dpc', 'ei', 'cb_confidentiality', 'cb_integrity', 'cb_availability', 'malicious', 'special_categories', 'vulnerable_subjects', 'data_volume_high', 'public_data', 'inaccurate_data', 'unintelligible', 'individuals'])

/** --reason NAME=TEXT, NAME in snake or kebab case; an unknown name is a usage error. */
function parseReasons(values: readonly string[]): Partial<Record<keyof AssessInputs, string>> {
  const out: Record<string, string> = {}
  for (const v of values) {
    const at = v.indexOf('=')
    const name = (at > 0 ? v.slice(0, at) : '').trim().replace(/-/g, '_')
    if (!INPUT_NAMES.has(name) || !v.slice(at + 1).trim()) {
      throw new UsageError(`--reason expects NAME=TEXT with NAME one of ${[...INPUT_NAMES].join(', ')} (got ${quoted(v.slice(0, 60))})`)
    }
    out[name] = v.slice(at + 1).trim()
  }
  return out
}
