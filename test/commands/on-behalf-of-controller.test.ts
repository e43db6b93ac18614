import {beforeAll, describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {buildNotifyCase} from '../helpers/notify-case.js'

// --on-behalf-of-controller names the controller a draft speaks for. A tenant the case does not
// hold (a typo) would get a draft saying it was checked and found unaffected; a controller-role
// case has nobody to prepare a draft for. Both refuse, as `scope --tenant` and article33 do.

async function caseWith(role: 'controller' | 'processor'): Promise<string> {
  const {db} = await buildNotifyCase()
  const r = await run(['incident', 'open', '--db', db, '--title', 'KV leak', '--aware-at', '2026-10-23T08:00:00Z', '--role', role])
  expect(r.code, r.stderr).toBe(0)
  return db
}

describe('--on-behalf-of-controller', () => {
  let processor: string
  let controller: string
  beforeAll(async () => {
    processor = await caseWith('processor')
    controller = await caseWith('controller')
  }, 60_000)

  it('refuses a tenant the case does not hold, naming it (article33 and article34)', async () => {
    for (const report of ['article33', 'article34']) {
      const typo = await run(['report', report, '--db', processor, '--lang', 'en', '--on-behalf-of-controller', 'acmee'])
      expect(typo.code, report).toBe(1)
      expect(typo.stderr).toMatch(/--on-behalf-of-controller: tenant "acmee" has no records in this case/)
      expect(typo.stdout).toBe('')
      const real = await run(['report', report, '--db', processor, '--lang', 'en', '--on-behalf-of-controller', 'acme'])
      expect(real.code, real.stderr).toBe(0)
      expect(real.stdout).toContain('acme')
    }
  }, 60_000)

  it('article34 refuses it on a controller-role case, as article33 does', async () => {
    for (const report of ['article33', 'article34']) {
      const r = await run(['report', report, '--db', controller, '--lang', 'en', '--on-behalf-of-controller', 'acme'])
      expect(r.code, report).toBe(1)
      expect(r.stderr).toMatch(/--on-behalf-of-controller is for a processor .*\(incident role processor\)/)
      expect(r.stdout).not.toContain('Prepared by the processor')
    }
    const own = await run(['report', 'article34', '--db', controller, '--lang', 'en'])
    expect(own.code, own.stderr).toBe(0)
  }, 60_000)
})
