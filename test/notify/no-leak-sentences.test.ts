import {describe, expect, it} from 'vitest'
import {draftsCase, linesWith} from './drafts-case.js'

// QA sentences S2-4: with nothing found, the Art. 34 letter apologised and told people to change
// their passwords, the register spoke of "the first affected response in the logs" and the
// Article 33 draft of "each affected response ... identified".
describe('drafts of a case where the search found nothing', () => {
  it('say nothing that implies something happened', async () => {
    const c = await draftsCase({leak: false})
    const en = await c.cli('report', 'article34', '--lang', 'en')
    expect(en).toContain('found no answer that showed text from another person')
    expect(en).not.toMatch(/sorry/i)
    expect(en).not.toContain('change it now')
    // No heading left empty in a letter: what was involved and what it could mean are said as found.
    const section = (md: string, heading: string): string => md.split(`## ${heading}`)[1]!.split('\n## ')[0]!.trim()
    expect(section(en, 'What information was involved')).toContain('None that we found')
    expect(section(en, 'What this could mean for you')).toContain('We found no sign that your information reached anyone else')
    const fr = await c.cli('report', 'article34', '--lang', 'fr')
    expect(section(fr, 'Les informations concernées')).toContain('Aucune que nous ayons trouvée')
    expect(section(fr, 'Ce que cela peut signifier pour vous')).not.toBe('')
    expect(fr).not.toContain('Nous regrettons')
    expect(fr).not.toContain('changez-le')
    const register = await c.cli('report', 'register')
    expect(linesWith(register, '| Breach window |')[0]).not.toContain('first affected response')
    const a33 = await c.cli('report', 'article33')
    expect(a33).toContain('were searched for canary markers')
    expect(a33).not.toMatch(/each affected response|first affected response in the logs is known/)
    expect(await c.cli('report', 'article33', '--lang', 'fr')).not.toMatch(/chaque réponse, session et client concerné|seule la première réponse concernée/)
  }, 90_000)

  it('still apologise and advise where something was found', async () => {
    const c = await draftsCase()
    const en = await c.cli('report', 'article34', '--lang', 'en')
    expect(en).toContain('We are sorry this happened.')
    expect(en).toContain('change it now')
    expect(await c.cli('report', 'article34', '--lang', 'fr')).toContain('Nous regrettons cet incident.')
  }, 60_000)
})
