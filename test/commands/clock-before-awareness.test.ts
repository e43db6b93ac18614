import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// The 72 hours run from awareness (Art. 33(1)): a clock asked for a moment before it would
// count time remaining from before the duty began, so it is a usage error, named in one line.

describe('clock --now before awareness', () => {
  it('is refused for a case incident and for --aware-at, under --json too', async () => {
    const dir = tempDir()
    const db = path.join(dir, 'case.db')
    expect((await run(['incident', 'open', '--db', db, '--title', 'P', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    const cased = await run(['clock', '--db', db, '--now', '2026-11-01T09:00:00Z'])
    expect(cased.code).toBe(2)
    expect(cased.stdout).toBe('')
    expect(cased.stderr.split('\n')[0]).toContain("--now 2026-11-01T09:00:00.000Z is before the incident's recorded awareness time 2026-11-02T09:00:00.000Z")
    const json = await run(['clock', '--db', db, '--now', '2026-11-01T09:00:00Z', '--json'])
    expect(json.code).toBe(2)
    expect(JSON.parse(json.stdout).error.code).toBe('E_BEFORE_AWARENESS')
    const bare = await run(['clock', '--aware-at', '2026-11-02T09:00:00Z', '--now', '2026-11-02T08:59:59Z', '--json', '--db', path.join(dir, 'none.db')])
    expect(bare.code).toBe(2)
    expect(JSON.parse(bare.stdout).error.message).toContain('is before --aware-at 2026-11-02T09:00:00.000Z')
    // At awareness itself the full 72 hours remain.
    const at = await run(['clock', '--db', db, '--now', '2026-11-02T09:00:00Z', '--json'])
    expect(at.code).toBe(0)
    expect(JSON.parse(at.stdout)).toMatchObject({remaining_seconds: 72 * 3600, status: 'open'})
  })
})
