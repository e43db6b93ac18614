import {completeRecords} from './records.js'
import {RowBatch} from './row-batch.js'
import type {CaseDb} from './open-case.js'

// What ingest extracted from each record for detection (extract/extract.ts): the response's
// marker-shaped tokens and unconventional-marker hits, the hashed personal-data values of
// prompt and response, and the winnowed fingerprints of both with the record facts
// provenance needs beside them.

/** A response's marker tokens and unconventional-marker hits, a row each (few: most responses hold none). Personal-data and fingerprint rows: extractBatches. */
export interface ExtractInserters {
  token(recordId: number, position: number, token: string): void
  hit(recordId: number, position: number, marker: string): void
}

export function extractInserters(db: CaseDb): ExtractInserters {
  const token = db.prepare('INSERT OR IGNORE INTO marker_tokens (record_id, position, token) VALUES (?, ?, ?)')
  const hit = db.prepare('INSERT OR IGNORE INTO unconventional_hits (record_id, position, marker) VALUES (?, ?, ?)')
  return {
    token: (id, position, t) => void token.run(id, position, t),
    hit: (id, position, marker) => void hit.run(id, position, marker),
  }
}

/** Ingest's personal-data and fingerprint rows, written in batches (RowBatch): `flush` before the transaction ends. */
export interface ExtractBatches {
  pii(recordId: number, inResponse: boolean, kind: string, valueSha256: string): void
  fingerprints(recordId: number, promptWords: number, responseWords: number, promptFp: Buffer, responseFp: Buffer, tsMs: number, tenant: string, session: string, decodeNode: string | null): void
  flush(): void
  discard(): void
  /** The batches' statements (for tests: none may abort, see RowBatch). */
  readonly statements: readonly string[]
}

export function extractBatches(db: CaseDb): ExtractBatches {
  const pii = new RowBatch(db, 'INSERT OR IGNORE INTO pii_values (record_id, in_response, kind, value_sha256)', 4)
  // OR FAIL, not OR REPLACE: REPLACE over NOT NULL columns without defaults aborts, so it kept a
  // statement journal (RowBatch). A record's fingerprints are written once, with the record, under
  // an id no record had (recordBatch), and the rows of a dropped file's records went with them.
  const fp = new RowBatch(db, 'INSERT OR FAIL INTO fingerprints (record_id, prompt_words, response_words, prompt_fp, response_fp, ts_ms, tenant_id, session_id, decode_node)', 9)
  return {
    pii(id, inResponse, kind, hash) {
      const a = pii.args
      const i = pii.at
      a[i] = id
      a[i + 1] = inResponse ? 1 : 0
      a[i + 2] = kind
      a[i + 3] = hash
      pii.added()
    },
    fingerprints(id, pw, rw, pfp, rfp, ts, tenant, session, node) {
      const a = fp.args
      const i = fp.at
      a[i] = id
      a[i + 1] = pw
      a[i + 2] = rw
      a[i + 3] = pfp
      a[i + 4] = rfp
      a[i + 5] = ts
      a[i + 6] = tenant
      a[i + 7] = session
      a[i + 8] = node
      fp.added()
    },
    flush() {
      pii.flush()
      fp.flush()
    },
    discard() {
      pii.discard()
      fp.discard()
    },
    statements: [pii.sql, fp.sql],
  }
}

/** One token or hit of a response in a file, with the recipient's tenant and session. */
export type FileToken = [recordId: number, kind: 0 | 1, position: number, token: string, tenant: string, session: string]

/** Every marker token (kind 0) and unconventional hit (kind 1) of a file's responses, by record, kind and position. */
export function fileTokens(db: CaseDb, fileId: number): FileToken[] {
  return db
    .prepare(
      `SELECT t.record_id, 0 AS kind, t.position, t.token, r.tenant_id, r.session_id FROM marker_tokens t JOIN records r ON r.id = t.record_id WHERE r.file_id = ?
       UNION ALL
       SELECT h.record_id, 1, h.position, h.marker, r.tenant_id, r.session_id FROM unconventional_hits h JOIN records r ON r.id = h.record_id WHERE r.file_id = ?
       ORDER BY 1, 2, 3`,
    )
    .raw()
    .all(fileId, fileId) as FileToken[]
}

export function deleteUnconventionalHits(db: CaseDb, fileId: number): void {
  db.prepare('DELETE FROM unconventional_hits WHERE record_id IN (SELECT id FROM records WHERE file_id = ?)').run(fileId)
}

/** Record ids of a file after `after`, in id order, at most `limit` (paging). */
export function recordIdsOfFile(db: CaseDb): (fileId: number, after: number, limit: number) => number[] {
  const page = db.prepare('SELECT id FROM records WHERE file_id = ? AND id > ? ORDER BY id LIMIT ?').pluck()
  return (fileId, after, limit) => page.all(fileId, after, limit) as number[]
}

/** A page of a file's records, in id order: each one's id and whether its response is an error (an error answer is not "without text"). */
export function recordPagesOfFile(db: CaseDb): (fileId: number, after: number, limit: number) => Array<{id: number; is_error: number; line_no: number}> {
  const page = db.prepare('SELECT id, is_error, line_no FROM records WHERE file_id = ? AND id > ? ORDER BY id LIMIT ?')
  return (fileId, after, limit) => page.all(fileId, after, limit) as Array<{id: number; is_error: number; line_no: number}>
}

// ------------------------------------------------------------------ personal-data values

/**
 * Removes a file's marker tokens, unconventional-marker hits and personal-data values (to extract
 * them again under the current scheme; its fingerprint rows are rewritten in place: fingerprintUpdater).
 */
export function deleteFileExtracts(db: CaseDb, fileId: number): void {
  for (const table of ['marker_tokens', 'unconventional_hits', 'pii_values']) {
    db.prepare(`DELETE FROM ${table} WHERE record_id IN (SELECT id FROM records WHERE file_id = ?)`).run(fileId)
  }
}

/** Rewrites a record's fingerprints and word counts (its record facts beside them stay). */
export function fingerprintUpdater(db: CaseDb): (recordId: number, promptWords: number, responseWords: number, promptFp: Buffer, responseFp: Buffer) => void {
  const update = db.prepare('UPDATE fingerprints SET prompt_words = ?, response_words = ?, prompt_fp = ?, response_fp = ? WHERE record_id = ?')
  return (id, pw, rw, pfp, rfp) => void update.run(pw, rw, pfp, rfp, id)
}

/** Writes one personal-data value of a record (in_response 0: its prompt; 1: its response). */
export function piiValueInserter(db: CaseDb): (recordId: number, inResponse: boolean, kind: string, valueSha256: string) => void {
  const insert = db.prepare('INSERT OR IGNORE INTO pii_values (record_id, in_response, kind, value_sha256) VALUES (?, ?, ?, ?)')
  return (recordId, inResponse, kind, valueSha256) => void insert.run(recordId, inResponse ? 1 : 0, kind, valueSha256)
}

export interface PiiValueRow {
  record_id: number
  kind: string
  value_sha256: string
  ts_ms: number
  tenant_id: string
  session_id: string
  decode_node: string | null
}

/** Values found in responses of complete files, in time order. */
export function responsePiiValues(db: CaseDb): PiiValueRow[] {
  return db
    .prepare(
      `SELECT v.record_id, v.kind, v.value_sha256, r.ts_ms, r.tenant_id, r.session_id, r.decode_node
       FROM pii_values v JOIN records r ON r.id = v.record_id
       WHERE v.in_response = 1${completeRecords(db)} ORDER BY r.ts_ms, r.id`,
    )
    .all() as PiiValueRow[]
}

/** The prompts (of complete files) that carry a value, in time order (by the value index). */
export function promptsWithValue(db: CaseDb): (valueSha256: string) => PiiValueRow[] {
  const stmt = db.prepare(
    `SELECT v.record_id, v.kind, v.value_sha256, r.ts_ms, r.tenant_id, r.session_id, r.decode_node
     FROM pii_values v JOIN records r ON r.id = v.record_id
     WHERE v.value_sha256 = ? AND v.in_response = 0${completeRecords(db)} ORDER BY r.ts_ms, r.id`,
  )
  return (value) => stmt.all(value) as PiiValueRow[]
}

// ------------------------------------------------------------------ fingerprints

/** Bytes of every stored record's response fingerprints (8 a fingerprint): what sizes provenance's passes. */
export function responseFingerprintBytes(db: CaseDb): number {
  return db.prepare('SELECT total(length(response_fp)) FROM fingerprints').pluck().get() as number
}

export function maxFingerprintedRecord(db: CaseDb): number {
  return (db.prepare('SELECT COALESCE(MAX(record_id), 0) FROM fingerprints').pluck().get() as number) ?? 0
}

/** Per-record facts for provenance, ordered by tenant and session, with the blob sizes. */
export type FingerprintSessionRow = [recordId: number, tenant: string, session: string]

/**
 * Each record's tenant and session up to `maxId`, grouped by (tenant, session). Every record is
 * fingerprinted in the transaction that writes it, so these are the fingerprinted records (and
 * a record without fingerprints is never looked up). Read from records_by_tenant, which holds
 * them in that order (schema 6), there is nothing to sort: 2.9 -> 1.2 s at 1M records, where the
 * fingerprints table's copy of the two went through SQLite's sorter (measured). Where that
 * index is missing SQLite sorts, in bounded memory, and the answer is the same.
 */
export function iterateFingerprintSessions(db: CaseDb, maxId: number): IterableIterator<FingerprintSessionRow> {
  return db
    .prepare('SELECT id, tenant_id, session_id FROM records WHERE id <= ? ORDER BY tenant_id, session_id')
    .raw()
    .iterate(maxId) as IterableIterator<FingerprintSessionRow>
}

export type FingerprintTimeRow = [recordId: number, tenant: string, decodeNode: string | null, responseBytes: number, promptBytes: number]

/** Each fingerprinted record in time order, ties by record id, with its fingerprint blobs' lengths. */
export function iterateFingerprintsByTime(db: CaseDb, maxId: number): IterableIterator<FingerprintTimeRow> {
  return db
    .prepare(
      `SELECT record_id, tenant_id, decode_node, length(response_fp), length(prompt_fp)
         FROM fingerprints WHERE record_id <= ? ORDER BY ts_ms, record_id`,
    )
    .raw()
    .iterate(maxId) as IterableIterator<FingerprintTimeRow>
}

/**
 * Every record's response and prompt fingerprints as one blob (response first) and the
 * response's length: every blob read costs a buffer of its own, and at a million records
 * that is most of provenance's reading. `||` joins them byte for byte in a UTF-8 database
 * (text is not re-encoded), and the cast makes the result a blob again; in another encoding
 * the two blobs are read apart.
 */
export function* iterateFingerprintBlobs(db: CaseDb): Generator<[recordId: number, responseBytes: number, both: Buffer]> {
  const empty = Buffer.alloc(0)
  if (db.pragma('encoding', {simple: true}) === 'UTF-8') {
    const rows = db
      .prepare(`SELECT record_id, length(response_fp), CAST(ifnull(response_fp, x'') || ifnull(prompt_fp, x'') AS BLOB) FROM fingerprints`)
      .raw()
      .iterate() as IterableIterator<[number, number | null, Buffer | null]>
    for (const [id, rlen, joined] of rows) yield [id, rlen ?? 0, joined ?? empty]
    return
  }
  const rows = db.prepare('SELECT record_id, response_fp, prompt_fp FROM fingerprints').raw().iterate() as IterableIterator<[number, Buffer, Buffer]>
  for (const [id, rfp, pfp] of rows) yield [id, rfp.length, Buffer.concat([rfp, pfp])]
}

export function fingerprintSession(db: CaseDb): (recordId: number) => {tenant_id: string; session_id: string} | undefined {
  const stmt = db.prepare('SELECT tenant_id, session_id FROM fingerprints WHERE record_id = ?')
  return (id) => stmt.get(id) as {tenant_id: string; session_id: string} | undefined
}

/** One part of every record's fingerprints (record id, blob), in table order. */
export function iterateFingerprintColumn(db: CaseDb, part: 'response' | 'prompt'): IterableIterator<[number, Buffer]> {
  const sql = part === 'response' ? 'SELECT record_id, response_fp FROM fingerprints' : 'SELECT record_id, prompt_fp FROM fingerprints'
  return db.prepare(sql).raw().iterate() as IterableIterator<[number, Buffer]>
}

// ------------------------------------------------------------------ verify: one file's extracts, by record

// In the order verify walks a file's records: by line, then id (a record kept at its duplicate
// line by `drop` stands among records of higher ids), each row with its record's line.

/** [record id, position, token, line] of a file's marker tokens, by record (in line order) and position. */
export function iterateFileMarkerTokens(db: CaseDb, fileId: number): IterableIterator<[number, number, string, number]> {
  return db
    .prepare('SELECT t.record_id, t.position, t.token, r.line_no FROM marker_tokens t JOIN records r ON r.id = t.record_id WHERE r.file_id = ? ORDER BY r.line_no, r.id, t.position')
    .raw()
    .iterate(fileId) as IterableIterator<[number, number, string, number]>
}

/** [record id, position, marker, line] of a file's unconventional hits, by record (in line order) and position. */
export function iterateFileUnconventionalHits(db: CaseDb, fileId: number): IterableIterator<[number, number, string, number]> {
  return db
    .prepare('SELECT h.record_id, h.position, h.marker, r.line_no FROM unconventional_hits h JOIN records r ON r.id = h.record_id WHERE r.file_id = ? ORDER BY r.line_no, r.id, h.position, h.marker')
    .raw()
    .iterate(fileId) as IterableIterator<[number, number, string, number]>
}

/** [record id, in response, kind, value sha256, line] of a file's personal-data values, by record (in line order). */
export function iterateFilePiiValues(db: CaseDb, fileId: number): IterableIterator<[number, number, string, string, number]> {
  return db
    .prepare('SELECT p.record_id, p.in_response, p.kind, p.value_sha256, r.line_no FROM pii_values p JOIN records r ON r.id = p.record_id WHERE r.file_id = ? ORDER BY r.line_no, r.id, p.in_response, p.kind, p.value_sha256')
    .raw()
    .iterate(fileId) as IterableIterator<[number, number, string, string, number]>
}

/** Null columns: not read (see iterateFileFingerprints). */
export interface FingerprintStored {
  record_id: number
  /** the record's line */
  line_no: number
  prompt_words: number | null
  response_words: number | null
  ts_ms: number | null
  tenant_id: string | null
  session_id: string | null
  decode_node: string | null
  prompt_fp: Buffer | null
  response_fp: Buffer | null
}

/**
 * A file's fingerprint rows by record. `full`: with the record facts kept beside them and the
 * fingerprints themselves (the facts follow the blobs in the row, so reading them reads the
 * blobs); otherwise only which records have a row (the primary key: cheap).
 */
export function iterateFileFingerprints(db: CaseDb, fileId: number, full: boolean): IterableIterator<FingerprintStored> {
  const columns = full
    ? 'f.record_id, r.line_no, f.prompt_words, f.response_words, f.ts_ms, f.tenant_id, f.session_id, f.decode_node, f.prompt_fp, f.response_fp'
    : 'f.record_id, r.line_no, NULL AS prompt_words, NULL AS response_words, NULL AS ts_ms, NULL AS tenant_id, NULL AS session_id, NULL AS decode_node, NULL AS prompt_fp, NULL AS response_fp'
  return db
    .prepare(`SELECT ${columns} FROM fingerprints f JOIN records r ON r.id = f.record_id WHERE r.file_id = ? ORDER BY r.line_no, r.id`)
    .iterate(fileId) as IterableIterator<FingerprintStored>
}
