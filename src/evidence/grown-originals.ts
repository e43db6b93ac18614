import {statSync} from 'node:fs'
import {completeLogOriginals, HEAD_BYTES, laterVersionsOf} from '../store/files.js'
import {sha256FileSync} from './hash-file.js'
import type {CaseDb} from '../store/open-case.js'

// An original log that holds more bytes now than ingest read (appended to since: another
// tenant's marker in a new line, say). The case judged only the bytes it read; what was added is
// judged by nothing until it is ingested (again): unknown, never "no leak".

export interface GrownOriginal {
  /** the file as the case names it */
  path: string
  /** where the original lies */
  abs_path: string
  /** bytes ingest read (what the case judged) */
  ingested_bytes: number
  /** bytes the original holds now */
  bytes_now: number
  /**
   * Whether its first bytes (up to HEAD_BYTES, as files.head_sha256 keeps them) are still those
   * ingested: `as_ingested` (appended to since, as far as they show), `changed` (another file at
   * the path now: rotated or rewritten; ingest reads it as a file of its own, never merged), or
   * `not_known` (no head recorded: a case from before schema 18; or they could not be read).
   */
  head: 'as_ingested' | 'changed' | 'not_known'
}

/**
 * Complete log files whose original on disk is a regular file longer than what was ingested. One
 * stat per original; of one that is longer, its first HEAD_BYTES bytes are read and compared with
 * the head ingested (a log rotated to a longer one at the same path differs there, as ingest finds:
 * it is no longer the file ingested, not the file appended to), and where a later version the case
 * holds from another path has the original's size now, its SHA-256 says whether those bytes were
 * ingested. Whether every ingested byte is still the same is verify's question (originalState), too
 * dear for every gate. An original that is gone is not "grown" (verify names it missing).
 */
export function grownOriginals(db: CaseDb): GrownOriginal[] {
  const rows = completeLogOriginals(db)
  // The most bytes any complete ingest of each original read: a later ingest of the grown file judged them.
  const mostRead = new Map<string, number>()
  for (const f of rows) mostRead.set(f.abs_path, Math.max(mostRead.get(f.abs_path) ?? 0, f.size))
  const seen = new Set<string>()
  const grown: GrownOriginal[] = []
  for (const f of rows) {
    if (f.size < mostRead.get(f.abs_path)!) continue
    if (seen.has(f.abs_path)) continue
    seen.add(f.abs_path)
    let size: number
    try {
      const stat = statSync(f.abs_path)
      if (!stat.isFile()) continue
      size = stat.size
    } catch {
      continue
    }
    if (size > f.size && !judgedAsLaterVersion(db, rows.filter((r) => r.abs_path === f.abs_path).map((r) => r.id), f.abs_path, size)) {
      grown.push({path: f.path, abs_path: f.abs_path, ingested_bytes: f.size, bytes_now: size, head: headNow(f.abs_path, f.size, f.head_sha256)})
    }
  }
  return grown
}

/**
 * Whether the original's bytes now are exactly a later version of its file that the case holds
 * from elsewhere (a copy that grew alike, ingested under another path: this path given again is
 * then already in the case). Read only where such a version has the original's size now.
 */
function judgedAsLaterVersion(db: CaseDb, ids: readonly number[], absPath: string, size: number): boolean {
  const later = laterVersionsOf(db, ids).filter((v) => v.state === 'complete' && v.size === size)
  if (later.length === 0) return false
  try {
    const sha256 = sha256FileSync(absPath, size)
    return later.some((v) => v.sha256 === sha256)
  } catch {
    return false
  }
}

/** Whether the original's first bytes are those ingested (GrownOriginal.head). */
function headNow(absPath: string, ingested: number, head: string | null): GrownOriginal['head'] {
  if (head === null) return 'not_known'
  try {
    const now = sha256FileSync(absPath, Math.min(ingested, HEAD_BYTES))
    return now === null ? 'not_known' : now === head ? 'as_ingested' : 'changed'
  } catch {
    return 'not_known'
  }
}

/** One line for a grown original: what it holds beyond what was ingested, and the fix. */
export function grownOriginalLine(g: GrownOriginal): string {
  if (g.head === 'changed') {
    return `${g.path}: the original (${g.abs_path}) is no longer the file ingested: its first bytes changed and it now holds ${g.bytes_now} bytes where ${g.ingested_bytes} were ingested (rotated or rewritten?), which the case has never judged; ingest it to read them (crosstalk ingest logs ${g.abs_path}: it is read whole as a file of its own, never merged with the one ingested)`
  }
  const extra = g.bytes_now - g.ingested_bytes
  return `${g.path}: the original (${g.abs_path}) now holds ${extra} byte${extra === 1 ? '' : 's'} beyond the ${g.ingested_bytes} ingested, which the case has never judged (appended since?); ingest it again to read them (crosstalk ingest logs ${g.abs_path}: it is stored as its longer version and read from where the bytes ingested end, its lines in the case not counted again)`
}
