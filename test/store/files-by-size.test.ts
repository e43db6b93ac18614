import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {openCase} from '../../src/store/open-case.js'
import {tempDir} from '../helpers/cli.js'

describe("ingest's lookup of the log files of a size", () => {
  it('reads an index, not every row of files (quadratic over many equal-sized logs)', () => {
    const db = openCase(join(tempDir(), 'case.db'), {create: true})
    try {
      // The statement logFilesOfSize runs (src/store/files.ts).
      const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT * FROM files WHERE kind = 'log' AND size = ?`).all(100) as Array<{detail: string}>
      const details = plan.map((p) => p.detail).join('; ')
      expect(details).toMatch(/USING INDEX files_by_kind_size \(kind=\? AND size=\?\)/)
    } finally {
      db.close()
    }
  })
})
