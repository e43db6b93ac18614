import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {openCase, type CaseDb} from '../../src/store/open-case.js'

// Builds case databases for detection tests by inserting rows directly (no ingest):
// one 'complete' log file per addFile() call, records and canaries as given.

export interface RecordInput {
  request_id: string
  tenant_id: string
  session_id: string
  ts_ms?: number
  status?: number | null
  request_text?: string | null
  response_text?: string | null
  decode_node?: string | null
  prompt_tokens?: number | null
  is_error?: 0 | 1
}

export interface TestCase {
  db: CaseDb
  dir: string
  path: string
  addFile: (records: readonly RecordInput[]) => number
  addCanary: (marker: string, tenant: string, session: string) => void
  close: () => void
}

let fileSeq = 0

export function markerKeyOf(marker: string): string {
  const m = /^CANARY-([0-9a-fA-F]+)$/.exec(marker)
  return m ? `CANARY-${m[1]!.toLowerCase()}` : marker
}

export function makeCase(): TestCase {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-'))
  const file = path.join(dir, 'case.db')
  const db = openCase(file, {create: true})
  const insertFile = db.prepare(
    `INSERT INTO files (kind, path, abs_path, sha256, size, format, source, state, started_at, completed_at)
     VALUES ('log', ?, ?, ?, 0, 'jsonl', 'test', 'complete', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
  )
  const insertRecord = db.prepare(
    `INSERT INTO records (file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id,
       status, decode_node, prompt_tokens, stream, response_kind, is_error, request_text, response_text)
     VALUES (@file_id, @line_no, 0, 0, 0, 'test', @request_id, @ts, @ts_ms, @tenant_id, @session_id,
       @status, @decode_node, @prompt_tokens, 0, 'chat', @is_error, @request_text, @response_text)`,
  )
  let clock = Date.parse('2026-11-02T06:00:00.000Z')
  const addFile = (records: readonly RecordInput[]): number =>
    db.transaction(() => {
      fileSeq++
      const name = `log-${process.pid}-${fileSeq}-${Math.random()}.jsonl`
      const fileId = Number(insertFile.run(name, path.join(dir, name), name).lastInsertRowid)
      records.forEach((r, i) => {
        const ts = r.ts_ms ?? (clock += 1000)
        insertRecord.run({
          file_id: fileId,
          line_no: i + 1,
          request_id: r.request_id,
          ts: new Date(ts).toISOString(),
          ts_ms: ts,
          tenant_id: r.tenant_id,
          session_id: r.session_id,
          status: r.status === undefined ? 200 : r.status,
          decode_node: r.decode_node ?? null,
          prompt_tokens: r.prompt_tokens ?? null,
          is_error: r.is_error ?? 0,
          request_text: r.request_text ?? null,
          response_text: r.response_text ?? null,
        })
      })
      return fileId
    })()
  const insertCanary = db.prepare('INSERT INTO canaries (marker_key, marker, tenant_id, session_id, issued_at) VALUES (?, ?, ?, ?, NULL)')
  return {
    db,
    dir,
    path: file,
    addFile,
    addCanary: (marker, tenant, session) => {
      insertCanary.run(markerKeyOf(marker), marker, tenant, session)
    },
    close: () => db.close(),
  }
}

/** A deterministic PRNG (mulberry32) for property tests. */
export {seededRng as rng} from '../../src/util/rng.js'

export function hex(rand: () => number, digits: number): string {
  let out = ''
  for (let i = 0; i < digits; i++) out += Math.floor(rand() * 16).toString(16)
  return out
}
