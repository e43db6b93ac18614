import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../../cli/base-command.js'
import {breakIngestClaim} from '../../ingest/ingest-lock.js'
import {safeLine} from '../../util/sanitize.js'

export interface IngestReleaseResult {
  /** the pid of the claim broken */
  pid: number
  /** where it was made, as it was recorded (null: a claim of an earlier version) */
  host: string | null
  pid_namespace: string | null
  reason: string
}

export default class IngestRelease extends BaseCommand {
  static override summary = 'Break the ingest claim of a process that no longer runs, where crosstalk cannot tell (another PID namespace or host), recorded in the audit log.'
  static override description = `One ingest, scan or drop writes a case at a time: each claims it while it runs. A claim of a process that ended is passed over on its own; one made in another PID namespace (a container) that still runs processes, or on another host, cannot be judged, and holds the case until it is released here. A claim of a process running on this machine is refused (wait for it, or end it). The audit log keeps the claim broken and the reason; run \`crosstalk verify\` after, since the process may have left a file half-ingested.`
  static override examples = [`<%= config.bin %> ingest release --reason "the ingest container was killed (docker kill ingest-7)"`]
  static override flags = {
    db: dbFlag,
    reason: Flags.string({description: 'why the claimant no longer runs (recorded in the audit log)', required: true, helpValue: 'TEXT'}),
  }

  async run(): Promise<IngestReleaseResult> {
    const {flags} = await this.parse(IngestRelease)
    const db = this.openCase(flags.db)
    const claim = breakIngestClaim(db)
    const result: IngestReleaseResult = {pid: claim.pid, host: claim.identity?.host ?? null, pid_namespace: claim.identity?.pid_ns ?? null, reason: flags.reason}
    this.audit(db, {flags}, result)
    if (!this.jsonEnabled()) this.log(`Released the claim of process ${claim.pid}${result.host ? ` (host ${safeLine(result.host)}${result.pid_namespace ? `, ${safeLine(result.pid_namespace)}` : ''})` : ''}: ${safeLine(flags.reason)}; run crosstalk verify`)
    return result
  }
}
