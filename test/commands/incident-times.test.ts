import path from 'node:path'
import {beforeEach, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// Times a draft would state as facts: none may lie in the future, a breach cannot end before
// it starts, and awareness cannot move after a notification already sent.

const future = new Date(Date.now() + 365 * 24 * 3600_000).toISOString()

describe('incident times a draft could not state', () => {
  let db: string
  beforeEach(() => {
    db = path.join(tempDir(), 'case.db')
  })
  const open = (...extra: string[]) => run(['incident', 'open', '--db', db, '--title', 'P', '--aware-at', '2026-11-02T09:00:00+01:00', '--role', 'controller', ...extra])

  it('incident open refuses a breach that ends before it starts, and future detection or awareness', async () => {
    for (const [extra, cause] of [
      [['--breach-started-at', '2026-11-01T00:00:00Z', '--breach-ended-at', '2026-10-31T00:00:00Z'], /--breach-ended-at 2026-10-31T00:00:00.000Z is before --breach-started-at/],
      [['--detected-at', future], /--detected-at .* is in the future/],
    ] as const) {
      const r = await open(...extra)
      expect(r.code, r.stdout + r.stderr).toBe(1)
      expect(r.stderr.trim().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(cause)
    }
    const r = await run(['incident', 'open', '--db', db, '--title', 'P', '--aware-at', future, '--role', 'controller'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/incident open: --aware-at .* is in the future/)
    expect((await run(['incident', 'show', '--db', db])).code).toBe(1)
  })

  it('incident set and amend-awareness refuse the same, against what is already recorded', async () => {
    expect((await open('--breach-started-at', '2026-11-01T00:00:00Z')).code).toBe(0)
    const end = await run(['incident', 'set', '--db', db, '--breach-ended-at', '2026-10-31T00:00:00Z'])
    expect(end.code).toBe(1)
    expect(end.stderr).toMatch(/incident set: --breach-ended-at .* is before --breach-started-at 2026-11-01T00:00:00.000Z/)
    const amend = await run(['incident', 'amend-awareness', '--db', db, '--aware-at', future, '--reason', 'x'])
    expect(amend.code).toBe(1)
    expect(amend.stderr).toMatch(/amend-awareness: --aware-at .* is in the future/)
    const set = await run(['incident', 'set', '--db', db, '--aware-at', future, '--reason', 'x'])
    expect(set.code).toBe(1)
    expect(set.stderr).toMatch(/incident set: --aware-at .* is in the future/)
    const shown = await run(['incident', 'show', '--db', db, '--json'])
    expect(JSON.parse(shown.stdout).incident).toMatchObject({aware_at: '2026-11-02T08:00:00.000Z', breach_ended_at: null})
  })

  it('amend-awareness refuses an awareness time after a notification already recorded', async () => {
    expect((await open()).code).toBe(0)
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-11-02T13:30:00Z', '--reference', 'I1'])).code).toBe(0)
    const r = await run(['incident', 'amend-awareness', '--db', db, '--aware-at', '2026-11-03T00:00:00Z', '--reason', 're-dated'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/after the notification recorded at 2026-11-02T13:30:00.000Z \(to the authority, reference "I1"\)/)
    // Earlier is still possible.
    expect((await run(['incident', 'amend-awareness', '--db', db, '--aware-at', '2026-11-02T07:00:00Z', '--reason', 'alert log'])).code).toBe(0)
  })

  it('clock --now evaluates the clock as of that moment: a notification recorded for a later time was not sent yet', async () => {
    expect((await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-10-30T09:30:00-04:00', '--role', 'controller'])).code).toBe(0)
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-11-02T13:30:00.001Z', '--reference', 'I1', '--delay-reason', 'waited for logs'])).code).toBe(0)
    const before = JSON.parse((await run(['clock', '--db', db, '--now', '2026-11-02T12:00:00Z', '--json'])).stdout)
    expect(before).toMatchObject({deadline: '2026-11-02T13:30:00.000Z', status: 'due_soon', remaining_seconds: 90 * 60, late: false})
    const after = JSON.parse((await run(['clock', '--db', db, '--now', '2026-11-03T00:00:00Z', '--json'])).stdout)
    expect(after).toMatchObject({status: 'notified', late: true})
  })
})
