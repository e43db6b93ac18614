import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {safeLine} from '../util/sanitize.js'
import {planAssessment, type AssessResult, type SeverityInputs} from '../notify/assess.js'
import {insertAssessment, OUTCOMES, type Outcome} from '../notify/assessment-store.js'
import {gatherFacts} from '../notify/facts.js'

export default class Assess extends BaseCommand {
  static override description =
    'Risk assessment: ENISA severity SE = DPC x EI + CB from explicit inputs (defaults from the case), a suggested outcome, and the human decision with its rationale. The suggestion never decides.'
  static override examples = [
    '<%= config.bin %> assess',
    '<%= config.bin %> assess --dpc 2 --cb-confidentiality 0.5',
    '<%= config.bin %> assess --decide notify --rationale "cross-tenant disclosure of customer chat content; risk cannot be shown unlikely" --decided-by "DPO J. Doe"',
  ]
  static override flags = {
    db: dbFlag,
    dpc: Flags.string({description: 'Data processing context, 1-4 (simple 1, behavioural 2, financial 3, sensitive 4).'}),
    ei: Flags.string({description: 'Ease of identification.', options: ['0.25', '0.5', '0.75', '1']}),
    'cb-confidentiality': Flags.string({description: 'Loss of confidentiality: 0, 0.25 (known recipients), 0.5 (unknown recipients).', options: ['0', '0.25', '0.5']}),
    'cb-integrity': Flags.string({description: 'Loss of integrity: 0, 0.25, 0.5.', options: ['0', '0.25', '0.5']}),
    'cb-availability': Flags.string({description: 'Loss of availability: 0, 0.25, 0.5.', options: ['0', '0.25', '0.5']}),
    malicious: Flags.boolean({description: 'Malicious intent (+0.5).', allowNo: true}),
    decide: Flags.string({description: 'Record the human decision.', options: [...OUTCOMES]}),
    rationale: Flags.string({description: 'Why (required with --decide).'}),
    'decided-by': Flags.string({description: 'Who decided.'}),
  }

  public async run(): Promise<AssessResult> {
    const {flags} = await this.parse(Assess)
    const db = this.openCase(flags.db)
    const now = new Date()
    const overrides: Partial<SeverityInputs> = {}
    if (flags.dpc !== undefined) overrides.dpc = Number(flags.dpc)
    if (flags.ei !== undefined) overrides.ei = Number(flags.ei)
    if (flags['cb-confidentiality'] !== undefined) overrides.cb_confidentiality = Number(flags['cb-confidentiality'])
    if (flags['cb-integrity'] !== undefined) overrides.cb_integrity = Number(flags['cb-integrity'])
    if (flags['cb-availability'] !== undefined) overrides.cb_availability = Number(flags['cb-availability'])
    if (flags.malicious !== undefined) overrides.malicious = flags.malicious
    const result = planAssessment(gatherFacts(db, {now}), {
      overrides,
      decide: flags.decide ? {outcome: flags.decide as Outcome, rationale: flags.rationale ?? '', decidedBy: flags['decided-by']} : undefined,
      now,
    })
    if (result.decision) {
      db.transaction(() => {
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
      })()
    }
    if (!this.jsonEnabled()) {
      for (const i of result.inputs) this.log(`${i.name.padEnd(20)} ${String(i.value).padEnd(6)} ${i.source === 'given' ? '(given)' : '(default)'}  ${i.why}`)
      this.log('')
      this.log(`SE = DPC x EI + CB = ${result.severity.dpc} x ${result.severity.ei} + ${result.severity.cb} = ${result.severity.se}  (${result.severity.band})`)
      this.log(`Suggested: ${result.suggested}`)
      for (const r of result.suggestion_reasons) this.log(`  - ${r}`)
      if (result.decision) this.log(`Decision: ${result.decision.outcome}: ${safeLine(result.decision.rationale)}`)
      this.log(result.note)
    }
    return result
  }
}
