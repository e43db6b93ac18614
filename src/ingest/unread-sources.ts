import {statSync} from 'node:fs'
import {basename, resolve} from 'node:path'
import {sha256File} from '../evidence/hash-file.js'
import type {CaseDb} from '../store/open-case.js'
import {inTransaction} from '../store/session.js'
import {insertUnreadSource, openUnreadSourceLike, openUnreadSourcesReadBy, settleUnreadSource, type NewUnreadSource, type UnreadSourceRow} from '../store/unread-sources.js'
import type {SkippedEntry} from './expand-paths.js'
import type {IngestFileSummary} from './ingest-file.js'

// An ingest that reached a source and did not read it says so and exits 1, but a later command
// on the same case (scan --fail-on-leak, the drafts) must know it too: the case keeps each such
// source open until the same source is ingested whole, or the responder dismisses it with a
// reason (`crosstalk ingest dismiss`). A source converted first (a .zst decompressed) is
// another file: its ingest does not settle the original, the dismissal says why it may.

/** What one ingest did to the case's unread sources, as its --json and audit entry give it. */
export interface UnreadSourcesChange {
  /** sources this ingest reached and did not read, each open in the case (recorded now, or open already from an earlier run) */
  recorded: UnreadSourceRow[]
  /** open sources this ingest read whole, settled now */
  settled: UnreadSourceRow[]
}

export interface RememberUnreadOptions {
  /** the command that reached them: 'ingest logs', 'triage' */
  recordedBy: string
  now: () => Date
}

/** Size and SHA-256 of a source as far as they can be read (null where not; a FIFO or device is never opened). */
async function describeSource(path: string, known: string | null = null): Promise<{size: number | null; sha256: string | null}> {
  let size: number | null = null
  try {
    const st = statSync(path)
    if (!st.isFile()) return {size: null, sha256: known}
    size = st.size
    // A refused file was hashed as it was read: not read a second time.
    return {size, sha256: known ?? (await sha256File(path)).sha256}
  } catch {
    return {size, sha256: known}
  }
}

/**
 * Settles the open sources the files read whole now are (by their bytes, or by their resolved
 * path where an entry's bytes were never read), then records open each source not read now: an
 * entry reached and not read, and a file refused. A source open already is named again, not
 * recorded twice.
 */
export async function rememberUnread(
  db: CaseDb, read: {skipped_entries: readonly SkippedEntry[]; per_file: readonly IngestFileSummary[]}, options: RememberUnreadOptions,
): Promise<UnreadSourcesChange> {
  const at = options.now().toISOString()
  const fresh: NewUnreadSource[] = []
  const add = (path: string, reason: string, size: number | null, sha256: string | null): void => {
    fresh.push({path, name: basename(path), abs_path: resolve(path), size, sha256, reason, recorded_by: options.recordedBy, recorded_at: at})
  }
  for (const s of read.skipped_entries) {
    if (!s.unread) continue
    const d = await describeSource(s.path)
    add(s.path, s.reason, d.size, d.sha256)
  }
  for (const f of read.per_file) {
    if (f.status !== 'refused') continue
    const d = await describeSource(f.path, f.sha256 === '' ? null : f.sha256)
    add(f.path, `not ingested: ${f.refused?.reason ?? 'refused'}`, d.size, d.sha256)
  }
  return inTransaction(db, () => {
    const settled: UnreadSourceRow[] = []
    for (const f of read.per_file) {
      if (f.status === 'refused' || f.unread !== null || f.sha256 === '') continue
      for (const s of openUnreadSourcesReadBy(db, {abs_path: resolve(f.path), sha256: f.sha256})) {
        settleUnreadSource(db, s.id, 'ingest', at, f.sha256)
        settled.push({...s, settled_at: at, settled_by: 'ingest', settle_note: f.sha256})
      }
    }
    const recorded = fresh.map((s) => openUnreadSourceLike(db, s) ?? insertUnreadSource(db, s))
    return {recorded, settled}
  })
}
