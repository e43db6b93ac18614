import {cpSync, mkdirSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// Error lines: a value is escaped once (verify's doubled its backslashes: \\x1b), a newline in a
// file name is shown as \n (it was turned into a space, so the name read wrong), relocate over a
// directory says what it found once and what to do ("not a regular file, not a regular file; ...
// copy the log into a file first"), and a mistyped flag gets the closest flag, as a command does.

const A = 'CANARY-9f8e7d6c5b4a39281706f5e4'

function logs(dir: string, name: string): {log: string; canaries: string} {
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,sess-a,2026-10-01T00:00:00Z\n`)
  mkdirSync(join(dir, 'logs'), {recursive: true})
  const log = join(dir, 'logs', name)
  const line = (id: string, tenant: string, session: string, response: string): string =>
    JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id: id, tenant_id: tenant, session_id: session, status: 200, request: 'hello there', response})
  writeFileSync(log, [line('r-1', 'tenant-a', 'sess-a', 'fine'), line('r-2', 'tenant-b', 'sess-b', `here is ${A}`)].join('\n') + '\n')
  return {log, canaries}
}

describe('error lines', () => {
  it('escape a control once and show a newline in a name as \\n', async () => {
    const dir = tempDir()
    const {log, canaries} = logs(dir, 'b\u001b[31mRED\nFAKE.jsonl')
    const db = join(dir, 'case.db')
    await runJson(['triage', log, '--canaries', canaries, '--db', db, '--evidence', 'reference'])
    renameSync(log, join(dir, 'moved.jsonl'))
    const verify = await run(['verify', '--db', db])
    const error = verify.stderr.split('\n').find((l) => l.startsWith('Error:'))!
    expect(error).toContain('b\\x1b[31mRED\\nFAKE.jsonl')
    expect(error).not.toContain('\\\\')
    const show = await run(['show', 'r-2', '--db', db])
    const line = show.stderr.split('\n').find((l) => l.startsWith('Error:'))!
    expect(line).toContain('RED\\nFAKE.jsonl')
    expect(line).not.toContain('RED FAKE')
  })

  it('relocate over a directory says what it found, once', async () => {
    const dir = tempDir()
    const {log, canaries} = logs(dir, 'c.jsonl')
    const db = join(dir, 'case.db')
    await runJson(['triage', log, '--canaries', canaries, '--db', db, '--evidence', 'reference'])
    cpSync(join(dir, 'logs'), join(dir, 'share'), {recursive: true})
    rmSync(join(dir, 'share', 'c.jsonl'))
    mkdirSync(join(dir, 'share', 'c.jsonl'))
    const r = await run(['relocate', join(dir, 'logs'), join(dir, 'share'), '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('a directory, not a regular file')
    expect(r.stderr).not.toContain('not a regular file, not a regular file')
    expect(r.stderr).not.toContain('copy the log into a file first')
  })

  it('offer the closest flag for a mistyped one', async () => {
    const clas = await run(['sightings', '--clas', 'cross_tenant'])
    expect(clas.code).toBe(2)
    expect(clas.stderr).toContain('did you mean --class?')
    const pool = await run(['scope', '--pool-token', '681280'])
    expect(pool.code).toBe(2)
    expect(pool.stderr).toContain('did you mean --pool-tokens?')
    const far = await run(['scope', '--zzzzzz'])
    expect(far.stderr).not.toContain('did you mean')
  })
})
