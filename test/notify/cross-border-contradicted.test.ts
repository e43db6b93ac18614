import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'
import {draftsCase, linesWith} from './drafts-case.js'

// QA sentences S3-7: "Cross-border processing? no" went unflagged beside establishments recorded
// in FR and DE, which make the processing cross-border under GDPR Art. 4(23)(a).
describe('cross-border recorded as no, with establishments in two Member States', () => {
  it('warns when recorded, and every form gives it with the contradiction open', async () => {
    const c = await draftsCase()
    const set = await run(['incident', 'set', '--db', c.db, '--cross-border', 'no', '--establishment-countries', 'FR,DE', '--countries', 'FR,DE,IT'])
    expect(set.code, set.stderr).toBe(0)
    expect(set.stderr).toMatch(/warning: cross-border processing is recorded as "no", but establishments in 2 Member States are recorded \(FR, DE\)/)
    const item = 'it is recorded as not cross-border, but establishments in 2 Member States are recorded (FR, DE)'
    const edpb = await c.cli('report', 'article33')
    expect(linesWith(edpb, '| 113 |')[0]).toMatch(/\| no \(to be completed: whether the processing is cross-border: it is recorded as not cross-border/)
    expect(linesWith(await c.cli('report', 'article33', '--authority', 'dpc'), '| cross-border |')[0]).toContain(item)
    expect(linesWith(await c.cli('report', 'article33', '--authority', 'cnil', '--lang', 'fr'), '| transfrontalier |')[0]).toContain('enregistré comme non transfrontalier, mais des établissements dans 2 États membres')
  }, 90_000)

  it('raises nothing where one Member State is recorded', async () => {
    const c = await draftsCase()
    const set = await run(['incident', 'set', '--db', c.db, '--cross-border', 'no', '--establishment-countries', 'FR, US'])
    expect(set.code, set.stderr).toBe(0)
    expect(set.stderr).not.toContain('cross-border processing is recorded as')
    expect(linesWith(await c.cli('report', 'article33'), '| 113 |')[0]).toMatch(/\| no \|$/)
  }, 60_000)
})
