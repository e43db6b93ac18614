import {createHash} from 'node:crypto'
import {readFileSync, realpathSync, statSync, type Stats} from 'node:fs'
import {basename, dirname, resolve} from 'node:path'
import {UsageError} from '../errors.js'
import {listAudit} from '../store/audit.js'
import {listFiles} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'

// Where a command may write a file it makes for people (a report, a notice, an export). Never
// over the case itself (its database, -wal, -shm or -journal: replacing one destroys the case)
// nor over a file the case records as an original (a log kept by reference is read where it
// lies: replacing it destroys the evidence), whatever --force says; those paths are compared
// by real path and by device and inode, so a symlink or a hard link does not get around them.
// An existing regular file is replaced only when it is a report this case wrote of the same
// kind and still holds the bytes the audit log records for it, or with --force.

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
  const real = realOf(out)
  const caseFile = db.name
  for (const suffix of ['', '-wal', '-shm', '-journal']) {
    if (samePlace(real, existing, caseFile + suffix)) {
      throw new UsageError(`--out ${shown}: that is the case ${suffix ? `database's ${suffix.slice(1)} file` : 'database'} (${caseFile + suffix}); writing there would destroy the case: choose another path`, 'E_OUT_PROTECTED')
    }
  }
  for (const file of listFiles(db)) {
    if (!file.abs_path) continue
    if (samePlace(real, existing, file.abs_path)) {
      const what = file.kind === 'log' ? (file.evidence === 'reference' ? 'a log the case keeps by reference (its only copy of the evidence)' : 'an original log the case was ingested from') : 'a canary registry the case was ingested from'
      throw new UsageError(`--out ${shown}: that is ${what} (${file.abs_path}); writing there would destroy the evidence: choose another path`, 'E_OUT_PROTECTED')
    }
  }
  if (!existing || !existing.isFile() || target.force) return
  if (target.report !== undefined && previousReport(db, target.report, out)) return
  throw new UsageError(`--out ${shown}: the file exists and is not a ${target.report ?? ''}${target.report ? ' ' : ''}report this case wrote (or it was changed since); choose another path, or add --force to replace it`, 'E_OUT_EXISTS')
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

function statIfAny(path: string): Stats | undefined {
  try {
    return statSync(path)
  } catch {
    return undefined
  }
}
