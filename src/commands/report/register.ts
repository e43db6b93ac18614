import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {toCsv} from '../../cli/csv.js'
import {renderReport, reportFacts, reportFlags, requireOutForPdf, writeReport, type ReportWrittenResult} from '../../cli/report-output.js'
import {detectionFlags} from '../../cli/detection-flags.js'
import {buildRegisterEntry, REGISTER_COLUMNS, type RegisterEntryResult} from '../../notify/register.js'
import {renderReportMarkdown} from '../../notify/render-markdown.js'

export default class ReportRegister extends BaseCommand {
  static override description = 'The breach-register entry (GDPR Art. 33(5)): facts, effects, remedial action, decision and reasoning, evidence. Kept for every breach, notified or not.'
  static override examples = ['<%= config.bin %> report register', '<%= config.bin %> report register --format csv --out register.csv']
  static override flags = {
    db: dbFlag,
    ...detectionFlags,
    format: Flags.string({description: 'Output format.', options: ['md', 'json', 'csv', 'pdf'], default: 'md'}),
    out: reportFlags.out,
  }

  public async run(): Promise<RegisterEntryResult | ReportWrittenResult> {
    const {flags} = await this.parse(ReportRegister)
    requireOutForPdf(flags.format, flags.out)
    const db = this.openCase(flags.db)
    const entry = buildRegisterEntry(reportFacts(db, 'report register', flags['allow-incomplete'], {now: new Date()}, (l) => this.note(this.paint.yellow(l))))
    const content =
      flags.format === 'csv'
        ? toCsv(REGISTER_COLUMNS, [entry])
        : await renderReport(flags.format, entry, () => renderReportMarkdown('register.md', entry), {title: 'Breach register entry (Art. 33(5))', createdAt: entry.generated_at})
    if (!flags.out) {
      if (!this.jsonEnabled()) process.stdout.write(content as string)
      return entry
    }
    const written = writeReport('register', flags.format as 'md', flags.out, content)
    this.audit(db, {flags}, written)
    if (!this.jsonEnabled()) this.note(`Wrote ${flags.out} (sha256 ${written.sha256})`)
    return written
  }
}
