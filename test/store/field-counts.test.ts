import Database from 'better-sqlite3'
import {copyFileSync, readdirSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {MIGRATIONS} from '../../src/store/migrations/index.js'
import {CASE_APPLICATION_ID, LATEST_SCHEMA, openCase, type CaseDb} from '../../src/store/open-case.js'
import {atRiskByTenant, countSessionsServed, recordsMissingAtRiskFields} from '../../src/store/records.js'
import {makeCase} from '../helpers/case-builder.js'
import {tempDir} from '../helpers/cli.js'

// Migration 006: ingest counts, per file, the records that do not say each field the at-risk
// test depends on, and scope and status sum them instead of reading every record; the at-risk
// index covers the tenant, so at-risk responses per tenant are read from the index alone.

/** What reading every record of the complete files gives (the answer before migration 006). */
function countedOverRecords(db: CaseDb): unknown {
  return db
    .prepare(
      `SELECT count(*) AS records, coalesce(sum(r.status IS NULL), 0) AS no_status, coalesce(sum(r.prompt_tokens IS NULL), 0) AS no_prompt_tokens,
              coalesce(sum(r.completion_tokens IS NULL), 0) AS no_completion_tokens, coalesce(sum(r.decode_node IS NULL), 0) AS no_decode_node,
              coalesce(sum(r.status IS NULL OR r.prompt_tokens IS NULL), 0) AS no_status_or_prompt_tokens
         FROM records r JOIN files f ON f.id = r.file_id WHERE f.state = 'complete'`,
    )
    .get()
}

describe('per-file counts of unsaid fields (migration 006)', () => {
  it('are what a read of the records gives, for every format, with duplicates and unsaid fields', async () => {
    const c = makeCase()
    try {
      // Native lines with and without status, node and prompt size; a duplicate request id.
      await c.addFile([
        {request_id: 'a', tenant_id: 't1', session_id: 's1', status: null, decode_node: 'd1', prompt_tokens: 900_000, request_text: 'hi', response_text: 'yo'},
        {request_id: 'b', tenant_id: 't1', session_id: 's1', status: 200, prompt_tokens: 700_000, request_text: 'hi', response_text: 'yo'},
        {request_id: 'c', tenant_id: 't2', session_id: 's2', status: 200, decode_node: 'd2', request_text: 'hi', response_text: 'yo'},
        {request_id: 'c', tenant_id: 't2', session_id: 's2', status: 500, decode_node: 'd2', request_text: 'hi', is_error: 1},
      ])
      // Other formats (LiteLLM has no HTTP status, Langfuse no node), each read by its converter.
      const dir = join(import.meta.dirname, '..', 'fixtures', 'formats')
      const copies = readdirSync(dir).filter((f) => /^(litellm|langfuse|otel-spans|openai-batch-output)/.test(f)).map((f) => {
        const to = join(c.dir, f)
        copyFileSync(join(dir, f), to)
        return to
      })
      for (const p of copies) await ingestLogs(c.db, {paths: [p], now: () => new Date('2026-11-03T00:00:00.000Z'), workers: 0})
      const files = c.db.prepare(`SELECT count(*) FROM files WHERE kind = 'log' AND state = 'complete' AND no_status IS NOT NULL`).pluck().get() as number
      expect(files).toBeGreaterThanOrEqual(4)
      const expected = countedOverRecords(c.db) as {records: number; no_status: number; no_decode_node: number}
      expect(expected.no_status).toBeGreaterThan(1)
      expect(expected.no_decode_node).toBeGreaterThan(1)
      expect(recordsMissingAtRiskFields(c.db)).toEqual(expected)
      // The answer is the files' sums (no read of the records): a changed count shows.
      c.db.prepare(`UPDATE files SET no_decode_node = no_decode_node + 1000 WHERE kind = 'log'`).run()
      expect(recordsMissingAtRiskFields(c.db)).toEqual({...expected, no_decode_node: expected.no_decode_node + 1000 * files})
      // A file counted before the schema (NULL) makes the read of the records the answer again.
      c.db.prepare(`UPDATE files SET no_status = NULL WHERE id = (SELECT min(id) FROM files WHERE kind = 'log')`).run()
      expect(recordsMissingAtRiskFields(c.db)).toEqual(expected)
    } finally {
      c.close()
    }
  })

  it('at-risk responses per tenant are read from the index alone', async () => {
    const c = makeCase()
    try {
      await c.addFile([
        {request_id: 'a', tenant_id: 't1', session_id: 's1', prompt_tokens: 900_000, request_text: 'hi', response_text: 'yo'},
        {request_id: 'b', tenant_id: 't1', session_id: 's2', prompt_tokens: 700_000, request_text: 'hi', response_text: 'yo'},
        {request_id: 'c', tenant_id: 't2', session_id: 's3', prompt_tokens: 800_000, request_text: 'hi', response_text: 'yo'},
        {request_id: 'd', tenant_id: 't2', session_id: 's4', prompt_tokens: 10, request_text: 'hi', response_text: 'yo'},
      ])
      expect([...atRiskByTenant(c.db, 681_280)].sort()).toEqual([['t1', 2], ['t2', 1]])
      const plan = c.db.prepare('EXPLAIN QUERY PLAN SELECT r.tenant_id, COUNT(*) FROM records r WHERE r.status = 200 AND r.prompt_tokens >= ? GROUP BY r.tenant_id').all(1) as Array<{detail: string}>
      expect(plan.map((p) => p.detail).join(' | ')).toMatch(/COVERING INDEX records_at_risk/)
    } finally {
      c.close()
    }
  })

  it('migrates a schema-5 case: the at-risk index gains the tenant (a suspended one is rebuilt so), records by tenant by session, node and time, the index by node goes (suspended or not), its files are counted over the records', () => {
    const path = join(tempDir(), 'v5.db')
    const v5 = new Database(path)
    v5.pragma(`application_id = ${CASE_APPLICATION_ID}`)
    for (const m of MIGRATIONS.filter((x) => x.version <= 5)) m.up(v5)
    v5.pragma('user_version = 5')
    v5.exec(`INSERT INTO files (kind, path, name, abs_path, sha256, size, compression, log_format, source, state, started_at, records)
             VALUES ('log', 'a.jsonl', 'a.jsonl', '/a.jsonl', 'x', 1, 'none', 'native', 'default', 'complete', 'now', 1)`)
    v5.exec(`INSERT INTO records (file_id, line_no, item, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id, status, stream, response_kind, is_error)
             VALUES (1, 1, 0, 0, 1, 0, 'default', 'r1', '2026-11-01T00:00:00Z', 1, 't', 's', NULL, 0, 'json', 0)`)
    // An interrupted first load left the at-risk index suspended.
    const sql = v5.prepare(`SELECT sql FROM sqlite_master WHERE name = 'records_at_risk'`).pluck().get() as string
    v5.prepare('INSERT INTO suspended_indexes (name, sql) VALUES (?, ?)').run('records_at_risk', sql)
    v5.exec('DROP INDEX records_at_risk')
    // ... and the one by node and time, which schema 6 no longer has.
    const byNode = v5.prepare(`SELECT sql FROM sqlite_master WHERE name = 'records_by_node_ts'`).pluck().get() as string
    v5.prepare('INSERT INTO suspended_indexes (name, sql) VALUES (?, ?)').run('records_by_node_ts', byNode)
    v5.exec('DROP INDEX records_by_node_ts')
    v5.close()
    const notices: string[] = []
    const db = openCase(path, {onSlowStart: (m) => notices.push(m)})
    try {
      // Said before the rebuild starts (minutes at millions of records); the suspended at-risk
      // index is rebuilt by the migration itself, so nothing is left to announce after it.
      expect(notices).toEqual([`${path}: upgrading the case from schema 5 to ${LATEST_SCHEMA} (once): rebuilding two record indexes over 1 record`])
      expect(LATEST_SCHEMA).toBeGreaterThanOrEqual(6)
      expect(db.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
      expect(db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'records_at_risk'`).pluck().get()).toMatch(/is_error, tenant_id\)$/)
      expect(db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'records_by_tenant'`).pluck().get()).toMatch(/\(tenant_id, session_id, decode_node, ts_ms\)$/)
      expect(db.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'records_by_node_ts'`).pluck().get()).toBe(0)
      expect(db.prepare('SELECT count(*) FROM suspended_indexes').pluck().get()).toBe(0)
      expect(db.prepare('SELECT no_status FROM files').pluck().get()).toBeNull()
      expect(recordsMissingAtRiskFields(db)).toEqual({records: 1, no_status: 1, no_prompt_tokens: 1, no_completion_tokens: 1, no_decode_node: 1, no_status_or_prompt_tokens: 1})
    } finally {
      db.close()
    }
  })
})

describe('sessions served by a node inside its window (records_by_tenant since schema 6)', () => {
  it('counts what a check of every record gives, for random records, windows and confirmed sessions', async () => {
    const c = makeCase()
    try {
      let seed = 7
      const rand = (n: number): number => {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
        return (seed >>> 8) % n
      }
      const nodes = ['d1', 'd2', 'd3', null]
      const t0 = Date.parse('2026-11-02T06:00:00.000Z')
      const records = Array.from({length: 400}, (_, i) => ({
        request_id: `r${i}`, tenant_id: `t${rand(4)}`, session_id: `s${rand(30)}`, decode_node: nodes[rand(4)]!, ts_ms: t0 + rand(3_600_000),
        request_text: 'hello', response_text: 'hi',
      }))
      await c.addFile(records)
      for (let trial = 0; trial < 25; trial++) {
        const windows = new Map<string | null, [number, number]>()
        for (const node of [...nodes, 'd9']) {
          if (rand(3) === 0) continue
          const a = t0 + rand(3_600_000)
          const b = t0 + rand(3_600_000)
          windows.set(node, [Math.min(a, b), Math.max(a, b)])
        }
        const confirmed: Array<[string | null, string | null]> = []
        for (let k = rand(6); k > 0; k--) confirmed.push([rand(5) === 0 ? null : `t${rand(5)}`, `s${rand(32)}`])
        const distinct = new Map(confirmed.map((p) => [JSON.stringify(p), p]))
        const inWindow = (r: (typeof records)[number]): boolean => {
          const w = windows.get(r.decode_node)
          return w !== undefined && r.ts_ms >= w[0] && r.ts_ms <= w[1]
        }
        const served = new Set(records.filter(inWindow).map((r) => JSON.stringify([r.tenant_id, r.session_id])))
        const all = new Set([...served, ...distinct.keys()])
        expect(countSessionsServed(c.db, windows, [...distinct.values()])).toEqual({served: served.size, withConfirmed: all.size})
      }
      const plan = c.db.prepare(`EXPLAIN QUERY PLAN SELECT count(*) FROM (SELECT 1 FROM records r WHERE r.ts_ms > ? GROUP BY r.tenant_id, r.session_id)`).all(0) as Array<{detail: string}>
      expect(plan.map((p) => p.detail).join(' | ')).toMatch(/COVERING INDEX records_by_tenant/)
      expect(plan.map((p) => p.detail).join(' | ')).not.toMatch(/TEMP B-TREE/)
    } finally {
      c.close()
    }
  })
})
