import Database from 'better-sqlite3'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {up as caseSchema} from '../../src/store/migrations/001-case.js'
import {CASE_APPLICATION_ID, openCase} from '../../src/store/open-case.js'
import {atRiskGroups, recordTotals} from '../../src/store/records.js'
import {corpusFacts, insertCorpusFacts, insertReferenceFile} from '../../src/store/scale.js'
import {makeCase} from '../helpers/case-builder.js'
import {tempDir} from '../helpers/cli.js'

// Migration 002 (evidence by reference): a case made at schema 1 gains the columns with the
// facts it already had (its files are copies), and a case keeps to one kind of log evidence.

const referenceFile = {
  path: '/logs/shard-00.jsonl', name: 'shard-00.jsonl', absPath: '/logs/shard-00.jsonl', uri: 'file:///logs/shard-00.jsonl', sha256: 'a'.repeat(64),
  size: 10, compression: 'none' as const, parseSpec: '{}', source: 'default', at: '2026-12-01T00:00:00.000Z', contentSha256: 'a'.repeat(64),
  contentSize: 10, lines: 3, blankLines: 0, records: 3, duplicates: 0, badLines: 0, firstTs: null, lastTs: null, notes: [],
  extractScheme: 'x1/words-k5-w8-v2', unconventionalSha256: '',
}

describe('migration 002-reference-evidence', () => {
  it('migrates a schema-1 case: its files are copies, it has no corpus facts', async () => {
    const path = join(tempDir(), 'v1.db')
    const v1 = new Database(path)
    v1.pragma(`application_id = ${CASE_APPLICATION_ID}`)
    caseSchema(v1)
    v1.pragma('user_version = 1')
    v1.exec(`INSERT INTO files (kind, path, name, abs_path, sha256, size, compression, log_format, source, state, started_at)
             VALUES ('log', 'a.jsonl', 'a.jsonl', '/a.jsonl', 'x', 1, 'none', 'native', 'default', 'complete', 'now')`)
    v1.close()
    const db = openCase(path)
    try {
      expect(db.pragma('user_version', {simple: true})).toBe(2)
      expect(db.prepare('SELECT evidence, uri FROM files').get()).toEqual({evidence: 'copy', uri: null})
      expect(corpusFacts(db)).toBeUndefined()
      // A case of copies cannot take a file by reference: its totals would mix two kinds.
      expect(() => insertReferenceFile(db, referenceFile)).toThrow(/other kind/)
    } finally {
      db.close()
    }
  })

  it('on a case of references, totals come from the recorded facts and another pool is refused', async () => {
    const c = makeCase()
    try {
      insertReferenceFile(c.db, referenceFile)
      insertCorpusFacts(c.db, {
        imported_at: '2026-12-01T00:00:00.000Z', job: '{}', records: 1_000_000, tenants: 40, sessions: 90_000, first_ms: 1, last_ms: 2,
        no_status: 0, no_prompt_tokens: 5, pool_tokens: 681280, advertised_tokens: null, sessions_served: 10, sessions_served_with_confirmed: 11, served_windows: '[]',
      })
      expect(recordTotals(c.db)).toEqual({records: 1_000_000, tenants: 40, sessions: 90_000, first_ms: 1, last_ms: 2})
      expect(atRiskGroups(c.db, 681280, null)).toEqual([])
      expect(() => atRiskGroups(c.db, 100_000, null)).toThrow(/--pool-tokens 681280/)
      // And a copied log file can no longer join it.
      await expect(c.addFile([{request_id: 'r1', tenant_id: 't', session_id: 's'}])).rejects.toThrow(/other kind/)
    } finally {
      c.close()
    }
  })
})
