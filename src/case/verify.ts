import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {sha256File} from '../evidence/hash-file.js'
import {listFiles} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {recordsWithoutLogFile} from '../store/records.js'
import {lastFinishedScan} from '../store/scan-runs.js'
import {registryVersion} from '../store/settings.js'
import {verifyAudit, type ExpectedHead} from './verify-audit.js'
import {verifyFindingsDeep, verifyFindingSources} from './verify-findings.js'
import {verifyLogFiles} from './verify-pool.js'
import {Problems, type VerifyProblem} from './verify-problems.js'
import {verifyRegistry} from './verify-registry.js'

export type {VerifyProblem, VerifyProblemKind} from './verify-problems.js'
export {parseExpectedHead, type ExpectedHead} from './verify-audit.js'

export interface VerifyOptions {
  /** Re-hash original files still on disk (default true). */
  rehashOriginals?: boolean
  /** Also re-extract personal-data values and fingerprints, and run detection again on a scratch copy. */
  deep?: boolean
  /** The audit head the responder noted (`verify --expect-head`). */
  expectHead?: ExpectedHead | null
  /** Where scratch copies go (default: the system's temporary folder). */
  scratchDir?: string
  /** Worker threads for the line walk (default: one per core, at most 4; 0 or 1: the main thread only). */
  workers?: number
}

/** `crosstalk verify --json` */
export interface VerifyResult {
  ok: boolean
  /** The audit chain: its length and head hash, to be noted outside the case and given back as --expect-head HASH:COUNT. */
  audit_entries: number
  audit_head: string | null
  /** Whether the chain was checked against a head noted outside the case (without it, only against itself). */
  anchored: boolean
  /** Entries appended since the noted head (null: not anchored, or the anchor failed). */
  entries_since_anchor: number | null
  deep: boolean
  files_checked: number
  blocks_checked: number
  /** Lines of log evidence walked (each a record, a duplicate, a quarantined line or blank). */
  lines_checked: number
  /** Records whose every stored field was compared with their line parsed again. */
  records_checked: number
  /** Records whose sightings were derived again from their response and the registry. */
  sightings_rederived: number
  canaries_checked: number
  /** Whether detection was run again on a scratch copy (--deep) and its findings compared. */
  findings_rederived: boolean
  originals_rehashed: number
  /** Worker threads the line walk ran on (0: the main thread). */
  workers: number
  /** What this run did not check, and why. */
  not_checked: string[]
  /** The first problems of each check (each check lists at most 10 per file); problems_total counts them all. */
  problems: VerifyProblem[]
  problems_total: number
}

/**
 * Re-derives every claim the case makes and compares it with what it stores: the audit
 * chain (and its anchor, when the responder gives one), the facts the audit log must cover,
 * the evidence blocks and content hashes, every line of every log (each record's fields
 * parsed again, its marker tokens and sightings derived again), the canary registry from its
 * registry files, the incident's awareness time from its opening and amendments, and each
 * original still on disk. `deep` adds the costly re-derivations (see VerifyOptions).
 */
export async function verifyCase(db: CaseDb, options: VerifyOptions = {}): Promise<VerifyResult> {
  const problems = new Problems()
  const result: VerifyResult = {
    ok: true, audit_entries: 0, audit_head: null, anchored: false, entries_since_anchor: null, deep: options.deep ?? false,
    files_checked: 0, blocks_checked: 0, lines_checked: 0, records_checked: 0, sightings_rederived: 0, canaries_checked: 0,
    findings_rederived: false, originals_rehashed: 0, workers: 0, not_checked: [], problems: [], problems_total: 0,
  }
  const anchor = verifyAudit(db, problems, options.expectHead ?? null)
  result.audit_entries = anchor.entries
  result.audit_head = anchor.head
  result.anchored = anchor.anchored
  result.entries_since_anchor = anchor.entries_since_anchor
  if (!anchor.anchored) result.not_checked.push('the audit chain was checked only against itself: give --expect-head HASH:COUNT noted earlier to detect a rewritten or cut log')

  const scratch = mkdtempSync(join(options.scratchDir ?? tmpdir(), 'crosstalk-verify-'))
  try {
    const registry = await verifyRegistry(db, problems, scratch)
    result.canaries_checked = registry.canaries_checked

    const last = lastFinishedScan(db)
    const registryCurrent = last !== null && last.registry_version === registryVersion(db)
    if (last === null) result.not_checked.push('sightings not re-derived: the case was never scanned')
    else if (!registryCurrent) result.not_checked.push('sightings not re-derived: the canary registry changed since the last scan (run `crosstalk scan`)')
    const orphans = recordsWithoutLogFile(db)
    if (orphans > 0) problems.add('line', 'records', `${orphans} record(s) belong to no log file`)

    const files = listFiles(db)
    result.files_checked = files.length
    for (const file of files) if (file.state !== 'complete') problems.add('incomplete', file.path, 'ingest was interrupted; run the same ingest again')
    const logs = files.filter((f) => f.state === 'complete' && f.kind === 'log')
    const walked = await verifyLogFiles(db, logs, problems, {deep: result.deep, compareSightings: registryCurrent, workers: options.workers})
    result.workers = walked.workers
    for (const tally of walked.tallies) {
      result.blocks_checked += tally.blocks
      result.lines_checked += tally.lines
      result.records_checked += tally.records
      result.sightings_rederived += tally.sightings_compared
    }
    if (options.rehashOriginals !== false) {
      for (const file of files) {
        if (file.state !== 'complete' || !existsSync(file.abs_path)) continue
        try {
          const now = await sha256File(file.abs_path)
          result.originals_rehashed++
          if (now.sha256 !== file.sha256) {
            problems.add('original', file.abs_path, `file on disk no longer matches the SHA-256 recorded at ingest (${file.sha256.slice(0, 16)}…)`)
          }
        } catch {
          // Unreadable now: the case's own copy is what counts; nothing to compare.
        }
      }
    }

    verifyFindingSources(db, problems)
    if (result.deep) {
      const deep = await verifyFindingsDeep(db, problems, scratch)
      result.findings_rederived = deep.compared
      if (deep.note) result.not_checked.push(deep.note)
    } else {
      result.not_checked.push('personal-data values, fingerprints, provenance and personal-data findings not re-derived (run `crosstalk verify --deep`)')
    }
  } finally {
    rmSync(scratch, {recursive: true, force: true})
  }
  result.problems = problems.listed
  result.problems_total = problems.total
  result.ok = problems.total === 0
  return result
}
