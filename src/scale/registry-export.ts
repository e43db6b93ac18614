import {existsSync, mkdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {InputError} from '../errors.js'
import {UnconventionalSet} from '../extract/extract.js'
import {isConventionalKey} from '../extract/markers.js'
import type {CaseDb} from '../store/open-case.js'
import {allCanaries, registryFileHashes, unconventionalCanaries} from '../store/scale.js'
import {getSettings} from '../store/settings.js'
import {readParquetRows, writeStringTable} from './parquet-io.js'

// The case's canary registry for a Spark job: registry.parquet (marker_key, marker,
// tenant_id, session_id: the rows `ingest canaries` stored, so the job joins exactly what a
// scan looks up) and registry.json (which registry that was: its files' SHA-256, the case's
// registry version, the unconventional markers' hash), which the job copies into its
// findings so that `ingest findings` can refuse findings made under another registry.

export interface RegistryMeta {
  format: 'crosstalk-registry/1'
  case_id: string
  registry_version: number
  registry_files: string[]
  canaries: number
  unconventional_sha256: string
}

export function exportRegistry(db: CaseDb, outDir: string): RegistryMeta {
  mkdirSync(outDir, {recursive: true})
  const rows = allCanaries(db)
  if (rows.length === 0) throw new InputError('the case holds no canary registry: run `crosstalk ingest canaries FILE` first')
  writeStringTable(join(outDir, 'registry.parquet'), ['marker_key', 'marker', 'tenant_id', 'session_id'], rows as unknown as Array<Record<string, string>>)
  const settings = getSettings(db)
  const meta: RegistryMeta = {
    format: 'crosstalk-registry/1',
    case_id: settings.case_id,
    registry_version: settings.registry_version,
    registry_files: registryFileHashes(db),
    canaries: rows.length,
    unconventional_sha256: new UnconventionalSet(unconventionalCanaries(db)).hash,
  }
  writeFileSync(join(outDir, 'registry.json'), JSON.stringify(meta, null, 2) + '\n')
  return meta
}

/**
 * Whether `dir` holds a registry.json that registry-export wrote (its format line): the folder
 * is a previous export, whose two files a fresh export replaces. Anything else there (a file of
 * the user's own under one of those names) is replaced only with --force.
 */
export function isRegistryExport(dir: string): boolean {
  try {
    const meta = JSON.parse(readFileSync(join(dir, 'registry.json'), 'utf8')) as Partial<RegistryMeta> | null
    return meta !== null && typeof meta === 'object' && meta.format === 'crosstalk-registry/1'
  } catch {
    return false
  }
}

/** The unconventional markers of a registry export (a directory from `registry-export`, or its registry.parquet). */
export async function readUnconventional(path: string): Promise<string[]> {
  const file = existsSync(path) && statSync(path).isDirectory() ? join(path, 'registry.parquet') : path
  if (!existsSync(file)) throw new InputError(`${path}: no registry export here (write one with \`crosstalk registry-export --out DIR\`)`, 'E_NOT_FOUND')
  const rows = await readParquetRows(file)
  return rows.filter((r) => !isConventionalKey(String(r.marker_key))).map((r) => String(r.marker))
}

export function readRegistryMeta(dir: string): RegistryMeta {
  return JSON.parse(readFileSync(join(dir, 'registry.json'), 'utf8')) as RegistryMeta
}
