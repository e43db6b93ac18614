import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {safeLine} from '../util/sanitize.js'
import {verifyCase, type VerifyResult} from '../case/verify.js'
import {IntegrityError} from '../errors.js'
import {count} from '../cli/plural.js'

export default class Verify extends BaseCommand {
  static override summary = 'Check the case end to end: audit chain, evidence hashes, every record against its original bytes.'
  static override description = 'Verifies the hash chain of the audit log, every evidence block against its SHA-256, each file\'s reassembled content against the hash taken at ingest, every record\'s and quarantined line\'s bytes against the evidence, and every original file still on disk against its ingest hash. Exits 1 naming the first broken link or altered item.'
  static override examples = ['<%= config.bin %> verify', '<%= config.bin %> verify --db case.db --json', '<%= config.bin %> verify --no-originals']
  static override flags = {
    db: dbFlag,
    originals: Flags.boolean({description: 're-hash original files still on disk', default: true, allowNo: true}),
  }

  async run(): Promise<VerifyResult> {
    const {flags} = await this.parse(Verify)
    const db = this.openCase(flags.db, {readonly: true})
    const result = await verifyCase(db, {rehashOriginals: flags.originals})
    if (!result.ok) {
      if (!this.jsonEnabled()) for (const p of result.problems) this.log(`FAIL ${p.kind}: ${safeLine(p.where)}: ${p.detail}`)
      const first = result.problems[0]!
      throw new IntegrityError(`verify failed: ${safeLine(first.where)}: ${first.detail}${result.problems.length > 1 ? ` (and ${count(result.problems.length - 1, 'more problem')})` : ''}`, 'E_VERIFY_FAILED')
    }
    if (!this.jsonEnabled()) {
      this.log(`OK: audit chain of ${count(result.audit_entries, 'entry', 'entries')} intact; ${count(result.files_checked, 'file')}, ${count(result.blocks_checked, 'evidence block')}, ${count(result.records_checked, 'record')} verified; ${count(result.originals_rehashed, 'original')} re-hashed.`)
    }
    return result
  }
}
