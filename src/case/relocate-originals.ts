import {grownOriginals, type GrownOriginal} from './grown-originals.js'
import {existsSync, statSync} from 'node:fs'
import {isAbsolute, join, relative, resolve, sep} from 'node:path'
import {InputError} from '../errors.js'
import {sha256File} from '../evidence/hash-file.js'
import {nonFileKind, statRegularFile} from '../ingest/ingest-file.js'
import {completeFiles, setOriginalPath, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {inTransaction} from '../store/session.js'

// `crosstalk relocate FROM TO`: the originals of a case kept by reference were moved (copied to
// the forensic share, the case taken to another machine). Each file the case reads from under
// FROM is looked for at the same place under TO, and taken only if its first bytes (as many as
// were ingested) still have the SHA-256 recorded at ingest; one file that is missing or differs
// and nothing is changed. The case's findings are untouched: only where the bytes are read.

export interface RelocatedFile {
  path: string
  sha256: string
  from: string
  to: string
}

export interface RelocateResult {
  relocated: RelocatedFile[]
  /** files kept by reference elsewhere than FROM (left as they were) */
  elsewhere: number
  /** files under FROM whose recorded place is already the one under TO (FROM and TO the same folder): checked, nothing to change */
  unchanged: number
  /** originals holding, at their place now, bytes beyond what was ingested: bytes nothing judged */
  grown: GrownOriginal[]
}

export async function relocateOriginals(db: CaseDb, fromDir: string, toDir: string): Promise<RelocateResult> {
  const from = resolve(fromDir)
  const to = resolve(toDir)
  const referenced = completeFiles(db).filter((f) => f.kind === 'log' && f.lines_held === 'none')
  if (existsSync(to) && statSync(to).isFile()) return relocateFile(db, referenced, from, to, toDir)
  if (!existsSync(to) || !statSync(to).isDirectory()) throw new InputError(`${toDir}: not a directory, nor a file`, 'E_NOT_FOUND')
  if (referenced.length === 0) throw new InputError('this case keeps no log file by reference: nothing is read from elsewhere', 'E_NOTHING_TO_DO')
  const moving = referenced.filter((f) => {
    const rel = relative(from, f.abs_path)
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)
  })
  if (moving.length === 0) {
    throw new InputError(`no file the case keeps by reference lies under ${from} (they lie under ${commonDir(referenced.map((f) => f.abs_path))})`, 'E_NOT_FOUND')
  }
  const relocated: Array<RelocatedFile & {id: number}> = []
  let unchanged = 0
  for (const f of moving) {
    const target = join(to, relative(from, f.abs_path))
    let now: {sha256: string; size: number}
    try {
      // A FIFO or a device there would block or never end: only a regular file can be the original.
      const stat = existsSync(target) ? statSync(target) : null
      if (stat && !stat.isFile()) {
        throw new InputError(`${target}: ${nonFileKind(stat)}, not a regular file, where the original of ${f.path} was looked for: the log file itself must lie there, with the bytes ingested`, 'E_NOT_A_FILE')
      }
      statRegularFile(target)
      now = await sha256File(target, {limit: f.size})
    } catch (error) {
      if (error instanceof InputError) throw new InputError(`${error.message}; nothing was changed`, error.code)
      throw new InputError(`${target}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), where ${f.path} was looked for; nothing was changed`, 'E_UNREADABLE')
    }
    if (now.size < f.size || now.sha256 !== f.sha256) {
      throw new InputError(
        `${target}: not the file ingested as ${f.path} (${now.size < f.size ? `${now.size} bytes, ${f.size} were ingested` : `its SHA-256 differs from ${f.sha256.slice(0, 16)}…`}); nothing was changed`,
        'E_ORIGINAL',
      )
    }
    // Already recorded at that very place (relocate X X): checked, and not said to be relocated.
    if (target === f.abs_path) unchanged++
    else relocated.push({id: f.id, path: f.path, sha256: f.sha256, from: f.abs_path, to: target})
  }
  inTransaction(db, () => {
    for (const r of relocated) setOriginalPath(db, r.id, r.to)
  })
  return {relocated: relocated.map(({id: _, ...r}) => r), elsewhere: referenced.length - moving.length, unchanged, grown: grownOriginals(db)}
}

/**
 * `relocate OLD-FILE NEW-FILE`: an original renamed (logrotate's app.log to app.log.1, perhaps
 * grown before it was). Every version the case keeps by reference at OLD-FILE whose bytes NEW-FILE
 * begins with (SHA-256 over as many bytes as were ingested) is read there from now on; a version
 * at OLD-FILE that NEW-FILE does not begin with (the file created at OLD-FILE since) stays. None
 * matching, and nothing changes.
 */
async function relocateFile(db: CaseDb, referenced: readonly FileRow[], from: string, to: string, toArg: string): Promise<RelocateResult> {
  const at = referenced.filter((f) => f.abs_path === from)
  if (at.length === 0) {
    throw new InputError(`no file the case keeps by reference was ingested from ${from}${referenced.length > 0 ? ` (they lie under ${commonDir(referenced.map((f) => f.abs_path))})` : ''}; nothing was changed`, 'E_NOT_FOUND')
  }
  try {
    statRegularFile(to)
  } catch (error) {
    if (error instanceof InputError) throw new InputError(`${error.message}; nothing was changed`, error.code)
    throw error
  }
  const relocated: Array<RelocatedFile & {id: number}> = []
  const differs: string[] = []
  for (const f of at) {
    let now: {sha256: string; size: number}
    try {
      now = await sha256File(to, {limit: f.size})
    } catch (error) {
      throw new InputError(`${toArg}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); nothing was changed`, 'E_UNREADABLE')
    }
    if (now.size === f.size && now.sha256 === f.sha256) relocated.push({id: f.id, path: f.path, sha256: f.sha256, from: f.abs_path, to})
    else differs.push(`${f.sha256.slice(0, 16)}… (${f.size} bytes)`)
  }
  if (relocated.length === 0) {
    throw new InputError(`${toArg}: does not begin with the bytes of any file ingested from ${from} (${differs.join(', ')}: SHA-256 over as many bytes as were ingested); nothing was changed`, 'E_ORIGINAL')
  }
  inTransaction(db, () => {
    for (const r of relocated) setOriginalPath(db, r.id, r.to)
  })
  return {relocated: relocated.map(({id: _, ...r}) => r), elsewhere: referenced.length - relocated.length, unchanged: 0, grown: grownOriginals(db)}
}

function commonDir(paths: readonly string[]): string {
  const parts = paths.map((p) => p.split(sep).slice(0, -1))
  const first = parts[0] ?? []
  let n = first.length
  for (const p of parts) {
    let i = 0
    while (i < n && p[i] === first[i]) i++
    n = i
  }
  return first.slice(0, n).join(sep) || sep
}
