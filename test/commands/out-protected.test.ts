import {linkSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// `report ... --out FILE` wrote over whatever FILE was: the open case database (the case gone),
// or a log kept by reference (the only copy of the evidence gone). Now it refuses those (exit 2,
// one line) whatever --force says, by real path and by device and inode, and refuses to replace
// an existing file that is not an unchanged report of the same kind this case wrote, unless --force.

const A = 'CANARY-9f8e7d6c5b4a39281706f5e4'

async function referenceCase(): Promise<{dir: string; db: string; log: string}> {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,sess-a,2026-10-01T00:00:00Z\n`)
  const log = join(dir, 'a.jsonl')
  const line = (id: string, tenant: string, session: string, response: string): string =>
    JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id: id, tenant_id: tenant, session_id: session, status: 200, request: 'hello there', response})
  writeFileSync(log, [line('r-1', 'tenant-a', 'sess-a', 'fine'), line('r-2', 'tenant-b', 'sess-b', `here is ${A}`)].join('\n') + '\n')
  const db = join(dir, 'case.db')
  await runJson(['triage', log, '--canaries', canaries, '--db', db, '--evidence', 'reference'])
  await runJson(['incident', 'open', '--title', 't', '--aware-at', '2026-11-02T09:00:00+01:00', '--role', 'controller', '--db', db])
  return {dir, db, log}
}

describe('report --out never destroys the case or its evidence', () => {
  it('refuses the case database, its -wal, an original by path, by symlink and by hard link, even with --force', async () => {
    const {dir, db, log} = await referenceCase()
    const logBytes = readFileSync(log)
    symlinkSync(log, join(dir, 'link.jsonl'))
    linkSync(log, join(dir, 'hard.jsonl'))
    for (const [args, what] of [
      [['report', 'register', '--out', db], 'case database'],
      [['report', 'register', '--out', db, '--force'], 'case database'],
      [['report', 'article33', '--out', `${db}-wal`], 'wal'],
      [['report', 'case', '--format', 'html', '--out', log, '--force'], 'by reference'],
      [['report', 'register', '--format', 'csv', '--out', join(dir, 'link.jsonl')], 'by reference'],
      [['report', 'article34', '--out', join(dir, 'hard.jsonl'), '--force'], 'by reference'],
      [['report', 'article33', '--format', 'json', '--out', join(dir, 'canaries.csv'), '--force'], 'canary registry'],
    ] as const) {
      const r = await run([...args, '--db', db, '--allow-incomplete'])
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stderr.split('\n')[0]).toContain(what)
    }
    expect(readFileSync(log).equals(logBytes)).toBe(true)
    const verify = await run(['verify', '--db', db])
    expect(verify.code, verify.stderr).toBe(0)
  })

  it('replaces its own unchanged report, refuses any other existing file unless --force', async () => {
    const {dir, db} = await referenceCase()
    const out = join(dir, 'register.md')
    expect((await run(['report', 'register', '--out', out, '--db', db])).code).toBe(0)
    // The same report again: a report of this kind this case wrote, unchanged.
    expect((await run(['report', 'register', '--out', out, '--db', db])).code).toBe(0)
    // Another kind of report over it: refused.
    const other = await run(['report', 'article33', '--out', out, '--db', db])
    expect(other.code, other.stderr).toBe(2)
    expect(other.stderr).toContain('--force')
    // A file of the user's: refused, kept; replaced with --force.
    const notes = join(dir, 'notes.md')
    writeFileSync(notes, 'my own notes\n')
    const refused = await run(['report', 'register', '--out', notes, '--db', db])
    expect(refused.code, refused.stderr).toBe(2)
    expect(readFileSync(notes, 'utf8')).toBe('my own notes\n')
    const forced = await run(['report', 'register', '--out', notes, '--db', db, '--force'])
    expect(forced.code, forced.stderr).toBe(0)
    expect(readFileSync(notes, 'utf8')).not.toBe('my own notes\n')
  })
})
