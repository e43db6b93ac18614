import path from 'node:path'
import {openCase, tableExists, type CaseDb} from '../../src/store/open-case.js'

// A small case with contamination, built by inserting rows directly (no ingest or detect
// needed). Tables owned by other modules (sightings, pii_findings, provenance) are created
// here with the contract's columns when this branch does not have their migration yet.

export const HOSTILE_TENANT = 'evil_[x](javascript:alert(1))<b>\u001b[2J'
export const HOSTILE_NODE = 'node-2<img src=x onerror=alert(1)>\u001b]8;;http://x\u0007'
export const MARKERS = {
  acme1: 'CANARY-a1a1a1a1a1a1a1a1a1a1',
  acme2: 'CANARY-a2a2a2a2a2a2a2a2a2a2',
  globex1: 'CANARY-b1b1b1b1b1b1b1b1b1b1',
  evil1: 'CANARY-c1c1c1c1c1c1c1c1c1c1',
}
export const LEAKED_EMAIL = 'alice.secret@example.com'
export const LEAKED_IBAN = 'DE89370400440532013000'

export function ensureDetectTables(db: CaseDb): void {
  if (!tableExists(db, 'sightings')) {
    db.exec(`CREATE TABLE sightings (id INTEGER PRIMARY KEY, record_id INTEGER NOT NULL REFERENCES records(id), marker TEXT NOT NULL, marker_key TEXT,
      class TEXT NOT NULL, partial INTEGER NOT NULL DEFAULT 0, source_session TEXT, source_tenant TEXT, position INTEGER) STRICT`)
  }
  if (!tableExists(db, 'pii_findings')) {
    db.exec(`CREATE TABLE pii_findings (id INTEGER PRIMARY KEY, record_id INTEGER NOT NULL, kind TEXT NOT NULL, value_sha256 TEXT NOT NULL,
      source_record_id INTEGER, source_session TEXT, source_tenant TEXT) STRICT`)
  }
}

export function buildNotifyCase(dir: string): string {
  const file = path.join(dir, 'case.db')
  const db = openCase(file, {create: true})
  ensureDetectTables(db)
  db.prepare(
    `INSERT INTO files (id, kind, path, abs_path, sha256, size, format, source, state, started_at, completed_at, records)
     VALUES (1, 'log', 'logs/gateway-2026-10-22.jsonl', '/x/logs/gateway.jsonl', '${'ab'.repeat(32)}', 123456, 'jsonl', 'gateway', 'complete', '2026-10-23T09:00:00.000Z', '2026-10-23T09:01:00.000Z', 8)`,
  ).run()
  const rec = db.prepare(
    `INSERT INTO records (id, file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id, status,
       prefill_node, decode_node, prompt_tokens, stream, response_kind, is_error, request_text, response_text)
     VALUES (@id, 1, @id, 0, 10, 0, 'gateway', @rid, @ts, @ms, @tenant, @session, 200, 'node-1', @node, 100, 0, 'chat', 0, 'prompt', @text)`,
  )
  const leaked = (marker: string): string => `Sure! ${marker} Contact ${LEAKED_EMAIL}, IBAN ${LEAKED_IBAN}. # Heading <script>alert(1)</script> \u001b[31mred`
  const rows: Array<[number, string, string, string, string, string]> = [
    // id, ts, tenant, session, node, text
    [1, '2026-10-22T10:05:00.000Z', 'acme', 'acme-s1', 'node-1', `own ${MARKERS.acme1}`],
    [2, '2026-10-22T10:15:00.000Z', 'globex', 'globex-s1', HOSTILE_NODE, leaked(MARKERS.acme1)],
    [3, '2026-10-22T11:20:00.000Z', HOSTILE_TENANT, 'evil-s1', 'node-1', leaked(MARKERS.acme2)],
    [4, '2026-10-22T11:40:00.000Z', 'acme', 'acme-s3', 'node-1', leaked(MARKERS.globex1)],
    [5, '2026-10-22T13:10:00.000Z', 'acme', 'acme-s4', 'node-1', leaked(MARKERS.acme2)],
    [6, '2026-10-22T13:30:00.000Z', 'globex', 'globex-s2', 'node-1', leaked(MARKERS.evil1)],
    [7, '2026-10-22T13:45:00.000Z', 'globex', 'globex-s2', 'node-1', 'clean response'],
    [8, '2026-10-22T14:00:00.000Z', 'acme', 'acme-s1', 'node-1', `orphan CANARY-dddddddd`],
  ]
  for (const [id, ts, tenant, session, node, text] of rows) rec.run({id, rid: `req-${id}`, ts, ms: Date.parse(ts), tenant, session, node, text})
  const s = db.prepare('INSERT INTO sightings (record_id, marker, marker_key, class, partial, source_session, source_tenant, position, token) VALUES (@r, @m, @k, @c, 0, @ss, @st, 0, @m)')
  s.run({r: 1, m: MARKERS.acme1, k: MARKERS.acme1.toLowerCase(), c: 'own', ss: 'acme-s1', st: 'acme'})
  s.run({r: 2, m: MARKERS.acme1, k: MARKERS.acme1.toLowerCase(), c: 'cross_tenant', ss: 'acme-s1', st: 'acme'})
  s.run({r: 3, m: MARKERS.acme2, k: MARKERS.acme2.toLowerCase(), c: 'cross_tenant', ss: 'acme-s2', st: 'acme'})
  s.run({r: 4, m: MARKERS.globex1, k: MARKERS.globex1.toLowerCase(), c: 'cross_tenant', ss: 'globex-s1', st: 'globex'})
  s.run({r: 5, m: MARKERS.acme2, k: MARKERS.acme2.toLowerCase(), c: 'cross_session', ss: 'acme-s2', st: 'acme'})
  s.run({r: 6, m: MARKERS.evil1, k: MARKERS.evil1.toLowerCase(), c: 'cross_tenant', ss: 'evil-s9', st: HOSTILE_TENANT})
  s.run({r: 8, m: 'CANARY-dddddddd', k: null, c: 'orphan', ss: null, st: null})
  const p = db.prepare('INSERT INTO pii_findings (record_id, kind, value_sha256, source_tenant) VALUES (?, ?, ?, ?)')
  for (const [rid, src] of [[2, 'acme'], [3, 'acme'], [4, 'globex'], [5, 'acme'], [6, HOSTILE_TENANT]] as Array<[number, string]>) {
    p.run(rid, 'email', `h-email-${src}`, src)
    p.run(rid, 'iban', `h-iban-${src}`, src)
  }
  db.close()
  return file
}
