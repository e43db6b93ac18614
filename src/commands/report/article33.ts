import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {reportFacts, reportFlags, requireOutForPdf, writeReport, type ReportWrittenResult} from '../../cli/report-output.js'
import {detectionFlags} from '../../cli/detection-flags.js'
import {buildArticle33, type Article33Result} from '../../notify/article33.js'
import {AUTHORITIES, type Authority} from '../../notify/authority-forms.js'
import {renderArticle33Markdown} from '../../notify/render-markdown.js'
import {renderArticle33Pdf} from '../../cli/render-pdf.js'
import {parseInstant} from '../../notify/time.js'

export default class ReportArticle33 extends BaseCommand {
  static override description =
    'Draft the Article 33 notification to the supervisory authority from the case: Art. 33(3)(a)-(d), scope with ranges and method, open items for a follow-up phase.'
  static override examples = [
    '<%= config.bin %> report article33',
    '<%= config.bin %> report article33 --format pdf --out art33-initial.pdf --authority dpc',
    '<%= config.bin %> report article33 --authority cnil --format md --out notification-cnil.md',
    '<%= config.bin %> report article33 --format json --delay-reason "scope confirmed only after log recovery" --final',
  ]
  static override flags = {
    db: dbFlag,
    ...detectionFlags,
    ...reportFlags,
    authority: Flags.string({description: "Map the facts onto this authority's form.", options: [...AUTHORITIES], default: 'edpb'}),
    phase: Flags.string({description: 'Initial notification or a follow-up (Art. 33(4)).', options: ['initial', 'follow-up'], default: 'initial'}),
    'delay-reason': Flags.string({description: 'Reasons for the delay; required once the 72 hours have passed (Art. 33(1)).'}),
    final: Flags.boolean({description: 'Mark the draft final (ready to send) instead of DRAFT.', default: false}),
    now: Flags.string({description: 'Evaluate the clock at this moment (ISO with zone; for rehearsals and tests).', hidden: true}),
  }

  public async run(): Promise<Article33Result | ReportWrittenResult> {
    const {flags} = await this.parse(ReportArticle33)
    requireOutForPdf(flags.format, flags.out)
    const db = this.openCase(flags.db)
    const now = flags.now ? parseInstant(flags.now, '--now') : new Date()
    const facts = reportFacts(db, 'report article33', flags['allow-incomplete'], {now, includeExcerpts: flags['include-excerpts']}, (l) => this.note(this.paint.yellow(l)))
    const draft = buildArticle33(facts, {
      authority: flags.authority as Authority,
      phase: flags.phase as 'initial' | 'follow-up',
      delayReason: flags['delay-reason'],
      final: flags.final,
    })
    const content =
      flags.format === 'pdf' ? await renderArticle33Pdf(draft) : flags.format === 'json' ? JSON.stringify(draft, null, 2) + '\n' : renderArticle33Markdown(draft)
    if (!flags.out) {
      if (flags['include-excerpts']) this.audit(db, {flags}, {report: 'article33', excerpts: draft.excerpts?.length ?? 0}, now)
      if (!this.jsonEnabled()) process.stdout.write(content as string)
      return draft
    }
    const written = writeReport('article33', flags.format as 'md', flags.out, content)
    this.audit(db, {flags}, {...written, excerpts: flags['include-excerpts']}, new Date())
    if (!this.jsonEnabled()) this.note(`Wrote ${flags.out} (${written.bytes} bytes, sha256 ${written.sha256})`)
    return written
  }
}
