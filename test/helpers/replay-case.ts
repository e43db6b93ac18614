import path from 'node:path'
import {openCase, type CaseDb} from '../../src/store/open-case.js'

export interface RecordSeed {
  request_id: string
  tenant_id?: string
  session_id?: string
  endpoint?: string
  prompt_tokens?: number | null
  stream?: boolean
  request_text?: string | null
  response_text?: string | null
}

/** A case with one complete log file and the given records, written straight into the tables. */
export function caseWithRecords(dir: string, seeds: readonly RecordSeed[]): {db: CaseDb; path: string; ids: number[]} {
  const file = path.join(dir, 'case.db')
  const db = openCase(file, {create: true})
  const fileId = Number(
    db
      .prepare(
        `INSERT INTO files (kind, path, abs_path, sha256, size, format, source, state, started_at, completed_at)
         VALUES ('log', 'logs.jsonl', ?, ?, 0, 'jsonl', 'test', 'complete', '2026-11-02T06:00:00.000Z', '2026-11-02T06:00:01.000Z')`,
      )
      .run(path.join(dir, 'logs.jsonl'), `sha-${Math.random()}`).lastInsertRowid,
  )
  const insert = db.prepare(
    `INSERT INTO records (file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id, status, endpoint,
       prompt_tokens, stream, response_kind, is_error, request_text, response_text)
     VALUES (?, ?, 0, 0, 0, 'test', ?, ?, ?, ?, ?, 200, ?, ?, ?, 'chat', 0, ?, ?)`,
  )
  const ids = seeds.map((seed, i) => {
    const ts = new Date(Date.UTC(2026, 10, 2, 6, 0, i))
    return Number(
      insert.run(fileId, i + 1, seed.request_id, ts.toISOString(), ts.getTime(), seed.tenant_id ?? 'tenant-a', seed.session_id ?? `s${i}`, seed.endpoint ?? '/v1/chat/completions',
        seed.prompt_tokens ?? null, seed.stream ? 1 : 0, seed.request_text ?? null, seed.response_text ?? null).lastInsertRowid,
    )
  })
  return {db, path: file, ids}
}

/** The sightings table as migration 002 defines it (contract), for cases built before detect lands. */
export function addSightings(db: CaseDb, rows: Array<{record_id: number; class: string; marker: string}>): void {
  db.exec(`CREATE TABLE IF NOT EXISTS sightings (id INTEGER PRIMARY KEY, record_id INTEGER NOT NULL REFERENCES records(id), marker TEXT NOT NULL, marker_key TEXT,
    class TEXT NOT NULL, partial INTEGER NOT NULL DEFAULT 0, source_session TEXT, source_tenant TEXT, position INTEGER, token TEXT) STRICT`)
  const insert = db.prepare(`INSERT INTO sightings (record_id, marker, class, partial, position, token) VALUES (?, ?, ?, 0, 0, ?)`)
  for (const row of rows) insert.run(row.record_id, row.marker, row.class, row.marker)
}
