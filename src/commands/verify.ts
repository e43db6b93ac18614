import {Flags} from '@oclif/core'
import {BaseCommand, dbFlag} from '../cli/base-command.js'
import {count} from '../cli/plural.js'
import {safeLine} from '../util/sanitize.js'
import {parseExpectedHead, verifyCase, type VerifyResult} from '../case/verify.js'
import {InputError, IntegrityError, UsageError} from '../errors.js'
import {liveIngestClaimant} from '../store/open-case.js'

export default class Verify extends BaseCommand {
  static override summary = 'Check the case end to end: audit chain, evidence, every line and record re-derived from its bytes, the registry, the incident, the findings.'
  static override description = `Verifies the hash chain of the audit log; that every fact commands write (evidence files, scans, the pool size, the incident's opening and awareness amendments, notifications, decisions) has its audit entry; every evidence block and each file's content hash; every line of every log, accounted for as a record, a duplicate, a quarantined line or blank; every record's stored fields against its line parsed again, and its marker tokens and sightings derived again; the canary registry against its registry files ingested again into a scratch case; the awareness time against its opening and amendments; and each original file still on disk against its ingest hash. Exits 1 naming each altered item. A file whose ingest did not finish (interrupted, or killed, before or after it was read whole) is no altered item: it is listed as UNFINISHED (\`unfinished_files\` under --json) with the records held so far, and running the same ingest again finishes it.

The audit chain lives inside the case, so a forger with the file could rewrite it whole. verify (and status) print the entry count and head hash: note them outside the case (ticket, notebook, e-mail to yourself) and check later with --expect-head HASH:COUNT, which also accepts an earlier head: the chain must still hold it at its place.

--deep also re-extracts personal-data values and text fingerprints from every record and runs detection again on a scratch copy of the case (in $TMPDIR) to compare every sighting, provenance match and personal-data finding: about the cost of an ingest and a scan.`
  static override examples = [
    '<%= config.bin %> verify',
    '<%= config.bin %> verify --expect-head 3f9c0a1b2c3d4e5f:12',
    '<%= config.bin %> verify --deep --db case.db --json',
    '<%= config.bin %> verify --no-originals',
  ]
  static override flags = {
    db: dbFlag,
    originals: Flags.boolean({description: 're-hash original files still on disk', default: true, allowNo: true}),
    'expect-head': Flags.string({description: 'audit head noted earlier (from status or verify): its hash (12+ hex digits) and entry count', helpValue: 'HASH[:COUNT]'}),
    deep: Flags.boolean({description: 'also re-extract personal data and fingerprints and run detection again on a scratch copy (slow)'}),
  }

  async run(): Promise<VerifyResult> {
    const {flags} = await this.parse(Verify)
    const expectHead = flags['expect-head'] === undefined ? null : parseExpectedHead(flags['expect-head'])
    if (flags['expect-head'] !== undefined && !expectHead) throw new UsageError(`--expect-head ${flags['expect-head']}: expected HASH[:COUNT], the hash as 12 to 64 hex digits and COUNT a whole number from 1 (the entries up to that head)`)
    const db = this.openCase(flags.db, {readonly: true})
    // What a live ingest has not finished yet would read as tampering (rows no audit entry records).
    const writer = liveIngestClaimant(db)
    if (writer !== null) throw new InputError(`an ingest, scan or drop (process ${writer}) is writing to this case: verify it when that has finished`, 'E_BUSY')
    const result = await verifyCase(db, {rehashOriginals: flags.originals, deep: flags.deep, expectHead})
    const head = result.audit_head === null ? 'none (no audit entries)' : `${result.audit_head}:${result.audit_entries}`
    if (!this.jsonEnabled()) {
      for (const u of result.unfinished_files) {
        const what = u.state === 'loading' ? `its ingest did not finish (${count(u.records_held, 'record')} held so far)` : `read whole (${count(u.records_held, 'record')}), but its ingest did not finish: it stopped (killed, or failed, as on a full disk) before recording the file in the audit log`
        this.log(`UNFINISHED: ${safeLine(u.path)}: ${what}; to finish it, ${u.finish}`)
      }
      for (const p of result.problems) this.log(`FAIL ${p.kind}: ${safeLine(p.where)}: ${safeLine(p.detail)}`)
      if (result.problems_total > result.problems.length) this.log(`FAIL ... and ${count(result.problems_total - result.problems.length, 'more problem')} of the same kinds`)
    }
    if (!result.ok) {
      const first = result.problems[0]!
      throw new IntegrityError(`verify failed: ${first.where}: ${first.detail}${result.problems_total > 1 ? ` (and ${count(result.problems_total - 1, 'more problem')})` : ''}`, 'E_VERIFY_FAILED').withDetails(result)
    }
    if (!this.jsonEnabled()) {
      this.log(
        `OK: audit chain of ${count(result.audit_entries, 'entry', 'entries')} intact${result.anchored ? `, anchored at the head you noted (${count(result.entries_since_anchor ?? 0, 'entry', 'entries')} since)` : ''}; ` +
          `${count(result.files_checked, 'file')}, ${count(result.blocks_checked, 'evidence block')}, ${count(result.lines_checked, 'line')}, ${count(result.records_checked, 'record')} re-derived` +
          `${result.sightings_rederived ? ` (sightings of ${count(result.sightings_rederived, 'record')})` : ''}, ${count(result.canaries_checked, 'canary', 'canaries')} re-read` +
          `${result.findings_rederived ? ', detection run again and equal' : ''}; ${count(result.originals_rehashed, 'original')} re-hashed` +
          `${result.unfinished_files.length > 0 ? `; ${count(result.unfinished_files.length, 'file')} unfinished (above), not damaged` : ''}.`,
      )
      this.log(`Audit head: ${head}`)
      if (!result.anchored && result.audit_head !== null) this.log('Note it outside the case, and check it later with: crosstalk verify --expect-head HASH:COUNT')
      for (const n of result.not_checked) this.log(`Not checked: ${n}`)
    }
    return result
  }
}
