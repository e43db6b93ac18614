import {describe, expect, it} from 'vitest'
import {draftsCase} from './drafts-case.js'

// QA sentences S3-5: with a cause recorded and its category "unknown", the letter read "The
// cause is not yet known. KV cache block reuse bug in the decode scheduler."
describe('the letter with a recorded cause of unknown category', () => {
  it('states the cause, and that whether it was deliberate is not yet established', async () => {
    const c = await draftsCase()
    await c.cli('incident', 'set', '--cause', 'KV cache block reuse bug in the decode scheduler', '--cause-category', 'unknown')
    const en = await c.cli('report', 'article34', '--lang', 'en')
    expect(en).toContain('KV cache block reuse bug in the decode scheduler. Whether it was a fault or an attack is not yet established.')
    expect(en).not.toContain('The cause is not yet known.')
    const fr = await c.cli('report', 'article34', '--lang', 'fr')
    expect(fr).toContain("KV cache block reuse bug in the decode scheduler. On ne sait pas encore s'il s'agit d'un défaut ou d'une attaque.")
    expect(fr).not.toContain("La cause n'est pas encore connue.")
  }, 60_000)
})
