import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {openCase} from '../../src/store/open-case.js'
import {heapGrowthBounded} from '../../src/util/gc.js'

// triage prints its canary verdict before V8's heap growth is bounded (util/gc.ts): ingest
// bounds it once the quick pass is over, before it stores anything, since from there on the
// case grows with the logs. (Every other command bounds it as it starts: base-command.ts.)

const base = mkdtempSync(join(tmpdir(), 'ct-heap-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

describe('ingest and the heap growth bound', () => {
  it('is unbounded through the quick pass and bounded once ingest proper begins', async () => {
    const log = join(base, 'gw.jsonl')
    const line = (i: number) => JSON.stringify({ts: `2026-10-30T10:00:0${i}Z`, request_id: `r${i}`, tenant_id: 't1', session_id: `s${i}`, request: 'hello', response: 'hi there'})
    writeFileSync(log, `${[1, 2, 3].map(line).join('\n')}\n`)
    const db = openCase(join(base, 'case.db'), {create: true})
    try {
      expect(heapGrowthBounded()).toBe(false)
      let duringPass: boolean | undefined
      const result = await ingestLogs(db, {
        paths: [log], now: () => new Date('2027-01-01T00:00:00Z'), workers: 0,
        quickPass: {onRecord: () => {}, onPass: () => void (duringPass = heapGrowthBounded())},
      })
      expect(result.records).toBe(3)
      expect(duringPass).toBe(false)
      expect(heapGrowthBounded()).toBe(true)
    } finally {
      db.close()
    }
  })
})
