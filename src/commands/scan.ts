import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {clearProgress, scanProgressLine} from '../cli/progress.js'
import {renderScan} from '../cli/render-detect.js'
import {scanCase, type ScanResult} from '../detect/scan-case.js'
import {unreadableGateMessage} from '../detect/gate.js'
import {GateTripped, InputError} from '../errors.js'

export default class Scan extends BaseCommand {
  static override description =
    'Find canary markers, canary-less provenance, personal data the recipient never sent and over-pool requests in every response (incremental).'

  static override examples = [
    '<%= config.bin %> scan --db case.db',
    '<%= config.bin %> scan --pool-tokens 131072 --advertised-tokens 200000 --json',
    '<%= config.bin %> scan --fail-on-leak   # CI gate: exit 3 on any cross-session or cross-tenant sighting',
  ]

  static override flags = {
    db: dbFlag,
    'fail-on-leak': Flags.boolean({description: 'Exit 3 when any cross_session or cross_tenant sighting exists; exit 1 when a log file could not be judged (not read whole, or answers that decoded to no text).'}),
    'pool-tokens': Flags.integer({description: 'KV pool size in tokens: status-200 responses with prompt_tokens >= N are flagged at-risk.', min: 1}),
    'advertised-tokens': Flags.integer({description: 'Advertised context length (needs --pool-tokens).', min: 1, dependsOn: ['pool-tokens']}),
    'min-words': Flags.integer({description: 'Shortest verbatim overlap (words) that counts as provenance.', default: 12, min: 5}),
    'boilerplate-tenants': Flags.integer({description: 'Text found in this many tenants is boilerplate, never evidence.', default: 3, min: 2}),
    'no-provenance': Flags.boolean({description: 'Skip canary-less provenance (markers, PII and at-risk only).'}),
  }

  public async run(): Promise<ScanResult> {
    const {flags} = await this.parse(Scan)
    const db = this.openCase(flags.db)
    const now = new Date()
    const progress = this.jsonEnabled() ? undefined : scanProgressLine()
    const result = scanCase(db, {
      now,
      poolTokens: flags['pool-tokens'],
      advertisedTokens: flags['advertised-tokens'],
      provenance: {minWords: flags['min-words'], boilerplateTenants: flags['boilerplate-tenants']},
      skipProvenance: flags['no-provenance'],
      onProgress: progress,
      // Stored with the scan, in its last transaction.
      record: (r) => {
        const {timings_ms: _t, provenance_stats: _p, ...summary} = r
        this.audit(db, {flags}, summary, now)
      },
    })
    if (progress) clearProgress()
    if (!this.jsonEnabled()) this.log(renderScan(result))
    if (flags['fail-on-leak'] && result.contaminated_responses > 0) {
      // Contract: a tripped gate exits 3. Set the code instead of throwing so --json still prints the result.
      const gate = new GateTripped(
        `contamination found: ${result.contaminated_responses} responses (${result.cross_tenant_responses} cross-tenant, ${result.cross_session_responses} cross-session)`,
      )
      this.note(`${this.paint.red('Gate:')} ${gate.message}`)
      process.exitCode = gate.exit
    }
    const unreadable = flags['fail-on-leak'] ? unreadableGateMessage(result.unreadable_files) : null
    if (unreadable) {
      // Fails closed: with contamination found it has tripped already (exit 3); otherwise "nothing found" is not a verdict.
      if (process.exitCode === 3) this.note(`${this.paint.red('Gate:')} also: ${unreadable}`)
      else throw new InputError(unreadable, 'E_GATE_UNREADABLE')
    }
    return result
  }
}
