import {spawnSync} from 'node:child_process'
import Database from 'better-sqlite3'
import {realpathSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, runCli, tempDir} from '../helpers/cli.js'

// `ingest logs /dev/stdin < a.jsonl` (copy mode, the default) recorded the path /dev/stdin, and
// every later verify re-hashed "the original" there, which is whatever the new process has on its
// stdin: FAIL original ... shorter (0 bytes) than the 408 bytes read then, on a case nobody
// touched. The same for `ingest canaries /dev/stdin`. A descriptor open on a file with a path of
// its own is recorded as that file; one open on no such file is known to verify as an original
// that cannot be read again (the case's copy is the evidence).

const LINE = `${JSON.stringify({ts: '2026-11-01T00:00:00Z', request_id: 'r1', tenant_id: 'tn-a', session_id: 's1', request: 'hello there', response: 'hi'})}\n`
const REGISTRY = 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000000000000000000001,tn-a,s1,2026-10-31T00:00:00Z\n'

function sh(script: string, cwd: string): {code: number; stdout: string; stderr: string} {
  const r = spawnSync('bash', ['-c', script], {cwd, encoding: 'utf8', env: {...process.env, NO_COLOR: '1', CROSSTALK_DB: '', CT: `'${process.execPath}' '${BIN}'`}, timeout: 120_000})
  return {code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

describe('evidence ingested from /dev/stdin', () => {
  it('is recorded as the file stdin was redirected from, and verify passes with another stdin', () => {
    const dir = tempDir('ct-stdin-')
    writeFileSync(join(dir, 'a.jsonl'), LINE)
    writeFileSync(join(dir, 'c.csv'), REGISTRY)
    expect(sh('eval "$CT ingest canaries /dev/stdin --db case.db" < c.csv', dir).code).toBe(0)
    expect(sh('eval "$CT ingest logs /dev/stdin --db case.db" < a.jsonl', dir).code).toBe(0)
    expect(runCli(['scan', '--db', join(dir, 'case.db')], {cwd: dir}).code).toBe(0)
    const db = new Database(join(dir, 'case.db'), {readonly: true})
    const paths = db.prepare('SELECT abs_path FROM files ORDER BY kind').pluck().all() as string[]
    db.close()
    expect([...paths].sort()).toEqual([join(realpathSync(dir), 'a.jsonl'), join(realpathSync(dir), 'c.csv')])
    const v = runCli(['verify', '--db', join(dir, 'case.db')], {cwd: dir, input: ''})
    expect(v.code, v.stdout + v.stderr).toBe(0)
    expect(v.stdout).toMatch(/2 originals re-hashed/)
  }, 120_000)

  it('open on no file of its own (deleted): verify says it cannot be read again, never that it was altered', () => {
    const dir = tempDir('ct-stdin-gone-')
    writeFileSync(join(dir, 'a.jsonl'), LINE)
    expect(sh('exec < a.jsonl; rm a.jsonl; eval "$CT ingest logs /dev/stdin --db case.db"', dir).code).toBe(0)
    const v = runCli(['verify', '--db', join(dir, 'case.db'), '--json'], {cwd: dir, input: ''})
    expect(v.code, v.stdout + v.stderr).toBe(0)
    const doc = JSON.parse(v.stdout) as {ok: boolean; problems: unknown[]; not_checked: string[]}
    expect(doc.problems).toEqual([])
    expect(doc.not_checked.join('\n')).toMatch(/\/dev\/stdin \(read from a file descriptor of the process that ingested it, not a file that can be read again\)/)
  }, 120_000)
})
