import {Args, Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {count} from '../cli/plural.js'
import {dropFiles, type DropResult} from '../case/drop-files.js'
import {safeLine} from '../util/sanitize.js'

export default class Drop extends BaseCommand {
  static override summary = 'Remove a log file from the case (to read it again under another --log-format or --map), recorded in the audit log.'
  static override description = `A file stays in the case under its SHA-256: ingesting the same bytes again adds nothing. To read it again differently (it was read with the wrong format or mapping), drop it, then ingest it again. Its records, quarantined lines, evidence bytes and every finding derived from them leave the case, except a record that a file staying in the case holds as a duplicate line: it stays, at that line (the first such), so the case is what ingesting the other files alone would give (a drop where that line is other bytes, or read another way, is refused); the audit log keeps the ingest and the drop (the file's SHA-256, counts, format and your reason). Provenance is then recomputed by the next \`crosstalk scan\` (reports refuse until then).

FILE is the path as given to ingest, its absolute path, or its SHA-256 (12 or more leading hex digits). Files whose records were read with lines of FILE (a Batch output file with its input file, OTLP traces with their logs) must be dropped together.`
  static override examples = [
    `<%= config.bin %> drop export.jsonl --reason "read with --map response=output; the answer is output.content"`,
    '<%= config.bin %> drop 3f2a9c81d0e4 --reason "wrong --custom-id-pattern" --json',
  ]
  static override strict = false
  static override args = {file: Args.string({description: 'log file: path as ingested, absolute path or SHA-256 prefix', required: true})}
  static override flags = {
    db: dbFlag,
    reason: Flags.string({description: 'why the file is dropped (recorded in the audit log)', required: true, helpValue: 'TEXT'}),
  }

  async run(): Promise<DropResult> {
    const {argv, flags} = await this.parse(Drop)
    const db = this.openCase(flags.db)
    const result = dropFiles(db, argv as string[], flags.reason)
    this.audit(db, {files: argv, reason: flags.reason}, result)
    if (!this.jsonEnabled()) {
      for (const f of result.dropped) this.log(`Dropped ${safeLine(f.path)}  sha256:${f.sha256.slice(0, 16)}…  (read as ${f.log_format}; ${count(f.records, 'record')}, ${count(f.bad_lines, 'bad line')})`)
      if (result.records_kept > 0) this.log(`${count(result.records_kept, 'record')} of it stay${result.records_kept === 1 ? 's' : ''} in the case, each now at its duplicate line in a file that stays.`)
      this.log('To read it again, ingest it with the right --log-format / --map. Either way, run `crosstalk scan`: detection is incomplete until provenance is recomputed.')
    }
    return result
  }
}
