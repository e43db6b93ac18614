import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {logIngestFlags, parseIngestFlags} from '../cli/ingest-flags.js'
import {count} from '../cli/plural.js'
import {InputError, UsageError} from '../errors.js'
import {extractLogs, extractNotReadWholeError, planShards, type ExtractLogsResult, type ExtractPlan} from '../scale/extract-logs.js'
import {readUnconventional} from '../scale/registry-export.js'
import {safeLine} from '../util/sanitize.js'

const {'log-format': logFormat, map, 'assume-tz': assumeTz, 'assume-tz-ambiguous': assumeTzAmbiguous, 'tenant-attribute': tenantAttribute, 'custom-id-pattern': customIdPattern, 'batch-ts': batchTs} = logIngestFlags

export default class Extract extends BaseCommand {
  static override summary = 'Write the per-record detection extract of log files as Parquet, without a case (the map step of a Spark audit).'
  static override description = `For each log file (a shard), one Parquet file in --out: per record the line number, the item within the line, the byte offset, length and CRC-32 of the line and of the other lines the record was read with, its ids, time, status, decode node, token counts and error flag, the marker-shaped tokens of the response (with what the echo check needs), the hashed personal-data values and the winnowed text fingerprints; per bad line or item its reason; and the shard's URI, SHA-256, format and line counts. Files are read exactly as \`ingest logs\` reads them: every log format (--log-format, auto by default, decided per file), the same options, and the files of a format whose records join lines across files (OpenTelemetry traces and logs, Batch output and input) read as one set. The same shard always gives byte-identical output.

The Spark job in spark/ runs this on its executors, one shard (or set) per task, and joins the extracts with the canary registry (docs/scale.md).`
  static override examples = [
    '<%= config.bin %> extract ./logs/ --out ./extracts',
    '<%= config.bin %> extract traces.jsonl otel-logs.jsonl --log-format otel --out ./extracts --json',
    '<%= config.bin %> extract shard-0001.jsonl.gz --out /tmp/x --uri s3://bucket/logs/shard-0001.jsonl.gz --json',
    '<%= config.bin %> extract ./logs/ --plan --json   # the shards, in the order ingest reads them, and the sets read together',
  ]
  static override strict = false
  static override args = {paths: Args.string({description: 'log files, directories or globs', required: true})}
  static override flags = {
    out: Flags.string({description: 'directory to write the extracts to', helpValue: 'DIR'}),
    'log-format': logFormat,
    map,
    'assume-tz': assumeTz,
    'assume-tz-ambiguous': assumeTzAmbiguous,
    'tenant-attribute': tenantAttribute,
    'custom-id-pattern': customIdPattern,
    'batch-ts': batchTs,
    canaries: Flags.string({description: 'a registry export (`crosstalk registry-export`): its markers outside the CANARY-<hex> convention are matched too', helpValue: 'DIR'}),
    uri: Flags.string({description: "record this URI as the location of a file copied here from object storage (one per file, in order; repeatable)", multiple: true}),
    'max-line-bytes': Flags.integer({description: 'a longer line is a bad line', default: 256 * 1024 * 1024, min: 1}),
    plan: Flags.boolean({description: 'only list the shards, in the order `ingest logs` reads them, and the sets read together'}),
  }

  async run(): Promise<ExtractLogsResult | ExtractPlan> {
    const {argv, flags} = await this.parse(Extract)
    const parsed = parseIngestFlags(flags)
    const format = {logFormat: parsed.logFormat, parse: parsed.parse, maxLineBytes: flags['max-line-bytes']}
    if (flags.plan) {
      const plan = await planShards(argv as string[], format)
      if (!this.jsonEnabled()) for (const u of plan.units) this.log(u.files.map((f) => safeLine(f)).join('  ') + `  (${u.format}${u.joined ? ', read as one set' : ''})`)
      return plan
    }
    if (!flags.out) throw new UsageError('--out DIR is required (or --plan to list the shards)')
    const unconventional = flags.canaries ? await readUnconventional(flags.canaries) : []
    const result = await extractLogs({paths: argv as string[], outDir: flags.out, ...format, unconventional, uris: flags.uri, onStale: (message) => this.note(safeLine(message))})
    if (!this.jsonEnabled()) {
      for (const f of result.per_file) this.log(`${safeLine(f.path)}  ${count(f.record_lines, 'record')}, ${count(f.bad_lines, 'bad line')}${f.unread === null ? '' : '; NOT READ WHOLE (see the error)'}  -> ${safeLine(f.extract)} (${f.extract_bytes} bytes)`)
      this.log(`Extracted ${count(result.files, 'file')}: ${result.extract_bytes} bytes from ${result.log_bytes} bytes of logs (${(result.ratio * 100).toFixed(1)}%).`)
    }
    // A file not read whole is a file not read: exit 1, as ingest logs does; under --json the error object carries the result as its details.
    const partial = extractNotReadWholeError(result)
    if (partial) throw new InputError(partial, 'E_NOT_READ').withDetails(result)
    return result
  }
}
