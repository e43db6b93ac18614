import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {classifyMarkers, scanCase} from '../detect/scan-case.js'
import {ingestLogs} from '../ingest/ingest-logs.js'
import {completeLogFiles} from '../store/files.js'
import {countCanaries} from '../store/canaries.js'
import {openCase, type CaseDb} from '../store/open-case.js'
import {checkpoint} from '../store/session.js'
import {seededRng} from '../util/rng.js'

// Scan cost against registry size (100,000 registered markers must scan within 1.2x of 10
// on the same logs), and the cost of a full scan. A synthetic case, ingested as native logs
// the way users load theirs; `rand` is seeded so runs are comparable. The registry is
// filled straight into its table (the bench may hold SQL), to reach 100,000 markers fast.

export interface ScalingOptions {
  records: number
  /** Average response length in words. */
  responseWords: number
  smallRegistry: number
  largeRegistry: number
  rounds: number
  seed: number
  dir?: string
}

export interface ScalingResult {
  records: number
  text_mb: number
  small_registry: number
  large_registry: number
  /** Best of `rounds` full marker passes (registry load + every response). */
  small_ms: number
  large_ms: number
  ratio: number
}


const hexOf = (rand: () => number, n: number): string => {
  let s = ''
  for (let i = 0; i < n; i++) s += Math.floor(rand() * 16).toString(16)
  return s
}

/** A case of `records` chat records, ~1 in 50 responses carrying a marker (own, leaked or orphan). */
export async function buildSyntheticCase(file: string, options: Pick<ScalingOptions, 'records' | 'responseWords' | 'seed'>): Promise<{db: CaseDb; markers: string[]; textBytes: number}> {
  const rand = seededRng(options.seed)
  const vocab = Array.from({length: 5000}, () => hexOf(rand, 3 + Math.floor(rand() * 5)).replace(/[0-9]/g, (d) => 'ghijklmnop'[Number(d)]!))
  const markers = Array.from({length: 10}, (_, i) => ({marker: `CANARY-${hexOf(rand, 24)}`, tenant: `t${i % 4}`, session: `s${i}`}))
  let textBytes = 0
  const lines: string[] = []
  const t0 = Date.parse('2026-11-02T00:00:00.000Z')
  for (let i = 0; i < options.records; i++) {
    const words = (n: number): string => Array.from({length: n}, () => vocab[Math.floor(rand() * vocab.length)]).join(' ')
    const s = Math.floor(rand() * 10)
    let response = words(Math.floor(options.responseWords * (0.5 + rand())))
    if (i % 50 === 0) response += ` ${markers[Math.floor(rand() * 10)]!.marker}`
    if (i % 97 === 0) response += ` CANARY-${hexOf(rand, 16)}`
    const prompt = words(40)
    textBytes += response.length + prompt.length
    lines.push(
      JSON.stringify({
        ts: t0 + i * 100, request_id: `req-${i}`, tenant_id: `t${s % 4}`, session_id: `s${s}`, status: 200,
        request: {messages: [{role: 'user', content: prompt}]},
        response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: response}}], usage: {prompt_tokens: 1000 + Math.floor(rand() * 9000), completion_tokens: 50}},
      }),
    )
  }
  const logs = `${file}.logs.jsonl`
  fs.writeFileSync(logs, lines.join('\n') + '\n')
  const db = openCase(file, {create: true})
  await ingestLogs(db, {paths: [logs], now: () => new Date(0), workers: 0})
  const canary = db.prepare('INSERT INTO canaries (marker_key, marker, tenant_id, session_id) VALUES (?, ?, ?, ?)')
  db.transaction(() => {
    for (const m of markers) canary.run(m.marker.toLowerCase().replace('canary-', 'CANARY-'), m.marker, m.tenant, m.session)
  })()
  return {db, markers: markers.map((m) => m.marker), textBytes}
}

function addRandomCanaries(db: CaseDb, count: number, seed: number): void {
  const rand = seededRng(seed)
  const canary = db.prepare('INSERT OR IGNORE INTO canaries (marker_key, marker, tenant_id, session_id) VALUES (?, ?, ?, ?)')
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const m = `CANARY-${hexOf(rand, 24)}`
      canary.run(m, m, `bt${i % 500}`, `bs${i}`)
    }
  })()
}

/** One marker pass over every record, as after a registry change: registry load, delete, re-detect, insert. */
function timeMarkerPass(db: CaseDb): number {
  const files = completeLogFiles(db)
  const t0 = performance.now()
  classifyMarkers(db, files, {full: true})
  return performance.now() - t0
}

export async function benchScanScaling(options: ScalingOptions): Promise<ScalingResult> {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ct-bench-'))
  const smallPath = path.join(dir, 'scaling-small.db')
  const largePath = path.join(dir, 'scaling-large.db')
  const built = await buildSyntheticCase(smallPath, options)
  // First scan covers the new file (PII); afterwards only the marker pass is timed.
  classifyMarkers(built.db, completeLogFiles(built.db), {full: true})
  checkpoint(built.db)
  built.db.close()
  // The same logs in two case files that differ only in registry size; rounds alternate
  // between them so that machine noise hits both alike.
  fs.copyFileSync(smallPath, largePath)
  const small = openCase(smallPath)
  const large = openCase(largePath)
  try {
    addRandomCanaries(small, options.smallRegistry - 10, options.seed + 1)
    addRandomCanaries(large, options.largeRegistry - 10, options.seed + 2)
    for (const db of [small, large]) checkpoint(db)
    timeMarkerPass(small)
    timeMarkerPass(large)
    let bestSmall = Infinity
    let bestLarge = Infinity
    for (let r = 0; r < options.rounds; r++) {
      bestSmall = Math.min(bestSmall, timeMarkerPass(small))
      bestLarge = Math.min(bestLarge, timeMarkerPass(large))
    }
    return {
      records: options.records,
      text_mb: Math.round((built.textBytes / 1e6) * 10) / 10,
      small_registry: countCanaries(small),
      large_registry: countCanaries(large),
      small_ms: Math.round(bestSmall),
      large_ms: Math.round(bestLarge),
      ratio: Math.round((bestLarge / bestSmall) * 1000) / 1000,
    }
  } finally {
    small.close()
    large.close()
    if (!options.dir) fs.rmSync(dir, {recursive: true, force: true})
  }
}

/** A full scan (markers, PII, fingerprints, provenance) of a synthetic case, with stage timings. */
export async function benchFullScan(options: Pick<ScalingOptions, 'records' | 'responseWords' | 'seed'>): Promise<{records: number; text_mb: number; timings_ms: Record<string, number>; rescan_ms: number}> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-bench-'))
  const {db, textBytes} = await buildSyntheticCase(path.join(dir, 'full.db'), options)
  try {
    const first = scanCase(db, {now: new Date(0), poolTokens: 8192})
    const t0 = performance.now()
    scanCase(db, {now: new Date(0), poolTokens: 8192})
    return {records: options.records, text_mb: Math.round((textBytes / 1e6) * 10) / 10, timings_ms: first.timings_ms, rescan_ms: Math.round(performance.now() - t0)}
  } finally {
    db.close()
    fs.rmSync(dir, {recursive: true, force: true})
  }
}
