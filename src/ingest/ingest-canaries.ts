import {isUtf8} from 'node:buffer'
import {readFileSync} from 'node:fs'
import {basename, resolve} from 'node:path'
import {z} from 'zod'
import {InputError} from '../errors.js'
import {writeEvidenceSync} from '../evidence/evidence-store.js'
import {sha256File} from '../evidence/hash-file.js'
import {CONVENTIONAL_MARKER, markerKey} from '../extract/markers.js'
import {stageRegistry} from '../store/canaries.js'
import {deleteFile, fileBySha256, insertRegistryFile} from '../store/files.js'
import type {CaseDb} from '../store/open-case.js'
import {begin, commit, rollback} from '../store/session.js'
import {parseTimestamp} from '../util/timestamps.js'
import {parseCsv} from './csv-parse.js'
import {readLines} from './line-reader.js'

// A registry can hold hundreds of thousands of markers (one per session), so it is read
// line by line into a staging table and checked with SQL: memory stays flat, and every
// conflict in the file or against the case is found before anything is stored.

// Ids are kept exactly as written: a registry that trimmed " tenant-a" or turned a CRLF inside
// a quoted field into LF would no longer match the logs that carry the same id (own sightings
// read as echo, notices addressed to tenants that exist only in the registry). An id that is
// empty or only white space identifies nobody and is refused.
const id = (field: string) =>
  z.string().refine((v) => v.trim() !== '', `${field} is empty or only white space`)

/**
 * The shortest marker outside the CANARY-<hex> convention. Such markers are matched as plain
 * text in every response: "a" or "the" matched tens of thousands of ordinary answers (37,983
 * echo sightings from one-character markers). Eight characters is the length of the shortest
 * marker-shaped token's hex part; conventional markers are longer anyway.
 */
export const MIN_UNCONVENTIONAL_MARKER = 8

const CanaryEntry = z.object({
  marker: id('marker'),
  tenant_id: id('tenant_id'),
  session_id: id('session_id'),
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
  const existing = fileBySha256(db, hashed.sha256)
  if (existing?.state === 'complete') {
    return {file: path, sha256: hashed.sha256, status: 'already_present', entries: existing.records, added: 0, already_registered: existing.records}
  }

  const staging = stageRegistry(db)
  let entries = 0
  begin(db)
  try {
    for await (const entry of readRegistry(path)) {
      staging.add({...entry, marker_key: markerKey(entry.marker)})
      entries++
    }
    const conflicts = describeConflicts(staging.conflicts(4))
    if (conflicts.length > 0) {
      const shown = conflicts.slice(0, 3).join('; ')
      throw new InputError(`${path}: the same marker registered to two sessions: ${shown}${conflicts.length > 3 ? '; and more' : ''}`, 'E_CANARY_CONFLICT')
    }
    if (existing) deleteFile(db, existing.id)
    const now = options.now().toISOString()
    const fileId = insertRegistryFile(db, {
      path, name: basename(path), absPath: resolve(path), sha256: hashed.sha256, size: hashed.size,
      format: /\.csv$/i.test(path) ? 'csv' : 'jsonl', at: now, entries,
    })
    // Registries are megabytes, not gigabytes: one read for the evidence copy is fine.
    writeEvidenceSync(db, fileId, readFileSync(path))
    const added = staging.commit(fileId)
    commit(db)
    return {file: path, sha256: hashed.sha256, status: 'ingested', entries, added, already_registered: entries - added}
  } catch (error) {
    rollback(db)
    throw error
  } finally {
    staging.drop()
  }
}

/** Markers the file gives to two sessions, or gives to a session other than the case's. */
function describeConflicts(c: ReturnType<ReturnType<typeof stageRegistry>['conflicts']>): string[] {
  return [
    ...c.inFile.map((x) => `${x.marker} registered to session ${x.session_a} (line ${x.line_a}) and ${x.session_b} (line ${x.line_b})`),
    ...c.inCase.map((x) => `${x.marker} (line ${x.line}) is already registered to session ${x.stored_session} of tenant ${x.stored_tenant}, not ${x.session_id}`),
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
    // The CR of a CRLF line end is kept until the record is complete: inside a quoted field it is
    // part of the value.
    const cr = text.endsWith('\r')
    const bare = cr ? text.slice(0, -1) : text
    if (!format) {
      if (!bare.trim()) continue
      format = bare.trimStart().startsWith('{') ? 'jsonl' : 'csv'
    }
    if (format === 'jsonl') {
      if (!bare.trim()) continue
      let value: unknown
      try {
        value = JSON.parse(bare)
      } catch (error) {
        throw new InputError(`${path}:${raw.lineNo}: not valid JSON (${(error as Error).message})`)
      }
      yield validate(path, raw.lineNo, value)
      continue
    }
    const joined = pending ? `${pending}\n${text}` : text
    const line = pending ? pendingLine : raw.lineNo
    if ((joined.match(/"/g)?.length ?? 0) % 2 === 1) {
      // Inside a quoted field: the line end (CR included) is part of the value.
      pending = joined
      pendingLine = line
      continue
    }
    pending = ''
    const record = joined.endsWith('\r') ? joined.slice(0, -1) : joined
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
  if (!CONVENTIONAL_MARKER.test(e.marker) && [...e.marker].length < MIN_UNCONVENTIONAL_MARKER) {
    throw new InputError(
      `${path}:${line}: marker ${JSON.stringify(e.marker.slice(0, 40))} is too short: a marker outside the CANARY-<hex> convention needs at least ${MIN_UNCONVENTIONAL_MARKER} characters, or it matches ordinary text`,
    )
  }
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
