import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {acceptanceAudit, draftFlags, finalOptions, reportFacts, reportFlags, requireOutForPdf, writeReport, type ReportWrittenResult, refuseFormatBesideJson, wroteLine} from '../../cli/report-output.js'
import {detectionFlags} from '../../cli/detection-flags.js'
import {buildArticle33, resolveLanguage} from '../../notify/article33.js'
import {article33Json} from '../../notify/article33-json.js'
import type {Article33Json} from '../../notify/article33-schema.js'
import {AUTHORITIES, type Authority} from '../../notify/authority-forms.js'
import type {Language} from '../../notify/phrases.js'
import {renderArticle33Markdown} from '../../notify/render-markdown.js'
import {renderArticle33Pdf} from '../../cli/render-pdf.js'
import {parseInstant} from '../../notify/time.js'
import {safeLine} from '../../util/sanitize.js'

export default class ReportArticle33 extends BaseCommand {
  static override description = `Draft the Article 33 notification to the supervisory authority from the case: Art. 33(3)(a)-(d), the exposure with ranges and method, the authority's form fields, and open items for a follow-up phase.

Every statement rests on a recorded fact (the JSON form lists each with what it rests on); measures, notifications, decisions and causes appear only once recorded (incident set, notify record, assess --decide, replay), and are "to be completed" until then. DRAFT until --final. As processor, the authority notification is the controller's: pass --on-behalf-of-controller TENANT to draft it for a controller that authorised you.`
  static override examples = [
    '<%= config.bin %> report article33',
    '<%= config.bin %> report article33 --format pdf --out art33-initial.pdf --authority dpc',
    '<%= config.bin %> report article33 --authority cnil --format md --out notification-cnil.md',
    '<%= config.bin %> report article33 --authority cnil --lang en',
    '<%= config.bin %> report article33 --format json --delay-reason "scope confirmed only after log recovery" --final',
  ]
  static override flags = {
    db: dbFlag,
    ...detectionFlags,
    ...reportFlags,
    ...draftFlags,
    authority: Flags.string({description: "Map the facts onto this authority's form (cnil implies --lang fr).", options: [...AUTHORITIES], default: 'edpb'}),
    phase: Flags.string({description: 'Initial notification or a follow-up (Art. 33(4)). Default: follow-up once an initial notification to the authority is recorded (notify record), else initial.', options: ['initial', 'follow-up']}),
    'delay-reason': Flags.string({description: 'Reasons for the delay (Art. 33(1)); required with --final once the deadline has passed, an open item otherwise. Also recordable with incident set --delay-reason.'}),
    'on-behalf-of-controller': Flags.string({description: 'As processor: draft the notification for this controller (tenant id) that authorised you; the draft covers its exposure and is labelled as prepared on its behalf.', helpValue: 'TENANT'}),
    now: Flags.string({description: 'Evaluate the clock at this moment (ISO with zone; for rehearsals and tests).', hidden: true}),
  }

  public async run(): Promise<Article33Json | ReportWrittenResult> {
    const {flags, metadata} = await this.parse(ReportArticle33)
    refuseFormatBesideJson(flags.format, metadata.flags.format?.setFromDefault !== true, flags.out, this.jsonEnabled())
    requireOutForPdf(flags.format, flags.out)
    const final = finalOptions(flags)
    // It writes only to record what it did: a file written (--out), excerpts shown, or open items accepted, in the audit log.
    const db = this.openCase(flags.db, {readsOnly: !flags.out && !flags['include-excerpts'] && !flags['accept-open-items']})
    const now = flags.now ? parseInstant(flags.now, '--now') : new Date()
    const authority = flags.authority as Authority
    const {language, basis} = resolveLanguage(authority, flags.lang as Language | undefined)
    if (basis === 'authority') this.note(`report article33: --authority ${authority}: written in French, the authority's language (--lang en for English)`)
    const onBehalf = flags['on-behalf-of-controller']
    const facts = reportFacts(db, 'report article33', flags['allow-incomplete'], {now, includeExcerpts: flags['include-excerpts'], tenant: onBehalf}, (l) => this.note(this.paint.yellow(l)))
    const draft = buildArticle33(facts, {
      authority,
      language,
      languageBasis: basis,
      phase: flags.phase as 'initial' | 'follow-up' | undefined,
      delayReason: flags['delay-reason'],
      ...final,
      onBehalfOf: onBehalf,
    })
    const content =
      flags.format === 'pdf' ? await renderArticle33Pdf(draft) : flags.format === 'json' ? JSON.stringify(article33Json(draft), null, 2) + '\n' : renderArticle33Markdown(draft)
    if (!flags.out) {
      // Excerpts shown, or open items accepted by name: recorded in the case as they are given.
      if (flags['include-excerpts'] || draft.finalised_with_open_items) this.audit(db, {flags}, {report: 'article33', excerpts: draft.excerpts?.length ?? 0, final: flags.final, ...acceptanceAudit(draft)}, now)
      if (!this.jsonEnabled()) process.stdout.write(content as string)
      return article33Json(draft)
    }
    const written = writeReport('article33', flags.format as 'md', flags.out, content, {db, force: flags.force})
    this.audit(db, {flags}, {...written, excerpts: flags['include-excerpts'], final: flags.final, ...acceptanceAudit(draft)}, new Date())
    if (!this.jsonEnabled()) this.note(wroteLine(written))
    return written
  }
}
