import {basename, isAbsolute, join, relative, resolve} from 'node:path'
import {count} from '../util/plural.js'
import type {AuditEntry} from '../store/audit.js'
import {listFiles, type FileRow} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {Problems, shown} from './verify-problems.js'
import {summaryOf} from './verify-recorded.js'

// What an ingest recorded of each log file it read (its audit entry's `files[]`) is what the
// gate and the drafts rely on: how much of it was not read (`unread`), how many answers decoded
// to no text, the format it was read as, the path it was given as. A scan may change the first
// two (a file extracted again under a newer scheme); each finished scan's entry lists every log
// file then not read whole or holding answers without text (`unreadable_files`), so the newest
// such entry speaks for them from then on. A drop that keeps a record at its duplicate line only
// adds to the counts. Each fact must hold what the newest entry that speaks for it recorded: one
// cleared by hand would let `scan --fail-on-leak` pass over data nobody read.

interface IngestedFile {
  seq: number
  path: unknown
  log_format: unknown
  unread: unknown
  no_request_text: unknown
  no_response_text: unknown
  content_sha256: unknown
  content_size: unknown
  /** the whole element, for the facts this version's ingest records (storedFacts in cli/ingest-flags.ts) */
  recorded: Record<string, unknown>
  /** the entry those facts are last recorded by (a later ingest that found the file present records them again) */
  factsSeq: number
  has: Set<string>
}

/** One file `relocate` pointed elsewhere: where to (this version records it; earlier ones only the folders, in args). */
interface Relocation {
  seq: number
  to: string | null
  from_dir: string | null
  to_dir: string | null
}

/** The keys of those facts an ingest that finds a file already present records again. */
const STORED_KEYS = ['abs_path', 'compression', 'source', 'parse_spec', 'lines_held', 'notes', 'started_at', 'completed_at'] as const

/** Facts this version's ingest records of each file it stores, compared as they are (column, label). */
const STORED_FACTS: ReadonlyArray<[keyof FileRow & string, string]> = [
  ['compression', 'compression'], ['source', 'source'], ['parse_spec', 'parse spec'], ['lines_held', 'evidence held (lines_held)'],
  ['started_at', 'ingest start time'], ['completed_at', 'ingest completion time'], ['format_reason', 'format reason'],
]

/** One file of a scan's `unreadable_files`: what was not read of it then. */
interface Unjudged {
  unread: string | null
  no_response_text: number | null
}

interface ScanSnapshot {
  seq: number
  /** per path, the complete files listed (a path can name two versions of a grown file) */
  byPath: Map<string, Unjudged[]>
}

function ingestStep(entry: AuditEntry): boolean {
  if (entry.command === 'ingest:logs' || entry.command === 'ingest:findings') return true
  if (entry.command !== 'triage') return false
  try {
    return (JSON.parse(entry.args) as Record<string, unknown> | null)?.step === 'ingest logs'
  } catch {
    return false
  }
}

function objects(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value) ? value.filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object') : []
}

const key = (u: Unjudged): string => JSON.stringify([u.unread, u.no_response_text])

/**
 * Checks the facts each file's ingest recorded; returns the compressed files whose content no
 * audit entry records (ingested by an earlier version): verify ties their stored content to
 * the original where it can still be read, and names them otherwise.
 */
export function checkAuditedFileFacts(db: CaseDb, entries: readonly AuditEntry[], problems: Problems, notes: string[]): FileRow[] {
  const ingested = new Map<string, IngestedFile>()
  const snapshots: ScanSnapshot[] = []
  /** per sha256, the seq of each drop that counted a duplicate line of it as its record */
  const grownBy = new Map<string, number[]>()
  /** per sha256, each relocate that moved it, in order */
  const relocations = new Map<string, Relocation[]>()
  /** seq of each finished scan (one may have added notes to a file it extracted again) */
  const scanSeqs: number[] = []
  for (const e of entries) {
    const s = summaryOf(e)
    if (ingestStep(e)) {
      for (const f of [...objects(s.files), ...objects(s.per_file)]) {
        if (typeof f.sha256 !== 'string' || f.sha256 === '') continue
        const earlier = ingested.get(f.sha256)
        // A later ingest of a file already present records the file as it then was (one kept by reference may have been copied in).
        if (f.status === 'already_present' && earlier && 'abs_path' in f) {
          earlier.factsSeq = e.seq
          earlier.recorded = {...earlier.recorded, ...Object.fromEntries(STORED_KEYS.filter((k) => k in f).map((k) => [k, f[k]]))}
          for (const k of STORED_KEYS) if (k in f) earlier.has.add(k)
        }
        if (f.status !== 'ingested') continue
        ingested.set(f.sha256, {seq: e.seq, factsSeq: e.seq, path: f.path, log_format: f.log_format, unread: f.unread, no_request_text: f.no_request_text, no_response_text: f.no_response_text, content_sha256: f.content_sha256, content_size: f.content_size, recorded: f, has: new Set(Object.keys(f))})
      }
    } else if (typeof s.scanned_at === 'string' && Array.isArray(s.unreadable_files)) {
      const byPath = new Map<string, Unjudged[]>()
      for (const u of objects(s.unreadable_files)) {
        if (u.state !== 'complete' || typeof u.path !== 'string') continue
        const list = byPath.get(u.path) ?? []
        list.push({unread: typeof u.unread === 'string' ? u.unread : null, no_response_text: typeof u.no_response_text === 'number' ? u.no_response_text : null})
        byPath.set(u.path, list)
      }
      snapshots.push({seq: e.seq, byPath})
      scanSeqs.push(e.seq)
    } else if (e.command === 'relocate') {
      const args = argsOf(e)
      for (const f of objects(s.files)) {
        if (typeof f.sha256 !== 'string') continue
        relocations.set(f.sha256, [...(relocations.get(f.sha256) ?? []), {
          seq: e.seq, to: typeof f.to === 'string' ? f.to : null,
          from_dir: typeof args.from === 'string' ? args.from : null, to_dir: typeof args.to === 'string' ? args.to : null,
        }])
      }
    } else if (e.command === 'drop') {
      for (const k of objects(s.kept_in)) if (typeof k.sha256 === 'string') grownBy.set(k.sha256, [...(grownBy.get(k.sha256) ?? []), e.seq])
    }
  }

  const unanchored = checkContentAnchors(db, ingested, problems)
  /** facts (labels) some file's ingest entry does not record (an earlier version's) */
  const unrecorded = new Set<string>()
  const laterNotes: string[] = []
  const unplaced: string[] = []
  const files = listFiles(db).filter((f) => f.kind === 'log' && f.state === 'complete')
  /** per scan snapshot, per path, the files it speaks for */
  const spoken = new Map<ScanSnapshot, Map<string, FileRow[]>>()
  for (const f of files) {
    const a = ingested.get(f.sha256)
    if (!a) continue // no entry records its ingest: named as unaudited, or an unfinished ingest
    const where = f.path
    if (a.has.has('path') && typeof a.path === 'string') {
      if (f.path !== a.path) problems.add('recorded', where, `its path is ${shown(f.path)}, but audit entry ${a.seq} recorded its ingest from ${shown(a.path)}`, 'file-facts')
      else if (f.name !== basename(a.path)) problems.add('recorded', where, `its name is ${shown(f.name)}, but audit entry ${a.seq} recorded its ingest from ${shown(a.path)}`, 'file-facts')
    }
    if (a.has.has('log_format') && f.log_format !== a.log_format) {
      problems.add('recorded', where, `its log format is ${shown(f.log_format)}, but audit entry ${a.seq} recorded ${shown(a.log_format)}`, 'file-facts')
    }
    // Spark findings by reference: their entry records the job's shards, checked on their own (verify-references.ts).
    if (f.lines_held !== 'findings') checkStoredFacts(f, a, relocations.get(f.sha256) ?? [], scanSeqs, problems, {unrecorded, laterNotes, unplaced})
    const grown = (after: number): boolean => (grownBy.get(f.sha256) ?? []).some((seq) => seq > after)
    // A count may only have grown (a drop counted a duplicate line as a record) after the entry that recorded it.
    const countDiffers = (now: number | null, was: unknown, after: number): boolean => typeof was === 'number' && (grown(after) ? now === null || now < was : now !== was)
    const snapshot = snapshots.findLast((s) => s.seq > a.seq)
    if (!snapshot) {
      if (a.has.has('unread') && f.unread !== (a.unread ?? null)) {
        problems.add('recorded', where, `what it leaves unread is ${shown(f.unread)}, but audit entry ${a.seq} recorded ${shown(a.unread)}: a gate would pass over what nobody read`, 'file-facts')
      }
      for (const [label, now, was] of [['no_response_text', f.no_response_text, a.no_response_text], ['no_request_text', f.no_request_text, a.no_request_text]] as const) {
        if (countDiffers(now, was, a.seq)) problems.add('recorded', where, `its ${label} is ${shown(now)}, but audit entry ${a.seq} recorded ${shown(was)}`, 'file-facts')
      }
      continue
    }
    const paths = spoken.get(snapshot) ?? new Map<string, FileRow[]>()
    spoken.set(snapshot, paths)
    paths.set(f.path, [...(paths.get(f.path) ?? []), f])
  }

  // Files a scan has spoken for since their ingest: the files at each path not read whole, or
  // holding answers without text, must be those the scan listed there, with the same facts.
  for (const [snapshot, paths] of spoken) {
    for (const [path, rows] of paths) {
      const listed = (snapshot.byPath.get(path) ?? []).map(key).sort()
      const now = rows.filter((f) => f.unread !== null || (f.no_response_text ?? 0) > 0).map((f) => ({unread: f.unread, no_response_text: f.no_response_text}))
      const same = now.length === listed.length && now.map(key).sort().every((k, i) => k === listed[i])
      if (same) continue
      // A drop since may only have added answers without text to a file the scan listed (or added one).
      const grownSince = rows.some((f) => (grownBy.get(f.sha256) ?? []).some((seq) => seq > snapshot.seq))
      if (grownSince && now.length >= listed.length && rows.every((f) => f.unread === null || listed.some((k) => JSON.parse(k)[0] === f.unread))) continue
      const was = snapshot.byPath.get(path) ?? []
      problems.add(
        'recorded', path,
        `what it leaves unread or without response text is ${describe(now)}, but audit entry ${snapshot.seq} (the last scan) recorded ${describe(was)}: a gate would pass over what nobody read`,
        'file-facts',
      )
    }
  }
  if (unrecorded.size > 0) {
    notes.push(`log files ingested by an earlier version of crosstalk, whose audit entries do not record them: their ${[...unrecorded].join(', ')} not checked`)
  }
  if (laterNotes.length > 0) {
    notes.push(`notes added to ${count(laterNotes.length, 'log file')} after ingest, by a scan that extracted ${laterNotes.length === 1 ? 'it' : 'them'} again (no audit entry records those): not checked: ${laterNotes.slice(0, 5).join('; ')}${laterNotes.length > 5 ? `; and ${laterNotes.length - 5} more` : ''}`)
  }
  if (unplaced.length > 0) {
    notes.push(`where ${count(unplaced.length, 'log file')} ${unplaced.length === 1 ? 'is' : 'are'} read from, against the audit log, not checked: ${unplaced.slice(0, 5).join('; ')}${unplaced.length > 5 ? `; and ${unplaced.length - 5} more` : ''}`)
  }
  return unanchored
}

/** The facts this version's ingest records of a file (and its place, followed through relocate), against the case. */
function checkStoredFacts(f: FileRow, a: IngestedFile, moves: readonly Relocation[], scanSeqs: readonly number[], problems: Problems, left: {unrecorded: Set<string>; laterNotes: string[]; unplaced: string[]}): void {
  const where = f.path
  const {unrecorded, laterNotes, unplaced} = left
  for (const [column, label] of STORED_FACTS) {
    if (!a.has.has(column)) {
      unrecorded.add(label)
      continue
    }
    if (f[column] !== (a.recorded[column] ?? null)) problems.add('recorded', where, `its ${label} is ${shown(f[column])}, but audit entry ${a.factsSeq} recorded ${shown(a.recorded[column])}`, 'file-facts')
  }
  checkNotes(f, a, scanSeqs, problems, unrecorded, laterNotes)
  const place = recordedPlace(f, a, moves)
  if (place.at === null) unplaced.push(`${f.path} (${place.why})`)
  else if (place.at !== f.abs_path) {
    problems.add('recorded', where, `it is read from ${shown(f.abs_path)}, but the audit log puts it at ${shown(place.at)} (${place.why}): moved outside \`crosstalk relocate\``, 'file-facts')
  }
}

function argsOf(entry: AuditEntry): Record<string, unknown> {
  try {
    const v = JSON.parse(entry.args) as unknown
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

/**
 * The notes its ingest recorded must be the file's first notes; a scan that extracts the file
 * again (a newer extract scheme) may add notes after them, which no entry records (named).
 */
function checkNotes(f: FileRow, a: IngestedFile, scanSeqs: readonly number[], problems: Problems, unrecorded: Set<string>, laterNotes: string[]): void {
  if (!a.has.has('notes')) {
    unrecorded.add('notes')
    return
  }
  const list = (v: unknown): string[] | null => {
    if (v === null || v === undefined) return []
    try {
      const parsed = JSON.parse(String(v)) as unknown
      return Array.isArray(parsed) && parsed.every((n) => typeof n === 'string') ? parsed : null
    } catch {
      return null
    }
  }
  const was = list(a.recorded.notes)
  const now = list(f.notes)
  const scannedSince = scanSeqs.some((seq) => seq > a.factsSeq)
  const same = was !== null && now !== null && was.every((n, i) => now[i] === n) && (now.length === was.length || scannedSince)
  if (!same) problems.add('recorded', f.path, `its notes are ${shown(f.notes)}, but audit entry ${a.factsSeq} recorded ${shown(a.recorded.notes)}`, 'file-facts')
  else if (now!.length > was!.length) laterNotes.push(f.path)
}

/**
 * Where the audit log says a file's original lies: the place its ingest recorded, moved by
 * each `relocate` that named it since (this version records each file's new place; an earlier
 * one only the folders, which give it when both were absolute). null: not known, and why.
 */
function recordedPlace(f: FileRow, a: IngestedFile, moves: readonly Relocation[]): {at: string | null; why: string} {
  let at: string | null = typeof a.recorded.abs_path === 'string' ? a.recorded.abs_path : typeof a.path === 'string' && isAbsolute(a.path) ? resolve(a.path) : null
  let why = at === null ? `its ingest, audit entry ${a.seq}, recorded a relative path and not the place` : `recorded by its ingest, audit entry ${a.factsSeq}`
  for (const m of moves) {
    if (m.seq < a.factsSeq) continue
    if (m.to !== null) at = m.to
    else if (at !== null && m.from_dir !== null && m.to_dir !== null && isAbsolute(m.from_dir) && isAbsolute(m.to_dir)) {
      const rel = relative(resolve(m.from_dir), at)
      at = rel === '' || rel.startsWith('..') || isAbsolute(rel) ? null : join(resolve(m.to_dir), rel)
    } else at = null
    why = at === null ? `relocate, audit entry ${m.seq}, recorded not where it moved it` : `moved there by relocate, audit entry ${m.seq}`
    if (at === null) break
  }
  return {at, why}
}


/**
 * The content verify checks the stored evidence (or a referenced original) against is the
 * file's content_sha256, a column no audit entry wrote: it must be the content the audit log
 * speaks for. For an uncompressed file that is the file's own SHA-256 (which its ingest's entry
 * records, coverage checks); for a compressed one, the content hash its ingest's entry records.
 */
function checkContentAnchors(db: CaseDb, ingested: ReadonlyMap<string, IngestedFile>, problems: Problems): FileRow[] {
  const unanchored: FileRow[] = []
  for (const f of listFiles(db)) {
    if (f.state !== 'complete') continue
    let want: {sha256: string; size: number | null; what: string}
    if (f.compression === 'none') {
      // Files read by reference from a Spark job's shards keep only the findings' lines, each checked against its CRC-32 and the original.
      if (f.lines_held === 'findings' && f.content_sha256 === null) continue
      want = {sha256: f.sha256, size: f.size, what: 'its SHA-256, which its ingest recorded'}
    } else {
      const a = ingested.get(f.sha256)
      if (!a || typeof a.content_sha256 !== 'string') {
        unanchored.push(f)
        continue
      }
      want = {sha256: a.content_sha256, size: typeof a.content_size === 'number' ? a.content_size : null, what: `the content hash audit entry ${a.seq} recorded`}
    }
    if (f.content_sha256 !== want.sha256) {
      problems.add(
        'content', f.path,
        `its content hash is ${f.content_sha256 === null ? 'missing' : `${f.content_sha256.slice(0, 16)}…`}, not ${want.what} (${want.sha256.slice(0, 16)}…): the evidence held for it is not the file that was ingested`,
        'file-facts',
      )
    } else if (want.size !== null && f.content_size !== null && f.content_size !== want.size) {
      problems.add('content', f.path, `its content size is ${f.content_size} bytes, not the ${want.size} bytes ${f.compression === 'none' ? 'of the file its ingest recorded' : want.what.replace('hash', 'size')}`, 'file-facts')
    }
  }
  return unanchored
}

function describe(list: readonly Unjudged[]): string {
  if (list.length === 0) return 'nothing (read whole, every answer with text)'
  return list.map((u) => `unread ${shown(u.unread)}, no_response_text ${shown(u.no_response_text)}`).join('; ')
}
