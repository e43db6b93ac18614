import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'

// clock --watch --json printed oclif's raw "--json=true cannot also be provided when using
// --watch": the contract's usage error (exit 2, {"error": {message, code}} under --json) must say
// why the two do not combine and what to do instead.

const AWARE = ['--aware-at', '2026-11-02T08:00:00Z']

describe('clock --watch with --json or --now', () => {
  it('--watch --json is a usage error in the contract form, naming why they do not combine', async () => {
    for (const args of [['--watch', '--json'], ['--json', '--watch']]) {
      const r = await run(['clock', ...args, ...AWARE])
      expect(r.code, args.join(' ')).toBe(2)
      const doc = JSON.parse(r.stdout) as {error: {message: string; code: string}}
      expect(Object.keys(doc)).toEqual(['error'])
      expect(doc.error.code).toBe('E_USAGE')
      expect(doc.error.message).toMatch(/^--watch cannot be used with --json: /)
      expect(doc.error.message).toMatch(/every second until interrupted/)
      expect(doc.error.message).toMatch(/one document once/)
      expect(doc.error.message).not.toMatch(/--json=true|cannot also be provided/)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
    }
  })

  it('--watch --now says why, not oclif\'s raw pairing message', async () => {
    const r = await run(['clock', '--watch', '--now', '2026-11-03T00:00:00Z', ...AWARE])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--watch cannot be used with --now: --watch counts down live/)
    expect(r.stderr).not.toMatch(/cannot also be provided/)
  })
})
