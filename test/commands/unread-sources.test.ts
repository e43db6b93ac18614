import Database from 'better-sqlite3'
import {copyFileSync, existsSync, mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// `ingest logs` named the entries it could not read and exited 1, but the case forgot them: a
// later `scan --fail-on-leak` on the same case passed over a .zst log nobody read, and status
// did not list it. The case now keeps each open until the same source is ingested whole or
// dismissed with a reason, and verify replays both from the audit log.

const registry = (dir: string): string => {
  const file = join(dir, 'canaries.csv')
  writeFileSync(file, 'marker,tenant_id,session_id\nCANARY-00000000000000000000000000000001,tenant-a,sess-1\n')
  return file
}
const clean = (id: string): string => `${chatLine({request_id: id})}\n`
const ZST = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0])

interface StatusJson {
  unread_sources: Array<{id: number; path: string; size: number | null; sha256: string | null; reason: string; recorded_by: string}>
}

async function caseWithZst(): Promise<{dir: string; logs: string; db: string; zst: string}> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'clean.jsonl'), clean('c'))
  const zst = join(logs, 'leak.jsonl.zst')
  writeFileSync(zst, ZST)
  const db = join(dir, 'case.db')
  expect((await run(['ingest', 'canaries', registry(dir), '--db', db])).code).toBe(0)
  const r = await run(['ingest', 'logs', logs, '--db', db])
  expect(r.code).toBe(1)
  return {dir, logs, db, zst}
}

describe('the case remembers the log sources an ingest could not read', () => {
  it('a later scan --fail-on-leak exits 1 naming it, status lists it, and a dismissal with a reason settles it', async () => {
    const {db, zst} = await caseWithZst()
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code).toBe(1)
    expect(scan.stderr).toMatch(/--fail-on-leak cannot pass: 1 log source an ingest reached and did not read is open in the case, the first .*leak\.jsonl\.zst \(compressed as \.zst/)
    expect(scan.stderr.trim().split('\n').filter((l) => l.includes('cannot pass'))).toHaveLength(1)

    const status = JSON.parse((await run(['status', '--db', db, '--json'])).stdout) as StatusJson
    expect(status.unread_sources).toHaveLength(1)
    expect(status.unread_sources[0]).toMatchObject({path: zst, size: ZST.length, recorded_by: 'ingest logs'})
    expect(status.unread_sources[0]!.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect((await run(['status', '--db', db])).stdout).toMatch(/NOT READ +.*leak\.jsonl\.zst: compressed as \.zst/)

    // Ingesting the same directory again names it again, once.
    expect((await run(['ingest', 'logs', join(zst, '..'), '--db', db])).code).toBe(1)
    expect((JSON.parse((await run(['status', '--db', db, '--json'])).stdout) as StatusJson).unread_sources).toHaveLength(1)

    const bad = await run(['ingest', 'dismiss', join(zst, '..', 'other.zst'), '--reason', 'x', '--db', db])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/other\.zst: no unread source of the case is open at this path/)
    expect((await run(['ingest', 'dismiss', zst, '--reason', '  ', '--db', db])).code).toBe(2)
    const d = await run(['ingest', 'dismiss', zst, '--reason', 'decompressed and ingested as leak.jsonl', '--db', db, '--json'])
    expect(d.code, d.stderr).toBe(0)
    expect(JSON.parse(d.stdout)).toMatchObject({dismissed: [{path: zst}], reason: 'decompressed and ingested as leak.jsonl'})
    expect((JSON.parse((await run(['status', '--db', db, '--json'])).stdout) as StatusJson).unread_sources).toEqual([])
    const again = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(again.code, again.stderr).toBe(0)
    const v = await run(['verify', '--db', db, '--no-originals'])
    expect(v.stdout + v.stderr).toMatch(/^OK: /m)
  })

  it('the Article 33 draft, the processor notice and the case page state it as not examined, by name only', async () => {
    const {db, logs} = await caseWithZst()
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const a33 = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout) as {
      scope: {log_sources_not_read: number}; statements: Array<{text: string}>; open_items: Array<{item: string}>
    }
    expect(a33.scope.log_sources_not_read).toBe(1)
    expect(a33.open_items.some((o) => /1 log source \(leak\.jsonl\.zst\) could not be read and was not examined/.test(o.item))).toBe(true)
    expect(a33.statements.some((t) => /no response carrying another session's data\. 1 further log source \(leak\.jsonl\.zst\) could not be read/.test(t.text))).toBe(true)
    expect(JSON.stringify(a33)).not.toContain(logs)
    // A notice goes to a customer in the exposure: a leak of tenant-b's marker to tenant-a.
    const leakMarker = 'CANARY-00000000000000000000000000000009'
    const more = join(logs, '..', 'leak.jsonl')
    writeFileSync(join(logs, '..', 'b.csv'), `marker,tenant_id,session_id\n${leakMarker},tenant-b,sess-9\n`)
    writeFileSync(more, `${chatLine({request_id: 'l', answer: `code ${leakMarker}`})}\n`)
    expect((await run(['ingest', 'canaries', join(logs, '..', 'b.csv'), '--db', db])).code).toBe(0)
    expect((await run(['ingest', 'logs', more, '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const notice = await run(['report', 'processor-notice', '--db', db, '--tenant', 'tenant-b'])
    expect(notice.stdout).toMatch(/1 further log source \(leak\.jsonl\.zst\) could not be read and was not examined/)
    expect(notice.stdout).toMatch(/to be completed: 1 log source \(leak\.jsonl\.zst\) could not be read/)
    const page = JSON.parse((await run(['report', 'case', '--db', db, '--format', 'json'])).stdout) as {unjudgeable_files: Array<{name: string; why: string}>}
    expect(page.unjudgeable_files).toEqual([{name: 'leak.jsonl.zst', why: expect.stringMatching(/^not read: compressed as \.zst/)}])
    expect((await run(['ingest', 'dismiss', join(logs, 'leak.jsonl.zst'), '--reason', 'holds no log', '--db', db])).code).toBe(0)
    const after = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout) as {scope: {log_sources_not_read: number}}
    expect(after.scope.log_sources_not_read).toBe(0)
  })

  it('triage --fail-on-leak over other logs does not pass while one is open', async () => {
    const {dir, db} = await caseWithZst()
    const more = join(dir, 'more.jsonl')
    writeFileSync(more, clean('m'))
    const t = await run(['triage', more, '--canaries', registry(dir), '--db', db, '--fail-on-leak'])
    expect(t.code).toBe(1)
    expect(t.stderr).toMatch(/1 log source an ingest reached and did not read is open in the case, the first .*leak\.jsonl\.zst/)
  })

  it('a triage or an ingest that could read none of its paths still leaves them open in the case', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'clean.jsonl'), clean('c'))
    expect((await run(['triage', join(dir, 'clean.jsonl'), '--canaries', registry(dir), '--db', db])).code).toBe(0)
    const zdir = join(dir, 'z')
    mkdirSync(zdir)
    writeFileSync(join(zdir, 'a.jsonl.zst'), ZST)
    const t = await run(['triage', zdir, '--canaries', registry(dir), '--db', db])
    expect(t.code).toBe(1)
    expect(t.stderr).toMatch(/no log file could be read/)
    writeFileSync(join(zdir, 'b.jsonl.zst'), ZST.subarray(0, 6))
    expect((await run(['ingest', 'logs', join(zdir, 'b.jsonl.zst'), join(zdir, '*.zst'), '--db', db])).code).toBe(1)
    const status = JSON.parse((await run(['status', '--db', db, '--json'])).stdout) as StatusJson
    expect(status.unread_sources.map((u) => [u.path, u.recorded_by])).toEqual([[join(zdir, 'a.jsonl.zst'), 'triage'], [join(zdir, 'b.jsonl.zst'), 'ingest logs']])
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code).toBe(1)
    expect(scan.stderr).toMatch(/2 log sources an ingest reached and did not read are open in the case, the first .*a\.jsonl\.zst/)
    const v = await run(['verify', '--db', db, '--no-originals'])
    expect(v.stdout + v.stderr).toMatch(/^OK: /m)
  })

  it('a source whose bytes could not be read is settled by ingesting that path whole', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'clean.jsonl'), clean('c'))
    const target = join(dir, 'later.jsonl')
    const link = join(logs, 'later.jsonl')
    symlinkSync(target, link)
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', registry(dir), '--db', db])).code).toBe(0)
    expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(1)
    const open = (JSON.parse((await run(['status', '--db', db, '--json'])).stdout) as StatusJson).unread_sources
    expect(open).toMatchObject([{path: link, size: null, sha256: null}])
    writeFileSync(target, clean('l'))
    const r = await run(['ingest', 'logs', link, '--db', db, '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout).unread_sources).toMatchObject({recorded: [], settled: [{path: link}]})
    expect((JSON.parse((await run(['status', '--db', db, '--json'])).stdout) as StatusJson).unread_sources).toEqual([])
    expect((await run(['scan', '--db', db, '--fail-on-leak'])).code).toBe(0)
  })

  it('a file refused for its lines stays open after the run', async () => {
    const dir = tempDir()
    const file = join(dir, 'garbage.jsonl')
    writeFileSync(file, 'not json\nnor this\n')
    writeFileSync(join(dir, 'clean.jsonl'), clean('c'))
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', registry(dir), '--db', db])).code).toBe(0)
    expect((await run(['ingest', 'logs', join(dir, 'clean.jsonl'), file, '--db', db])).code).toBe(1)
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code).toBe(1)
    expect(scan.stderr).toMatch(/the first .*garbage\.jsonl \(not ingested: /)
  })

  it('a gate that trips names an open source with its controls made visible', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    const marker = 'CANARY-00000000000000000000000000000009'
    writeFileSync(join(dir, 'c.csv'), `marker,tenant_id,session_id\n${marker},tenant-b,sess-9\n`)
    writeFileSync(join(logs, 'leak.jsonl'), `${chatLine({request_id: 'l', answer: `code ${marker}`})}\n`)
    writeFileSync(join(logs, 'x\u001b[2Jy.jsonl.zst'), ZST)
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', join(dir, 'c.csv'), '--db', db])).code).toBe(0)
    expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(1)
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code).toBe(3)
    expect(scan.stderr).toMatch(/Gate: also: .*1 log source an ingest reached and did not read is open/)
    expect(scan.stderr).not.toContain('\u001b[2J')
  })

  it('verify names an open entry removed or settled by hand', async () => {
    const {dir, db} = await caseWithZst()
    let n = 0
    const tampered = (sql: string): string => {
      const path = join(dir, `t${++n}.db`)
      for (const s of ['', '-wal', '-shm']) if (existsSync(db + s)) copyFileSync(db + s, path + s)
      const d = new Database(path)
      d.exec(sql)
      d.close()
      return path
    }
    const removed = await run(['verify', '--db', tampered('DELETE FROM unread_sources'), '--no-originals'])
    expect(removed.code).toBe(1)
    expect(removed.stdout + removed.stderr).toMatch(/unread source 1 .*leak\.jsonl\.zst.*removed outside crosstalk/)
    const settled = await run(['verify', '--db', tampered(`UPDATE unread_sources SET settled_at = '2026-01-01T00:00:00.000Z', settled_by = 'dismiss', settle_note = 'x'`), '--no-originals'])
    expect(settled.code).toBe(1)
    expect(settled.stdout + settled.stderr).toMatch(/unread source 1 .*no audit entry settles it: settled outside crosstalk/)
  })
})
