import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {makeCase} from '../helpers/case-builder.js'

// The same request (source and request_id) logged twice with times an hour apart: the record
// read first is kept, so first_seen follows the order the files are given. That is said, with a
// count, never decided silently (QA report on time, item 13b).

const line = (ts: string, id = 'r1') => JSON.stringify({ts, request_id: id, tenant_id: 'tA', session_id: 'sA', request: 'hi', response: 'ok'})

describe('a duplicate whose time differs from the record kept', () => {
  it('is counted and warned of, naming its line and both times; the first read is kept', async () => {
    const tc = makeCase()
    const a = join(tc.dir, 'a.jsonl')
    const b = join(tc.dir, 'b.jsonl')
    writeFileSync(a, `${line('2026-11-01T10:00:00Z')}\n${line('2026-11-01T11:00:00Z', 'r2')}\n`)
    // r1 an hour earlier (a zone read wrong), r2 byte for byte the same time but other bytes.
    writeFileSync(b, `${line('2026-11-01T10:00:00+01:00')}\n${line('2026-11-01T11:00:00.000Z', 'r2')}\n`)
    const out = await ingestLogs(tc.db, {paths: [a, b], now: () => new Date('2026-11-03T00:00:00Z'), workers: 0})
    const second = out.per_file.find((f) => f.path.endsWith('b.jsonl'))!
    expect(second.duplicates).toBe(2)
    expect(second.duplicates_other_time).toBe(1)
    expect(second.notes).toContain('1 duplicate (a request_id already read from this source) gives another time than the record kept (first at line 1: 2026-11-01T09:00:00.000Z, kept 2026-11-01T10:00:00.000Z): the record read first is kept, so first and last seen depend on the order the files were given; times an hour or more apart are the mark of a zone read wrong in one of the logs')
    expect(out.per_file.find((f) => f.path.endsWith('a.jsonl'))!.duplicates_other_time).toBeUndefined()
    tc.db.close()
  })
})
