import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {scanCase, scanMarkers} from '../detect/scan-case.js'
import {openCase, type CaseDb} from '../store/open-case.js'
import {seededRng} from '../util/rng.js'

// Scan cost against registry size (issue 3: 100,000 registered markers must scan within
// 1.2x of 10 on the same logs), and the cost of a full scan. Synthetic case, written
// straight into the tables; `rand` is seeded so runs are comparable.

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
export function buildSyntheticCase(file: string, options: Pick<ScalingOptions, 'records' | 'responseWords' | 'seed'>): {db: CaseDb; markers: string[]; textBytes: number} {
  const rand = seededRng(options.seed)
  const db = openCase(file, {create: true})
  const vocab = Array.from({length: 5000}, () => hexOf(rand, 3 + Math.floor(rand() * 5)).replace(/[0-9]/g, (d) => 'ghijklmnop'[Number(d)]!))
  const markers = Array.from({length: 10}, (_, i) => ({marker: `CANARY-${hexOf(rand, 24)}`, tenant: `t${i % 4}`, session: `s${i}`}))
  let textBytes = 0
  db.transaction(() => {
    const fileId = Number(
      db
        .prepare(
          `INSERT INTO files (kind, path, abs_path, sha256, size, format, source, state, started_at) VALUES ('log', 'bench', 'bench', ?, 0, 'jsonl', 'bench', 'complete', '2026-01-01T00:00:00.000Z')`,
        )
        .run(`bench-${options.seed}-${Date.now()}`).lastInsertRowid,
    )
    const insert = db.prepare(
      `INSERT INTO records (file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id, status,
         prompt_tokens, stream, response_kind, is_error, request_text, response_text)
       VALUES (?, ?, 0, 0, 0, 'bench', ?, ?, ?, ?, ?, 200, ?, 0, 'chat', 0, ?, ?)`,
    )
    const t0 = Date.parse('2026-11-02T00:00:00.000Z')
    for (let i = 0; i < options.records; i++) {
      const words = (n: number): string => Array.from({length: n}, () => vocab[Math.floor(rand() * vocab.length)]).join(' ')
      const s = Math.floor(rand() * 10)
      let response = words(Math.floor(options.responseWords * (0.5 + rand())))
      if (i % 50 === 0) response += ` ${markers[Math.floor(rand() * 10)]!.marker}`
      if (i % 97 === 0) response += ` CANARY-${hexOf(rand, 16)}`
      const prompt = words(40)
      textBytes += response.length + prompt.length
      const ts = t0 + i * 100
      insert.run(fileId, i + 1, `req-${i}`, new Date(ts).toISOString(), ts, `t${s % 4}`, `s${s}`, 1000 + Math.floor(rand() * 9000), prompt, response)
    }
    const canary = db.prepare('INSERT INTO canaries (marker_key, marker, tenant_id, session_id) VALUES (?, ?, ?, ?)')
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
  db.prepare(`UPDATE scan_state SET value = 'stale' WHERE key = 'scanned_registry_version'`).run()
  const t0 = performance.now()
  scanMarkers(db, {now: new Date(0), fingerprints: false})
  return performance.now() - t0
}

export function benchScanScaling(options: ScalingOptions): ScalingResult {
  const dir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'ct-bench-'))
  const smallPath = path.join(dir, 'scaling-small.db')
  const largePath = path.join(dir, 'scaling-large.db')
  const built = buildSyntheticCase(smallPath, options)
  // First scan covers the new file (PII); afterwards only the marker pass is timed.
  scanMarkers(built.db, {now: new Date(0), fingerprints: false})
  built.db.pragma('wal_checkpoint(TRUNCATE)')
  built.db.close()
  // The same logs in two case files that differ only in registry size; rounds alternate
  // between them so that machine noise hits both alike.
  fs.copyFileSync(smallPath, largePath)
  const small = openCase(smallPath)
  const large = openCase(largePath)
  try {
    addRandomCanaries(small, options.smallRegistry - 10, options.seed + 1)
    addRandomCanaries(large, options.largeRegistry - 10, options.seed + 2)
    for (const db of [small, large]) db.pragma('wal_checkpoint(TRUNCATE)')
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
      small_registry: small.prepare('SELECT COUNT(*) FROM canaries').pluck().get() as number,
      large_registry: large.prepare('SELECT COUNT(*) FROM canaries').pluck().get() as number,
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
export function benchFullScan(options: Pick<ScalingOptions, 'records' | 'responseWords' | 'seed'>): {records: number; text_mb: number; timings_ms: Record<string, number>; rescan_ms: number} {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-bench-'))
  const {db, textBytes} = buildSyntheticCase(path.join(dir, 'full.db'), options)
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
