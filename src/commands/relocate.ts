import {Args} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {count} from '../cli/plural.js'
import {relocateOriginals, type RelocateResult} from '../case/relocate-originals.js'
import {grownOriginalLine} from '../case/grown-originals.js'
import {safeLine} from '../util/sanitize.js'

export default class Relocate extends BaseCommand {
  static override summary = 'Point a case that keeps its logs by reference at the originals\' new place (each checked against its SHA-256), recorded in the audit log.'
  static override description = `A case ingested with --evidence reference reads each plain log file where it lay at ingest. When the originals move (copied to a forensic share, the case taken to another machine), every file the case reads from under FROM is looked for at the same relative place under TO, and taken only if its bytes (as many as were ingested) still have the SHA-256 recorded at ingest. One file missing or different, and nothing changes. Findings are untouched; \`crosstalk verify\` then reads every original again at its new place.

An original renamed where it lay (logrotate renames app.log to app.log.1, perhaps after it grew): give the file it was ingested from and the file it is now (\`crosstalk relocate logs/app.log logs/app.log.1\`). Each version the case keeps from the old name whose bytes the new file begins with (SHA-256 over as many bytes as were ingested) is read there from now on; a version the new file does not begin with (the file created under the old name since) stays where it is. None matching, and nothing changes.`
  static override examples = [
    '<%= config.bin %> relocate /var/log/gateway /mnt/forensics/incident-42/logs --db audit.db',
    '<%= config.bin %> relocate /var/log/gateway/app.log /var/log/gateway/app.log.1 --db audit.db',
  ]
  static override args = {
    from: Args.string({description: 'the folder the originals were ingested from (or the file, for one renamed)', required: true}),
    to: Args.string({description: 'the folder they lie in now (same layout below it), or the file a renamed original is now', required: true}),
  }
  static override flags = {db: dbFlag}

  async run(): Promise<RelocateResult> {
    const {args, flags} = await this.parse(Relocate)
    const db = this.openCase(flags.db)
    const result = await relocateOriginals(db, args.from, args.to)
    // Each file's place before and after (verify follows them from the place its ingest recorded).
    // Nothing changed (every original already recorded where TO puts it): no audit entry, and not said to be relocated.
    if (result.relocated.length > 0) this.audit(db, {from: args.from, to: args.to}, {files: result.relocated.map((r) => ({path: r.path, sha256: r.sha256, from: r.from, to: r.to})), elsewhere: result.elsewhere})
    if (!this.jsonEnabled() && result.relocated.length === 0) {
      this.log(`Nothing relocated: ${count(result.unchanged, 'original')} under ${safeLine(args.from)} ${result.unchanged === 1 ? 'is' : 'are'} already recorded there, and each matched its SHA-256.`)
      for (const g of result.grown) this.note(this.paint.yellow(`warning: ${safeLine(grownOriginalLine(g))}`))
    } else if (!this.jsonEnabled()) {
      this.log(`Relocated ${count(result.relocated.length, 'original')} (each matched its SHA-256 at the new place)${result.elsewhere ? `; ${count(result.elsewhere, 'other file')} kept by reference elsewhere left as ${result.elsewhere === 1 ? 'it was' : 'they were'}` : ''}.`)
      for (const r of result.relocated) this.log(`  ${safeLine(r.path)}  ->  ${safeLine(r.to)}`)
      for (const g of result.grown) this.note(this.paint.yellow(`warning: ${safeLine(grownOriginalLine(g))}`))
    }
    return result
  }
}
