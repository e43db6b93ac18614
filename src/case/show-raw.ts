import {createHash} from 'node:crypto'
import {IntegrityError} from '../errors.js'
import {inflateBlock, evidenceReader} from '../evidence/evidence-store.js'
import {sha256File} from '../evidence/hash-file.js'
import {readCheckedLine} from '../evidence/record-texts.js'
import {listAudit} from '../store/audit.js'
import {iterateBlocks} from '../store/evidence-blocks.js'
import {fileById, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {quoted} from '../util/sanitize.js'
import {findRecord} from './show-record.js'
import {summaryOf} from './verify-recorded.js'

// `show --raw` hands over a record's original bytes as evidence, so it prints none it knows to
// be altered, and says what it did not check. Every read checks the line against the CRC-32
// recorded for it at ingest; that CRC is a column no audit entry records, so a block and its
// record's CRC edited together would pass it. What the audit log does record is each file's
// SHA-256 (and a compressed file's content hash): --verified reads the whole file's evidence
// again against it before printing, and refuses if it differs; without it, so does a file of
// up to WHOLE_FILE_BYTES, and a larger one has the case's own content hash compared with the
// audited one (cheap) while stderr says the rest was not checked.

/** Up to this much evidence, a file is read again whole before any line of it is printed (a second or so); --verified asks it of any size. */
export const WHOLE_FILE_BYTES = 256 * 1024 * 1024

export interface RawRecord {
  bytes: Buffer
  /** What was not checked, for stderr; null: the file's evidence was checked against the hash its ingest's audit entry recorded. */
  unchecked: string | null
}

/** The hash the audit log records of a file's evidence: its content as the case holds it (copies), or the original's bytes (kept by reference). */
interface AuditedHash {
  seq: number
  sha256: string | null
  /** what sha256 is the hash of */
  of: 'content' | 'original'
}

export async function rawRecord(db: CaseDb, requestId: string, source?: string, options: {verified?: boolean} = {}): Promise<RawRecord> {
  const r = findRecord(db, requestId, source)
  const file = fileById(db, r.file_id)!
  const where = `${quoted(r.path)} line ${r.line_no}`
  const audited = auditedHash(db, file)
  const run = 'run `crosstalk verify`'
  // Known altered without reading the file: the case's content hash is not the one the audit log speaks for.
  if (audited?.of === 'content' && audited.sha256 !== null && file.content_sha256 !== null && file.content_sha256 !== audited.sha256) {
    throw new IntegrityError(`${where}: not printed: the content hash the case holds for ${quoted(file.path)} is not the one its ingest recorded (audit entry ${audited.seq}), so its evidence was altered; ${run}`, 'E_EVIDENCE')
  }
  const bytes = readCheckedLine(evidenceReader(db), {...r, path: r.path})
  const unchecked = (why: string): RawRecord => ({bytes, unchecked: `${where} checked against the CRC-32 recorded for it at ingest (a column of the case, not of the audit log) only: ${why}`})
  const size = file.lines_held === 'all' ? (file.content_size ?? file.size) : file.size
  if (!options.verified && size > WHOLE_FILE_BYTES) {
    return unchecked(`${quoted(file.path)} (${size} bytes) was not read again against the SHA-256 its ingest recorded${audited ? ` (audit entry ${audited.seq})` : ''}; --verified does, reading the whole file`)
  }
  if (!options.verified && (audited === null || audited.sha256 === null)) {
    return unchecked(audited === null ? `no audit entry records the ingest of ${quoted(file.path)}, so it has no audited hash to be checked against` : `the audit entry of its ingest (${audited.seq}) records no content hash for ${quoted(file.path)}`)
  }
  if (audited === null || audited.sha256 === null) {
    throw new IntegrityError(`${where}: not printed (--verified): ${audited === null ? `no audit entry records the ingest of ${quoted(file.path)}` : `the audit entry of its ingest (${audited.seq}) records no content hash for it`}, so its bytes cannot be checked against an audited hash; ${run}`, 'E_EVIDENCE')
  }
  const now = audited.of === 'original' ? await originalHash(file) : contentHash(db, file)
  if (now !== audited.sha256) {
    throw new IntegrityError(`${where}: not printed: ${audited.of === 'original' ? `the original of ${quoted(file.path)} (read where the case keeps it by reference)` : `the evidence the case holds for ${quoted(file.path)}`} no longer gives the SHA-256 its ingest recorded (audit entry ${audited.seq}): ${now === null ? 'it cannot be read whole' : 'it was altered'}; ${run}`, 'E_EVIDENCE')
  }
  return {bytes, unchecked: null}
}

/** The hash the newest ingest entry that stored this file recorded for it (null: none records it). */
function auditedHash(db: CaseDb, file: FileRow): AuditedHash | null {
  const byReference = file.lines_held !== 'all'
  let found: AuditedHash | null = null
  for (const e of listAudit(db)) {
    if (!e.command.startsWith('ingest:') && e.command !== 'triage') continue
    const s = summaryOf(e)
    for (const f of [...list(s.files), ...list(s.per_file)]) {
      if (f.sha256 !== file.sha256 || f.status !== 'ingested') continue
      // A copy's stored content: the file's own SHA-256 when uncompressed, else the content hash recorded beside it.
      const content = file.compression === 'none' ? file.sha256 : typeof f.content_sha256 === 'string' ? f.content_sha256 : null
      found = byReference ? {seq: e.seq, sha256: file.sha256, of: 'original'} : {seq: e.seq, sha256: content, of: 'content'}
    }
  }
  return found
}

function list(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object') : []
}

/** The SHA-256 of the content the case's blocks hold, in order and without a gap (null: a gap, or a block that cannot be read). */
function contentHash(db: CaseDb, file: FileRow): string | null {
  const hash = createHash('sha256')
  let offset = 0
  try {
    for (const block of iterateBlocks(db, file.id)) {
      const bytes = inflateBlock(block, file.id)
      if (block.raw_offset !== offset || bytes.length !== block.raw_len) return null
      hash.update(bytes)
      offset += bytes.length
    }
  } catch (error) {
    if (error instanceof IntegrityError) return null
    throw error
  }
  return hash.digest('hex')
}

/** The SHA-256 of the original's bytes, as many as were ingested (null: it cannot be read, or is shorter). */
async function originalHash(file: FileRow): Promise<string | null> {
  try {
    const now = await sha256File(file.abs_path, {limit: file.size})
    return now.size === file.size ? now.sha256 : null
  } catch {
    return null
  }
}
