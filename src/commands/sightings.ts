import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {toCsv} from '../cli/csv.js'
import {renderSightings} from '../cli/render-detect.js'
import {duplicateLeaksNote, duplicatesNotExaminedNote} from '../cli/render-scope.js'
import {examineConflictingDuplicates} from '../detect/conflicting-duplicates.js'
import {listSightings, type SightingsResult} from '../detect/list.js'
import {SIGHTING_CLASSES} from '../extract/markers.js'
import {notReadEvidence, notReadSentence} from '../detect/not-read.js'
import {detectionCoverage} from '../detect/coverage.js'
import {checkDetection, detectionFlags, nothingSearchedLine} from '../cli/detection-flags.js'
import {hasCanaries} from '../store/canaries.js'
import {markersStaleReason, staleFindings} from '../scope/unscanned.js'

export default class Sightings extends BaseCommand {
  static override description = 'List canary-marker sightings found by `crosstalk scan`. Markers identify sessions: the table shortens them (CANARY-3f9a…) unless --show-markers; --json and --csv, which scripts join with the registry, carry them in full.'

  static override examples = [
    '<%= config.bin %> sightings --class cross_tenant,cross_session',
    '<%= config.bin %> sightings --json',
    '<%= config.bin %> sightings --csv > sightings.csv',
  ]

  static override flags = {
    db: dbFlag,
    ...detectionFlags,
    class: Flags.string({description: 'Only these classes (comma-separated).', options: [...SIGHTING_CLASSES], multiple: true, delimiter: ','}),
    csv: Flags.boolean({description: 'CSV on stdout (full markers).', exclusive: ['json']}),
    'show-markers': Flags.boolean({description: 'Print markers in full in the table (--json and --csv always do).', exclusive: ['json', 'csv']}),
  }

  public async run(): Promise<SightingsResult> {
    const {flags} = await this.parse(Sightings)
    const db = this.openCase(flags.db, {readsOnly: true})
    const coverage = detectionCoverage(db)
    const warning = checkDetection(coverage, 'sightings', flags['allow-incomplete'])
    if (warning) this.note(this.paint.yellow(warning))
    // Without a registry every marker found is an orphan: the other classes are not looked for, not empty.
    if (!hasCanaries(db)) this.note(this.paint.yellow('warning: the case holds no canary registry: no marker can be attributed to a session, so own, echo, cross_session and cross_tenant sightings cannot be found (crosstalk ingest canaries FILE)'))
    // Classes decided against another registry, or under earlier sighting rules (staleFindings), are
    // not the case's as it is: each listing says so (the --json array and the CSV stay the contract's, so on stderr).
    const stale = staleFindings(coverage)
    const staleLine = stale.markers
      ? `STALE: ${markersStaleReason(stale.markers_cause ?? 'registry')}: every class listed is the last scan's (${coverage.last_scan_at ?? 'time not recorded'}), not the case's as it is now${flags.class ? ', and --class chose by those classes' : ''} (crosstalk scan)`
      : null
    if (staleLine !== null && (flags.csv || this.jsonEnabled())) this.note(this.paint.yellow(staleLine))
    const rows = listSightings(db, {classes: flags.class as SightingsResult[number]['class'][] | undefined})
    // A retry logged under a request id already in the case is no record, so its markers are no sightings: said, on stderr (the listing stays the contract's array).
    const duplicates = examineConflictingDuplicates(db)
    const leaks = duplicates.leaking.filter((d) => !flags.class || flags.class.includes(d.class))
    if (leaks.length > 0) this.note(this.paint.yellow(duplicateLeaksNote(leaks.map((d) => ({path: d.path, line: d.line_no, request_id: d.request_id, class: d.class})))))
    // What was never read holds no sighting that could be found: the listing speaks for what was read only (said on stderr beside --csv and --json, whose shapes stay the contract's).
    const notRead = notReadSentence(notReadEvidence(db))
    // Nothing searched: an empty listing is not known, never "No sightings." (console), and said beside the empty array or CSV.
    const unsearched = nothingSearchedLine(coverage, 'Sightings', rows.length)
    if (flags.csv || this.jsonEnabled()) {
      if (unsearched !== null) this.note(this.paint.yellow(unsearched))
      if (duplicates.unexamined.length > 0) this.note(this.paint.yellow(duplicatesNotExaminedNote(duplicates.unexamined.length)))
      if (notRead !== null) this.note(this.paint.yellow(`${notRead} The listing holds what was read.`))
    }
    if (flags.csv) {
      process.stdout.write(
        toCsv(['request_id', 'ts', 'class', 'marker', 'partial', 'recipient_session', 'recipient_tenant', 'source_session', 'source_tenant', 'log_source'], rows as unknown as Array<Record<string, unknown>>),
      )
    } else if (!this.jsonEnabled()) {
      if (staleLine !== null) this.log(staleLine)
      this.log(unsearched ?? renderSightings(rows, {showMarkers: flags['show-markers'], staleClasses: staleLine !== null}))
      // "No sightings." speaks for what was read only.
      if (notRead !== null) this.log(notRead)
    }
    return rows
  }
}
