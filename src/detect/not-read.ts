import type {CaseDb} from '../store/open-case.js'
import {fileTotals} from '../store/files.js'
import {openUnreadSources} from '../store/unread-sources.js'
import {unreadableFiles, type UnreadableFile} from './gate.js'
import {count} from '../util/plural.js'
import {safeLine} from '../util/sanitize.js'

/**
 * The evidence no finding speaks for: quarantined lines (no rule could read them), the log files
 * the gate cannot judge (unreadableFiles: not read whole, answers with no text, an unfinished
 * ingest), and the sources an ingest reached and did not read, still open (`status`'s NOT READ).
 * The gate fails closed on the same evidence; an all-clear on a console is qualified by it.
 */
export interface NotRead {
  /** lines of the case's complete log files that were quarantined, never judged */
  quarantined_lines: number
  /** log files, or sources an ingest reached, whose content was not judged whole, each with why */
  files: Array<{path: string; why: string}>
}

export function notReadEvidence(db: CaseDb): NotRead {
  return {
    quarantined_lines: fileTotals(db).bad_lines,
    files: [...unreadableFiles(db), ...unreadSourceFiles(db)].map((f) => ({path: f.path, why: f.why})),
  }
}

/**
 * A log source an ingest reached and never read (still open: `status`'s NOT READ), as an entry of
 * `scan --json`'s `unreadable_files`: the case holds no record of it (`records` 0), and what it
 * holds is not known (`no_response_text`, `unlogged_answers` null).
 */
export interface UnreadSourceFile extends Omit<UnreadableFile, 'state'> {
  state: 'not_read'
}

/** The open log sources an ingest reached and did not read, each with why, as unreadable files. */
export function unreadSourceFiles(db: CaseDb): UnreadSourceFile[] {
  return openUnreadSources(db).map((u) => ({
    path: u.path, state: 'not_read', records: 0, answers: 0, no_response_text: null, unread: u.reason, unlogged_answers: null,
    why: u.reason.startsWith('not ingested') ? u.reason : `not read: ${u.reason}`,
  }))
}

/** Whether anything of the case was not read: an all-clear then speaks for what was read only. */
export function anyNotRead(n: NotRead): boolean {
  return n.quarantined_lines > 0 || n.files.length > 0
}

/** One sentence naming what was not read, or null where everything was; paths as the case recorded them. */
export function notReadSentence(n: NotRead): string | null {
  const parts: string[] = []
  if (n.quarantined_lines > 0) parts.push(`${count(n.quarantined_lines, 'quarantined line')} could not be read and ${n.quarantined_lines === 1 ? 'was' : 'were'} not judged (crosstalk status --bad-lines)`)
  if (n.files.length > 0) {
    const named = n.files.slice(0, 3).map((f) => `${safeLine(f.path)} (${safeLine(f.why)})`).join('; ')
    parts.push(`${count(n.files.length, 'log file')} ${n.files.length === 1 ? 'was' : 'were'} not read whole: ${named}${n.files.length > 3 ? `; and ${n.files.length - 3} more (crosstalk status)` : ''}`)
  }
  return parts.length === 0 ? null : `Not everything was read: ${parts.join('; ')}. Whether ${n.quarantined_lines + n.files.length === 1 ? 'it carries' : 'they carry'} another session's data is not known.`
}
