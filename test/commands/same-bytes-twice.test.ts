import {copyFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// The same bytes given twice in one ingest (a log and its copy under another name): the second
// file is read while the first is still being written, so neither was in the case when the
// second began. It said "ingested into this case by another process meanwhile" (no other process
// ran) and exited 1, so a gate over a leak in them exited 1, not 3.

const A = 'CANARY-9f8e7d6c5b4a39281706f5e4'

function files(): {dir: string; a: string; b: string; canaries: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tenant-a,sess-a,2026-10-01T00:00:00Z\n`)
  const a = join(dir, 'a.jsonl')
  const line = (id: string, tenant: string, session: string, response: string): string =>
    JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id: id, tenant_id: tenant, session_id: session, status: 200, request: 'hello there', response})
  writeFileSync(a, [line('r-1', 'tenant-a', 'sess-a', 'fine'), line('r-2', 'tenant-b', 'sess-b', `here is ${A}`)].join('\n') + '\n')
  const b = join(dir, 'b.jsonl')
  copyFileSync(a, b)
  return {dir, a, b, canaries}
}

describe('the same bytes under two names in one ingest', () => {
  it('keeps the first and finds the second already present; the gate trips on the leak (exit 3)', async () => {
    const {dir, a, b, canaries} = files()
    const triage = await run(['triage', a, b, '--canaries', canaries, '--db', join(dir, 'triage.db'), '--fail-on-leak'])
    expect(triage.stderr).not.toContain('another process')
    expect(triage.code, triage.stderr).toBe(3)

    const ingest = await runJson<{files: number; skipped_files: number; records: number; per_file: Array<{path: string; status: string; duplicates: number}>}>(['ingest', 'logs', a, b, '--db', join(dir, 'ingest.db')])
    expect(ingest.per_file.map((f) => [f.path, f.status])).toEqual([[a, 'ingested'], [b, 'already_present']])
    expect(ingest).toMatchObject({files: 1, skipped_files: 1, records: 2})
    const verify = await run(['verify', '--db', join(dir, 'ingest.db'), '--json'])
    expect(verify.code, verify.stdout).toBe(0)
  })
})
