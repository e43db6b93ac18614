import Database from 'better-sqlite3'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {MIGRATIONS} from '../../src/store/migrations/index.js'
import {CASE_APPLICATION_ID, LATEST_SCHEMA, openCase} from '../../src/store/open-case.js'
import {atRiskGroups, recordsMissingAtRiskFields, recordTotals, tenantHasRecords} from '../../src/store/records.js'
import {corpusFacts, insertCorpusFacts, insertReferenceFile, type CorpusFacts} from '../../src/store/scale.js'
import {makeCase} from '../helpers/case-builder.js'
import {tempDir} from '../helpers/cli.js'

// Migration 004 (evidence by reference): a case made by an earlier version (schema 3) gains the
// columns with the facts it already had (its files are copies), a new case carries it, and a
// case keeps to one kind of log evidence.

const referenceFile = {
  path: '/logs/shard-00.jsonl', name: 'shard-00.jsonl', absPath: '/logs/shard-00.jsonl', uri: 'file:///logs/shard-00.jsonl', sha256: 'a'.repeat(64),
  size: 10, compression: 'none' as const, parseSpec: '{}', source: 'default', at: '2026-12-01T00:00:00.000Z', contentSha256: 'a'.repeat(64),
  contentSize: 10, lines: 3, blankLines: 0, records: 3, duplicates: 0, badLines: 0, firstTs: null, lastTs: null, notes: [],
  extractScheme: 'x1/words-k5-w8-v2', unconventionalSha256: '', logFormat: 'native', formatReason: 'auto: native', noRequestText: 0, noResponseText: 0,
  errorRecords: 0, ignoredItems: 0, unread: null,
}

const facts: CorpusFacts = {
  imported_at: '2026-12-01T00:00:00.000Z', job: '{}', records: 1_000_000, tenants: 2, tenant_ids: '["tenant-a","tenant-z"]', sessions: 90_000, first_ms: 1, last_ms: 2,
  no_status: 0, no_prompt_tokens: 5, no_completion_tokens: 7, no_decode_node: 9, no_status_or_prompt_tokens: 5, undecided_at_risk: 3, pool_tokens: 681280, advertised_tokens: null,
  sessions_served: 10, sessions_served_with_confirmed: 11, served_windows: '[]',
}

describe('migration 004-reference-evidence', () => {
  it('follows 003, and a new case carries it', () => {
    expect(MIGRATIONS.map((m) => `${String(m.version).padStart(3, '0')}-${m.name}`).slice(0, 4)).toEqual(['001-case', '002-log-formats', '003-recorded-facts', '004-reference-evidence'])
    const c = makeCase()
    try {
      expect(c.db.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
      expect(c.db.prepare(`SELECT count(*) FROM pragma_table_info('files') WHERE name IN ('evidence', 'uri')`).pluck().get()).toBe(2)
    } finally {
      c.close()
    }
  })

  it('migrates a schema-3 case: its files are copies, it has no corpus facts', () => {
    const path = join(tempDir(), 'v3.db')
    const v3 = new Database(path)
    v3.pragma(`application_id = ${CASE_APPLICATION_ID}`)
    for (const m of MIGRATIONS.filter((x) => x.version <= 3)) m.up(v3)
    v3.pragma('user_version = 3')
    v3.exec(`INSERT INTO files (kind, path, name, abs_path, sha256, size, compression, log_format, source, state, started_at)
             VALUES ('log', 'a.jsonl', 'a.jsonl', '/a.jsonl', 'x', 1, 'none', 'native', 'default', 'complete', 'now')`)
    v3.close()
    const db = openCase(path)
    try {
      expect(db.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
      expect(db.prepare('SELECT evidence, uri, lines_held FROM files').get()).toEqual({evidence: 'copy', uri: null, lines_held: 'all'})
      expect(corpusFacts(db)).toBeUndefined()
      // A case of copies cannot take a file by reference: its totals would mix two kinds.
      expect(() => insertReferenceFile(db, referenceFile)).toThrow(/other kind/)
    } finally {
      db.close()
    }
  })

  it('on a case of references, totals and unknown fields come from the recorded facts, and another pool is refused', async () => {
    const c = makeCase()
    try {
      insertReferenceFile(c.db, referenceFile)
      insertCorpusFacts(c.db, facts)
      expect(recordTotals(c.db)).toEqual({records: 1_000_000, tenants: 2, sessions: 90_000, first_ms: 1, last_ms: 2})
      expect(recordsMissingAtRiskFields(c.db)).toEqual({
        records: 1_000_000, no_status: 0, no_prompt_tokens: 5, no_completion_tokens: 7, no_decode_node: 9, no_status_or_prompt_tokens: 5,
      })
      // A tenant no finding rests on still had records (the job listed every tenant).
      expect(tenantHasRecords(c.db, 'tenant-z')).toBe(true)
      expect(tenantHasRecords(c.db, 'tenant-q')).toBe(false)
      expect(atRiskGroups(c.db, 681280, null)).toEqual([])
      expect(() => atRiskGroups(c.db, 100_000, null)).toThrow(/--pool-tokens 681280/)
      // And a copied log file can no longer join it.
      await expect(c.addFile([{request_id: 'r1', tenant_id: 't', session_id: 's'}])).rejects.toThrow(/Spark findings.*new case/)
    } finally {
      c.close()
    }
  })
})

describe('migration 005-original-evidence', () => {
  it('marks the files of a schema-4 case of Spark findings as holding the findings\' lines, and copies as holding all', () => {
    const path = join(tempDir(), 'v4.db')
    const v4 = new Database(path)
    v4.pragma(`application_id = ${CASE_APPLICATION_ID}`)
    for (const m of MIGRATIONS.filter((x) => x.version <= 4)) m.up(v4)
    v4.pragma('user_version = 4')
    v4.exec(`INSERT INTO files (kind, evidence, uri, path, name, abs_path, sha256, size, compression, log_format, source, state, started_at)
             VALUES ('log', 'reference', 'file:///s.jsonl', 's.jsonl', 's.jsonl', '/s.jsonl', 'x', 1, 'none', 'native', 'default', 'complete', 'now')`)
    v4.close()
    const db = openCase(path)
    try {
      expect(db.pragma('user_version', {simple: true})).toBe(LATEST_SCHEMA)
      expect(db.prepare('SELECT evidence, lines_held FROM files').get()).toEqual({evidence: 'reference', lines_held: 'findings'})
      // Logs read by ingest (copied or by reference) cannot join Spark findings, nor findings them.
      for (const [evidence, held] of [['copy', 'all'], ['reference', 'none']]) {
        expect(() =>
          db.prepare(`INSERT INTO files (kind, evidence, lines_held, path, name, abs_path, sha256, size, compression, log_format, source, state, started_at)
                      VALUES ('log', ?, ?, 'a.jsonl', 'a.jsonl', '/a.jsonl', ?, 1, 'none', 'native', 'default', 'loading', 'now')`).run(evidence, held, `y-${held}`),
        ).toThrow(/other kind/)
      }
    } finally {
      db.close()
    }
  })

  it('lets a case of ingested logs hold copies and files by reference, and refuses a copy that holds no line', () => {
    const c = makeCase()
    try {
      const insert = c.db.prepare(`INSERT INTO files (kind, evidence, lines_held, path, name, abs_path, sha256, size, compression, log_format, source, state, started_at)
                                   VALUES ('log', ?, ?, ?, ?, ?, ?, 1, 'none', 'native', 'default', 'loading', 'now')`)
      insert.run('copy', 'all', 'a.jsonl.gz', 'a.jsonl.gz', '/a.jsonl.gz', 'h1')
      insert.run('reference', 'none', 'b.jsonl', 'b.jsonl', '/b.jsonl', 'h2')
      expect(() => insert.run('copy', 'none', 'c.jsonl', 'c.jsonl', '/c.jsonl', 'h3')).toThrow(/does not agree/)
      expect(() => insert.run('reference', 'all', 'd.jsonl', 'd.jsonl', '/d.jsonl', 'h4')).toThrow(/does not agree/)
    } finally {
      c.close()
    }
  })
})
