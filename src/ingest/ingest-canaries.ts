import {isUtf8} from 'node:buffer'
import {readFileSync} from 'node:fs'
import {resolve} from 'node:path'
import {z} from 'zod'
import {InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {parseCsv} from './csv-parse.js'
import {writeEvidenceSync} from './evidence-store.js'
import {sha256File} from './hash-file.js'
import {readLines} from './line-reader.js'
import {parseTimestamp} from './timestamps.js'

// A registry can hold hundreds of thousands of markers (one per session), so it is read
// line by line into a staging table and checked with SQL: memory stays flat, and every
// conflict in the file or against the case is found before anything is stored.

/** Conventional markers are matched with hex case-insensitive, so they are keyed in lower case. */
export const CONVENTIONAL_MARKER = /^CANARY-[0-9a-f]+$/i

export function markerKey(marker: string): string {
  return CONVENTIONAL_MARKER.test(marker) ? `CANARY-${marker.slice(7).toLowerCase()}` : marker
}

const CanaryEntry = z.object({
  marker: z.string().trim().min(1, 'marker is empty'),
  tenant_id: z.string().trim().min(1, 'tenant_id is empty'),
  session_id: z.string().trim().min(1, 'session_id is empty'),
  issued_at: z.union([z.string(), z.number()]).nullish(),
})

export interface IngestCanariesResult {
  file: string
  sha256: string
  status: 'ingested' | 'already_present'
  entries: number
  added: number
  already_registered: number
}

const REQUIRED_COLUMNS = ['marker', 'tenant_id', 'session_id'] as const
const MAX_REGISTRY_LINE = 1 << 20

export async function ingestCanaries(db: CaseDb, options: {path: string; now: () => Date}): Promise<IngestCanariesResult> {
  const {path} = options
  let hashed
  try {
    hashed = await sha256File(path)
  } catch (error) {
    throw new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
  }
  const existing = db.prepare('SELECT state, records FROM files WHERE sha256 = ?').get(hashed.sha256) as {state: string; records: number} | undefined
  if (existing?.state === 'complete') {
    return {file: path, sha256: hashed.sha256, status: 'already_present', entries: existing.records, added: 0, already_registered: existing.records}
  }

  db.exec('DROP TABLE IF EXISTS temp.canary_staging')
  db.exec('CREATE TEMP TABLE canary_staging (line INTEGER NOT NULL, marker_key TEXT NOT NULL, marker TEXT NOT NULL, tenant_id TEXT NOT NULL, session_id TEXT NOT NULL, issued_at TEXT)')
  const stage = db.prepare('INSERT INTO temp.canary_staging VALUES (?, ?, ?, ?, ?, ?)')
  let entries = 0
  db.exec('BEGIN')
  try {
    for await (const entry of readRegistry(path)) {
      stage.run(entry.line, markerKey(entry.marker), entry.marker, entry.tenant_id, entry.session_id, entry.issued_at)
      entries++
    }
    db.exec('CREATE INDEX temp.canary_staging_by_key ON canary_staging (marker_key, line)')
    const conflicts = findConflicts(db)
    if (conflicts.length > 0) {
      const shown = conflicts.slice(0, 3).join('; ')
      throw new InputError(`${path}: the same marker registered to two sessions: ${shown}${conflicts.length > 3 ? '; and more' : ''}`, 'E_CANARY_CONFLICT')
    }
    if (existing) db.prepare('DELETE FROM files WHERE sha256 = ?').run(hashed.sha256)
    const now = options.now().toISOString()
    const fileId = Number(
      db
        .prepare(
          `INSERT INTO files (kind, path, abs_path, sha256, size, format, source, state, started_at, completed_at, content_sha256, content_size, lines, records)
           VALUES ('canaries', ?, ?, ?, ?, ?, 'registry', 'complete', ?, ?, ?, ?, ?, ?)`,
        )
        .run(path, resolve(path), hashed.sha256, hashed.size, /\.csv$/i.test(path) ? 'csv' : 'jsonl', now, now, hashed.sha256, hashed.size, entries, entries).lastInsertRowid,
    )
    // Registries are megabytes, not gigabytes: one read for the evidence copy is fine.
    writeEvidenceSync(db, fileId, readFileSync(path))
    const added = db
      .prepare(
        `INSERT INTO canaries (marker_key, marker, tenant_id, session_id, issued_at, file_id)
         SELECT marker_key, marker, tenant_id, session_id, issued_at, ? FROM temp.canary_staging WHERE true ORDER BY line
         ON CONFLICT (marker_key) DO NOTHING`,
      )
      .run(fileId).changes
    db.exec('COMMIT')
    return {file: path, sha256: hashed.sha256, status: 'ingested', entries, added, already_registered: entries - added}
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw error
  } finally {
    db.exec('DROP TABLE IF EXISTS temp.canary_staging')
  }
}

/** Markers the file gives to two sessions, or gives to a session other than the case's. */
function findConflicts(db: CaseDb): string[] {
  const inFile = db
    .prepare(
      `SELECT a.marker, a.line AS line_a, a.session_id AS session_a, b.line AS line_b, b.session_id AS session_b
       FROM temp.canary_staging a JOIN temp.canary_staging b ON b.marker_key = a.marker_key AND b.line > a.line
       WHERE a.session_id <> b.session_id OR a.tenant_id <> b.tenant_id
       ORDER BY a.line LIMIT 4`,
    )
    .all() as {marker: string; line_a: number; session_a: string; line_b: number; session_b: string}[]
  const inCase = db
    .prepare(
      `SELECT s.marker, s.line, s.session_id, c.session_id AS stored_session, c.tenant_id AS stored_tenant
       FROM temp.canary_staging s JOIN canaries c ON c.marker_key = s.marker_key
       WHERE c.session_id <> s.session_id OR c.tenant_id <> s.tenant_id
       ORDER BY s.line LIMIT 4`,
    )
    .all() as {marker: string; line: number; session_id: string; stored_session: string; stored_tenant: string}[]
  return [
    ...inFile.map((c) => `${c.marker} registered to session ${c.session_a} (line ${c.line_a}) and ${c.session_b} (line ${c.line_b})`),
    ...inCase.map((c) => `${c.marker} (line ${c.line}) is already registered to session ${c.stored_session} of tenant ${c.stored_tenant}, not ${c.session_id}`),
  ]
}

interface Entry {
  line: number
  marker: string
  tenant_id: string
  session_id: string
  issued_at: string | null
}

/** Streams validated entries from a CSV (header marker,tenant_id,session_id,issued_at) or JSONL registry. */
async function* readRegistry(path: string): AsyncGenerator<Entry> {
  let columns: string[] | undefined
  let format: 'csv' | 'jsonl' | undefined
  let pending = '' // a CSV record whose quoted field spans lines
  let pendingLine = 0
  for await (const raw of readLines(path, {gzip: false, maxLineBytes: MAX_REGISTRY_LINE})) {
    if (!raw.bytes) throw new InputError(`${path}:${raw.lineNo}: line longer than ${MAX_REGISTRY_LINE} bytes`)
    if (!isUtf8(raw.bytes)) throw new InputError(`${path}:${raw.lineNo}: not UTF-8 text`)
    let text = raw.bytes.toString('utf8')
    if (raw.lineNo === 1) text = text.replace(/^\ufeff/, '')
    if (text.endsWith('\r')) text = text.slice(0, -1)
    if (!format) {
      if (!text.trim()) continue
      format = text.trimStart().startsWith('{') ? 'jsonl' : 'csv'
    }
    if (format === 'jsonl') {
      if (!text.trim()) continue
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch (error) {
        throw new InputError(`${path}:${raw.lineNo}: not valid JSON (${(error as Error).message})`)
      }
      yield validate(path, raw.lineNo, value)
      continue
    }
    const record = pending ? `${pending}\n${text}` : text
    const line = pending ? pendingLine : raw.lineNo
    if ((record.match(/"/g)?.length ?? 0) % 2 === 1) {
      pending = record
      pendingLine = line
      continue
    }
    pending = ''
    if (!record.trim()) continue
    let cells: string[]
    try {
      cells = parseCsv(record)[0]?.cells ?? []
    } catch (error) {
      throw new InputError(`${path}:${line}: ${(error as Error).message.replace(/^line \d+: /, '')}`)
    }
    if (!columns) {
      columns = cells.map((c) => c.trim().toLowerCase())
      for (const need of REQUIRED_COLUMNS) {
        if (!columns.includes(need)) throw new InputError(`${path}:${line}: header must be marker,tenant_id,session_id,issued_at (missing ${need})`)
      }
      continue
    }
    yield validate(path, line, Object.fromEntries(columns.map((c, i) => [c, cells[i] ?? ''])))
  }
  if (pending) throw new InputError(`${path}:${pendingLine}: unterminated quoted field`)
}

function validate(path: string, line: number, value: unknown): Entry {
  const parsed = CanaryEntry.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new InputError(`${path}:${line}: ${issue?.path.join('.') || 'entry'}: ${issue?.message ?? 'invalid'}`)
  }
  const e = parsed.data
  let issued: string | null = null
  if (e.issued_at !== undefined && e.issued_at !== null && e.issued_at !== '') {
    try {
      issued = parseTimestamp(e.issued_at).iso
    } catch (error) {
      throw new InputError(`${path}:${line}: issued_at: ${(error as Error).message}`)
    }
  }
  return {line, marker: e.marker, tenant_id: e.tenant_id, session_id: e.session_id, issued_at: issued}
}
