import {mkdirSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// Copy evidence, then an ordinary logrotate (app.log renamed, a new app.log created) that the
// next ingest read and recorded as CHANGED: verify failed the intact case ("FAIL original ... no
// longer matches"), as if the evidence had been altered.

const line = (i: number): string =>
  JSON.stringify({ts: `2026-11-01T10:${String(i).padStart(2, '0')}:00Z`, request_id: `r-${i}`, tenant_id: 'tn-a', session_id: `s-${i}`, status: 200, request: `question ${i}`, response: `answer ${i}`}) + '\n'

describe('verify after a logrotate the case recorded', () => {
  it('says the original path holds a later recorded file, and still fails a change nothing recorded', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    const app = join(logs, 'app.log')
    const db = join(dir, 'c.db')
    writeFileSync(app, line(1) + line(2) + line(3))
    await run(['ingest', 'logs', logs, '--db', db])
    expect((await run(['verify', '--db', db])).code).toBe(0)

    renameSync(app, join(logs, 'app.log.1'))
    writeFileSync(app, line(4) + line(5))
    const day2 = await run(['ingest', 'logs', logs, '--db', db])
    expect(day2.stderr).toContain('CHANGED since it was ingested')
    const verify = await run(['verify', '--db', db])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
    expect(verify.stdout).toMatch(/Not checked: 1 original of copied evidence not re-hashed where it was, its path holding a later file the case recorded: .*app\.log \(sha256 [0-9a-f]{16}…\): its path now holds .*app\.log/)
    expect(verify.stdout).toContain('1 original re-hashed')

    // The path rewritten again, and no ingest recorded it: the original named as failed, as before.
    writeFileSync(app, line(9))
    const changed = await run(['verify', '--db', db])
    expect(changed.code).toBe(1)
    expect(changed.stdout + changed.stderr).toMatch(/FAIL original: .*app\.log: file on disk no longer matches/)
  }, 120_000)
})
