import {resolve} from 'node:path'
import {InputError, UsageError} from '../errors.js'
import {logFilesAtPath, supersededNotReadWhole} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {inTransaction} from '../store/session.js'
import {openUnreadSourcesAt, settleUnreadSource, type UnreadSourceRow} from '../store/unread-sources.js'

// A source an ingest could not read stays open (no gate passes, no draft says every log was
// searched) until the same bytes are ingested whole. When the responder read it otherwise (a
// .zst decompressed and ingested as another file) or knows it holds no log, they settle it
// here with a reason; the command's audit entry keeps the reason, and verify replays it.

/** `crosstalk ingest dismiss --json` */
export interface DismissUnreadResult {
  /** the entries settled, as they stood before */
  dismissed: Array<Pick<UnreadSourceRow, 'id' | 'path' | 'size' | 'sha256' | 'reason' | 'recorded_by' | 'recorded_at'>>
  reason: string
}

/** Settles every open entry recorded at each path (as given to the ingest, or resolving to the same file). */
export function dismissUnread(db: CaseDb, paths: readonly string[], reason: string, now: Date): DismissUnreadResult {
  const why = reason.trim()
  if (why === '') throw new UsageError('--reason: say why the source may stay unread (it is recorded in the audit log)')
  const found = new Map<number, UnreadSourceRow>()
  for (const path of paths) {
    const open = openUnreadSourcesAt(db, path, resolve(path))
    if (open.length === 0) throw new InputError(`${path}: no unread source of the case is open at this path (crosstalk status lists them)${notReadWholeWayOut(db, resolve(path))}`, 'E_NOT_FOUND')
    for (const s of open) found.set(s.id, s)
  }
  const at = now.toISOString()
  inTransaction(db, () => {
    for (const id of found.keys()) settleUnreadSource(db, id, 'dismiss', at, why)
  })
  return {
    dismissed: [...found.values()].map(({id, path, size, sha256, reason: r, recorded_by, recorded_at}) => ({id, path, size, sha256, reason: r, recorded_by, recorded_at})),
    reason: why,
  }
}

/**
 * A file stored but not read whole at this path (a .gz copied while gzip still wrote it) is not an
 * unread source: dismiss does not settle it. What does is said: a whole copy ingested at the same
 * path (supersededNotReadWhole), or dropping it.
 */
function notReadWholeWayOut(db: CaseDb, absPath: string): string {
  const settled = supersededNotReadWhole(db)
  const stored = logFilesAtPath(db, absPath).filter((f) => f.state === 'complete' && f.unread !== null && !settled.has(f.id))
  if (stored.length === 0) return ''
  const shas = stored.map((f) => f.sha256.slice(0, 12)).join(' ')
  return `; the case holds ${stored.length === 1 ? 'a file' : 'files'} from it not read whole (sha256 ${shas}), which dismiss does not settle: ingest a whole copy of it at this path (it settles ${stored.length === 1 ? 'it' : 'them'}), or, if a whole copy is already in the case under another name, drop ${stored.length === 1 ? 'it' : 'them'} (crosstalk drop ${shas} --reason "...")`
}
