import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {systemTimeZone} from '../../src/notify/time.js'

// TZ set but empty (common in containers; glibc reads it as UTC) made ICU report "Etc/Unknown":
// clock, even --json (always UTC), exited 2 blaming a --tz nobody gave. The system's zone is no
// flag: one Intl cannot use is read as UTC; only a --tz given is judged.

const ARGS = ['--aware-at', '2026-10-24T07:30:00Z', '--now', '2026-10-26T10:00:00Z']

describe('clock with TZ set but empty', () => {
  it('--json runs and gives the deadline in UTC', async () => {
    const r = await run(['clock', '--json', ...ARGS], {env: {TZ: ''}})
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({aware_at: '2026-10-24T07:30:00.000Z', deadline: '2026-10-27T07:30:00.000Z'})
  })

  it('the console falls back to UTC, as for an unknown zone', async () => {
    for (const TZ of ['', 'Nowhere/Atlantis']) {
      const r = await run(['clock', ...ARGS], {env: {TZ}})
      expect(r.code, `TZ=${TZ}: ${r.stderr}`).toBe(0)
      expect(r.stdout).toContain('(UTC)')
      expect(r.stderr).not.toContain('--tz')
    }
    expect(systemTimeZone()).not.toBe('Etc/Unknown')
  })

  it('a --tz given that is unknown is still a usage error', async () => {
    const r = await run(['clock', '--tz', 'Etc/Unknown', ...ARGS], {env: {TZ: ''}})
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--tz: unknown time zone/)
  })
})
