import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {acceptanceAudit, draftFlags, finalOptions, renderReport, reportFacts, reportFlags, requireOutForPdf, writeReport, type ReportWrittenResult, refuseFormatBesideJson, wroteLine} from '../../cli/report-output.js'
import {detectionFlags} from '../../cli/detection-flags.js'
import {buildArticle34, type Article34Result} from '../../notify/article34.js'
import {PHRASES, type Language} from '../../notify/phrases.js'
import {renderArticle34Markdown} from '../../notify/render-markdown.js'
import {safeLine} from '../../util/sanitize.js'

export default class ReportArticle34 extends BaseCommand {
  static override description =
    'Draft the communication to data subjects (GDPR Art. 34) in clear, plain language. What was done is stated only as recorded (incident set --measures-taken, notify record); DRAFT until --final. As processor: --on-behalf-of-controller TENANT prepares it for that controller to send.'
  static override examples = ['<%= config.bin %> report article34', '<%= config.bin %> report article34 --lang fr --format pdf --out lettre.pdf']
  static override flags = {
    db: dbFlag,
    format: reportFlags.format,
    out: reportFlags.out,
    force: reportFlags.force,
    ...draftFlags,
    ...detectionFlags,
    'on-behalf-of-controller': Flags.string({description: 'As processor: prepare the communication for this controller (tenant id) to send.', helpValue: 'TENANT'}),
  }

  public async run(): Promise<Article34Result | ReportWrittenResult> {
    const {flags, metadata} = await this.parse(ReportArticle34)
    refuseFormatBesideJson(flags.format, metadata.flags.format?.setFromDefault !== true, flags.out, this.jsonEnabled())
    requireOutForPdf(flags.format, flags.out)
    const final = finalOptions(flags)
    // It writes only to record a file written (--out) or open items accepted, in the audit log.
    const db = this.openCase(flags.db, {readsOnly: !flags.out && !flags['accept-open-items']})
    const onBehalf = flags['on-behalf-of-controller']
    const facts = reportFacts(db, 'report article34', flags['allow-incomplete'], {now: new Date(), tenant: onBehalf, side: 'leaked'}, (l) => this.note(this.paint.yellow(l)))
    const report = buildArticle34(facts, {language: flags.lang as Language | undefined, ...final, onBehalfOf: onBehalf})
    // A final letter leaves out the sender's notes and open items (it goes to the data subjects): told here instead.
    if (report.final) {
      for (const n of report.notes) this.note(`note for the sender (not in the letter): ${safeLine(n)}`)
      for (const o of report.open_items) this.note(`open item accepted (not listed in the letter): ${safeLine(o.item)}`)
    }
    const content = await renderReport(flags.format, report, () => renderArticle34Markdown(report), {title: `${report.final ? PHRASES[report.language].final : PHRASES[report.language].draft} - ${report.heading}`, createdAt: report.generated_at})
    if (!flags.out) {
      // Open items accepted by name: recorded in the case as the document is given.
      if (report.finalised_with_open_items) this.audit(db, {flags}, {report: 'article34', final: true, ...acceptanceAudit(report)})
      if (!this.jsonEnabled()) process.stdout.write(content as string)
      return report
    }
    const written = writeReport('article34', flags.format as 'md', flags.out, content, {db, force: flags.force})
    this.audit(db, {flags}, {...written, ...acceptanceAudit(report)})
    if (!this.jsonEnabled()) this.note(wroteLine(written))
    return written
  }
}
