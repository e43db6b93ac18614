import Database from 'better-sqlite3'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {verifyCase} from '../../src/case/verify.js'
import {openCase} from '../../src/store/open-case.js'
import {ROOT} from '../helpers/cli.js'
import {makeCase} from '../helpers/case-builder.js'

// verify spreads log files over worker threads (each with its own read-only connection); what
// it finds must not depend on that. The workers run the built script (dist/), as installed.

describe('verify on worker threads', () => {
  it.skipIf(!existsSync(join(ROOT, 'dist/case/verify-worker.js')))('finds the same problems, in the same order, as on the main thread', async () => {
    const c = makeCase()
    await c.addCanary('CANARY-7777777777777777aaaa', 'ta', 'sa')
    for (let f = 0; f < 3; f++) {
      await c.addFile(Array.from({length: 20}, (_, i) => ({request_id: `f${f}-r${i}`, tenant_id: i % 2 ? 'ta' : 'tb', session_id: i % 2 ? 'sa' : 'sb', request_text: 'hi', response_text: `answer ${i} CANARY-7777777777777777aaaa`})))
    }
    const path = c.path
    c.close()
    const sql = new Database(path)
    sql.prepare(`UPDATE records SET tenant_id = 'tz' WHERE request_id IN ('f0-r3', 'f2-r5')`).run()
    sql.prepare(`DELETE FROM records WHERE request_id = 'f1-r7'`).run()
    sql.close()
    const db = openCase(path, {readonly: true})
    try {
      const inline = await verifyCase(db, {workers: 0})
      const threaded = await verifyCase(db, {workers: 2})
      expect(inline.problems.map((p) => p.where)).toEqual(expect.arrayContaining([expect.stringMatching(/record f0-r3/), expect.stringMatching(/record f2-r5/), expect.stringMatching(/line 8/)]))
      expect([inline.workers, threaded.workers]).toEqual([0, 2])
      expect(threaded.problems).toEqual(inline.problems)
      expect(threaded.problems_total).toBe(inline.problems_total)
      expect(threaded.records_checked).toBe(inline.records_checked)
    } finally {
      db.close()
    }
  })
})
