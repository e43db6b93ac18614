import {Args, Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {ingestLogsCommand, logIngestFlags, parseMapFlag} from '../../cli/ingest-flags.js'
import {safeLine} from '../../util/sanitize.js'
import type {IngestLogsResult} from '../../ingest/ingest-logs.js'
import {count} from '../../cli/plural.js'

export default class IngestLogs extends BaseCommand {
  static override summary = 'Load request/response logs (JSON Lines, .gz) into the case, evidence-grade.'
  static override description = `Streams each file in constant memory, hashes it (SHA-256), keeps its raw bytes in the case so every record links back to its exact original line, and quarantines lines that cannot be read (with file, line, byte offset and reason) without stopping. Re-ingesting a file already in the case (same SHA-256) adds nothing; a request_id seen twice within one --source is a duplicate, not a second record. An ingest interrupted by a crash is redone cleanly when run again.

Lines are parsed on worker threads (one per core), and what detection needs from each response (marker-shaped tokens, hashed personal-data values, text fingerprints) is extracted in the same pass, so \`scan\` never reads the texts again. Load the canary registry first (\`ingest canaries\`) when it holds markers outside the CANARY-<hex> convention: they are then matched during ingest too. The original bytes are kept uncompressed by default (fastest); --compress-evidence stores them deflated, about a quarter of the size, for several times the CPU.

PATHS may be files, directories (walked for *.jsonl, *.json, *.log, *.gz) or quoted globs.`
  static override examples = [
    '<%= config.bin %> ingest logs ./gateway-logs/',
    '<%= config.bin %> ingest logs "logs/**/*.jsonl.gz" --db case.db --json',
    '<%= config.bin %> ingest logs export.jsonl --map tenant_id=metadata.tenant --map ts=startTime --map response=output',
  ]
  static override strict = false
  static override args = {paths: Args.string({description: 'log files, directories or globs', required: true})}
  static override flags = {
    db: dbFlag,
    ...logIngestFlags,
    'max-line-bytes': Flags.integer({description: 'quarantine lines longer than this', default: 256 * 1024 * 1024, min: 1}),
    workers: Flags.integer({description: 'parse worker threads (default: one per core, at most 4; 0 parses on the main thread)', min: 0, max: 16}),
  }

  async run(): Promise<IngestLogsResult> {
    const {argv, flags} = await this.parse(IngestLogs)
    const map = parseMapFlag(flags.map)
    const db = this.openCase(flags.db, {create: true})
    const result = await ingestLogsCommand(db, argv as string[], map, flags, this.jsonEnabled(), {maxLineBytes: flags['max-line-bytes'], workers: flags.workers})
    this.audit(db, {paths: argv, map: flags.map ?? [], source: flags.source}, {
      files: result.per_file.map((f) => ({path: f.path, sha256: f.sha256, status: f.status, records: f.records})),
      records: result.records, duplicates: result.duplicates, bad_lines: result.bad_lines,
    })
    for (const w of result.warnings) this.note(this.paint.yellow(`warning: ${safeLine(w)}`))
    if (!this.jsonEnabled()) {
      for (const f of result.per_file) {
        const what = f.status === 'already_present' ? 'already in the case, nothing added' : `${count(f.records, 'record')}, ${count(f.duplicates, 'duplicate')}, ${count(f.bad_lines, 'bad line')}`
        this.log(`${safeLine(f.path)}  sha256:${f.sha256.slice(0, 16)}…  ${what}`)
      }
      this.log(`Ingested ${count(result.files, 'file')}: ${count(result.records, 'new record')}, ${count(result.duplicates, 'duplicate')}, ${count(result.bad_lines, 'bad line')} quarantined${result.skipped_files ? `, ${count(result.skipped_files, 'file')} already present` : ''}.`)
      if (result.bad_lines > 0) this.log(`See them with: crosstalk status --bad-lines`)
    }
    return result
  }
}
