import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {toCsv} from '../cli/csv.js'
import {checkDetection, detectionFlags, nothingSearchedLine} from '../cli/detection-flags.js'
import {renderProvenance, unexaminedLine} from '../cli/render-detect.js'
import {listProvenance, type ProvenanceResult} from '../detect/list.js'
import {detectionCoverage, parameterFlags, type ProvenanceParameters} from '../detect/coverage.js'
import {notReadEvidence, notReadSentence} from '../detect/not-read.js'
import {computeProvenance} from '../detect/provenance.js'
import {InputError, UsageError} from '../errors.js'
import {GUARANTEE_WORDS, MAX_BOILERPLATE_TENANTS, MAX_MIN_WORDS, minWordsMessage} from '../extract/winnow.js'
import {fileTotals} from '../store/files.js'
import {withRollback} from '../store/session.js'

const PROVENANCE_CSV_COLUMNS = [
  'request_id', 'ts', 'recipient_session', 'recipient_tenant', 'source_request_id', 'source_ts', 'source_session', 'source_tenant',
  'overlap_words', 'overlap_sha256', 'matched', 'candidates', 'overlap_text',
]

export default class Provenance extends BaseCommand {
  static override description =
    "Responses that repeat, verbatim, an earlier other session's prompt or response (winnowed word fingerprints; works without canaries), as the last scan stored them. " +
    'With --min-words or --boilerplate-tenants other than the scan\'s, a what-if computed in memory: nothing stored changes (crosstalk scan stores findings).'

  static override examples = [
    '<%= config.bin %> provenance',
    '<%= config.bin %> provenance --json --min-words 20   # what-if: the stored findings are unchanged',
    '<%= config.bin %> provenance --csv > provenance.csv',
    '<%= config.bin %> provenance --show-text   # prints the overlapping (leaked) text',
  ]

  static override flags = {
    db: dbFlag,
    ...detectionFlags,
    csv: Flags.boolean({description: 'CSV on stdout (the overlapping text too with --show-text).', exclusive: ['json']}),
    'show-text': Flags.boolean({description: 'Include the overlapping text (personal data: only when needed).'}),
    'min-words': Flags.integer({description: `Shortest verbatim overlap that counts, at least 12 and at most ${MAX_MIN_WORDS} (default: the last scan's); other than the scan's, a what-if that stores nothing.`, max: MAX_MIN_WORDS}),
    'boilerplate-tenants': Flags.integer({
      description: "Text found in this many tenants is boilerplate, never evidence (default: the last scan's); other than the scan's, a what-if that stores nothing.", min: 2, max: MAX_BOILERPLATE_TENANTS,
    }),
  }

  public async run(): Promise<ProvenanceResult> {
    const {flags} = await this.parse(Provenance)
    if (flags['min-words'] !== undefined && flags['min-words'] < GUARANTEE_WORDS) throw new UsageError(minWordsMessage(flags['min-words']))
    if (flags['boilerplate-tenants'] !== undefined && flags['boilerplate-tenants'] < 2) throw new UsageError('--boilerplate-tenants must be at least 2')
    const db = this.openCase(flags.db)
    // A listing writes nothing: on a case never scanned (or scanned incompletely) it says so, as sightings does.
    const coverage = detectionCoverage(db)
    const warning = checkDetection(coverage, 'provenance', flags['allow-incomplete'])
    if (warning) this.note(this.paint.yellow(warning))
    // Answers that decoded to no text were never compared with anything: where none had text, provenance could not run.
    const totals = fileTotals(db)
    const text = {answers: totals.answers, withoutText: totals.no_response_text}
    if (text.answers > 0 && text.withoutText >= text.answers) {
      throw new InputError(
        `provenance could not run: none of the ${text.answers} responses had response text, so none could be compared with other sessions' text (crosstalk status lists the files; ingest logs that hold the answers, or give --map response=PATH)`,
        'E_NO_RESPONSE_TEXT',
      )
    }
    const stored = coverage.provenance_parameters
    const list = (): ProvenanceResult => listProvenance(db, {showText: flags['show-text']})
    let rows: ProvenanceResult
    // Responses the parameters listed set aside as boilerplate (null: not known), said with the listing.
    let setAside: {responses: number | null; tenants: number} | null = stored === null ? null : {responses: coverage.provenance_boilerplate_responses, tenants: stored.boilerplate_tenants}
    if (stored === null) {
      rows = list()
    } else {
      const wanted: ProvenanceParameters = {min_words: flags['min-words'] ?? stored.min_words, boilerplate_tenants: flags['boilerplate-tenants'] ?? stored.boilerplate_tenants}
      if (wanted.min_words === stored.min_words && wanted.boilerplate_tenants === stored.boilerplate_tenants) {
        rows = list()
        this.note(`provenance as the scan of ${coverage.last_scan_at} stored it (${parameterFlags(stored)})`)
      } else {
        // Computed inside a savepoint that is rolled back: the stored findings, and scope and every draft built on them, stay as the scan made them.
        rows = withRollback(db, () => {
          const stats = computeProvenance(db, {minWords: wanted.min_words, boilerplateTenants: wanted.boilerplate_tenants})
          setAside = {responses: stats.boilerplate_responses, tenants: wanted.boilerplate_tenants}
          return list()
        })
        this.note(this.paint.yellow(
          `what-if: provenance computed with ${parameterFlags(wanted)}, not stored; the stored findings (made with ${parameterFlags(stored)} by the scan of ${coverage.last_scan_at}) are unchanged, ` +
          `and scope and every draft use them. To store these instead: crosstalk scan ${parameterFlags(wanted)}`,
        ))
      }
    }
    if (setAside !== null) {
      const line = setAside.responses === null
        ? `responses set aside as boilerplate (text found in ${setAside.tenants} or more tenants' sessions): not known for these findings (a scan by this release counts them)`
        : setAside.responses > 0
          ? `${setAside.responses} response${setAside.responses === 1 ? ' repeats' : 's repeat'} text found in ${setAside.tenants} or more tenants' sessions, set aside as boilerplate and not listed; review them: crosstalk provenance --boilerplate-tenants N (N above ${setAside.tenants}; a what-if that stores nothing)`
          : null
      if (line !== null) this.note(this.paint.yellow(`warning: ${line}`))
    }
    // Nothing searched: an empty listing is not known, never "No response repeats…" (console), and said beside the empty array or CSV.
    const unsearched = nothingSearchedLine(coverage, 'Provenance', rows.length)
    if (unsearched !== null && (flags.csv || this.jsonEnabled())) this.note(this.paint.yellow(unsearched))
    // What was never read (quarantined lines, files not read whole) was compared with nothing: the listing speaks for
    // what was read only, as sightings says (on stderr beside --csv and --json, whose shapes stay the contract's).
    const notRead = notReadSentence(notReadEvidence(db))
    if (notRead !== null && (flags.csv || this.jsonEnabled())) this.note(this.paint.yellow(`${notRead} The listing holds what was read.`))
    if (flags.csv) process.stdout.write(toCsv(PROVENANCE_CSV_COLUMNS.filter((c) => flags['show-text'] || c !== 'overlap_text'), rows as unknown as Array<Record<string, unknown>>))
    else if (!this.jsonEnabled()) {
      this.log(unsearched ?? renderProvenance(rows, text))
      // "No response repeats ..." speaks for what was read only.
      if (notRead !== null) this.log(notRead)
    }
    if ((flags.csv || this.jsonEnabled()) && text.withoutText > 0) this.note(this.paint.yellow(`warning: ${unexaminedLine(text)}`))
    return rows
  }
}
