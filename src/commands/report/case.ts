import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {renderCaseReportHtml} from '../../cli/html/case-report.js'
import {truncateMarker} from '../../cli/render-detect.js'
import {reportFlags, writeReport, type ReportFormat, type ReportWrittenResult, refuseFormatBesideJson, wroteLine} from '../../cli/report-output.js'
import {checkDetection, detectionFlags} from '../../cli/detection-flags.js'
import {detectionCoverage} from '../../detect/coverage.js'
import {caseReportJson, gatherCaseReport, type CaseReportJson} from '../../notify/case-report-data.js'
import {parseInstant} from '../../notify/time.js'
import {escapeJsonText, safeLine} from '../../util/sanitize.js'

export default class ReportCase extends BaseCommand {
  static override summary = 'The whole case as one self-contained HTML page to open in a browser and hand to a colleague.'
  static override description = `Verdict and exposure numbers with their method, an hourly timeline with the bug window and the awareness time, tenant-to-tenant flows as a heat map (full matrix on demand), decode nodes, a sortable and searchable sightings table, the 72-hour clock and the open items. One file: scripts and styles inline, nothing fetched, and a Content-Security-Policy that forbids all network access. No leaked text is included; canary markers are shortened (CANARY-3f2a…) unless --show-markers, which prints them in full. Readable in print.

--json without --out prints the data the page is drawn from.`
  static override examples = [
    '<%= config.bin %> report case --format html --out case.html',
    '<%= config.bin %> report case --out case.html --pool-tokens 681280 --show-markers',
    '<%= config.bin %> report case --json > case-report.json',
  ]
  static override flags = {
    db: dbFlag,
    format: Flags.string({description: 'Output format: the page, or its data as JSON.', options: ['html', 'json'], default: 'html'}),
    out: Flags.string({description: 'Write here instead of stdout. Never the case database or an original the case was ingested from; an existing file only when it is an unchanged case report this case wrote, else with --force.', helpValue: 'FILE'}),
    force: reportFlags.force,
    'show-markers': Flags.boolean({description: 'Show canary markers in full (recorded in the audit log).'}),
    'pool-tokens': Flags.integer({description: 'KV pool size for at-risk counts (default: the size the last scan used).', min: 1}),
    'advertised-tokens': Flags.integer({description: 'Advertised context window (reported: responses at or over it).', min: 1}),
    ...detectionFlags,
    now: Flags.string({description: 'Evaluate the clock at this moment (ISO with zone; for rehearsals and tests).', hidden: true}),
  }

  public async run(): Promise<CaseReportJson | ReportWrittenResult> {
    const {flags, metadata} = await this.parse(ReportCase)
    refuseFormatBesideJson(flags.format, metadata.flags.format?.setFromDefault !== true, flags.out, this.jsonEnabled())
    // It writes only to record what it did: a file written (--out) or markers shown in full, in the audit log.
    const db = this.openCase(flags.db, {readsOnly: !flags.out && !flags['show-markers']})
    const now = flags.now ? parseInstant(flags.now, '--now') : new Date()
    // Contract: a finding report on a partly scanned case is an error unless asked for; then the page says so.
    const warning = checkDetection(detectionCoverage(db), 'report case', flags['allow-incomplete'])
    if (warning) this.note(this.paint.yellow(warning))
    const data = gatherCaseReport(db, {
      now,
      toolVersion: this.config.version,
      poolTokens: flags['pool-tokens'],
      advertisedTokens: flags['advertised-tokens'],
      showMarker: flags['show-markers'] ? (m) => m : truncateMarker,
      markersShown: flags['show-markers'],
    })
    // The JSON says unknown as null; the page says it in words.
    const json = caseReportJson(data)
    // As every --json: C1, bidi and invisible characters from the logs as \uNNNN escapes (the same strings when parsed).
    const content = flags.format === 'json' ? escapeJsonText(JSON.stringify(json, null, 2)) + '\n' : renderCaseReportHtml(data)
    if (!flags.out) {
      if (flags['show-markers']) this.audit(db, {flags}, {report: 'case', markers: 'full'}, now)
      if (!this.jsonEnabled()) process.stdout.write(content)
      return json
    }
    const written = writeReport('case', flags.format as ReportFormat, flags.out, content, {db, force: flags.force})
    this.audit(db, {flags}, {...written, markers: data.sightings.markers}, new Date())
    if (!this.jsonEnabled()) this.note(wroteLine(written))
    return written
  }
}
