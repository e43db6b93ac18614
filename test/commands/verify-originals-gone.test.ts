import {rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA investigate #13: verify on a copy-evidence case whose log originals were deleted printed
// "OK … 1 original re-hashed" without naming the originals it could not re-hash.

describe('verify over copied evidence whose originals are gone', () => {
  it('names each original it could not re-hash', async () => {
    const dir = tempDir('ct-verify-gone-')
    const db = join(dir, 'c.db')
    const log = join(dir, 'gone.jsonl')
    writeFileSync(log, JSON.stringify({ts: '2026-11-01T10:00:00Z', request_id: 'r1', tenant_id: 't', session_id: 's', response: 'hello'}) + '\n')
    expect((await run(['ingest', 'logs', log, '--db', db, '--log-format', 'native'])).code).toBe(0)
    rmSync(log)
    const r = await run(['verify', '--db', db])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/Not checked: 1 original of copied evidence not re-hashed, the case's own copy checked instead: .*gone\.jsonl \(no longer on disk\)/)
    const j = await runJson<{not_checked: string[]}>(['verify', '--db', db, '--json'])
    expect(j.not_checked.some((n) => n.includes('gone.jsonl (no longer on disk)'))).toBe(true)
  })
})
