#!/usr/bin/env node
// Times `computeScope` (and the tenant view and timeline) on a synthetic case of N records
// (default 1,000,000). Not a unit test: run by hand after `npx tsc -p .`:
//   node bench/scope-1m.mjs [--records N] [--db PATH] [--keep]
// The case is bulk-inserted straight into SQLite (no log files): 20 tenants, 20,000
// sessions, 8 decode nodes over 7 days; 2 nodes leak for 6 hours.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {performance} from 'node:perf_hooks'
import {openCase} from '../dist/store/open-case.js'
import {computeScope} from '../dist/scope/compute-scope.js'
import {computeTenantView} from '../dist/scope/tenant-view.js'
import {buildTimeline} from '../dist/scope/build-timeline.js'

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name)
  return i === -1 ? fallback : process.argv[i + 1]
}
const N = Number(arg('--records', '1000000'))
const dbPath = arg('--db', path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ct-bench-')), 'case.db'))
const POOL = 681280

// deterministic PRNG (mulberry32)
let seed = 42
const rng = () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const db = openCase(dbPath, {create: true})
db.pragma('synchronous = OFF')
db.exec(`
  CREATE TABLE IF NOT EXISTS sightings (id INTEGER PRIMARY KEY, record_id INTEGER NOT NULL, marker TEXT NOT NULL, marker_key TEXT, class TEXT NOT NULL, partial INTEGER NOT NULL DEFAULT 0, source_session TEXT, source_tenant TEXT, position INTEGER NOT NULL DEFAULT 0) STRICT;
  CREATE TABLE IF NOT EXISTS provenance (id INTEGER PRIMARY KEY, record_id INTEGER NOT NULL, source_record_id INTEGER, source_session TEXT, source_tenant TEXT, overlap_words INTEGER NOT NULL DEFAULT 0, overlap_sha256 TEXT NOT NULL DEFAULT '', matched TEXT NOT NULL DEFAULT 'prompt') STRICT;
  CREATE TABLE IF NOT EXISTS pii_findings (id INTEGER PRIMARY KEY, record_id INTEGER NOT NULL, kind TEXT NOT NULL, value_sha256 TEXT NOT NULL, source_record_id INTEGER, source_session TEXT, source_tenant TEXT) STRICT;
`)

const t0 = performance.now()
const start = Date.parse('2026-11-01T00:00:00.000Z')
const span = 7 * 24 * 3600_000
const bugStart = start + 3 * 24 * 3600_000
const bugEnd = bugStart + 6 * 3600_000
db.prepare(`INSERT INTO files (id, kind, path, abs_path, sha256, size, format, source, state, started_at) VALUES (1, 'log', 'bench', '/bench', ?, 0, 'jsonl', 'bench', 'complete', '2026-11-01T00:00:00.000Z')`).run('b'.repeat(64))
const insert = db.prepare(`INSERT INTO records (id, file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id, status, endpoint, model, prefill_node, decode_node, prompt_tokens, completion_tokens, cached_tokens, stream, response_kind, is_error, error_message, request_text, response_text)
  VALUES (?, 1, ?, 0, 0, 0, 'bench', ?, ?, ?, ?, ?, ?, '/v1/chat/completions', 'm', 'p1', ?, ?, 50, 0, 0, 'chat', 0, NULL, NULL, NULL)`)
const sight = db.prepare(`INSERT INTO sightings (record_id, marker, marker_key, class, partial, source_session, source_tenant, position, token) VALUES (?, ?, ?, ?, 0, ?, ?, 0, ?)`)
const prov = db.prepare(`INSERT INTO provenance (record_id, source_record_id, source_session, source_tenant, overlap_words, overlap_sha256, matched, word_start, candidates) VALUES (?, ?, ?, ?, 40, '', 'prompt', 0, 1)`)
const pii = db.prepare(`INSERT INTO pii_findings (record_id, kind, value_sha256, source_record_id, source_session, source_tenant) VALUES (?, ?, ?, NULL, NULL, NULL)`)
const recent = new Map() // node -> recent [tenant, session, id]
let contaminated = 0
let atRisk = 0
db.transaction(() => {
  for (let id = 1; id <= N; id++) {
    const ms = start + Math.floor((id / N) * span)
    const s = Math.floor(rng() * 20000)
    const tenant = `tenant-${String(s % 20).padStart(2, '0')}`
    const session = `sess-${s}`
    const node = `decode-${Math.floor(rng() * 8)}`
    const inBug = ms >= bugStart && ms < bugEnd && (node === 'decode-3' || node === 'decode-5')
    const big = rng() < (inBug ? 0.5 : 0.03)
    const prompt = big ? POOL + Math.floor(rng() * 300000) : 500 + Math.floor(rng() * 20000)
    const status = big && !inBug ? 413 : 200
    insert.run(id, id, `req-${id}`, new Date(ms).toISOString(), ms, tenant, session, status, node, prompt)
    if (rng() < 0.3) sight.run(id, `CANARY-${s}`, `canary-${s}`, 'own', session, tenant, `CANARY-${s}`)
    if (status === 200 && prompt >= POOL) atRisk++
    const prev = recent.get(node)
    if (inBug && big && prev && prev[1] !== session) {
      contaminated++
      sight.run(id, `CANARY-${prev[1]}`, `canary-${prev[1]}`, prev[0] === tenant ? 'cross_session' : 'cross_tenant', prev[1], prev[0], `CANARY-${prev[1]}`)
      if (rng() < 0.5) prov.run(id, prev[2], prev[1], prev[0])
      if (rng() < 0.3) pii.run(id, 'email', `h${id}`)
    }
    if (rng() < 0.02) pii.run(id, 'phone', `p${id}`)
    recent.set(node, [tenant, session, id])
  }
})()
const loadMs = performance.now() - t0
db.pragma('wal_checkpoint(TRUNCATE)')

const timings = []
const time = (label, fn) => {
  const a = performance.now()
  const result = fn()
  const ms = performance.now() - a
  timings.push(Math.round(ms))
  console.log(`${label.padEnd(44)} ${ms.toFixed(0).padStart(7)} ms`)
  return result
}
console.log(`records ${N}, contaminated ${contaminated}, at risk ${atRisk}; bulk insert ${(loadMs / 1000).toFixed(1)} s; db ${dbPath}`)
const first = time('computeScope --pool-tokens (builds indexes)', () => computeScope(db, {poolTokens: POOL, advertisedTokens: 1048576}))
const again = time('computeScope --pool-tokens (indexes present)', () => computeScope(db, {poolTokens: POOL, advertisedTokens: 1048576}))
time('computeScope (no pool)', () => computeScope(db))
time('computeTenantView tenant-03 --pool-tokens', () => computeTenantView(db, {tenant: 'tenant-03', poolTokens: POOL}))
time('buildTimeline --pool-tokens', () => buildTimeline(db, {poolTokens: POOL}))
console.log(JSON.stringify({contaminated_responses: again.contaminated_responses, at_risk_responses: again.at_risk_responses, data_subjects: [again.data_subjects.low, again.data_subjects.high], records_concerned: [again.records_concerned.low, again.records_concerned.high]}))
// One machine-readable line for `npm run bench` (src/bench/main.ts).
console.log(JSON.stringify({bench: {records: N, first_ms: timings[0], warm_ms: timings[1]}}))
if (first.contaminated_responses !== contaminated) throw new Error(`expected ${contaminated} contaminated, got ${first.contaminated_responses}`)
db.close()
if (!process.argv.includes('--keep') && !process.argv.includes('--db')) fs.rmSync(path.dirname(dbPath), {recursive: true, force: true})
