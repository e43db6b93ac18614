import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, expect, it} from 'vitest'
import {extractBatches} from '../../src/store/extracts.js'
import {recordBatch, type RecordLine} from '../../src/store/records.js'
import {abortingConstraints, RowBatch} from '../../src/store/row-batch.js'
import type {RecordFields} from '../../src/util/record-fields.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'

// Ingest writes personal-data and fingerprint rows several to a statement (RowBatch): the table
// must end exactly as one statement a row leaves it, duplicates ignored or replaced as before,
// whatever the number of rows against the batch's size; rows of a failed unit never reach a
// later transaction.

let dir: string
let db: CaseDb
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crosstalk-rowbatch-'))
  db = openCase(join(dir, 'c.case'), {create: true})
  db.exec('CREATE TABLE a (k INTEGER NOT NULL, v TEXT, b BLOB, PRIMARY KEY (k, v)) STRICT, WITHOUT ROWID')
  db.exec('CREATE TABLE b (k INTEGER NOT NULL, v TEXT, b BLOB, PRIMARY KEY (k, v)) STRICT, WITHOUT ROWID')
  db.exec('CREATE TABLE c (k INTEGER PRIMARY KEY, v TEXT) STRICT')
  db.exec('CREATE TABLE d (k INTEGER PRIMARY KEY, v TEXT) STRICT')
})
afterEach(() => {
  db.close()
  rmSync(dir, {recursive: true, force: true})
})

it('leaves a table as one insert a row does, for any count of rows, duplicates ignored or replaced in order', () => {
  for (const count of [0, 1, 15, 16, 17, 33, 100]) {
    db.exec('DELETE FROM a; DELETE FROM b; DELETE FROM c; DELETE FROM d')
    const ignore = new RowBatch(db, 'INSERT OR IGNORE INTO a (k, v, b)', 3, 16)
    const one = db.prepare('INSERT OR IGNORE INTO b (k, v, b) VALUES (?, ?, ?)')
    const replace = new RowBatch(db, 'INSERT OR REPLACE INTO c (k, v)', 2, 16)
    const oneReplace = db.prepare('INSERT OR REPLACE INTO d (k, v) VALUES (?, ?)')
    db.transaction(() => {
      for (let i = 0; i < count; i++) {
        // Every seventh row repeats an earlier key: ignored in a and b, the later value kept in c and d.
        const k = i % 7 === 6 ? i - 3 : i
        const v = i % 7 === 6 ? `again ${i}` : `v${i % 3}`
        const blob = Buffer.from([i & 255, 7])
        const at = ignore.at
        ignore.args[at] = k
        ignore.args[at + 1] = i % 7 === 6 ? `v${(i - 3) % 3}` : v
        ignore.args[at + 2] = blob
        ignore.added()
        one.run(k, i % 7 === 6 ? `v${(i - 3) % 3}` : v, blob)
        replace.args[replace.at] = k
        replace.args[replace.at + 1] = v
        replace.added()
        oneReplace.run(k, v)
      }
      ignore.flush()
      replace.flush()
    })()
    expect(db.prepare('SELECT * FROM a ORDER BY k, v').all(), `${count} rows`).toEqual(db.prepare('SELECT * FROM b ORDER BY k, v').all())
    expect(db.prepare('SELECT * FROM c ORDER BY k').all(), `${count} rows`).toEqual(db.prepare('SELECT * FROM d ORDER BY k').all())
    expect(db.prepare('SELECT COUNT(*) FROM c').pluck().get()).toBe(count - Math.floor((count + 1) / 7))
  }
})

it('writes nothing of the rows held when they are discarded (their transaction failed)', () => {
  // No records behind these rows: ingest writes them with foreign-key checks off, as here.
  db.pragma('foreign_keys = OFF')
  const batches = extractBatches(db)
  for (let i = 1; i <= 20; i++) batches.pii(i, false, 'email', 'ab'.repeat(32))
  // Sixteen went in one statement; four are held, and go nowhere once discarded.
  expect(db.prepare('SELECT COUNT(*) FROM pii_values').pluck().get()).toBe(16)
  batches.discard()
  batches.flush()
  expect(db.prepare('SELECT COUNT(*) FROM pii_values').pluck().get()).toBe(16)
  batches.pii(99, true, 'phone', 'cd'.repeat(32))
  batches.flush()
  expect(db.prepare('SELECT record_id, in_response, kind FROM pii_values WHERE record_id = 99').all()).toEqual([{record_id: 99, in_response: 1, kind: 'phone'}])
})

it('gives records the ids SQLite would, and answers for the ones held until they are written', () => {
  db.pragma('foreign_keys = OFF')
  const records = recordBatch(db)
  const line = (n: number): RecordLine => ({fileId: 1, lineNo: n, item: 0, offset: n * 100, length: 99, crc: 1000 + n, source: 'gw'})
  const fields = (n: number): RecordFields => ({
    request_id: `r${n}`, ts: '2026-11-02T06:48:30.289Z', ts_ms: 1793688510289, tenant_id: 't', session_id: 's', status: 200, endpoint: null, model: null,
    prefill_node: null, decode_node: null, prompt_tokens: null, completion_tokens: null, cached_tokens: null, stream: 0, response_kind: 'text', is_error: 0, error_message: null,
  })
  const ids = db.transaction(() => {
    records.begin()
    const got = Array.from({length: 20}, (_, i) => records.add(line(i + 1), fields(i + 1)))
    // Sixteen are written; four are held, and read from the batch.
    expect(db.prepare('SELECT COUNT(*) FROM records').pluck().get()).toBe(16)
    expect(records.pending(18)).toEqual(['gw', 'r18', 1018])
    expect([records.pending(16), records.pending(21)]).toEqual([undefined, undefined])
    records.flush()
    return got
  })()
  expect(ids).toEqual(Array.from({length: 20}, (_, i) => i + 1))
  expect(db.prepare('SELECT id, line_no, request_id, raw_crc32 FROM records WHERE id IN (1, 20) ORDER BY id').all())
    .toEqual([{id: 1, line_no: 1, request_id: 'r1', raw_crc32: 1001}, {id: 20, line_no: 20, request_id: 'r20', raw_crc32: 1020}])
  // Records of a dropped file gone from the end: the next id is the largest left plus one, as SQLite's own choice.
  db.exec('DELETE FROM records WHERE id > 12')
  records.begin()
  expect(records.add(line(21), fields(21))).toBe(13)
  records.flush()
  db.prepare(`INSERT INTO records (file_id, line_no, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id, stream, response_kind, is_error)
    VALUES (1, 22, 0, 1, 0, 'gw', 'r22', 'x', 0, 't', 's', 0, 'text', 0)`).run()
  records.begin()
  expect(records.add(line(23), fields(23))).toBe(15)
})

it("keeps no statement journal for ingest's batches: none of their statements aborts", () => {
  // As ingest writes them: foreign-key checks off. A statement of several rows that may abort
  // makes SQLite copy each page it changes to a statement journal (a temporary file past 64 KiB).
  db.pragma('foreign_keys = OFF')
  const statements = [...recordBatch(db).statements, ...extractBatches(db).statements]
  expect(statements).toHaveLength(3)
  for (const sql of statements) {
    expect(sql).toMatch(/\bVALUES \(.*\), \(/s)
    expect(abortingConstraints(db, sql), sql.slice(0, 40)).toEqual([])
  }
  // The check itself: the default ABORT of a NOT NULL column, and REPLACE over one without a default, abort.
  expect(abortingConstraints(db, 'INSERT OR IGNORE INTO c (k, v) VALUES (?, ?), (?, ?)')).toEqual([])
  expect(abortingConstraints(db, 'INSERT INTO a (k, v) VALUES (?, ?), (?, ?)').length).toBeGreaterThan(0)
  expect(abortingConstraints(db, 'INSERT OR REPLACE INTO fingerprints (record_id, prompt_words, response_words, prompt_fp, response_fp, ts_ms, tenant_id, session_id, decode_node) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)').length).toBeGreaterThan(0)
  expect(abortingConstraints(db, 'INSERT OR FAIL INTO a (k, v) VALUES (?, ?), (?, ?)')).toEqual([])
})

it('leaves nothing of a batch whose statement failed part way, once its transaction is rolled back', () => {
  db.pragma('foreign_keys = OFF')
  const records = recordBatch(db)
  const line = (n: number): RecordLine => ({fileId: 1, lineNo: n, item: 0, offset: n * 100, length: 99, crc: n, source: 'gw'})
  const fields = (n: number): RecordFields => ({
    request_id: `r${n}`, ts: '2026-11-02T06:48:30.289Z', ts_ms: 1793688510289, tenant_id: 't', session_id: 's', status: 200, endpoint: null, model: null,
    prefill_node: null, decode_node: null, prompt_tokens: null, completion_tokens: null, cached_tokens: null,
    // The tenth row breaks the table's CHECK on stream: OR FAIL keeps the nine before it until the transaction ends.
    stream: n === 10 ? 7 : 0, response_kind: 'text', is_error: 0, error_message: null,
  })
  const write = db.transaction(() => {
    records.begin()
    try {
      for (let n = 1; n <= 16; n++) records.add(line(n), fields(n))
    } catch (error) {
      expect(db.prepare('SELECT COUNT(*) FROM records').pluck().get()).toBe(9)
      records.discard()
      throw error
    }
  })
  expect(write).toThrow(/CHECK constraint failed/)
  expect(db.prepare('SELECT COUNT(*) FROM records').pluck().get()).toBe(0)
})
