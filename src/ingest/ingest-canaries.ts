import {readFileSync} from 'node:fs'
import {resolve} from 'node:path'
import {isUtf8} from 'node:buffer'
import {z} from 'zod'
import {InputError} from '../errors.js'
import type {CaseDb} from '../store/open-case.js'
import {EvidenceWriter} from './evidence-store.js'
import {parseCsv} from './csv-parse.js'
import {sha256File} from './hash-file.js'
import {parseTimestamp} from './timestamps.js'

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

export async function ingestCanaries(db: CaseDb, options: {path: string; now: () => Date}): Promise<IngestCanariesResult> {
  const {path} = options
  let buf: Buffer
  let hashed
  try {
    hashed = await sha256File(path)
    buf = readFileSync(path)
  } catch (error) {
    throw new InputError(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'E_UNREADABLE')
  }
  const existing = db.prepare(`SELECT state FROM files WHERE sha256 = ?`).get(hashed.sha256) as {state: string} | undefined
  const entries = parseRegistry(path, buf)
  if (existing?.state === 'complete') {
    return {file: path, sha256: hashed.sha256, status: 'already_present', entries: entries.length, added: 0, already_registered: entries.length}
  }

  // Every conflict in the file and against the case, reported together, before anything is stored.
  const lookup = db.prepare('SELECT marker, tenant_id, session_id FROM canaries WHERE marker_key = ?')
  const seen = new Map<string, {line: number; tenant: string; session: string}>()
  const conflicts: string[] = []
  for (const e of entries) {
    const prior = seen.get(e.key)
    if (prior && (prior.session !== e.session_id || prior.tenant !== e.tenant_id)) {
      conflicts.push(`${e.marker} registered to session ${prior.session} (line ${prior.line}) and ${e.session_id} (line ${e.line})`)
      continue
    }
    seen.set(e.key, {line: e.line, tenant: e.tenant_id, session: e.session_id})
    const stored = lookup.get(e.key) as {tenant_id: string; session_id: string} | undefined
    if (stored && (stored.session_id !== e.session_id || stored.tenant_id !== e.tenant_id)) {
      conflicts.push(`${e.marker} (line ${e.line}) is already registered to session ${stored.session_id} of tenant ${stored.tenant_id}, not ${e.session_id}`)
    }
  }
  if (conflicts.length > 0) {
    const more = conflicts.length > 3 ? `; and ${conflicts.length - 3} more` : ''
    throw new InputError(`${path}: the same marker registered to two sessions: ${conflicts.slice(0, 3).join('; ')}${more}`, 'E_CANARY_CONFLICT')
  }

  let added = 0
  db.transaction(() => {
    if (existing) db.prepare('DELETE FROM files WHERE sha256 = ?').run(hashed.sha256)
    const fileId = Number(
      db
        .prepare(
          `INSERT INTO files (kind, path, abs_path, sha256, size, format, source, state, started_at, completed_at, content_sha256, content_size, lines, records)
           VALUES ('canaries', ?, ?, ?, ?, ?, 'registry', 'complete', ?, ?, ?, ?, ?, ?)`,
        )
        .run(path, resolve(path), hashed.sha256, hashed.size, /\.csv$/i.test(path) ? 'csv' : 'jsonl', options.now().toISOString(), options.now().toISOString(), hashed.sha256, buf.length, entries.length, entries.length).lastInsertRowid,
    )
    const evidence = new EvidenceWriter(db, fileId)
    evidence.push(buf)
    evidence.flush(true)
    const insert = db.prepare(
      `INSERT INTO canaries (marker_key, marker, tenant_id, session_id, issued_at, file_id) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (marker_key) DO NOTHING`,
    )
    for (const e of entries) added += insert.run(e.key, e.marker, e.tenant_id, e.session_id, e.issued_at, fileId).changes
  })()
  return {file: path, sha256: hashed.sha256, status: 'ingested', entries: entries.length, added, already_registered: entries.length - added}
}

interface Entry {
  line: number
  key: string
  marker: string
  tenant_id: string
  session_id: string
  issued_at: string | null
}

function parseRegistry(path: string, buf: Buffer): Entry[] {
  if (!isUtf8(buf)) throw new InputError(`${path}: not UTF-8 text`, 'E_INPUT')
  const text = buf.toString('utf8').replace(/^\ufeff/, '')
  const firstLine = text.slice(0, text.search(/\r?\n|$/)).trim()
  const raw: {line: number; value: unknown}[] = []
  if (firstLine.startsWith('{')) {
    text.split('\n').forEach((l, i) => {
      if (!l.trim()) return
      try {
        raw.push({line: i + 1, value: JSON.parse(l)})
      } catch (error) {
        throw new InputError(`${path}:${i + 1}: not valid JSON (${(error as Error).message})`)
      }
    })
  } else {
    let rows
    try {
      rows = parseCsv(text)
    } catch (error) {
      throw new InputError(`${path}: ${(error as Error).message}`)
    }
    const header = rows.shift()
    const cols = header?.cells.map((c) => c.trim().toLowerCase()) ?? []
    for (const need of ['marker', 'tenant_id', 'session_id']) {
      if (!cols.includes(need)) throw new InputError(`${path}:1: header must be marker,tenant_id,session_id,issued_at (missing ${need})`)
    }
    for (const row of rows) raw.push({line: row.line, value: Object.fromEntries(cols.map((c, i) => [c, row.cells[i] ?? '']))})
  }
  return raw.map(({line, value}) => {
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
    return {line, key: markerKey(e.marker), marker: e.marker, tenant_id: e.tenant_id, session_id: e.session_id, issued_at: issued}
  })
}
