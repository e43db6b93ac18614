import {createHash} from 'node:crypto'
import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import {inflateBlock} from '../evidence/evidence-store.js'
import {ingestCanaries} from '../ingest/ingest-canaries.js'
import {auditEntriesOf} from '../store/audit.js'
import {countCanaries, iterateCanaries, type CanaryStored} from '../store/canaries.js'
import {iterateBlocks} from '../store/evidence-blocks.js'
import {listFiles, type FileRow} from '../store/files.js'
import {openCase, type CaseDb} from '../store/open-case.js'
import {registryVersion} from '../store/settings.js'
import {ident, Problems, shown, sqliteLess} from './verify-problems.js'
import {count} from '../util/plural.js'

// The canary registry decides every sighting's class, so it is derived again from the
// registry files the case keeps byte for byte: each file, in the order it was ingested, is
// written to a private scratch folder and ingested by the real `ingest canaries` into a
// scratch case; the registry that comes out must be the case's, entry for entry. A marker
// reassigned to another session or tenant, or one added or removed by hand, shows up here.

export interface RegistryCheck {
  registry_files: number
  canaries_checked: number
}

export async function verifyRegistry(db: CaseDb, problems: Problems, scratchDir: string): Promise<RegistryCheck> {
  const files = listFiles(db).filter((f) => f.kind === 'canaries' && f.state === 'complete')
  const result: RegistryCheck = {registry_files: files.length, canaries_checked: 0}
  // Triggers count every insert, update and delete of a canary. crosstalk inserts, and deletes
  // only when `drop` withdraws a registry: each marker deleted then counts once for its insert
  // and once for its delete, and the audit log records how many (a re-registration by a file
  // that stays is an insert of a marker that the size counts again).
  const version = registryVersion(db)
  const stored = countCanaries(db)
  const withdrawn = markersWithdrawn(db)
  if (version !== stored + 2 * withdrawn) {
    const drops = withdrawn > 0 ? ` and ${count(withdrawn, 'marker')} withdrawn by \`crosstalk drop\`` : ''
    problems.add('registry', 'canary registry', `has been changed ${count(version, 'time')} but holds ${count(stored, 'marker')}${drops}: a marker was changed or removed outside crosstalk`)
  }

  const scratchPath = join(scratchDir, 'registry.db')
  const scratch = openCase(scratchPath, {create: true})
  const fileIds = new Map<number, number>() // scratch file id -> case file id
  try {
    for (const [i, file] of files.entries()) {
      const bytes = registryBytes(db, file, problems)
      if (!bytes) continue
      // The file's own name: its format is decided from it and from its first line, as at ingest.
      const dir = join(scratchDir, String(i))
      mkdirSync(dir, {mode: 0o700})
      const path = join(dir, file.name)
      writeFileSync(path, bytes, {mode: 0o600})
      try {
        const r = await ingestCanaries(scratch, {path, now: () => new Date(file.started_at)})
        if (r.entries !== file.records) problems.add('registry', file.path, `the file says ${count(file.records, 'entry', 'entries')}, its evidence holds ${r.entries}`)
      } catch (error) {
        problems.add('registry', file.path, `its evidence no longer reads as a registry: ${(error as Error).message.replace(path, file.name)}`)
        continue
      }
      const scratchFile = listFiles(scratch).at(-1)!
      fileIds.set(scratchFile.id, file.id)
    }
    result.canaries_checked = compareRegistries(iterateCanaries(db), iterateCanaries(scratch), fileIds, problems)
  } finally {
    scratch.close()
  }
  return result
}

/** Registry rows deleted by registry withdrawals, as the audit log's `drop` entries record them. */
function markersWithdrawn(db: CaseDb): number {
  let n = 0
  for (const e of auditEntriesOf(db, 'drop')) {
    try {
      const w = (JSON.parse(e.summary) as {markers_withdrawn?: unknown}).markers_withdrawn
      if (typeof w === 'number' && Number.isSafeInteger(w) && w > 0) n += w
    } catch {
      // An entry that is not JSON is the audit chain's problem, reported by its own check.
    }
  }
  return n
}

/** The registry file's bytes, each block against its CRC and all of them against the file's hash. */
function registryBytes(db: CaseDb, file: FileRow, problems: Problems): Buffer | null {
  const parts: Buffer[] = []
  let ok = true
  for (const row of iterateBlocks(db, file.id)) {
    try {
      const bytes = inflateBlock(row, file.id)
      if (bytes.length !== row.raw_len || crc32(bytes) !== row.crc32) {
        ok = false
        problems.add('block', `${file.path} block ${row.seq}`, 'content does not match its CRC-32')
      }
      parts.push(bytes)
    } catch (error) {
      ok = false
      problems.add('block', `${file.path} block ${row.seq}`, (error as Error).message)
    }
  }
  const bytes = Buffer.concat(parts)
  if (ok && file.content_sha256 && createHash('sha256').update(bytes).digest('hex') !== file.content_sha256) {
    problems.add('content', file.path, 'evidence store does not reproduce the content hash recorded at ingest')
    ok = false
  }
  return ok ? bytes : null
}

function compareRegistries(
  stored: Iterator<CanaryStored>, derived: Iterator<CanaryStored>, fileIds: ReadonlyMap<number, number>, problems: Problems,
): number {
  let checked = 0
  let a = stored.next()
  let b = derived.next()
  while (!a.done || !b.done) {
    if (b.done || (!a.done && sqliteLess(a.value.marker_key, b.value.marker_key))) {
      problems.add('registry', `marker ${ident(a.value!.marker)}`, `registered to ${shown(a.value!.tenant_id)}/${shown(a.value!.session_id)} in the case, but in no registry file`)
      a = stored.next()
      continue
    }
    if (a.done || sqliteLess(b.value.marker_key, a.value.marker_key)) {
      problems.add('registry', `marker ${ident(b.value.marker)}`, `registered to ${shown(b.value.tenant_id)}/${shown(b.value.session_id)} by its registry file, but missing from the case`)
      b = derived.next()
      continue
    }
    checked++
    const s = a.value
    const d = b.value
    const fields: Array<[string, unknown, unknown]> = [
      ['tenant_id', s.tenant_id, d.tenant_id], ['session_id', s.session_id, d.session_id], ['marker', s.marker, d.marker],
      ['issued_at', s.issued_at, d.issued_at], ['registry file', s.file_id, d.file_id === null ? null : (fileIds.get(d.file_id) ?? null)],
    ]
    for (const [field, was, should] of fields) {
      if (was !== should) {
        problems.add('registry', `marker ${ident(s.marker)}`, `${field} is ${shown(was)} in the case, but its registry file says ${shown(should)}`)
        break
      }
    }
    a = stored.next()
    b = derived.next()
  }
  return checked
}
