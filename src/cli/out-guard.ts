import {createHash} from 'node:crypto'
import {readFileSync, realpathSync, statSync, type Stats} from 'node:fs'
import {basename, dirname, resolve} from 'node:path'
import {InputError, UsageError} from '../errors.js'
import {listAudit} from '../store/audit.js'
import {listFiles} from '../store/files.js'
import {listNotificationRows} from '../store/notifications.js'
import type {CaseDb} from '../store/open-case.js'
import {recipientInMessage} from '../notify/recipients.js'
import {quoted} from '../util/sanitize.js'

// Where a command may write a file it makes for people (a report, a notice, an export). Never
// over the case itself (its database, -wal, -shm or -journal: replacing one destroys the case)
// nor over a file the case records as an original (a log kept by reference is read where it
// lies: replacing it destroys the evidence), whatever --force says; those paths are compared
// by real path and by device and inode, so a symlink or a hard link does not get around them.
// An existing regular file is replaced only when it is a report this case wrote of the same
// kind and still holds the bytes the audit log records for it, or with --force. A file that
// holds a notice recorded as sent (notify record --file: its SHA-256 is the case's record of
// exactly what was sent) is never replaced without --force, even where this case wrote it: a
// follow-up drafted over it would leave that record matching nothing.

/** The report kinds whose files may be replaced without --force: `report` in the audit summary. */
export interface OutTarget {
  /** The report kind ('register', 'case', ...) as the audit log records it. */
  report?: string
  /** Replace an existing file that is not a previous report of this kind. */
  force?: boolean
}

/** Refuses (exit 2, one line) an --out that is the case, one of its originals, or a file not a previous report. */
export function guardOut(db: CaseDb, out: string, target: OutTarget = {}): void {
  // Raw: the base command escapes every value of an error line once.
  const shown = out
  const existing = statIfAny(out)
  // A report is a file kept and compared by its hash: a FIFO (named pipe) blocked the command
  // until a reader came (for ever, with none), and a device or a socket keeps nothing. Refused
  // before anything opens it; a directory is refused where the file is written.
  if (existing && !existing.isFile() && !existing.isDirectory()) {
    throw new InputError(`--out ${shown}: is ${nonFileKind(existing)}, not a regular file; a report is written to a file (kept, and recorded by its SHA-256): give a file path`, 'E_NOT_A_FILE')
  }
  const real = realOf(out)
  const caseFile = db.name
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    if (samePlace(real, existing, caseFile + suffix)) {
      throw new UsageError(`--out ${shown}: that is the case ${suffix ? `database's ${suffix.slice(1)} file` : 'database'} (${caseFile + suffix}); writing there would destroy the case: choose another path`, 'E_OUT_PROTECTED')
    }
  }
  const files = listFiles(db)
  const whatIs = (file: (typeof files)[number]) =>
    file.kind === 'log' ? (file.evidence === 'reference' ? 'a log the case keeps by reference (its only copy of the evidence)' : 'an original log the case was ingested from') : 'a canary registry the case was ingested from'
  for (const file of files) {
    if (!file.abs_path) continue
    if (samePlace(real, existing, file.abs_path)) {
      throw new UsageError(`--out ${shown}: that is ${whatIs(file)} (${file.abs_path}); writing there would destroy the evidence: choose another path`, 'E_OUT_PROTECTED')
    }
  }
  // The same bytes given to ingest again from another path were "already present": that path is
  // recorded nowhere, yet it is an original all the same (--force wrote a draft over it). A file
  // holding the bytes of a file the case holds is refused: its size compared first, its SHA-256
  // only where a size matches.
  if (existing?.isFile()) {
    const sameSize = files.filter((f) => f.size === existing.size)
    const sha = sameSize.length > 0 ? sha256Of(out) : undefined
    const same = sha === undefined ? undefined : sameSize.find((f) => f.sha256 === sha)
    if (same) {
      throw new UsageError(`--out ${shown}: the file holds the bytes of ${whatIs(same)} (${same.abs_path || same.path}; the same SHA-256); writing there would destroy a copy of the evidence: choose another path`, 'E_OUT_PROTECTED')
    }
  }
  if (!existing || !existing.isFile() || target.force) return
  const sent = sentNotification(db, out)
  if (sent) {
    throw new UsageError(`--out ${shown}: the file holds the notice recorded as sent (notification ${sent.id}: ${sent.phase} to ${recipientInMessage(sent)}, reference ${quoted(sent.reference.slice(0, 80))}, sha256 ${sent.file_sha256}); replacing it would lose the copy of what was sent: choose another path, or add --force to replace it`, 'E_OUT_SENT')
  }
  if (target.report !== undefined && previousReport(db, target.report, out)) return
  throw new UsageError(`--out ${shown}: the file exists and is not a ${target.report ?? ''}${target.report ? ' ' : ''}report this case wrote (or it was changed since); choose another path, or add --force to replace it`, 'E_OUT_EXISTS')
}

/** The notification recorded as sent whose file SHA-256 is the existing file's bytes, if any. */
function sentNotification(db: CaseDb, out: string): ReturnType<typeof listNotificationRows>[number] | undefined {
  const rows = listNotificationRows(db).filter((n) => n.file_sha256 !== null)
  if (rows.length === 0) return undefined
  let sha: string
  try {
    sha = createHash('sha256').update(readFileSync(out)).digest('hex')
  } catch {
    return undefined
  }
  return rows.find((n) => n.file_sha256 === sha)
}

/** The existing file holds the bytes of a report of this kind that the audit log records this case wrote. */
function previousReport(db: CaseDb, report: string, out: string): boolean {
  let sha: string
  try {
    sha = createHash('sha256').update(readFileSync(out)).digest('hex')
  } catch {
    return false
  }
  for (const entry of listAudit(db)) {
    if (entry.command !== `report:${report}`) continue
    let summary: unknown
    try {
      summary = JSON.parse(entry.summary)
    } catch {
      continue
    }
    const s = summary as {sha256?: unknown; notices?: Array<{sha256?: unknown}>}
    if (s.sha256 === sha) return true
    if (Array.isArray(s.notices) && s.notices.some((n) => n?.sha256 === sha)) return true
  }
  return false
}

function sha256Of(path: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex')
  } catch {
    return undefined
  }
}

function samePlace(real: string, existing: Stats | undefined, protectedPath: string): boolean {
  if (realOf(protectedPath) === real) return true
  if (!existing) return false
  const other = statIfAny(protectedPath)
  return other !== undefined && other.dev === existing.dev && other.ino === existing.ino
}

/** The real path of a file, or of its folder joined with its name when it does not exist (yet). */
function realOf(path: string): string {
  const abs = resolve(path)
  try {
    return realpathSync(abs)
  } catch {
    try {
      return resolve(realpathSync(dirname(abs)), basename(abs))
    } catch {
      return abs
    }
  }
}

function nonFileKind(stat: Stats): string {
  return stat.isFIFO() ? 'a FIFO (named pipe)' : stat.isCharacterDevice() ? 'a character device' : stat.isBlockDevice() ? 'a block device' : stat.isSocket() ? 'a socket' : 'not a regular file'
}

function statIfAny(path: string): Stats | undefined {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}
