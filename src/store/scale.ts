import type {CaseDb} from './open-case.js'
import {UNCONVENTIONAL_WHERE} from './canaries.js'

// What provider-scale audits (crosstalk extract / the Spark job / ingest findings) read from
// and write to a case: the registry as the job joins it.

export interface RegistryExportRow {
  marker_key: string
  marker: string
  tenant_id: string
  session_id: string
}

/** Every registered marker, in key order (the job joins tokens against these). */
export function allCanaries(db: CaseDb): RegistryExportRow[] {
  return db.prepare('SELECT marker_key, marker, tenant_id, session_id FROM canaries ORDER BY marker_key').all() as RegistryExportRow[]
}

/** The registry files the case holds (SHA-256, in ingest order). */
export function registryFileHashes(db: CaseDb): string[] {
  return db.prepare(`SELECT sha256 FROM files WHERE kind = 'canaries' AND state = 'complete' ORDER BY id`).pluck().all() as string[]
}

/** Registered markers outside the CANARY-<hex> convention. */
export function unconventionalCanaries(db: CaseDb): string[] {
  return db.prepare(`SELECT marker FROM canaries WHERE ${UNCONVENTIONAL_WHERE} ORDER BY marker`).pluck().all() as string[]
}

// ------------------------------------------------------------------ evidence by reference

export interface ReferenceFile {
  path: string
  name: string
  absPath: string
  uri: string
  sha256: string
  size: number
  compression: 'none' | 'gzip'
  parseSpec: string
  source: string
  at: string
  contentSha256: string
  contentSize: number
  lines: number
  blankLines: number
  records: number
  duplicates: number
  badLines: number
  firstTs: string | null
  lastTs: string | null
  notes: string[]
  extractScheme: string
  unconventionalSha256: string
  logFormat: string
  formatReason: string
  noRequestText: number
  noResponseText: number
  errorRecords: number
  ignoredItems: number
  unread: string | null
}

/** A log file whose evidence is by reference, complete at once (its counts are of the whole file, as the job read it). */
export function insertReferenceFile(db: CaseDb, f: ReferenceFile): number {
  return Number(
    db
      .prepare(
        `INSERT INTO files (kind, evidence, lines_held, uri, path, name, abs_path, sha256, size, compression, log_format, parse_spec, format_reason, source, state,
           started_at, completed_at, content_sha256, content_size, lines, blank_lines, records, duplicates, bad_lines, first_ts, last_ts, notes,
           extract_scheme, unconventional_sha256, no_request_text, no_response_text, error_records, ignored_items, unread)
         VALUES ('log', 'reference', 'findings', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'complete', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        f.uri, f.path, f.name, f.absPath, f.sha256, f.size, f.compression, f.logFormat, f.parseSpec, f.formatReason, f.source, f.at, f.at,
        f.contentSha256, f.contentSize, f.lines, f.blankLines, f.records, f.duplicates, f.badLines, f.firstTs, f.lastTs,
        f.notes.length ? JSON.stringify(f.notes) : null, f.extractScheme, f.unconventionalSha256, f.noRequestText, f.noResponseText,
        f.errorRecords, f.ignoredItems, f.unread,
      ).lastInsertRowid,
  )
}

export function countLogFiles(db: CaseDb): number {
  return db.prepare(`SELECT COUNT(*) FROM files WHERE kind = 'log'`).pluck().get() as number
}

export interface CorpusFacts {
  imported_at: string
  job: string
  records: number
  tenants: number
  /** canonical JSON array of the tenant ids */
  tenant_ids: string
  sessions: number
  first_ms: number | null
  last_ms: number | null
  no_status: number
  no_prompt_tokens: number
  no_completion_tokens: number
  no_decode_node: number
  no_status_or_prompt_tokens: number
  /** records whose missing fields leave open whether they were at risk at pool_tokens (null: not counted) */
  undecided_at_risk: number | null
  pool_tokens: number | null
  advertised_tokens: number | null
  sessions_served: number | null
  sessions_served_with_confirmed: number | null
  served_windows: string | null
}

export function insertCorpusFacts(db: CaseDb, f: CorpusFacts): void {
  db.prepare(
    `INSERT INTO corpus_facts (id, imported_at, job, records, tenants, tenant_ids, sessions, first_ms, last_ms, no_status, no_prompt_tokens,
       no_completion_tokens, no_decode_node, no_status_or_prompt_tokens, undecided_at_risk, pool_tokens, advertised_tokens, sessions_served,
       sessions_served_with_confirmed, served_windows)
     VALUES (1, @imported_at, @job, @records, @tenants, @tenant_ids, @sessions, @first_ms, @last_ms, @no_status, @no_prompt_tokens,
       @no_completion_tokens, @no_decode_node, @no_status_or_prompt_tokens, @undecided_at_risk, @pool_tokens, @advertised_tokens, @sessions_served,
       @sessions_served_with_confirmed, @served_windows)`,
  ).run(f)
}

/** The job's facts about every record, when the case's evidence is by reference; undefined for a case of copies. */
export function corpusFacts(db: CaseDb): CorpusFacts | undefined {
  return db.prepare('SELECT * FROM corpus_facts WHERE id = 1').get() as CorpusFacts | undefined
}

/** One record line's bytes as its own evidence block (at its offset in the file's stream). */
export function referencedLineBlocks(db: CaseDb): (fileId: number, seq: number, offset: number, bytes: Buffer, crc: number) => void {
  const insert = db.prepare(`INSERT INTO evidence_blocks (file_id, seq, raw_offset, raw_len, crc32, codec, data) VALUES (?, ?, ?, ?, ?, 'raw', ?)`)
  return (fileId, seq, offset, bytes, crc) => void insert.run(fileId, seq, offset, bytes.length, crc, bytes)
}

/** Log files whose evidence is by reference. */
export function referenceFiles(db: CaseDb): Array<{id: number; path: string; abs_path: string; uri: string | null; sha256: string}> {
  return db.prepare(`SELECT id, path, abs_path, uri, sha256 FROM files WHERE kind = 'log' AND evidence = 'reference' ORDER BY id`).all() as Array<{
    id: number
    path: string
    abs_path: string
    uri: string | null
    sha256: string
  }>
}

export function isReferenceFile(db: CaseDb, fileId: number): boolean {
  return db.prepare(`SELECT evidence = 'reference' FROM files WHERE id = ?`).pluck().get(fileId) === 1
}
