import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {toCsv} from '../cli/csv.js'
import {clearProgress, scanProgressLine} from '../cli/progress.js'
import {renderProvenance} from '../cli/render-detect.js'
import {listProvenance, type ProvenanceResult} from '../detect/list.js'
import {detectionCoverage} from '../detect/coverage.js'
import {scanCase} from '../detect/scan-case.js'
import {lastFinishedScan} from '../store/scan-runs.js'

const PROVENANCE_CSV_COLUMNS = [
  'request_id', 'ts', 'recipient_session', 'recipient_tenant', 'source_request_id', 'source_ts', 'source_session', 'source_tenant',
  'overlap_words', 'overlap_sha256', 'matched', 'candidates', 'overlap_text',
]

export default class Provenance extends BaseCommand {
  static override description =
    "Responses that repeat, verbatim, an earlier other session's prompt or response (winnowed word fingerprints; works without canaries)."

  static override examples = [
    '<%= config.bin %> provenance',
    '<%= config.bin %> provenance --json --min-words 20',
    '<%= config.bin %> provenance --csv > provenance.csv',
    '<%= config.bin %> provenance --show-text   # prints the overlapping (leaked) text',
  ]

  static override flags = {
    db: dbFlag,
    csv: Flags.boolean({description: 'CSV on stdout (the overlapping text too with --show-text).', exclusive: ['json']}),
    'show-text': Flags.boolean({description: 'Include the overlapping text (personal data: only when needed).'}),
    'min-words': Flags.integer({description: 'Shortest verbatim overlap that counts.', default: 12, min: 5}),
    'boilerplate-tenants': Flags.integer({description: 'Text found in this many tenants is boilerplate, never evidence.', default: 3, min: 2}),
  }

  public async run(): Promise<ProvenanceResult> {
    const {flags} = await this.parse(Provenance)
    const db = this.openCase(flags.db)
    const now = new Date()
    // Provenance not current for these parameters (or records not scanned yet): a scan brings it up to date, and is audited as one.
    const last = lastFinishedScan(db)
    const coverage = detectionCoverage(db)
    if (!coverage.complete || last === null || last.min_words !== flags['min-words'] || last.boilerplate_tenants !== flags['boilerplate-tenants']) {
      const progress = this.jsonEnabled() ? undefined : scanProgressLine()
      scanCase(db, {
        now,
        onProgress: progress,
        provenance: {minWords: flags['min-words'], boilerplateTenants: flags['boilerplate-tenants']},
        record: (scan) => {
          const {timings_ms: _t, provenance_stats: _p, ...summary} = scan
          this.audit(db, {flags, scan: 'provenance parameters or case changed'}, summary, now)
        },
      })
      if (progress) clearProgress()
    }
    const rows = listProvenance(db, {showText: flags['show-text']})
    if (flags.csv) process.stdout.write(toCsv(PROVENANCE_CSV_COLUMNS.filter((c) => flags['show-text'] || c !== 'overlap_text'), rows as unknown as Array<Record<string, unknown>>))
    else if (!this.jsonEnabled()) this.log(renderProvenance(rows))
    return rows
  }
}
