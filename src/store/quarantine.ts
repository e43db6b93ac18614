import {SETTLED_BAD_LINE} from './files.js'
import type {CaseDb} from './open-case.js'
import type {CompanionLine} from './records.js'

// Lines that are not records: quarantined bad lines (with the reason) and duplicates (a
// request id seen again within its source). Both stay in the evidence byte for byte.

export interface BadLineInput {
  fileId: number
  lineNo: number
  /** The item of a line holding several (an OTLP span), or null for the whole line. */
  item: number | null
  offset: number
  length: number
  reason: string
  raw: Buffer
  truncated: boolean
}

export function badLineInserter(db: CaseDb): (b: BadLineInput) => void {
  const insert = db.prepare('INSERT INTO bad_lines (file_id, line_no, item, byte_offset, byte_len, reason, raw, raw_truncated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
  return (b) => {
    insert.run(b.fileId, b.lineNo, b.item, b.offset, b.length, b.reason, b.raw, b.truncated ? 1 : 0)
  }
}

/** Inserts a duplicate line; returns its id (its companions are stored under it). */
export function duplicateInserter(db: CaseDb): (fileId: number, lineNo: number, offset: number, length: number, requestId: string, identical: boolean) => number {
  const insert = db.prepare('INSERT INTO duplicate_lines (file_id, line_no, byte_offset, byte_len, request_id, identical) VALUES (?, ?, ?, ?, ?, ?)')
  return (fileId, lineNo, offset, length, requestId, identical) => Number(insert.run(fileId, lineNo, offset, length, requestId, identical ? 1 : 0).lastInsertRowid)
}

/** A line a duplicate's item was read with at ingest (an OTLP retry span's parent span or log records on other lines). */
export function duplicateCompanionInserter(db: CaseDb): (duplicateId: number, seq: number, c: CompanionLine) => void {
  const insert = db.prepare('INSERT INTO duplicate_companions (duplicate_id, seq, file_id, line_no, byte_offset, byte_len, raw_crc32) VALUES (?, ?, ?, ?, ?, ?, ?)')
  return (duplicateId, seq, c) => {
    insert.run(duplicateId, seq, c.file_id, c.line_no, c.byte_offset, c.byte_len, c.raw_crc32)
  }
}

/**
 * The lines each duplicate was read with at ingest, by duplicate id, in the order ingest offered
 * them. Duplicates ingested before schema 14 have none listed.
 */
export function duplicateCompanions(db: CaseDb): (duplicateId: number) => CompanionLine[] {
  const q = db.prepare('SELECT file_id, line_no, byte_offset, byte_len, raw_crc32 FROM duplicate_companions WHERE duplicate_id = ? ORDER BY seq')
  return (duplicateId) => q.all(duplicateId) as CompanionLine[]
}

export interface BadLineRow {
  file: string
  line: number
  /** which item of the line (an OTLP span), or null for the whole line */
  item: number | null
  byte_offset: number
  byte_len: number
  reason: string
}

/** How many quarantined lines listBadLines would list without a limit. */
export function countListedBadLines(db: CaseDb): number {
  return db
    .prepare(
      `SELECT count(*) FROM bad_lines b JOIN files f ON f.id = b.file_id
        WHERE NOT (f.kind = 'log' AND f.state = 'complete' AND ${SETTLED_BAD_LINE})`,
    )
    .pluck()
    .get() as number
}

export function listBadLines(db: CaseDb, limit: number): BadLineRow[] {
  return db
    .prepare(
      `SELECT f.path AS file, b.line_no AS line, b.item, b.byte_offset, b.byte_len, b.reason
       FROM bad_lines b JOIN files f ON f.id = b.file_id
      WHERE NOT (f.kind = 'log' AND f.state = 'complete' AND ${SETTLED_BAD_LINE})
      ORDER BY f.id, b.line_no, b.item LIMIT ?`,
    )
    .all(limit) as BadLineRow[]
}

// ------------------------------------------------------------------ verify: one file's lines in order

export interface DuplicateLineRow {
  id: number
  line_no: number
  byte_offset: number
  byte_len: number
  request_id: string
  identical: number
}

/**
 * Duplicates (of complete log files) whose item may differ from their record's, in file and line
 * order: lines not byte-identical to the line their record was read from, and items of the
 * record's own line (an OTLP export holding a span and its retry under the same id), which that
 * line's bytes being "identical" to themselves says nothing about.
 */
export function conflictingDuplicateLines(db: CaseDb): Array<DuplicateLineRow & {file_id: number}> {
  return db
    .prepare(
      `SELECT d.id, d.file_id, d.line_no, d.byte_offset, d.byte_len, d.request_id, d.identical FROM duplicate_lines d
         JOIN files f ON f.id = d.file_id AND f.state = 'complete' AND f.kind = 'log'
        WHERE d.identical = 0
           OR EXISTS (SELECT 1 FROM records r WHERE r.source = f.source AND r.request_id = d.request_id AND r.file_id = d.file_id AND r.byte_offset = d.byte_offset)
        ORDER BY d.file_id, d.line_no, d.id`,
    )
    .all() as Array<DuplicateLineRow & {file_id: number}>
}

/**
 * The markers of the contaminating sightings (cross_session, cross_tenant) of the record a
 * duplicate line repeats: the record of the same source and request id.
 */
export function keptRecordLeakMarkers(db: CaseDb): (duplicateFileId: number, requestId: string) => Set<string> {
  const q = db
    .prepare(
      `SELECT s.marker FROM files f JOIN records r ON r.source = f.source AND r.request_id = ?
         JOIN sightings s ON s.record_id = r.id AND s.class IN ('cross_session', 'cross_tenant')
        WHERE f.id = ?`,
    )
    .pluck()
  return (fileId, requestId) => new Set(q.all(requestId, fileId) as string[])
}

/**
 * The tenant of the record a duplicate line repeats (the record of the same source and request
 * id), or null where the case holds none: whose request the line was logged under.
 */
export function keptRecordTenant(db: CaseDb): (duplicateFileId: number, requestId: string) => string | null {
  const q = db.prepare(`SELECT r.tenant_id FROM files f JOIN records r ON r.source = f.source AND r.request_id = ? WHERE f.id = ? ORDER BY r.id LIMIT 1`).pluck()
  return (fileId, requestId) => (q.get(requestId, fileId) as string | undefined) ?? null
}

export function iterateDuplicatesOfFile(db: CaseDb, fileId: number): IterableIterator<DuplicateLineRow> {
  return db
    .prepare('SELECT id, line_no, byte_offset, byte_len, request_id, identical FROM duplicate_lines WHERE file_id = ? ORDER BY line_no, id')
    .iterate(fileId) as IterableIterator<DuplicateLineRow>
}

export interface BadLineStored {
  id: number
  line_no: number
  byte_offset: number
  byte_len: number
  reason: string
  raw: Buffer
  raw_truncated: number
}

export function iterateBadLinesOfFile(db: CaseDb, fileId: number): IterableIterator<BadLineStored> {
  return db
    .prepare('SELECT id, line_no, byte_offset, byte_len, reason, raw, raw_truncated FROM bad_lines WHERE file_id = ? ORDER BY line_no, id')
    .iterate(fileId) as IterableIterator<BadLineStored>
}

/** A record of the files being dropped whose request is also a duplicate line of a file that stays. */
export interface DuplicateElsewhere {
  record_id: number
  request_id: string
  /** the record's file (one of those dropped) */
  record_file_id: number
  item: number
  raw_crc32: number
  ts_ms: number
  dup_id: number
  file_id: number
  line_no: number
  byte_offset: number
  byte_len: number
  identical: number
}

/**
 * Records of these files that other files hold duplicate lines of (same source, same request
 * id), each record's duplicates in ingest order: the first is the line a case made of the
 * other files alone would hold as the record.
 */
export function duplicatesOutside(db: CaseDb, fileIds: readonly number[]): DuplicateElsewhere[] {
  if (fileIds.length === 0) return []
  const ids = fileIds.map((id) => Math.trunc(id)).join(',')
  return db
    .prepare(
      `SELECT r.id AS record_id, r.request_id, r.file_id AS record_file_id, r.item, r.raw_crc32, r.ts_ms,
              d.id AS dup_id, d.file_id, d.line_no, d.byte_offset, d.byte_len, d.identical
         FROM duplicate_lines d JOIN files f ON f.id = d.file_id JOIN records r ON r.source = f.source AND r.request_id = d.request_id
        WHERE d.file_id NOT IN (${ids}) AND r.file_id IN (${ids})
        ORDER BY r.id, d.file_id, d.line_no, d.id`,
    )
    .all() as DuplicateElsewhere[]
}

/** The record now stands at its duplicate line (same bytes), which stops being a duplicate. */
export function rehomeRecord(db: CaseDb, d: Pick<DuplicateElsewhere, 'record_id' | 'dup_id' | 'file_id' | 'line_no' | 'byte_offset' | 'byte_len'>): void {
  db.prepare('UPDATE records SET file_id = ?, line_no = ?, byte_offset = ?, byte_len = ? WHERE id = ?').run(d.file_id, d.line_no, d.byte_offset, d.byte_len, d.record_id)
  // Its companions go with it, whether foreign-key checks (the cascade) are on or not.
  db.prepare('DELETE FROM duplicate_companions WHERE duplicate_id = ?').run(d.dup_id)
  db.prepare('DELETE FROM duplicate_lines WHERE id = ?').run(d.dup_id)
}
