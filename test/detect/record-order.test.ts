import {join} from 'node:path'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {loadRecordOrder, rankById} from '../../src/detect/provenance/record-order.js'
import {openCase} from '../../src/store/open-case.js'
import type {CaseDb} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'

// Provenance's record order: ranks by (time, record id) from SQLite's sort, sessions numbered
// within their tenant, tenants and nodes in 8 bits, then 16, then 32, as they no longer fit.
// Checked against a plain reading of the same rows.

type Row = {id: number; ts: number; tenant: string; session: string; node: string | null}

function caseWith(rows: Row[]): CaseDb {
  const db = openCase(join(tempDir(), 'c.db'), {create: true})
  db.pragma('foreign_keys = OFF')
  const insert = db.prepare(
    `INSERT INTO fingerprints (record_id, prompt_words, response_words, prompt_fp, response_fp, ts_ms, tenant_id, session_id, decode_node)
     VALUES (?, 0, 0, ?, ?, ?, ?, ?, ?)`,
  )
  // Each fingerprinted record is a record too (ingest writes both in one transaction): the
  // sessions are numbered from the records, the ranks from the fingerprints.
  const record = db.prepare(
    `INSERT INTO records (id, file_id, line_no, item, byte_offset, byte_len, raw_crc32, source, request_id, ts, ts_ms, tenant_id, session_id, decode_node, stream, response_kind, is_error)
     VALUES (?, 1, ?, 0, 0, 1, 0, 'default', ?, '', ?, ?, ?, ?, 0, 'json', 0)`,
  )
  db.transaction(() => {
    for (const r of rows) {
      insert.run(r.id, Buffer.alloc(8 * (r.id % 3)), Buffer.alloc(8 * (r.id % 5)), r.ts, r.tenant, r.session, r.node)
      record.run(r.id, r.id, `r${r.id}`, r.ts, r.tenant, r.session, r.node)
    }
  })()
  return db
}

function check(rows: Row[]): ReturnType<typeof loadRecordOrder> {
  const db = caseWith(rows)
  try {
    const loaded = loadRecordOrder(db)
    const expected = [...rows].sort((a, b) => a.ts - b.ts || a.id - b.id)
    expect(loaded.records).toBe(rows.length)
    expect([...loaded.order.id]).toEqual(expected.map((r) => r.id))
    expect(loaded.rankOfId).toEqual(rankById(loaded.order.id, loaded.maxId))
    for (const r of expected) expect(loaded.order.id[loaded.rankOfId[r.id]!]).toBe(r.id)
    // Numbers stand for the same strings, both ways.
    const same = (numbers: ArrayLike<number>, key: (r: Row) => string | null): void => {
      const byNumber = new Map<number, string | null>()
      const byKey = new Map<string | null, number>()
      const wrong: string[] = []
      expected.forEach((r, rank) => {
        const k = key(r)
        const v = numbers[rank]!
        if ((byNumber.has(v) && byNumber.get(v) !== k) || (byKey.has(k) && byKey.get(k) !== v)) wrong.push(`rank ${rank}: ${k} as ${v}`)
        byNumber.set(v, k)
        byKey.set(k, v)
      })
      expect(wrong.slice(0, 3)).toEqual([])
    }
    same(loaded.order.session, (r) => JSON.stringify([r.tenant, r.session]))
    same(loaded.order.tenant, (r) => r.tenant)
    same(loaded.order.node, (r) => r.node || null)
    expect(expected.filter((r, rank) => loaded.order.node[rank]! < 0 !== (r.node === null || r.node === '')).length).toBe(0)
    expect(loaded.rfps).toBe(Math.floor(rows.reduce((a, r) => a + 8 * (r.id % 5), 0) / 8))
    return loaded
  } finally {
    db.close()
  }
}

describe('record order', () => {
  it('ranks by time then id, with sessions numbered within their tenant', () => {
    const row = fc.record({
      ts: fc.integer({min: 0, max: 50}),
      tenant: fc.constantFrom('t1', 't2', 't3'),
      // The same session id under two tenants is two sessions.
      session: fc.constantFrom('s1', 's2', 's3', 's4'),
      node: fc.constantFrom(null, '', 'n1', 'n2'),
    })
    fc.assert(
      fc.property(fc.array(row, {minLength: 1, maxLength: 80}), (rs) => {
        check(rs.map((r, i) => ({...r, id: i * 2 + 1})))
      }),
      {seed: 180_053, numRuns: 60},
    )
  })

  it('widens tenants past 256 and 65,536 and nodes past 128 and 32,768 without renumbering', () => {
    const rows: Row[] = Array.from({length: 70_000}, (_, i) => ({id: i + 1, ts: (i * 7919) % 1000, tenant: `t${i}`, session: 's', node: i % 2 ? `n${i % 66_000}` : null}))
    const loaded = check(rows)
    expect(loaded.order.tenant).toBeInstanceOf(Int32Array)
    expect(loaded.order.node).toBeInstanceOf(Int32Array)
    const small = check(rows.slice(0, 2_000))
    expect(small.order.tenant).toBeInstanceOf(Uint16Array)
    expect(small.order.node).toBeInstanceOf(Int16Array)
    // 200 tenants and 100 nodes fit 8 bits (-1 for no node); 258 tenants (numbered up to 257)
    // and 129 nodes (up to 128) need 16.
    const tiny = check(rows.slice(0, 200))
    expect(tiny.order.tenant).toBeInstanceOf(Uint8Array)
    expect(tiny.order.node).toBeInstanceOf(Int8Array)
    const past = check(rows.slice(0, 258))
    expect(past.order.tenant).toBeInstanceOf(Uint16Array)
    expect(past.order.node).toBeInstanceOf(Int16Array)
  })
})
