import {createHash} from 'node:crypto'
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {acceptanceAudit, draftFlags, finalOptions, renderReport, reportFacts, reportFlags, requireOutForPdf, writeReport, type ReportWrittenResult, refuseFormatBesideJson, wroteLine} from '../../cli/report-output.js'
import {detectionFlags} from '../../cli/detection-flags.js'
import {guardOut} from '../../cli/out-guard.js'
import {signalExitCode, watchInterrupts} from '../../cli/interrupt.js'
import {UsageError} from '../../errors.js'
import {affectedTenants, affectedTenantsUnknown, buildProcessorNotice, processorNoticeJson, requireProcessorRole, type ProcessorNoticeJson, type ProcessorNoticeResult} from '../../notify/processor-notice.js'
import {factsControllersKnown, factsExposureKnown} from '../../notify/facts.js'
import {renderProcessorNoticeMarkdown} from '../../notify/render-markdown.js'
import {PHRASES, type Language} from '../../notify/phrases.js'
import {detectionSummary, type DetectionSummary} from '../../notify/detection-note.js'
import {safeLine} from '../../util/sanitize.js'

/** `crosstalk report processor-notice --all --json` */
export interface ProcessorNoticesWrittenResult {
  notices: ReportWrittenResult[]
  /**
   * false where the findings name no controller because they do not cover the case (never
   * scanned, or stale under --allow-incomplete): no notice then is "not known", never "none affected"
   */
  controllers_known: boolean
  /** what detection covered (the contract's `detection`; `note` says why it is incomplete) */
  detection: DetectionSummary
}

export default class ReportProcessorNotice extends BaseCommand {
  static override description =
    "As processor, notify each affected customer (controller) of its own exposure (GDPR Art. 33(2)): canary and verbatim-text evidence together, never another customer's id, content, full markers or PII values. --all writes one notice per tenant in the exposure. Cause and containment appear only as recorded (incident set); DRAFT until --final."
  static override examples = [
    '<%= config.bin %> report processor-notice --tenant acme',
    '<%= config.bin %> report processor-notice --all --out notices/ --format pdf',
  ]
  static override flags = {
    db: dbFlag,
    ...detectionFlags,
    format: reportFlags.format,
    ...draftFlags,
    out: Flags.string({description: 'File to write (with --tenant) or folder (with --all). Never the case database or an original the case was ingested from; an existing file only when it is an unchanged processor notice this case wrote, else with --force.', helpValue: 'PATH'}),
    force: reportFlags.force,
    tenant: Flags.string({description: 'The customer (tenant id) to notify.', exactlyOne: ['tenant', 'all']}),
    all: Flags.boolean({description: 'One notice per affected customer, written into --out DIR.', exactlyOne: ['tenant', 'all']}),
    phase: Flags.string({description: 'Initial notice or a follow-up (Art. 33(4)). Default: follow-up once an initial notice to that customer is recorded (notify record --recipient TENANT), else initial.', options: ['initial', 'follow-up']}),
  }

  public async run(): Promise<ProcessorNoticeJson | ReportWrittenResult | ProcessorNoticesWrittenResult> {
    const {flags, metadata} = await this.parse(ReportProcessorNotice)
    refuseFormatBesideJson(flags.format, metadata.flags.format?.setFromDefault !== true, flags.out, this.jsonEnabled())
    const final = finalOptions(flags)
    const db = this.openCase(flags.db)
    const facts = reportFacts(db, 'report processor-notice', flags['allow-incomplete'], {now: new Date(), addressee: flags.tenant}, (l) => this.note(this.paint.yellow(l)))
    const options = {language: (flags.lang ?? 'en') as Language, ...final, phase: flags.phase as 'initial' | 'follow-up' | undefined}
    const render = (n: ProcessorNoticeResult): Promise<string | Buffer> =>
      renderReport(flags.format, processorNoticeJson(n), () => renderProcessorNoticeMarkdown(n), {title: `${n.final ? PHRASES[n.language].final : PHRASES[n.language].draft} - Art. 33(2)`, createdAt: n.generated_at})
    if (flags.all) {
      if (!flags.out) throw new UsageError('--all needs --out DIR (one file per customer)')
      // Refused before the folder is made: a refusal leaves nothing behind.
      requireProcessorRole(facts)
      const tenants = affectedTenants(facts)
      // Allowed over an incomplete detection as every report is; where the findings name no controller, said, never "0 notices" alone.
      const unknown = affectedTenantsUnknown(facts)
      if (unknown !== null) this.note(this.paint.yellow(unknown))
      // Every notice's path is checked before the first is written: a refusal leaves nothing half done.
      const paths = tenants.map((tenant) => join(flags.out!, `${fileStem(tenant)}.${flags.format}`))
      for (const path of paths) guardOut(db, path, {report: 'processor-notice', force: flags.force})
      // Every notice is built before the first is written: one --final refused for its open items leaves nothing half done.
      const built = tenants.map((tenant) => buildProcessorNotice(facts, tenant, options))
      mkdirSync(flags.out, {recursive: true, mode: 0o700})
      const notices: ReportWrittenResult[] = []
      // Each notice is recorded in the audit log as it is written (its path and SHA-256): an
      // interrupted run leaves only notices the case knows it wrote, which the same command run
      // again replaces unchanged, without --force. A SIGINT or SIGTERM stops before the next
      // notice and says which were written and which not; a second one ends the process at once
      // (what was written is recorded; a temporary file it leaves is removed by the next write).
      const interrupts = watchInterrupts()
      try {
        for (const [i, notice] of built.entries()) {
          // Rendering and writing run synchronously: the event loop turns here, so that a signal that came meanwhile is seen.
          await new Promise((turned) => setImmediate(turned))
          if (interrupts.received()) break
          const content = await render(notice)
          const written = writeReport('processor-notice', flags.format as 'md', paths[i]!, content, {db, force: flags.force})
          notices.push(written)
          this.audit(db, {flags}, {notices: [{out: written.out, sha256: written.sha256, ...acceptanceAudit(notice)}], notice: i + 1, of: built.length})
          // Test-only: a real SIGINT sent after the N-th notice (seen where the loop next turns), without a race.
          if (process.env.CROSSTALK_TEST_INTERRUPT_AFTER_NOTICE === String(i + 1)) process.kill(process.pid, 'SIGINT')
        }
      } finally {
        interrupts.dispose()
      }
      const sig = interrupts.received()
      if (sig !== null && notices.length < built.length) {
        this.note(interruptedNotices(sig, flags.out, tenants, notices.length))
        process.exitCode = signalExitCode(sig)
      } else if (!this.jsonEnabled()) this.note(`Wrote ${notices.length} notices (${notices.reduce((sum, n) => sum + n.bytes, 0)} bytes) into ${safeLine(flags.out)}`)
      return {notices, controllers_known: factsControllersKnown(facts), detection: detectionSummary(facts.detection, options.language)}
    }
    requireOutForPdf(flags.format, flags.out)
    const notice = buildProcessorNotice(facts, flags.tenant!, options)
    const content = await render(notice)
    if (!flags.out) {
      // Open items accepted by name: recorded in the case as the notice is given.
      if (notice.finalised_with_open_items) this.audit(db, {flags}, {report: 'processor-notice', final: true, ...acceptanceAudit(notice)})
      if (!this.jsonEnabled()) process.stdout.write(content as string)
      return processorNoticeJson(notice)
    }
    const written = writeReport('processor-notice', flags.format as 'md', flags.out, content, {db, force: flags.force})
    this.audit(db, {flags}, {...written, ...acceptanceAudit(notice)})
    if (!this.jsonEnabled()) this.note(wroteLine(written))
    return written
  }
}

/** What an interrupted --all wrote and did not, on one line: the customers by name (at most 20 of each). */
function interruptedNotices(sig: NodeJS.Signals, out: string, tenants: readonly string[], written: number): string {
  const names = (list: readonly string[]): string => (list.length > 20 ? `${list.slice(0, 20).join(', ')} and ${list.length - 20} more` : list.join(', '))
  const done = tenants.slice(0, written)
  const rest = tenants.slice(written)
  return safeLine(
    `Interrupted (${sig}): wrote ${written} of ${tenants.length} notices into ${out}${done.length > 0 ? ` (${names(done)}), each recorded in the case` : ''}; not written: ${names(rest)}. ` +
      "Run the same command again to write them all (the notices already written are this case's, recorded, and are replaced without --force)",
  )
}

/** A tenant id is hostile text: a safe file name, plus a hash so two ids never collide. */
function fileStem(tenant: string): string {
  const safe = tenant.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^\.+/, '_').slice(0, 48)
  return `processor-notice-${safe}-${createHash('sha256').update(tenant).digest('hex').slice(0, 8)}`
}
