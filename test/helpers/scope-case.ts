import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {openCase, type CaseDb} from '../../src/store/open-case.js'

// Builds a case database by hand, row by row, for tests that need exact known answers
// (scope, timeline, reports). The detection tables are created here with the columns
// CONVENTIONS.md gives migration 002, in case that migration is not on this branch yet;
// once it is, CREATE TABLE IF NOT EXISTS leaves the real ones alone.

export function createDetectionTables(db: CaseDb): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS sightings (
      id             INTEGER PRIMARY KEY,
      record_id      INTEGER NOT NULL REFERENCES records(id),
      marker         TEXT NOT NULL,
      marker_key     TEXT,
      class          TEXT NOT NULL,
      partial        INTEGER NOT NULL DEFAULT 0,
      source_session TEXT,
      source_tenant  TEXT,
      position       INTEGER NOT NULL DEFAULT 0
    ) STRICT;
    CREATE TABLE IF NOT EXISTS provenance (
      id               INTEGER PRIMARY KEY,
      record_id        INTEGER NOT NULL REFERENCES records(id),
      source_record_id INTEGER,
      source_session   TEXT,
      source_tenant    TEXT,
      overlap_words    INTEGER NOT NULL DEFAULT 0,
      overlap_sha256   TEXT NOT NULL DEFAULT '',
      matched          TEXT NOT NULL DEFAULT 'prompt'
    ) STRICT;
    CREATE TABLE IF NOT EXISTS pii_findings (
      id               INTEGER PRIMARY KEY,
      record_id        INTEGER NOT NULL REFERENCES records(id),
      kind             TEXT NOT NULL,
      value_sha256     TEXT NOT NULL,
      source_record_id INTEGER,
      source_session   TEXT,
      source_tenant    TEXT
    ) STRICT;
  `)
}

export interface TestRecord {
  id?: number
  file_id?: number
  request_id?: string
  ts: string
  tenant_id: string
  session_id: string
  status?: number | null
  decode_node?: string | null
  prompt_tokens?: number | null
  is_error?: 0 | 1
}

export class ScopeCase {
  readonly dir: string
  readonly dbPath: string
  readonly db: CaseDb
  private files = 0
  private records = 0

  constructor() {
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-'))
    this.dbPath = path.join(this.dir, 'case.db')
    this.db = openCase(this.dbPath, {create: true})
    createDetectionTables(this.db)
  }

  addFile(state: 'complete' | 'loading' = 'complete'): number {
    const id = ++this.files
    this.db
      .prepare(
        `INSERT INTO files (id, kind, path, abs_path, sha256, size, format, source, state, started_at)
         VALUES (?, 'log', ?, ?, ?, 0, 'jsonl', 'test', ?, '2026-11-02T00:00:00.000Z')`,
      )
      .run(id, `f${id}.jsonl`, `/tmp/f${id}.jsonl`, String(id).padStart(64, '0'), state)
    return id
  }

  addRecord(r: TestRecord): number {
    const id = r.id ?? ++this.records
    this.records = Math.max(this.records, id)
    const fileId = r.file_id ?? (this.files === 0 ? this.addFile() : 1)
    this.db
      .prepare(
        `INSERT INTO records (id, file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms,
           tenant_id, session_id, status, endpoint, model, prefill_node, decode_node, prompt_tokens, completion_tokens,
           cached_tokens, stream, response_kind, is_error, error_message, request_text, response_text)
         VALUES (@id, @file_id, @id, 0, 0, 0, 'test', @request_id, @ts, @ts_ms, @tenant_id, @session_id, @status,
           '/v1/chat/completions', 'm', 'p1', @decode_node, @prompt_tokens, 10, 0, 0, 'chat', @is_error, NULL, 'prompt', 'answer')`,
      )
      .run({
        id,
        file_id: fileId,
        request_id: r.request_id ?? `req-${id}`,
        ts: r.ts,
        ts_ms: Date.parse(r.ts),
        tenant_id: r.tenant_id,
        session_id: r.session_id,
        status: r.status === undefined ? 200 : r.status,
        decode_node: r.decode_node === undefined ? 'd1' : r.decode_node,
        prompt_tokens: r.prompt_tokens === undefined ? 1000 : r.prompt_tokens,
        is_error: r.is_error ?? 0,
      })
    return id
  }

  addSighting(s: {record_id: number; class: string; marker?: string; source_session?: string | null; source_tenant?: string | null; partial?: 0 | 1}): void {
    // One sighting per (record, marker), as in the real table: by default a marker per source session.
    const marker = s.marker ?? `CANARY-${Buffer.from(s.source_session ?? 'none').toString('hex').padEnd(16, '0')}`
    this.db
      .prepare(
        `INSERT INTO sightings (record_id, marker, marker_key, class, partial, source_session, source_tenant, position, token)
         VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)`,
      )
      .run(s.record_id, marker, marker, s.class, s.partial ?? 0, s.source_session ?? null, s.source_tenant ?? null, marker)
  }

  addProvenance(p: {record_id: number; source_record_id: number | null; source_session: string; source_tenant: string; overlap_words?: number}): void {
    this.db
      .prepare(
        `INSERT INTO provenance (record_id, source_record_id, source_session, source_tenant, overlap_words, overlap_sha256, matched, word_start, candidates)
         VALUES (?, ?, ?, ?, ?, ?, 'prompt', 0, 1)`,
      )
      .run(p.record_id, p.source_record_id, p.source_session, p.source_tenant, p.overlap_words ?? 40, 'ab'.repeat(32))
  }

  addPii(p: {record_id: number; kind: string; value?: string; source_session?: string | null; source_tenant?: string | null}): void {
    this.db
      .prepare(`INSERT INTO pii_findings (record_id, kind, value_sha256, source_record_id, source_session, source_tenant) VALUES (?, ?, ?, NULL, ?, ?)`)
      .run(p.record_id, p.kind, p.value ?? `${p.kind}-hash`, p.source_session ?? null, p.source_tenant ?? null)
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  cleanup(): void {
    this.close()
    fs.rmSync(this.dir, {recursive: true, force: true})
  }
}
