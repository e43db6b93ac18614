import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// The contract: a bad flag value is a usage error, exit 2, as oclif's own are. A time flag
// without a zone, or one that is no time at all, exited 1 as if the case's data were at fault.

describe('a time flag that is no time, or has no zone, is a usage error (exit 2)', () => {
  const db = () => join(tempDir(), 'case.db')
  for (const [name, args] of [
    ['incident open --aware-at (no zone)', ['incident', 'open', '--title', 't', '--aware-at', '2026-11-02T09:00:00', '--role', 'controller']],
    ['incident open --aware-at yesterday', ['incident', 'open', '--title', 't', '--aware-at', 'yesterday', '--role', 'controller']],
    ['clock --aware-at 12345', ['clock', '--aware-at', '12345']],
    ['clock --now xyz', ['clock', '--aware-at', '2026-11-02T09:00:00Z', '--now', 'xyz']],
  ] as const) {
    it(name, async () => {
      const r = await run([...args, '--db', db(), '--json'])
      expect(r.code, r.stdout + r.stderr).toBe(2)
      expect(JSON.parse(r.stdout).error.code).toBe('E_USAGE')
    })
  }
  // --tz renders the console's local times only (with --json it is itself a usage error).
  it('clock --tz Mars/Olympus', async () => {
    const r = await run(['clock', '--aware-at', '2026-11-02T09:00:00Z', '--tz', 'Mars/Olympus', '--db', db()])
    expect(r.code, r.stdout + r.stderr).toBe(2)
    expect(r.stderr).toMatch(/Mars\/Olympus/)
  })
  // With --json the zone was never judged: oclif's raw "--json=true cannot also be provided when using --tz" came instead.
  it('clock --tz Mars/Olympus --json: the house error naming the zone, exit 2', async () => {
    const r = await run(['clock', '--aware-at', '2026-11-02T09:00:00Z', '--tz', 'Mars/Olympus', '--json', '--db', db()])
    expect(r.code, r.stdout + r.stderr).toBe(2)
    expect(JSON.parse(r.stdout).error).toEqual({message: '--tz: unknown time zone "Mars/Olympus" (use an IANA name such as Europe/Dublin)', code: 'E_USAGE'})
    expect(r.stderr.trim().split('\n')).toEqual(['Error: --tz: unknown time zone "Mars/Olympus" (use an IANA name such as Europe/Dublin)'])
  })
  it('clock --tz Europe/Paris --json: one house line naming both flags, exit 2', async () => {
    const r = await run(['clock', '--aware-at', '2026-11-02T09:00:00Z', '--tz', 'Europe/Paris', '--json', '--db', db()])
    expect(r.code, r.stdout + r.stderr).toBe(2)
    const error = JSON.parse(r.stdout).error
    expect(error.code).toBe('E_USAGE')
    expect(error.message).toMatch(/^--tz cannot be used with --json/)
    expect(error.message).not.toContain('=true')
  })
})
