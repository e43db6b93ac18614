import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {runJson} from '../helpers/commands.js'

// The same records shipped under two --source labels are stored twice (a request id is unique
// only within its source) and said loudly (SAME RECORDS ..., status COUNTED TWICE). A copy whose
// line ends (CRLF for LF) or JSON serialisation (key order, spacing) differ went unsaid, while
// every figure counted its records twice.

const obj = (i: number, answer = `answer ${i}`) => ({ts: `2026-11-01T10:0${i}:00Z`, request_id: `req-${i}`, tenant_id: 'tn-a', session_id: `s-${i}`, status: 200, request: `question ${i}`, response: answer})
const ids = [1, 2, 3, 4]

interface Ingest {warnings: string[]; per_file: Array<{notes: string[]}>}
interface Status {records: number; same_records_other_source: Array<{path: string; note: string}>}

async function twice(second: string): Promise<{ingest: Ingest; status: Status}> {
  const dir = tempDir()
  const db = join(dir, 'c.db')
  writeFileSync(join(dir, 'gw.jsonl'), ids.map((i) => JSON.stringify(obj(i))).join('\r\n') + '\r\n')
  writeFileSync(join(dir, 'edge.jsonl'), second)
  await runJson(['ingest', 'logs', join(dir, 'gw.jsonl'), '--source', 'gw', '--db', db])
  const ingest = await runJson<Ingest>(['ingest', 'logs', join(dir, 'edge.jsonl'), '--source', 'edge', '--db', db])
  return {ingest, status: await runJson<Status>(['status', '--db', db])}
}

const sameNotes = (r: {ingest: Ingest}) => r.ingest.per_file[0]!.notes.filter((n) => n.startsWith('SAME RECORDS under another source'))

describe('the same records under another --source, their lines written otherwise', () => {
  it.each([
    ['LF line ends for CRLF', ids.map((i) => JSON.stringify(obj(i))).join('\n') + '\n'],
    ['keys in another order, other spacing', ids.map((i) => JSON.stringify(Object.fromEntries(Object.entries(obj(i)).reverse()), null, 1).replace(/\n/g, '')).join('\n') + '\n'],
  ])('%s: named as counted twice', async (_, second) => {
    const r = await twice(second)
    expect(sameNotes(r)).toHaveLength(1)
    expect(sameNotes(r)[0]).toContain('4 of its 4 records repeat')
    expect(sameNotes(r)[0]).toContain('--source "gw"')
    expect(r.status.records).toBe(8)
    expect(r.status.same_records_other_source.map((s) => s.path)).toEqual([expect.stringMatching(/edge\.jsonl$/)])
  })

  it('records under the same request ids with other answers are not said to be the same', async () => {
    const r = await twice(ids.map((i) => JSON.stringify(obj(i, i === 2 ? 'answer 2' : `another answer entirely ${i}`))).join('\n') + '\n')
    expect(sameNotes(r)).toHaveLength(1)
    expect(sameNotes(r)[0]).toContain('1 of its 4 records repeats')
  })
})
