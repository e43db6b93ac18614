import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {renderReport, reportFacts, reportFlags, requireOutForPdf, writeReport, type ReportWrittenResult} from '../../cli/report-output.js'
import {detectionFlags} from '../../cli/detection-flags.js'
import {buildArticle34, type Article34Result} from '../../notify/article34.js'
import {renderReportMarkdown} from '../../notify/render-markdown.js'

export default class ReportArticle34 extends BaseCommand {
  static override description = 'Draft the communication to data subjects (GDPR Art. 34) in clear, plain language.'
  static override examples = ['<%= config.bin %> report article34', '<%= config.bin %> report article34 --format pdf --out letter.pdf']
  static override flags = {db: dbFlag, format: reportFlags.format, out: reportFlags.out, ...detectionFlags}

  public async run(): Promise<Article34Result | ReportWrittenResult> {
    const {flags} = await this.parse(ReportArticle34)
    requireOutForPdf(flags.format, flags.out)
    const db = this.openCase(flags.db)
    const report = buildArticle34(reportFacts(db, 'report article34', flags['allow-incomplete'], {now: new Date()}, (l) => this.note(this.paint.yellow(l))))
    const content = await renderReport(flags.format, report, () => renderReportMarkdown('article34.md', report), {title: 'Information about your personal data', createdAt: report.generated_at})
    if (!flags.out) {
      if (!this.jsonEnabled()) process.stdout.write(content as string)
      return report
    }
    const written = writeReport('article34', flags.format as 'md', flags.out, content)
    this.audit(db, {flags}, written)
    if (!this.jsonEnabled()) this.note(`Wrote ${flags.out} (sha256 ${written.sha256})`)
    return written
  }
}
