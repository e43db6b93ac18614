import {Args, Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {describeDecision, evidenceFor, ingestAuditArgs, ingestAuditSummary, ingestLogsCommand, logIngestFlags, parseIngestFlags, WALKED_FILES} from '../../cli/ingest-flags.js'
import {interruptedMessage, renderIngest} from '../../cli/render-ingest.js'
import {signalExitCode, watchInterrupts} from '../../cli/interrupt.js'
import {InputError} from '../../errors.js'
import {partialIngest, refusedMessage, notReadWholeError, unreadEntriesError, type IngestLogsResult} from '../../ingest/ingest-logs.js'
import {safeLine} from '../../util/sanitize.js'

export default class IngestLogs extends BaseCommand {
  static override summary = 'Load request/response logs (JSON Lines, .gz) into the case, evidence-grade.'
  static override description = `Streams each file in bounded memory, hashes it (SHA-256), keeps its raw bytes in the case so every record links back to its exact original line, and quarantines lines that cannot be read (with file, line, byte offset and reason) without stopping. Re-ingesting a file already in the case (same SHA-256) adds nothing; to read a file again under another format or --map, remove it first with \`crosstalk drop\`. A log that grew since it was ingested (appended to: it begins with the exact bytes stored, at its path or copied under any other) is stored as its longer version and read from where the stored version's whole lines end: only the new lines become records, duplicates or bad lines, the file counts once, and the stored file stays as it was. One whose path held other bytes when last ingested (rewritten, truncated, rotated) is named CHANGED and read as a file of its own, never merged. A request_id seen twice within one --source is a duplicate, not a second record. An ingest interrupted by a crash or a signal is redone cleanly when run again.

Log formats (--log-format): native (crosstalk's own), otel (OTLP/JSON traces and logs with the GenAI conventions), langfuse (observation exports), litellm (proxy spend logs), openai-batch (Batch output and error files with their input file). auto (the default) decides per file from its first readable lines and prints why. A file none of whose lines could be read, or whose responses all decode to no text, is not ingested: the command names it with the likely fix and exits 1, keeping the other files.

Timestamps without a zone are refused unless --assume-tz names the zone they were written in.

Lines are parsed on worker threads (one per core), and what detection needs from each response (marker-shaped tokens, hashed personal-data values, text fingerprints) is extracted in the same pass, so \`scan\` never reads the texts again. Load the canary registry first (\`ingest canaries\`) when it holds markers outside the CANARY-<hex> convention: they are then matched during ingest too. The original bytes are kept uncompressed by default (fastest); --compress-evidence stores them deflated, about a quarter of the size, for several times the CPU. --evidence reference keeps none of them: the case holds each file's SHA-256 and each record's byte offset, length and CRC-32, and reads the original where it lies, checking every line it reads against its CRC-32 (a case about a tenth of the size; a .gz file is copied all the same, since a record inside a compressed stream cannot be read at its offset). The originals must then stay where they are, unchanged: \`crosstalk verify\` reads each one again against its SHA-256 and names any that is missing or changed, and a record whose line no longer matches cannot be read. Once a case keeps a file by reference, later ingests into it do too unless --evidence copy is given.

PATHS may be regular files (any name), directories (walked, through symbolic links, for ${WALKED_FILES}) or quoted globs. An entry a walk or a glob reaches and cannot read (a broken symbolic link, a link loop, a FIFO, socket or device, a log compressed other than gzip, one it may not read), whatever its name, is named in a warning and in --json skipped_entries, and the command exits 1 once the other files are in the case; a file of a walked directory whose name is not a log's is read when its first bytes are a log's (gzip, or a first non-blank line opening a JSON object or array), kept open as not read when they cannot be read, are another compression or UTF-16 text, or are NUL bytes only (it may hold a log), and otherwise (a README, .DS_Store, a checksum list, an empty file) skipped with a warning line naming it and why: such a file fails no gate. The case remembers each entry not read and each file refused (--json unread_sources; \`crosstalk status\` lists them): until the same source is ingested whole (the same bytes, or the same path where its bytes could not be read), or settled with \`crosstalk ingest dismiss PATH --reason "..."\` (a .zst decompressed and ingested as another file, say), every --fail-on-leak gate on the case exits 1.`
  static override examples = [
    '<%= config.bin %> ingest logs ./gateway-logs/',
    '<%= config.bin %> ingest logs "logs/**/*.jsonl.gz" --db case.db --json',
    '<%= config.bin %> ingest logs /mnt/audit/2026-11/ --evidence reference --db audit.db',
    '<%= config.bin %> ingest logs traces.jsonl otel-logs.jsonl --log-format otel --tenant-attribute tenant.id',
    '<%= config.bin %> ingest logs spend-logs.jsonl --log-format litellm --assume-tz UTC',
    `<%= config.bin %> ingest logs batch-input.jsonl batch-output.jsonl --custom-id-pattern '^(?<tenant>[^:]+):(?<session>[^:]+):'`,
    '<%= config.bin %> ingest logs export.jsonl --log-format native --map tenant_id=metadata.tenant --map ts=epoch_ms:startTime --map response=output.content',
  ]
  static override strict = false
  static override args = {paths: Args.string({description: 'log files, directories or globs', required: true})}
  static override flags = {
    db: dbFlag,
    ...logIngestFlags,
    'max-line-bytes': Flags.integer({description: 'quarantine lines longer than this (they are never held in memory whole)', default: 256 * 1024 * 1024, min: 1}),
    workers: Flags.integer({description: 'parse worker threads (default: one per core, at most 4, for input of 8 MiB or more; smaller input is parsed on the main thread, as 0 asks)', min: 0, max: 16}),
  }

  async run(): Promise<IngestLogsResult> {
    const {argv, flags} = await this.parse(IngestLogs)
    const parsed = parseIngestFlags(flags)
    const db = this.openCase(flags.db, {create: true})
    const evidence = evidenceFor(db, flags.evidence)
    const args = ingestAuditArgs(argv as string[], parsed, flags.source, evidence)
    const interrupts = watchInterrupts()
    let result: IngestLogsResult
    try {
      result = await ingestLogsCommand(db, argv as string[], parsed, {...flags, evidence}, this.jsonEnabled(), {
        maxLineBytes: flags['max-line-bytes'], workers: flags.workers, signal: interrupts.signal,
        onFormat: (d) => this.note(safeLine(describeDecision(d))),
      })
    } catch (error) {
      // What was stored before the failure is recorded all the same.
      const partial = partialIngest(error)
      if (partial) this.audit(db, args, {...ingestAuditSummary(partial, db), failed: (error as Error).message})
      throw error
    } finally {
      interrupts.dispose()
    }
    this.audit(db, args, ingestAuditSummary(result, db))
    for (const w of result.warnings) this.note(this.paint.yellow(`warning: ${safeLine(w)}`))
    if (!this.jsonEnabled()) this.log(renderIngest(result))
    const sig = interrupts.received()
    if (result.interrupted) {
      this.note(interruptedMessage(result, sig))
      process.exitCode = signalExitCode(sig ?? 'SIGINT')
      return result
    }
    const refused = refusedMessage(result)
    const unread = unreadEntriesError(result)
    // A file not read whole is a file not read: exit 1, as an entry that could not be read at all.
    const partial = notReadWholeError(result)
    // Under --json the error object carries the ingest's document as its details (what was stored, what was not read).
    if (refused || unread || partial) throw new InputError([refused, unread, partial].filter(Boolean).join('; '), refused ? 'E_NOTHING_READ' : 'E_NOT_READ').withDetails(result)
    return result
  }
}
