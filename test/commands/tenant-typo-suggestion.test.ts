import {beforeAll, describe, expect, it} from 'vitest'
import {closestName} from '../../src/util/edit-distance.js'
import {run} from '../helpers/commands.js'
import {buildNotifyCase} from '../helpers/notify-case.js'

// A mistyped command or flag got "did you mean"; a mistyped tenant id got only "has no records in
// this case", though the case holds the ids to compare it with. Every command that takes a
// tenant id now names the closest one the case holds, where one is close enough to be a typo.

describe('closestName', () => {
  it('names the id one slip away, ignores ids too far to be a typo', () => {
    expect(closestName('tn-acme-helth', ['tn-globex', 'tn-acme-health'])).toBe('tn-acme-health')
    expect(closestName('ACME', ['acme', 'globex'])).toBe('acme')
    expect(closestName('nobody', ['acme', 'globex'])).toBeNull()
    expect(closestName('x', [])).toBeNull()
  })
})

describe('a mistyped tenant id', () => {
  let db: string
  beforeAll(async () => {
    db = (await buildNotifyCase()).db
    expect((await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', 'processor'])).code).toBe(0)
  }, 60_000)

  it('gets "did you mean" wherever a tenant id is taken', async () => {
    const runs: Array<[string, string[]]> = [
      ['scope --tenant', ['scope', '--tenant', 'globx']],
      ['report processor-notice --tenant', ['report', 'processor-notice', '--tenant', 'globx']],
      ['report article33 --on-behalf-of-controller', ['report', 'article33', '--lang', 'en', '--on-behalf-of-controller', 'globx']],
      ['report article34 --on-behalf-of-controller', ['report', 'article34', '--lang', 'en', '--on-behalf-of-controller', 'globx']],
      ['notify record --controller', ['notify', 'record', '--phase', 'initial', '--at', '2026-10-24T10:00:00Z', '--reference', 'REF-1', '--controller', 'globx']],
    ]
    for (const [what, args] of runs) {
      const r = await run([...args, '--db', db])
      expect(r.code, what).toBe(1)
      expect(r.stderr, what).toMatch(/tenant "globx" .*did you mean "globex"\?/)
      expect(r.stderr.trim().split('\n'), what).toHaveLength(1)
    }
    // Nothing close: no guess.
    const far = await run(['scope', '--tenant', 'nobody-at-all', '--db', db])
    expect(far.code).toBe(1)
    expect(far.stderr).not.toMatch(/did you mean/)
  }, 120_000)
})
