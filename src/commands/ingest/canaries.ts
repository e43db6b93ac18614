import {Args} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {safeLine} from '../../util/sanitize.js'
import {ingestCanaries, type IngestCanariesResult} from '../../ingest/ingest-canaries.js'
import {count} from '../../cli/plural.js'

export default class IngestCanaries extends BaseCommand {
  static override summary = 'Register canary markers (CSV or JSON Lines) in the case.'
  static override description = `Each entry names a marker and the tenant and session it was issued to: header marker,tenant_id,session_id,issued_at (CSV) or those keys (JSON Lines). Conventional markers are CANARY- followed by 16 or more hex digits; others are matched exactly. The same marker registered to two different sessions is an error that lists them, and nothing from that file is stored. Re-ingesting is idempotent. Run \`crosstalk scan\` afterwards to classify sightings against the new entries.`
  static override examples = ['<%= config.bin %> ingest canaries canaries.csv', '<%= config.bin %> ingest canaries registry.jsonl --db case.db --json']
  static override args = {path: Args.string({description: 'canary registry file', required: true})}
  static override flags = {db: dbFlag}

  async run(): Promise<IngestCanariesResult> {
    const {args, flags} = await this.parse(IngestCanaries)
    const db = this.openCase(flags.db, {create: true})
    const result = await ingestCanaries(db, {path: args.path, now: () => new Date()})
    this.audit(db, {path: args.path}, result)
    if (!this.jsonEnabled()) {
      this.log(
        result.status === 'already_present'
          ? `${safeLine(result.file)}: already in the case, nothing added.`
          : `${safeLine(result.file)}: ${count(result.entries, 'entry', 'entries')}, ${count(result.added, 'marker')} added, ${result.already_registered} already registered.`,
      )
    }
    return result
  }
}
