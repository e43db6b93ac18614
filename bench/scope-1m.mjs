#!/usr/bin/env node
// Times scope (reading its inputs and computing, as `crosstalk scope` does), the tenant view
// and the timeline on a synthetic case of N records (default 1,000,000). Not a unit test: run
// by hand after `npm run build`, or by `npm run bench`:
//   node bench/scope-1m.mjs [--records N] [--db PATH] [--keep]
// The case is bulk-inserted straight into SQLite (no log files, no evidence): 20 tenants,
// 20,000 sessions, 8 decode nodes over 7 days; 2 nodes leak for 6 hours. The findings are
// written as a scan would leave them, and a finished scan run is recorded so that the case
// counts as fully scanned.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {performance} from 'node:perf_hooks'
import {openCase} from '../dist/store/open-case.js'
import {FIRST_LOAD_INDEXES, RANDOM_ORDER_INDEXES, restoreSuspendedIndexes, suspendIndexes} from '../dist/store/indexes.js'
import {listAudit} from '../dist/store/audit.js'
import {computeScope} from '../dist/scope/compute-scope.js'
import {loadScopeInputs} from '../dist/scope/scope-data.js'
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
// Bulk load as ingest does: the record indexes are built once at the end.
suspendIndexes(db, [...RANDOM_ORDER_INDEXES, ...FIRST_LOAD_INDEXES])

const t0 = performance.now()
const start = Date.parse('2026-11-01T00:00:00.000Z')
const span = 7 * 24 * 3600_000
const bugStart = start + 3 * 24 * 3600_000
const bugEnd = bugStart + 6 * 3600_000
db.prepare(`INSERT INTO files (id, kind, path, name, abs_path, sha256, size, compression, log_format, source, state, started_at, extract_scheme, unconventional_sha256) VALUES (1, 'log', 'bench', 'bench', '/bench', ?, 0, 'none', 'native', 'bench', 'complete', '2026-11-01T00:00:00.000Z', 'bench', '')`).run('b'.repeat(64))
const insert = db.prepare(`INSERT INTO records (id, file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id, status, endpoint, model, prefill_node, decode_node, prompt_tokens, completion_tokens, cached_tokens, stream, response_kind, is_error, error_message)
  VALUES (?, 1, ?, 0, 0, 0, 'bench', ?, ?, ?, ?, ?, ?, '/v1/chat/completions', 'm', 'p1', ?, ?, 50, 0, 0, 'chat', 0, NULL)`)
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
  // A finished scan run covering the file: the case counts as fully scanned.
  db.prepare(`INSERT INTO scan_runs (id, started_at, finished_at, registry_version, extract_scheme, full_rescan, provenance_state, min_words, boilerplate_tenants) VALUES (1, '2026-11-08T00:00:00.000Z', '2026-11-08T00:00:00.000Z', 0, 'bench', 0, 'current', 12, 3)`).run()
  db.prepare('INSERT INTO scanned_files (file_id, scan_run_id) VALUES (1, 1)').run()
})()
restoreSuspendedIndexes(db)
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
const scopeWith = (options) => computeScope(loadScopeInputs(db, options))
const first = time('scope --pool-tokens (first)', () => scopeWith({poolTokens: POOL, advertisedTokens: 1048576}))
const again = time('scope --pool-tokens (warm)', () => scopeWith({poolTokens: POOL, advertisedTokens: 1048576}))
time('scope (no pool)', () => scopeWith({}))
time('tenant view tenant-03 --pool-tokens', () => computeTenantView(loadScopeInputs(db, {poolTokens: POOL}), {tenant: 'tenant-03'}))
time('timeline --pool-tokens', () => buildTimeline(loadScopeInputs(db, {poolTokens: POOL}), listAudit(db)))
console.log(JSON.stringify({contaminated_responses: again.contaminated_responses, at_risk_responses: again.at_risk_responses, data_subjects: [again.data_subjects.low, again.data_subjects.high], records_concerned: [again.records_concerned.low, again.records_concerned.high]}))
// One machine-readable line for `npm run bench` (src/bench/main.ts).
console.log(JSON.stringify({bench: {records: N, first_ms: timings[0], warm_ms: timings[1]}}))
if (first.contaminated_responses !== contaminated) throw new Error(`expected ${contaminated} contaminated, got ${first.contaminated_responses}`)
db.close()
if (!process.argv.includes('--keep') && !process.argv.includes('--db')) fs.rmSync(path.dirname(dbPath), {recursive: true, force: true})
