import {Args, Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {count} from '../cli/plural.js'
import {dropFiles, type DropResult} from '../case/drop-files.js'
import {safeLine} from '../util/sanitize.js'

export default class Drop extends BaseCommand {
  static override summary = 'Remove a log file (to read it again under another --log-format or --map) or a wrong canary registry from the case, recorded in the audit log.'
  static override description = `A file stays in the case under its SHA-256: ingesting the same bytes again adds nothing. To read it again differently (it was read with the wrong format or mapping), drop it, then ingest it again. Its records, quarantined lines, evidence bytes and every finding derived from them leave the case, except a record that a file staying in the case holds as a duplicate line: it stays, at that line (the first such), so the case is what ingesting the other files alone would give (a drop where that line is other bytes, or read another way, is refused); the audit log keeps the ingest and the drop (the file's SHA-256, counts, format and your reason). Provenance is then recomputed by the next \`crosstalk scan\` (reports refuse until then).

A canary registry can be withdrawn the same way (it was the wrong file, or assigned markers to the wrong sessions): its markers leave the case's registry, except those a registry file that stays also gives (to the same session, or it would have been refused at ingest), and its copy leaves the case. Every sighting was classified with the registry as it was, so the next \`crosstalk scan\` classifies every record again; until then detection reads as incomplete and the gates fail closed. Then ingest the corrected registry (\`crosstalk ingest canaries\`) and scan. A document already sent keeps what it said: drafts made after the drop name the registry withdrawn and when.

FILE is the path as given to ingest, its absolute path, or its SHA-256 (12 or more leading hex digits). Files whose records were read with lines of FILE (a Batch output file with its input file, OTLP traces with their logs) must be dropped together.`
  static override examples = [
    `<%= config.bin %> drop export.jsonl --reason "read with --map response=output; the answer is output.content"`,
    '<%= config.bin %> drop 3f2a9c81d0e4 --reason "wrong --custom-id-pattern" --json',
    '<%= config.bin %> drop canaries-eu.csv --reason "registry of the staging cluster, not production"',
  ]
  static override strict = false
  static override args = {file: Args.string({description: 'log file or canary registry: path as ingested, absolute path or SHA-256 prefix', required: true})}
  static override flags = {
    db: dbFlag,
    reason: Flags.string({description: 'why the file is dropped (recorded in the audit log)', required: true, helpValue: 'TEXT'}),
  }

  async run(): Promise<DropResult> {
    const {argv, flags} = await this.parse(Drop)
    const db = this.openCase(flags.db)
    const result = dropFiles(db, argv as string[], flags.reason, (r) => this.audit(db, {files: argv, reason: flags.reason}, r))
    if (!this.jsonEnabled()) {
      for (const f of result.dropped) this.log(`Dropped ${safeLine(f.path)}  sha256:${f.sha256.slice(0, 16)}…  (read as ${f.log_format}; ${count(f.records, 'record')}, ${count(f.bad_lines, 'bad line')})`)
      if (result.records_kept > 0) this.log(`${count(result.records_kept, 'record')} of it stay${result.records_kept === 1 ? 's' : ''} in the case, each now at its duplicate line in a file that stays.`)
      for (const r of result.registries_dropped) {
        const still = r.markers_still_registered > 0 ? `; ${count(r.markers_still_registered, 'marker')} of it stay${r.markers_still_registered === 1 ? 's' : ''} registered by another registry file of the case` : ''
        this.log(`Withdrew canary registry ${safeLine(r.path)}  sha256:${r.sha256.slice(0, 16)}…  (${count(r.entries, 'entry', 'entries')}; ${count(r.markers_removed, 'marker')} no longer registered${still})`)
      }
      if (result.dropped.length > 0) this.log('To read it again, ingest it with the right --log-format / --map. Either way, run `crosstalk scan`: detection is incomplete until provenance is recomputed.')
      if (result.registries_dropped.length > 0) this.log('Ingest the corrected registry if there is one (crosstalk ingest canaries FILE), then run `crosstalk scan`: every record is classified again; until then detection is incomplete and --fail-on-leak fails closed.')
    }
    return result
  }
}
