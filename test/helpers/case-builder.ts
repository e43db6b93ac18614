import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {ingestCanaries} from '../../src/ingest/ingest-canaries.js'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'

// Builds case databases for tests the way users build theirs: records are written as native
// log lines and loaded by the real ingest (the same parse, extraction and store writes users
// run), canaries as a registry file through `ingest canaries`. One file per addFile() call.

export interface RecordInput {
  request_id: string
  tenant_id: string
  session_id: string
  ts_ms?: number
  /** HTTP status (default 200; null: the line has no status) */
  status?: number | null
  request_text?: string | null
  response_text?: string | null
  decode_node?: string | null
  prompt_tokens?: number | null
  is_error?: 0 | 1
  endpoint?: string
  stream?: boolean
  /** The response body exactly as logged (an SSE stream, an error object...), instead of response_text. */
  response_raw?: unknown
}

export interface TestCase {
  db: CaseDb
  dir: string
  path: string
  /** Writes the records as one native JSONL file and ingests it; returns the file's path. */
  addFile: (records: readonly RecordInput[]) => Promise<string>
  addCanary: (marker: string, tenant: string, session: string) => Promise<void>
  addCanaries: (rows: ReadonlyArray<[marker: string, tenant: string, session: string]>) => Promise<void>
  close: () => void
}

let fileSeq = 0

/** One native log line for a record (what `decode.ts` turns back into exactly these texts). */
export function nativeLine(r: RecordInput, ts: number): Record<string, unknown> {
  const line: Record<string, unknown> = {ts: new Date(ts).toISOString(), request_id: r.request_id, tenant_id: r.tenant_id, session_id: r.session_id}
  const status = r.status === undefined ? 200 : r.status
  if (status !== null) line.status = status
  if (r.decode_node !== undefined && r.decode_node !== null) line.decode_node = r.decode_node
  if (r.endpoint !== undefined) line.endpoint = r.endpoint
  if (r.prompt_tokens !== undefined && r.prompt_tokens !== null) line.prompt_tokens = r.prompt_tokens
  if (r.request_text !== undefined && r.request_text !== null) line.request = {model: 'm', messages: [{role: 'user', content: r.request_text}], ...(r.stream ? {stream: true} : {})}
  else if (r.stream) line.request = {model: 'm', stream: true}
  if (r.response_raw !== undefined) line.response = r.response_raw
  else if (r.is_error === 1) line.response = {error: {message: r.response_text ?? 'upstream error', type: 'server_error'}}
  else if (r.response_text !== undefined && r.response_text !== null) {
    line.response = {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: r.response_text}}]}
  }
  return line
}

export function makeCase(): TestCase {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-'))
  const file = path.join(dir, 'case.db')
  const db = openCase(file, {create: true})
  let clock = Date.parse('2026-11-02T06:00:00.000Z')
  const addCanaries = async (rows: ReadonlyArray<[string, string, string]>): Promise<void> => {
    const csv = path.join(dir, `canaries-${++fileSeq}.csv`)
    fs.writeFileSync(csv, ['marker,tenant_id,session_id,issued_at', ...rows.map((r) => r.map(csvQuote).join(',') + ',')].join('\n') + '\n')
    await ingestCanaries(db, {path: csv, now: () => new Date('2026-11-01T00:00:00.000Z')})
  }
  return {
    db,
    dir,
    path: file,
    addFile: async (records) => {
      const name = path.join(dir, `log-${process.pid}-${++fileSeq}.jsonl`)
      const lines = records.map((r) => JSON.stringify(nativeLine(r, r.ts_ms ?? (clock += 1000))))
      fs.writeFileSync(name, lines.join('\n') + '\n')
      await ingestLogs(db, {paths: [name], now: () => new Date('2026-11-03T00:00:00.000Z'), workers: 0})
      return name
    },
    addCanary: (marker, tenant, session) => addCanaries([[marker, tenant, session]]),
    addCanaries,
    close: () => {
      if (db.open) db.close()
    },
  }
}

function csvQuote(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value
}

/** A deterministic PRNG (mulberry32) for property tests. */
export {seededRng as rng} from '../../src/util/rng.js'

export function hex(rand: () => number, digits: number): string {
  let out = ''
  for (let i = 0; i < digits; i++) out += Math.floor(rand() * 16).toString(16)
  return out
}
