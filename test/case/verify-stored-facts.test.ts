import Database from 'better-sqlite3'
import {copyFileSync, existsSync, mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA (verify): facts of a log file the case stores and its ingest recorded (its notes, when its
// ingest started and finished, its compression, its format's reason), a record's item, and
// where a file kept by reference is read from (moved by hand instead of with `relocate`) were
// compared with nothing: changed with sqlite, verify said OK. Each test tampers a copy by hand.

const A = 'CANARY-0123456789abcdef0123'
const answer = (text: string) => ({object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: text}}]})
const line = (id: string, ts: string): string => JSON.stringify({status: 200, ts, request_id: id, tenant_id: 'tA', session_id: 'sA', request: {messages: [{role: 'user', content: `hi ${A}`}]}, response: answer('ok')})

let dir: string
let copied: string
let referenced: string
let logs: string

beforeAll(async () => {
  dir = tempDir()
  writeFileSync(join(dir, 'plain.jsonl'), `${line('p1', '2026-11-02T10:00:00Z')}\n${line('p2', '2026-11-02T10:00:01Z')}\n`)
  writeFileSync(join(dir, 'packed.jsonl.gz'), gzipSync(`${line('g1', '2026-11-02T11:00:00Z')}\n`))
  copied = join(dir, 'copied.db')
  await runJson(['ingest', 'logs', join(dir, 'plain.jsonl'), join(dir, 'packed.jsonl.gz'), '--db', copied])
  logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'ref.jsonl'), `${line('r1', '2026-11-02T12:00:00Z')}\n`)
  referenced = join(dir, 'referenced.db')
  // A .gz file is copied all the same, with a note saying so.
  copyFileSync(join(dir, 'packed.jsonl.gz'), join(logs, 'packed.jsonl.gz'))
  await runJson(['ingest', 'logs', join(logs, 'ref.jsonl'), join(logs, 'packed.jsonl.gz'), '--evidence', 'reference', '--db', referenced])
})

let copies = 0
function tampered(base: string, sql: string): string {
  const path = join(dir, `tampered-${++copies}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  const db = new Database(path)
  db.exec(sql)
  db.close()
  return path
}

async function verify(path: string, originals = false): Promise<{code: number; out: string}> {
  const r = await run(['verify', '--db', path, ...(originals ? [] : ['--no-originals'])])
  return {code: r.code, out: r.stdout + r.stderr}
}

describe('verify compares the file facts its ingest recorded', () => {
  it('passes the untouched cases', async () => {
    expect((await verify(copied)).code).toBe(0)
    expect((await verify(referenced, true)).code).toBe(0)
  })

  it.each([
    ['notes', `UPDATE files SET notes = '["read whole, nothing to see"]' WHERE name = 'plain.jsonl'`, /plain\.jsonl: its notes are/],
    ['start time', `UPDATE files SET started_at = '2026-01-01T00:00:00.000Z' WHERE name = 'plain.jsonl'`, /plain\.jsonl: its ingest start time is "2026-01-01T00:00:00\.000Z", but audit entry/],
    ['completion time', `UPDATE files SET completed_at = '2026-01-01T00:00:00.000Z' WHERE name = 'plain.jsonl'`, /plain\.jsonl: its ingest completion time is "2026-01-01T00:00:00\.000Z"/],
    ['compression', `UPDATE files SET compression = 'none' WHERE name = 'packed.jsonl.gz'`, /packed\.jsonl\.gz: its compression is "none", but audit entry \d+ recorded "gzip"/],
    ['format reason', `UPDATE files SET format_reason = 'given' WHERE name = 'plain.jsonl'`, /plain\.jsonl: its format reason is "given"/],
    ['source', `UPDATE files SET source = 'other' WHERE name = 'plain.jsonl'`, /plain\.jsonl: its source is "other"/],
  ])('fails when its %s is changed by hand', async (_what, sql, named) => {
    const r = await verify(tampered(copied, sql))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(named)
  })

  it('fails when the notes its ingest recorded are removed by hand', async () => {
    const r = await verify(tampered(referenced, `UPDATE files SET notes = NULL WHERE name = 'packed.jsonl.gz'`))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/packed\.jsonl\.gz: its notes are null, but audit entry \d+ recorded "\[/)
  })

  it("fails when a record's item is changed by hand", async () => {
    const r = await verify(tampered(copied, `UPDATE records SET item = 1 WHERE request_id = 'p2'`))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/record p2 .*its item is 1, but its line holds one record/)
  })
})

describe('verify follows what a later ingest records', () => {
  it('passes a case whose file kept by reference was then copied in by a second ingest', async () => {
    const path = join(dir, 'copied-in.db')
    for (const suffix of ['', '-wal', '-shm']) if (existsSync(referenced + suffix)) copyFileSync(referenced + suffix, path + suffix)
    await run(['ingest', 'logs', join(logs, 'ref.jsonl'), '--evidence', 'copy', '--db', path])
    const db = new Database(path, {readonly: true})
    expect(db.prepare(`SELECT lines_held FROM files WHERE name = 'ref.jsonl'`).pluck().get()).toBe('all')
    db.close()
    const v = await verify(path, true)
    expect(v.out).not.toMatch(/lines_held/)
    expect(v.code).toBe(0)
  })
})

describe('verify follows relocate', () => {
  it('passes a case whose originals were relocated, and fails one moved by hand', async () => {
    const moved = join(dir, 'moved')
    mkdirSync(moved)
    copyFileSync(join(logs, 'ref.jsonl'), join(moved, 'ref.jsonl'))
    const relocated = tampered(referenced, '')
    const r = await run(['relocate', logs, moved, '--db', relocated])
    expect(r.code).toBe(0)
    expect((await verify(relocated, true)).code).toBe(0)

    // The same bytes, pointed at by hand: no relocate records it.
    const other = join(dir, 'elsewhere')
    mkdirSync(other)
    copyFileSync(join(logs, 'ref.jsonl'), join(other, 'ref.jsonl'))
    for (const base of [referenced, relocated]) {
      const byHand = tampered(base, `UPDATE files SET abs_path = '${join(other, 'ref.jsonl')}'`)
      const v = await verify(byHand, true)
      expect(v.code).toBe(1)
      expect(v.out).toMatch(/ref\.jsonl: it is read from .*elsewhere.*, but the audit log puts it at .*(logs|moved).* moved outside `crosstalk relocate`/)
    }
  })
})
