import {Args, Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {count} from '../../cli/plural.js'
import {ingestFindings, type IngestFindingsResult} from '../../scale/ingest-findings.js'
import {parsePrefixRewrites} from '../../scale/shard-reader.js'

export default class IngestFindings extends BaseCommand {
  static override summary = "Bring a Spark audit's findings into the case, with evidence by reference to the original shards."
  static override description = `DIR is the findings/ directory the Spark job (spark/, docs/scale.md) wrote. For every record a finding rests on, the line (and the lines it was read with) is read from the original shard (a local path or file:// URI; map object-store URIs to a local mount with --shard-prefix), checked against the CRC-32 the job took and the shard against its SHA-256, and stored with the findings. The case then holds those lines only, and records the job's counts over every record, so status, scope, the reports, replay and verify work as on a case of copies. Ingest the same canary registry into the (new) case first.`
  static override examples = [
    '<%= config.bin %> ingest canaries canaries.csv --db audit.db && <%= config.bin %> ingest findings ./job/findings --db audit.db',
    '<%= config.bin %> ingest findings ./job/findings --shard-prefix s3://logs-bucket/gw=/mnt/gw --json',
  ]
  static override args = {dir: Args.string({description: 'the findings/ directory a crosstalk Spark job wrote', required: true})}
  static override flags = {
    db: dbFlag,
    'shard-prefix': Flags.string({description: 'read shards under URI prefix FROM from local path TO (repeatable)', multiple: true, helpValue: 'FROM=TO'}),
  }

  async run(): Promise<IngestFindingsResult> {
    const {args, flags} = await this.parse(IngestFindings)
    const rewrites = parsePrefixRewrites(flags['shard-prefix'])
    const db = this.openCase(flags.db, {create: true})
    const now = new Date()
    const result = await ingestFindings(db, {
      dir: args.dir, now, rewrites,
      // Stored with the findings, in their transaction.
      record: (r) => this.audit(db, {dir: args.dir, shard_prefix: flags['shard-prefix'] ?? []}, r, now),
    })
    if (!this.jsonEnabled()) {
      this.log(`Ingested findings over ${count(result.records_examined, 'record')} in ${count(result.files, 'shard')}: ${count(result.sightings, 'sighting')}, ${count(result.provenance, 'provenance attribution')}, ${count(result.pii_findings, 'personal-data finding')}.`)
      this.log(`Stored ${count(result.records_stored, 'record')} by reference (read back from ${count(result.shards_read, 'shard')}, CRC-32 and SHA-256 checked) and ${count(result.bad_lines, 'bad line')}.`)
    }
    return result
  }
}
