import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {toCsv} from '../../cli/csv.js'
import {acceptanceAudit, draftFlags, finalOptions, renderReport, reportFacts, reportFlags, requireOutForPdf, writeReport, type ReportWrittenResult, refuseFormatBesideJson, wroteLine} from '../../cli/report-output.js'
import {detectionFlags} from '../../cli/detection-flags.js'
import {PHRASES, type Language} from '../../notify/phrases.js'
import {buildRegisterEntry, REGISTER_COLUMNS, type RegisterEntryResult} from '../../notify/register.js'
import {renderRegisterMarkdown} from '../../notify/render-markdown.js'
import {safeLine} from '../../util/sanitize.js'

export default class ReportRegister extends BaseCommand {
  static override description =
    'The breach-register entry (GDPR Art. 33(5)): facts, effects, cause, remedial action, decision and reasoning, notifications (late ones flagged), evidence. Kept for every breach, notified or not; what is not recorded yet reads "to be completed".'
  static override examples = ['<%= config.bin %> report register', '<%= config.bin %> report register --format csv --out register.csv']
  static override flags = {
    db: dbFlag,
    ...detectionFlags,
    format: Flags.string({description: 'Output format.', options: ['md', 'json', 'csv', 'pdf'], default: 'md'}),
    out: reportFlags.out,
    force: reportFlags.force,
    ...draftFlags,
  }

  public async run(): Promise<RegisterEntryResult | ReportWrittenResult> {
    const {flags, metadata} = await this.parse(ReportRegister)
    refuseFormatBesideJson(flags.format, metadata.flags.format?.setFromDefault !== true, flags.out, this.jsonEnabled())
    requireOutForPdf(flags.format, flags.out)
    const final = finalOptions(flags)
    // It writes only to record a file written (--out) or open items accepted, in the audit log.
    const db = this.openCase(flags.db, {readsOnly: !flags.out && !flags['accept-open-items']})
    const entry = buildRegisterEntry(reportFacts(db, 'report register', flags['allow-incomplete'], {now: new Date()}, (l) => this.note(this.paint.yellow(l))), {language: (flags.lang ?? 'en') as Language, ...final})
    const P = PHRASES[entry.language]
    const content =
      flags.format === 'csv'
        ? toCsv(REGISTER_COLUMNS, [entry], {shown: true})
        : await renderReport(flags.format, entry, () => renderRegisterMarkdown(entry), {title: `${entry.draft ? P.draft : P.final} - Art. 33(5)`, createdAt: entry.generated_at})
    if (!flags.out) {
      // Open items accepted by name: recorded in the case as the entry is given.
      if (entry.finalised_with_open_items) this.audit(db, {flags}, {report: 'register', final: true, ...acceptanceAudit(entry)})
      if (!this.jsonEnabled()) process.stdout.write(content as string)
      return entry
    }
    const written = writeReport('register', flags.format as 'md', flags.out, content, {db, force: flags.force})
    this.audit(db, {flags}, {...written, ...acceptanceAudit(entry)})
    if (!this.jsonEnabled()) this.note(wroteLine(written))
    return written
  }
}
