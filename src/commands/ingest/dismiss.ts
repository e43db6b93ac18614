import {Args, Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {dismissUnread, type DismissUnreadResult} from '../../case/dismiss-unread.js'
import {safeLine} from '../../util/sanitize.js'

export default class IngestDismiss extends BaseCommand {
  static override summary = 'Settle a log source an ingest could not read, with a reason, recorded in the audit log.'
  static override description = `An entry \`ingest logs\` or \`triage\` reached and did not read (a broken link, a FIFO, a log compressed other than gzip, a file it may not read, a file refused for its lines) stays open in the case: every --fail-on-leak gate exits 1 while one is, \`status\` lists them, and the drafts state them as not examined. It is settled on its own when the same source is ingested whole (the same bytes, or the same path where its bytes could not be read). A source read another way (a .zst decompressed, then ingested as another file) is another file: settle the original here, saying why (e.g. which file holds its lines).

PATH is the path as the ingest named it, or a path to the same file. Every open entry at that path is settled; the audit log keeps each with the reason, and \`crosstalk verify\` checks the case against it.`
  static override examples = [
    `<%= config.bin %> ingest dismiss logs/2026-11-03.jsonl.zst --reason "decompressed with zstd -d and ingested as logs/2026-11-03.jsonl"`,
    `<%= config.bin %> ingest dismiss logs/.tmp.sock --reason "the proxy's socket, not a log" --json`,
  ]
  static override strict = false
  static override args = {path: Args.string({description: 'the unread source, as status lists it', required: true})}
  static override flags = {
    db: dbFlag,
    reason: Flags.string({description: 'why it may stay unread (recorded in the audit log)', required: true, helpValue: 'TEXT'}),
  }

  async run(): Promise<DismissUnreadResult> {
    const {argv, flags} = await this.parse(IngestDismiss)
    const db = this.openCase(flags.db)
    const now = new Date()
    const result = dismissUnread(db, argv as string[], flags.reason, now)
    this.audit(db, {paths: argv, reason: flags.reason}, result, now)
    if (!this.jsonEnabled()) for (const s of result.dismissed) this.log(`Dismissed ${safeLine(s.path)}  (${safeLine(s.reason)}; recorded by ${s.recorded_by} ${s.recorded_at})`)
    return result
  }
}
