import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {toCsv} from '../cli/csv.js'
import {renderPii, unexaminedLine} from '../cli/render-detect.js'
import {listPiiFindings, type PiiResult} from '../detect/list.js'
import {detectionCoverage} from '../detect/coverage.js'
import {notReadEvidence, notReadSentence} from '../detect/not-read.js'
import {checkDetection, detectionFlags, nothingSearchedLine} from '../cli/detection-flags.js'
import {fileTotals} from '../store/files.js'

const PII_CSV_COLUMNS = ['request_id', 'ts', 'kind', 'value_ref', 'recipient_session', 'recipient_tenant', 'source_request_id', 'source_session', 'source_tenant', 'value', 'value_sha256']

export default class Pii extends BaseCommand {
  static override description =
    'Personal data (e-mail, phone, IBAN, card, IP) in responses that the session never sent, attributed to an earlier sender where one exists. IP addresses that identify no one (loopback, private, link-local, documentation, public DNS resolvers) are not counted.'

  static override examples = ['<%= config.bin %> pii', '<%= config.bin %> pii --json', '<%= config.bin %> pii --csv > pii.csv', '<%= config.bin %> pii --show-values   # reveals the values']

  static override flags = {
    db: dbFlag,
    ...detectionFlags,
    csv: Flags.boolean({description: 'CSV on stdout (value references; the values too with --show-values).', exclusive: ['json']}),
    'show-values': Flags.boolean({description: 'Reveal the values (recomputed from the responses; only hashes are stored) and their stored SHA-256. Without it each value is shown as its reference in this case (ref:...), which nobody can reverse without the case.'}),
  }

  public async run(): Promise<PiiResult> {
    const {flags} = await this.parse(Pii)
    const db = this.openCase(flags.db, {readsOnly: true})
    const coverage = detectionCoverage(db)
    const warning = checkDetection(coverage, 'personal-data findings', flags['allow-incomplete'])
    if (warning) this.note(this.paint.yellow(warning))
    const rows = listPiiFindings(db, {showValues: flags['show-values']})
    // Nothing searched: an empty listing is not known, never "No personal data…" (console), and said beside the empty array or CSV.
    const unsearched = nothingSearchedLine(coverage, 'Personal data a session never sent', rows.length)
    // Answers that decoded to no text, and lines or files never read, were not searched: the listing
    // speaks for what was read only, never a flat "none" over them (as provenance and sightings say).
    const totals = fileTotals(db)
    const text = {answers: totals.answers, withoutText: totals.no_response_text}
    const notRead = notReadSentence(notReadEvidence(db))
    if (flags.csv || this.jsonEnabled()) {
      if (unsearched !== null) this.note(this.paint.yellow(unsearched))
      const unexamined = unexaminedLine(text)
      if (unexamined !== null) this.note(this.paint.yellow(`warning: ${unexamined}`))
      if (notRead !== null) this.note(this.paint.yellow(`${notRead} The listing holds what was read.`))
    }
    if (flags.csv) process.stdout.write(toCsv(PII_CSV_COLUMNS.filter((c) => flags['show-values'] || (c !== 'value' && c !== 'value_sha256')), rows as unknown as Array<Record<string, unknown>>))
    else if (!this.jsonEnabled()) {
      this.log(unsearched ?? renderPii(rows, text))
      if (unsearched === null && notRead !== null) this.log(notRead)
    }
    return rows
  }
}
