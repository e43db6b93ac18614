// Generated incidents for the bench, cached under bench/out/ and keyed by a manifest
// (records, seed, and a hash of the compiled generator so a changed generator regenerates).

import {createHash} from 'node:crypto'
import {existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {generateIncident} from '../generate/generate-incident.js'

export interface Incident {
  dir: string
  logs: string
  canaries: string
  groundTruth: string
  /** One registered marker per line, for `rg -F -f`. */
  markersFile: string
  records: number
  seed: number
  log_bytes: number
  log_files: number
  reused: boolean
  generate_ms: number
}

interface Manifest {
  records: number
  seed: number
  generator: string
  log_bytes: number
  log_files: number
}

function generatorHash(): string {
  const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'generate')
  const h = createHash('sha256')
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.js')).sort()) h.update(f).update(readFileSync(join(dir, f)))
  return h.digest('hex').slice(0, 16)
}

export async function ensureIncident(root: string, records: number, seed: number, log: (s: string) => void): Promise<Incident> {
  const dir = join(root, `incident-${records}-s${seed}`)
  const paths = {dir, logs: join(dir, 'logs'), canaries: join(dir, 'canaries.csv'), groundTruth: join(dir, 'ground-truth.json'), markersFile: join(dir, 'markers.txt')}
  const manifestPath = join(dir, 'manifest.json')
  const generator = generatorHash()
  if (existsSync(manifestPath) && existsSync(paths.groundTruth) && existsSync(paths.markersFile)) {
    const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest
    if (m.records === records && m.seed === seed && m.generator === generator) return {...paths, records, seed, log_bytes: m.log_bytes, log_files: m.log_files, reused: true, generate_ms: 0}
  }
  rmSync(dir, {recursive: true, force: true})
  mkdirSync(root, {recursive: true})
  log(`generating ${records} records (seed ${seed}) into ${dir} ...`)
  const t0 = performance.now()
  await generateIncident({out: dir, records, seed})
  const generateMs = performance.now() - t0
  const files = readdirSync(paths.logs)
  const logBytes = files.reduce((sum, f) => sum + statSync(join(paths.logs, f)).size, 0)
  const markers = readFileSync(paths.canaries, 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.split(',')[0]!.trim())
    .filter(Boolean)
  writeFileSync(paths.markersFile, `${markers.join('\n')}\n`)
  const manifest: Manifest = {records, seed, generator, log_bytes: logBytes, log_files: files.length}
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`)
  return {...paths, records, seed, log_bytes: logBytes, log_files: files.length, reused: false, generate_ms: generateMs}
}
