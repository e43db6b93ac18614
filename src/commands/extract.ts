import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {parseMapFlag} from '../cli/ingest-flags.js'
import {count} from '../cli/plural.js'
import {extractLogs, planShards, type ExtractLogsResult} from '../scale/extract-logs.js'
import {readUnconventional} from '../scale/registry-export.js'
import {UsageError} from '../errors.js'
import {safeLine} from '../util/sanitize.js'

export default class Extract extends BaseCommand {
  static override summary = 'Write the per-record detection extract of log files as Parquet, without a case (the map step of a Spark audit).'
  static override description = `For each log file (a shard), one Parquet file in --out: per record the line's byte offset, length, CRC-32 and line number, its ids, time, status, decode node, prompt size and error flag, the marker-shaped tokens of the response (with what the echo check needs), the hashed personal-data values and the winnowed text fingerprints; per bad line its reason; and the shard's URI, SHA-256 and line counts. Lines are read by exactly the rules of \`ingest logs\`. The same shard always gives byte-identical output.

The Spark job in spark/ runs this on its executors, one shard per task, and joins the extracts with the canary registry (docs/scale.md).`
  static override examples = [
    '<%= config.bin %> extract ./logs/ --out ./extracts',
    '<%= config.bin %> extract shard-0001.jsonl.gz --out /tmp/x --uri s3://bucket/logs/shard-0001.jsonl.gz --json',
    '<%= config.bin %> extract ./logs/ --plan --json   # the shards, in the order ingest reads them',
  ]
  static override strict = false
  static override args = {paths: Args.string({description: 'log files, directories or globs', required: true})}
  static override flags = {
    out: Flags.string({description: 'directory to write the extracts to', helpValue: 'DIR'}),
    map: Flags.string({description: 'read FIELD from a dotted path of each line (repeatable), as ingest logs --map', multiple: true, helpValue: 'FIELD=PATH'}),
    canaries: Flags.string({description: 'a registry export (`crosstalk registry-export`): its markers outside the CANARY-<hex> convention are matched too', helpValue: 'DIR'}),
    uri: Flags.string({description: 'record this URI as the shard\'s location (one file that was copied here from object storage)'}),
    'max-line-bytes': Flags.integer({description: 'a longer line is a bad line', default: 256 * 1024 * 1024, min: 1}),
    plan: Flags.boolean({description: 'only list the shards, in the order `ingest logs` reads them'}),
  }

  async run(): Promise<ExtractLogsResult | {shards: string[]}> {
    const {argv, flags} = await this.parse(Extract)
    const map = parseMapFlag(flags.map)
    if (flags.plan) {
      const shards = planShards(argv as string[])
      if (!this.jsonEnabled()) for (const s of shards) this.log(s)
      return {shards}
    }
    if (!flags.out) throw new UsageError('--out DIR is required (or --plan to list the shards)')
    const unconventional = flags.canaries ? await readUnconventional(flags.canaries) : []
    const result = await extractLogs({paths: argv as string[], outDir: flags.out, map, maxLineBytes: flags['max-line-bytes'], unconventional, uri: flags.uri})
    if (!this.jsonEnabled()) {
      for (const f of result.per_file) this.log(`${safeLine(f.path)}  ${count(f.record_lines, 'record line')}, ${count(f.bad_lines, 'bad line')}  -> ${safeLine(f.extract)} (${f.extract_bytes} bytes)`)
      this.log(`Extracted ${count(result.files, 'file')}: ${result.extract_bytes} bytes from ${result.log_bytes} bytes of logs (${(result.ratio * 100).toFixed(1)}%).`)
    }
    return result
  }
}
