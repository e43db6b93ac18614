import {appendFileSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {runJson} from '../helpers/commands.js'

// A log ingested while its writer had written a whole JSON line but not yet its newline (or the
// `\n` of its CRLF): that line was stored as a record. Once the file grew, the continuation read
// it again and counted it as a duplicate of itself. It must resume after it.

const rec = (i: number): string =>
  JSON.stringify({ts: `2026-11-01T10:0${i}:00Z`, request_id: `req-${i}`, tenant_id: 'tn-a', session_id: `s-${i}`, status: 200, request: `question ${i}`, response: `answer ${i}`})

interface Counts {records: number; duplicates: number; bad_lines: number}
const counts = (c: Counts): Counts => ({records: c.records, duplicates: c.duplicates, bad_lines: c.bad_lines})

async function grow(first: Buffer, rest: Buffer, gzip = false): Promise<{first: Counts; second: Counts; status: Counts}> {
  const dir = tempDir()
  mkdirSync(join(dir, 'logs'))
  const log = join(dir, 'logs', gzip ? 'app.log.gz' : 'app.log')
  const db = join(dir, 'c.db')
  writeFileSync(log, gzip ? gzipSync(first) : first)
  const a = await runJson<Counts>(['ingest', 'logs', log, '--db', db])
  appendFileSync(log, gzip ? gzipSync(rest) : rest)
  const b = await runJson<Counts>(['ingest', 'logs', log, '--db', db])
  const status = await runJson<Counts>(['status', '--db', db])
  return {first: counts(a), second: counts(b), status: counts(status)}
}

describe('a grown log whose stored last line had no line end yet', () => {
  it.each([
    ['LF, cut before the newline', '\n', 0],
    ['CRLF, cut before the \\r', '\r\n', 0],
    ['CRLF, cut between \\r and \\n', '\r\n', 1],
  ])('%s: 6 records, no duplicate', async (_, eol, keep) => {
    const whole = [1, 2, 3, 4, 5, 6].map(rec).join(eol) + eol
    const cut = whole.indexOf(rec(3)) + rec(3).length + keep
    const r = await grow(Buffer.from(whole.slice(0, cut)), Buffer.from(whole.slice(cut)))
    expect(r.first).toEqual({records: 3, duplicates: 0, bad_lines: 0})
    expect(r.second).toEqual({records: 3, duplicates: 0, bad_lines: 0})
    expect(r.status).toEqual({records: 6, duplicates: 0, bad_lines: 0})
  })

  it('a .gz grown by a member that begins with the newline', async () => {
    const head = [1, 2, 3].map(rec).join('\n')
    const r = await grow(Buffer.from(head), Buffer.from('\n' + [4, 5].map(rec).join('\n') + '\n'), true)
    expect(r.second).toEqual({records: 2, duplicates: 0, bad_lines: 0})
    expect(r.status).toEqual({records: 5, duplicates: 0, bad_lines: 0})
  })

  it('a last line cut inside its JSON is still read again whole once it grew (quarantined, then settled)', async () => {
    const whole = [1, 2, 3].map(rec).join('\n') + '\n'
    const cut = whole.length - 10
    const r = await grow(Buffer.from(whole.slice(0, cut)), Buffer.from(whole.slice(cut)))
    expect(r.first).toEqual({records: 2, duplicates: 0, bad_lines: 1})
    expect(r.second).toEqual({records: 1, duplicates: 0, bad_lines: 0})
    expect(r.status).toEqual({records: 3, duplicates: 0, bad_lines: 0})
  })
})
