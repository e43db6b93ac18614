import {IntegrityError} from '../errors.js'
import {grownOriginalLine, grownOriginals} from './grown-originals.js'
import {createHash} from 'node:crypto'
import {existsSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import {READ_BY_EARLIER_VERSION} from '../detect/reextract.js'
import {inflateBlock} from '../evidence/evidence-store.js'
import {sha256File} from '../evidence/hash-file.js'
import {DamagedStreamError, gunzipFile} from '../ingest/gunzip-recover.js'
import {EXTRACT_SCHEME, PRIOR_EXTRACT_SCHEMES} from '../extract/extract.js'
import {decodeParseSpec, describeParseSpec} from '../extract/parse-spec.js'
import {iterateBlocks} from '../store/evidence-blocks.js'
import {databaseProblems} from '../store/integrity.js'
import {listFiles, logFilesAtPath, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {iterateFileItems, recordsOfFile, recordsWithoutLogFile} from '../store/records.js'
import {lastFinishedScan} from '../store/scan-runs.js'
import {corpusFacts} from '../store/scale.js'
import {scratchDir} from '../util/scratch.js'
import {registryVersion} from '../store/settings.js'
import {verifyAudit, type ExpectedHead} from './verify-audit.js'
import {verifyFindingsDeep, verifyFindingSources} from './verify-findings.js'
import {originalChunks, readFromOriginal} from './verify-original.js'
import type {FileLineTally} from './verify-lines.js'
import {verifyLogFiles} from './verify-pool.js'
import {verifyReferencedFile} from './verify-references.js'
import {ident, Problems, shown, type VerifyProblem} from './verify-problems.js'
import {verifyRegistry} from './verify-registry.js'
import {namesDescriptor} from '../util/descriptor-path.js'
import {missingCaseTables} from '../store/schema-tables.js'
import {count} from '../util/plural.js'

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
  /** SQLite's own check of the case file that ran: 'quick' (PRAGMA quick_check) or, with --deep, 'full' (integrity_check: each index against its table too) */
  database_check: 'quick' | 'full'
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
  /**
   * Files whose ingest did not finish (interrupted, or killed): `loading`, held in part (its
   * rows so far are redone, and not checked here), or `complete`, read whole by an ingest killed
   * before its audit entry (its evidence was checked). Not a problem: the case is not damaged,
   * it is unfinished; running the same ingest again finishes it, after which verify checks it
   * and lists it no longer. Damage still fails (a complete file the audit log records as
   * ingested, set back to loading, is a problem).
   */
  unfinished_files: UnfinishedFile[]
  /** The first problems of each check (each check lists at most 10 per file); problems_total counts them all. */
  problems: VerifyProblem[]
  problems_total: number
}

export interface UnfinishedFile {
  path: string
  kind: 'log' | 'canaries'
  /** loading: its ingest stopped while reading it; complete: read whole, its ingest killed before recording it */
  state: 'loading' | 'complete'
  /** Records the case holds of it so far */
  records_held: number
  /** How to finish it */
  finish: string
}

/** What verify says to finish an unfinished file. */
export const FINISH_INGEST = 'run the same ingest again (ingest logs, ingest canaries or triage, with the same paths): it resumes, and records the file in the audit log'

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
    database_check: options.deep ? 'full' : 'quick', files_checked: 0, blocks_checked: 0, lines_checked: 0, records_checked: 0, sightings_rederived: 0, canaries_checked: 0,
    findings_rederived: false, originals_rehashed: 0, workers: 0, not_checked: [], unfinished_files: [], problems: [], problems_total: 0,
  }
  // The file first: every check below reads it through SQLite, which answers a malformed file wrongly.
  // SQLite gives one finding per row, some of several lines: each line is a problem of its own (none printed with a line break escaped).
  const found = databaseProblems(db, result.deep).flatMap((l) => l.split(/\r?\n/)).filter((l) => l.trim() !== '')
  for (const line of found) problems.add('database', db.name, `SQLite's ${result.deep ? 'integrity_check' : 'quick_check'}: ${line}`)
  // Tables of the case's schema dropped (by hand, or the file damaged): each is a problem, listed; the checks that read
  // the case's tables cannot run on it. verify failed on the first statement that read one, with the same sentence every
  // other command gives, which sent the user to verify.
  const missing = missingCaseTables(db)
  if (missing.length > 0) return damagedCase(db, result, problems, missing, options.expectHead ?? null)
  const anchor = verifyAudit(db, problems, options.expectHead ?? null)
  result.audit_entries = anchor.entries
  result.audit_head = anchor.head
  result.anchored = anchor.anchored
  result.entries_since_anchor = anchor.entries_since_anchor
  result.not_checked.push(...anchor.notes)
  if (!anchor.anchored) result.not_checked.push('the audit chain was checked only against itself: give --expect-head HASH:COUNT noted earlier to detect a rewritten or cut log')

  // Copies of case data (personal data) go here: removed at the end, or when a signal ends verify first.
  const scratchFolder = scratchDir(options.scratchDir ?? tmpdir(), 'crosstalk-verify-')
  const scratch = scratchFolder.path
  try {
    const registry = await verifyRegistry(db, problems, scratch)
    result.canaries_checked = registry.canaries_checked

    const last = lastFinishedScan(db)
    const registryCurrent = last !== null && last.registry_version === registryVersion(db)
    if (last === null) result.not_checked.push('sightings not re-derived: the case was never scanned')
    else if (!registryCurrent) result.not_checked.push('sightings not re-derived: the canary registry changed since the last scan (run `crosstalk scan`)')
    const orphans = recordsWithoutLogFile(db)
    if (orphans > 0) problems.add('line', 'records', `${count(orphans, 'record')} ${orphans === 1 ? 'belongs' : 'belong'} to no log file`)

    const files = listFiles(db)
    result.files_checked = files.length
    // An ingest that did not finish leaves its file loading (the same ingest redoes it): unfinished, not damaged.
    const loading = anchor.unfinished.filter((f) => f.state !== 'complete')
    result.unfinished_files = anchor.unfinished.map((f) => ({
      path: f.path, kind: f.kind === 'log' ? 'log' : 'canaries', state: f.state === 'complete' ? 'complete' : 'loading',
      records_held: f.kind === 'log' ? (f.state === 'complete' ? f.records : recordsOfFile(db, f.id)) : 0,
      finish: FINISH_INGEST,
    }))
    if (loading.length > 0) {
      const held = result.unfinished_files.filter((u) => u.state === 'loading').reduce((n, u) => n + u.records_held, 0)
      result.not_checked.push(`${count(loading.length, 'file')} whose ingest did not finish, held in part (${count(held, 'record')} so far): not checked, the same ingest run again redoes ${loading.length === 1 ? 'it' : 'them'}`)
    }
    const complete = files.filter((f) => f.state === 'complete' && f.kind === 'log')
    // Spark findings by reference hold the findings' lines only: checked on their own, below. A
    // file kept by reference by ingest logs is walked like a copy, from its original.
    const logs = complete.filter((f) => f.lines_held !== 'findings')
    const walked = await verifyLogFiles(db, logs.filter(readsOneRecordPerLine), problems, {deep: result.deep, compareSightings: registryCurrent, workers: options.workers})
    result.workers = walked.workers
    for (const tally of walked.tallies) {
      result.blocks_checked += tally.blocks
      result.lines_checked += tally.lines
      result.records_checked += tally.records
      result.sightings_rederived += tally.sightings_compared
      result.originals_rehashed += tally.originals
      if (tally.older_rules !== null) result.not_checked.push(olderRulesNote(tally.older_rules, logs))
    }
    // Extracts made under an earlier scheme are what the rules of their day made of the same
    // evidence: not compared (they differ without anything being changed), and said so; the next
    // scan makes them again (detect/reextract.ts), after which they are compared.
    const earlier = logs.filter((f) => f.extract_scheme !== EXTRACT_SCHEME)
    if (earlier.length > 0) result.not_checked.push(earlierSchemeNote(earlier))
    for (const file of logs.filter((f) => !readsOneRecordPerLine(f))) {
      // Formats that hold several records in a line, or read a record with other lines
      // (OTLP exports, Batch output with its input): each item's bytes are checked against
      // the evidence; the line-by-line re-derivation reads one record per line.
      const tally = verifyItemBytes(db, problems, file)
      result.blocks_checked += tally.blocks
      result.records_checked += tally.records
      result.originals_rehashed += tally.originals
      let how: string
      try {
        how = describeParseSpec(decodeParseSpec(file.parse_spec))
      } catch (error) {
        problems.add('record', file.path, `its parse spec cannot be read (${(error as Error).message}): its records cannot be decoded again`, file.path)
        continue
      }
      result.not_checked.push(`${file.path}: records' fields (each one's item in its line among them), lines and sightings not re-derived (${how}: only the native format is walked line by line); each item's bytes and the content hash were checked`)
    }
    const references = complete.filter((f) => f.lines_held === 'findings')
    // Shards of Spark findings that could not be re-hashed: the case holds only the findings'
    // lines, so every other record's evidence is the shard itself. Named, as copies' originals are.
    const unreachableShards: string[] = []
    for (const file of references) {
      const check = await verifyReferencedFile(db, file, problems, {rehashOriginals: options.rehashOriginals !== false})
      result.blocks_checked += check.blocks
      result.records_checked += check.records
      if (check.rehashed) result.originals_rehashed++
      if (check.unreachable !== null) unreachableShards.push(`${file.path} (${check.unreachable})`)
    }
    if (references.length > 0) {
      const reached = references.length - unreachableShards.length
      const against = options.rehashOriginals === false || reached === 0 ? '' : reached === references.length ? ' and the original shard' : ` and, for ${reached}, the original shard`
      result.not_checked.push(
        `${count(references.length, 'log file')} by reference (ingest findings): each stored line was checked against its CRC-32${against}; records' fields and sightings were derived by the Spark job, not again here`,
      )
    }
    if (unreachableShards.length > 0) {
      result.not_checked.push(
        `${count(unreachableShards.length, 'original shard')} of Spark findings not re-hashed nor read again, only the case's stored lines checked (every other record's evidence is the shard): ${unreachableShards.slice(0, 5).join('; ')}${unreachableShards.length > 5 ? `; and ${unreachableShards.length - 5} more` : ''}`,
      )
    }
    // Compressed files whose content no audit entry records (ingested by an earlier version): tied to the original below where it can be read.
    const unanchoredLeft = new Map(anchor.unanchored_content.map((f) => [f.id, `${f.path} (${options.rehashOriginals === false ? 'originals not read' : 'no longer on disk, or unreadable'})`]))
    if (options.rehashOriginals !== false) {
      // Originals of copied evidence that could not be re-hashed (gone, or unreadable): named, never counted as re-hashed in silence.
      const notRehashed: string[] = []
      const originalsReplaced: string[] = []
      for (const file of files) {
        if (file.state !== 'complete' || file.evidence === 'reference') continue
        // Read from a file descriptor of the ingesting process (`/dev/stdin` fed by a pipe, or a case an earlier release
        // recorded so): the path now opens whatever this process has there, so nothing is compared, never "altered".
        if (namesDescriptor(file.abs_path)) {
          notRehashed.push(`${file.path} (read from a file descriptor of the process that ingested it, not a file that can be read again)`)
          continue
        }
        if (!existsSync(file.abs_path)) {
          notRehashed.push(`${file.path} (no longer on disk)`)
          continue
        }
        try {
          // The bytes ingest read: a log that has grown since (appended to) still verifies.
          const unanchored = anchor.unanchored_content.some((f) => f.id === file.id)
          const now = unanchored ? await gunzipOriginal(file) : await sha256File(file.abs_path, {limit: file.size})
          const recorded = now.size < file.size || now.sha256 !== file.sha256 ? await laterFileAtPath(db, file) : null
          if (recorded === null) result.originals_rehashed++
          if (unanchored) {
            unanchoredLeft.delete(file.id)
            // Decompressed again, the original that is still the file ingested gives the content the case must hold.
            if (now.size === file.size && now.sha256 === file.sha256 && 'content_sha256' in now && now.content_sha256 !== file.content_sha256) {
              problems.add('content', file.path, `its content hash (${shown(file.content_sha256)}) is not that of the original decompressed again (${now.content_sha256.slice(0, 16)}…): the evidence held for it is not the file that was ingested`)
            } else if (now.size !== file.size || now.sha256 !== file.sha256) unanchoredLeft.set(file.id, `${file.path} (its original changed)`)
          }
          if (recorded !== null) {
            // Rotated or rewritten, and the case recorded it (a later ingest read the file now there): the copy is what
            // is checked (its blocks against its SHA-256, above); the path is said, not failed.
            originalsReplaced.push(`${file.path} (sha256 ${file.sha256.slice(0, 16)}…): its path now holds ${recorded.path} (sha256 ${recorded.sha256.slice(0, 16)}…), ingested ${recorded.completed_at ?? recorded.started_at} and recorded then as another file there (rotated or rewritten); the case's copy of the original was checked instead`)
          } else if (now.size < file.size) {
            problems.add('original', file.abs_path, `file on disk no longer matches the SHA-256 recorded at ingest: it is shorter (${now.size} bytes) than the ${file.size} bytes read then`)
          } else if (now.sha256 !== file.sha256) {
            problems.add('original', file.abs_path, `file on disk no longer matches the SHA-256 recorded at ingest (${file.sha256.slice(0, 16)}…)`)
          }
        } catch (error) {
          // Unreadable now: the case's own copy is what counts; nothing to compare.
          notRehashed.push(`${file.path} (cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
        }
      }
      if (originalsReplaced.length > 0) {
        result.not_checked.push(
          `${count(originalsReplaced.length, 'original')} of copied evidence not re-hashed where it was, its path holding a later file the case recorded: ${originalsReplaced.slice(0, 5).join('; ')}${originalsReplaced.length > 5 ? `; and ${originalsReplaced.length - 5} more` : ''}`,
        )
      }
      if (notRehashed.length > 0) {
        result.not_checked.push(
          `${count(notRehashed.length, 'original')} of copied evidence not re-hashed, the case's own copy checked instead: ${notRehashed.slice(0, 5).join('; ')}${notRehashed.length > 5 ? `; and ${notRehashed.length - 5} more` : ''}`,
        )
      }
    }

    if (unanchoredLeft.size > 0) {
      const left = [...unanchoredLeft.values()]
      result.not_checked.push(
        `${count(left.length, 'compressed file')} whose stored content is tied to nothing the audit log records (ingested by an earlier version, which recorded no content hash), and whose original could not be decompressed again to compare: ${left.slice(0, 5).join('; ')}${left.length > 5 ? `; and ${left.length - 5} more` : ''}`,
      )
    }

    // Bytes appended to an original since ingest: the case is intact, but nothing judged them.
    for (const g of grownOriginals(db)) result.not_checked.push(grownOriginalLine(g))

    verifyFindingSources(db, problems)
    if (result.deep && corpusFacts(db)) {
      result.not_checked.push('findings not re-derived: this case holds Spark findings by reference, and detection over every record runs in the job (spark/)')
    } else if (result.deep) {
      // A scan of the copy reads every original kept by reference: one missing or changed would stop
      // it part-way. Those are problems listed already; the findings are then not re-derived, said.
      if (problems.listed.some((p) => p.kind === 'original')) {
        result.findings_rederived = false
        result.not_checked.push('findings not re-derived: an original the case reads by reference is missing or changed (listed above); put it back or relocate it, then verify --deep again')
      } else {
        try {
          const deep = await verifyFindingsDeep(db, problems, scratch)
          result.findings_rederived = deep.compared
          if (deep.note) result.not_checked.push(deep.note)
        } catch (error) {
          if (!(error instanceof IntegrityError) || error.code !== 'E_ORIGINAL') throw error
          // Its message opens with the file's path: that is where, the rest what.
          const cut = error.message.indexOf(': ')
          problems.add('original', cut > 0 ? error.message.slice(0, cut) : 'original kept by reference', cut > 0 ? error.message.slice(cut + 2) : error.message)
          result.findings_rederived = false
          result.not_checked.push('findings not re-derived: an original the case reads by reference could not be read as ingested (listed above)')
        }
      }
    } else {
      result.not_checked.push('personal-data values, fingerprints, provenance and personal-data findings not re-derived (run `crosstalk verify --deep`)')
    }
  } finally {
    scratchFolder.remove()
  }
  result.problems = problems.listed
  result.problems_total = problems.total
  result.ok = problems.total === 0
  return result
}

/** verify of a case missing tables of its schema: each named, the audit chain checked where it can be, nothing else run. */
function damagedCase(db: CaseDb, result: VerifyResult, problems: Problems, missing: readonly string[], expectHead: ExpectedHead | null): VerifyResult {
  for (const table of missing) problems.add('database', db.name, `the case has no table ${table}, which every case of its schema holds: the file was damaged or altered`)
  try {
    if (missing.includes('audit_log')) throw new Error('no audit_log')
    const anchor = verifyAudit(db, problems, expectHead)
    result.audit_entries = anchor.entries
    result.audit_head = anchor.head
    result.anchored = anchor.anchored
    result.entries_since_anchor = anchor.entries_since_anchor
    result.not_checked.push(...anchor.notes)
  } catch {
    result.not_checked.push('the audit chain not checked: it, or a table it is checked against, is missing')
  }
  result.not_checked.push(`nothing else checked (files, evidence blocks, lines, records, sightings, registry, findings): the case is missing ${count(missing.length, 'table')} those checks read; restore the case from a copy, or ingest the original logs into a new case`)
  result.problems = problems.listed
  result.problems_total = problems.total
  result.ok = false
  return result
}

/** Whether the file's format gives one record per line (the native format, mapped or not). */
function readsOneRecordPerLine(file: FileRow): boolean {
  try {
    const format = decodeParseSpec(file.parse_spec).format
    return format === undefined || format === 'native'
  } catch {
    return false
  }
}

/**
 * A file of a format that is not walked line by line: the evidence blocks against their CRCs,
 * the stream against its content hash, and the bytes of every record, every line another
 * record was read with, and every quarantined line against the stream.
 */
function verifyItemBytes(db: CaseDb, problems: Problems, file: FileRow): {blocks: number; records: number; originals: number} {
  const tally = {blocks: 0, records: 0, originals: 0}
  // Kept by reference: the original's bytes, read where it lies, stand in for the blocks.
  const original = readFromOriginal(file)
  const read = {whole: false}
  const chunks = original ? originalChunks(file, problems, read) : null
  const blocks = original ? null : iterateBlocks(db, file.id)
  const content = createHash('sha256')
  let window: Buffer = Buffer.alloc(0)
  let windowStart = 0
  let expectedOffset = 0
  let contentOk = true
  let blocksDone = false
  const pull = (): boolean => {
    if (chunks) {
      const next = chunks.next()
      if (next.done) return false
      content.update(next.value)
      window = window.length === 0 ? next.value : Buffer.concat([window, next.value])
      if (window === next.value) windowStart = expectedOffset
      expectedOffset += next.value.length
      return true
    }
    const next = blocks!.next()
    if (next.done) return false
    const row = next.value
    tally.blocks++
    let bytes: Buffer
    try {
      bytes = inflateBlock(row, file.id)
      if (bytes.length !== row.raw_len || crc32(bytes) !== row.crc32) {
        contentOk = false
        problems.add('block', `${file.path} block ${row.seq} (bytes ${row.raw_offset}..${row.raw_offset + row.raw_len})`, 'content does not match its CRC-32')
      }
    } catch (error) {
      bytes = Buffer.alloc(row.raw_len)
      contentOk = false
      problems.add('block', `${file.path} block ${row.seq}`, (error as Error).message)
    }
    content.update(bytes)
    if (row.raw_offset !== expectedOffset) {
      // A block removed (or one moved): the bytes between are not in the evidence. Items in the
      // gap are reported below as missing; those after it are compared at their true offsets.
      contentOk = false
      problems.add('block', `${file.path} block ${row.seq}`, `starts at byte ${row.raw_offset}, where the blocks before it end at ${expectedOffset}`)
      window = bytes
      windowStart = row.raw_offset
    } else {
      window = window.length === 0 ? bytes : Buffer.concat([window, bytes])
      if (window === bytes) windowStart = row.raw_offset
    }
    expectedOffset = row.raw_offset + row.raw_len
    return true
  }
  // An original that could not be read at all: its one problem says so (every line would be missing).
  if (original && !pull()) {
    blocksDone = true
    if (file.size > 0) return tally
  }
  const whereBytes = original ? 'the original' : 'the evidence store (the block that held them is missing)'
  for (const item of iterateFileItems(db, file.id)) {
    const end = item.byte_offset + item.byte_len
    while (!blocksDone && windowStart + window.length < end) {
      if (!pull()) blocksDone = true
    }
    if (item.byte_offset > windowStart) {
      window = window.subarray(Math.min(window.length, item.byte_offset - windowStart))
      windowStart = item.byte_offset
    }
    // Before the window, or past the last block: its bytes were in a block that is gone.
    const gone = item.byte_offset < windowStart || end > windowStart + window.length
    const bytes = gone ? Buffer.alloc(0) : window.subarray(item.byte_offset - windowStart, end - windowStart)
    const what = gone ? `its bytes are not in ${whereBytes}` : `${original ? 'the original\'s' : 'stored raw'} bytes differ from the line as ingested`
    if (item.kind === 'record') {
      tally.records++
      if (gone || crc32(bytes) !== item.crc) problems.add('record', `record ${ident(item.name ?? '')} (${file.path} line ${item.line_no})`, what, file.path)
    } else if (item.kind === 'companion') {
      if (gone || crc32(bytes) !== item.crc) problems.add('record', `record ${ident(item.name ?? '')} (read with ${file.path} line ${item.line_no})`, what, file.path)
    } else if (gone) {
      problems.add('bad_line', `${file.path} line ${item.line_no}`, what, file.path)
    } else if (item.raw && !bytes.subarray(0, item.raw.length).equals(item.raw)) {
      problems.add('bad_line', `${file.path} line ${item.line_no}`, `quarantined bytes differ from ${original ? 'the original' : 'the evidence store'}`, file.path)
    }
  }
  while (!blocksDone && pull()) window = Buffer.alloc(0)
  if (original) {
    if (read.whole) {
      tally.originals++
      if (content.digest('hex') !== file.content_sha256) {
        problems.add('original', file.abs_path, `changed: no longer matches the SHA-256 recorded at ingest (${file.sha256.slice(0, 16)}…; kept by reference); the lines that differ are named`)
      }
    }
  } else if (contentOk && file.content_sha256 && content.digest('hex') !== file.content_sha256) {
    problems.add('content', file.path, 'evidence store does not reproduce the content hash recorded at ingest')
  }
  return tally
}

/** What verify leaves unchecked in files extracted under another scheme than this version's. */
/**
 * Records an earlier version read from lines this one refuses: the stored fields are that
 * version's reading of unaltered bytes, so they are named here, not reported as altered.
 */
function olderRulesNote(o: NonNullable<FileLineTally['older_rules']>, files: readonly FileRow[]): string {
  const marked = files.some((f) => f.path === o.path && (f.unread ?? '').includes(READ_BY_EARLIER_VERSION))
  const fix = marked ? 'the file is marked not read whole' : 'the next `crosstalk scan` marks the file not read whole'
  return `${o.path}: ${count(o.records, 'record')} read by an earlier version of crosstalk from lines this one refuses (line ${o.first_line}: ${o.reason}): ${o.records === 1 ? 'its' : 'their'} fields and extracts not compared; ${fix}: drop it and ingest it again to quarantine those lines`
}

export function earlierSchemeNote(files: readonly FileRow[]): string {
  const schemes = [...new Set(files.map((f) => f.extract_scheme ?? 'none'))].join(', ')
  const them = files.length === 1 ? 'it' : 'them'
  // A scan extracts files of a prior scheme again, and refuses any other (scan-case.ts).
  const fix = files.every((f) => f.extract_scheme !== null && PRIOR_EXTRACT_SCHEMES.includes(f.extract_scheme))
    ? `run \`crosstalk scan\`, which extracts ${them} again from the evidence`
    : `a scan refuses a scheme it does not know: ingest ${them} into a new case`
  return `${count(files.length, 'log file')} extracted under another scheme than this crosstalk's ${EXTRACT_SCHEME} (${schemes}): ${files.length === 1 ? 'its' : 'their'} marker tokens, personal-data values, fingerprints and findings not re-derived; ${fix}`
}

/**
 * A compressed original read again: the SHA-256 and size of its first `file.size` bytes (as
 * sha256File gives them) and of their content decompressed as ingest decompressed it (a
 * damaged stream gives the bytes before the damage, which is what ingest kept).
 */
async function gunzipOriginal(file: FileRow): Promise<{sha256: string; size: number; content_sha256: string}> {
  const raw = createHash('sha256')
  const content = createHash('sha256')
  let size = 0
  try {
    for await (const chunk of gunzipFile(file.abs_path, file.size, (c) => {
      raw.update(c)
      size += c.length
    })) content.update(chunk)
  } catch (error) {
    if (!(error instanceof DamagedStreamError)) throw error
  }
  return {sha256: raw.digest('hex'), size, content_sha256: content.digest('hex')}
}

/**
 * The later file the case recorded at a copied original's path, where the path now holds it (the
 * file there begins with that later file's bytes, SHA-256 over its size: rotated and created again,
 * and perhaps grown since): the change of the path was read and recorded by an ingest, not
 * something done to the evidence. Null: nothing the case recorded explains what the path holds.
 */
async function laterFileAtPath(db: CaseDb, file: FileRow): Promise<FileRow | null> {
  const later = logFilesAtPath(db, file.abs_path).filter((f) => f.id > file.id && f.state === 'complete' && f.sha256 !== file.sha256).reverse()
  for (const f of later) {
    try {
      const now = await sha256File(file.abs_path, {limit: f.size})
      if (now.size === f.size && now.sha256 === f.sha256) return f
    } catch {
      return null
    }
  }
  return null
}
