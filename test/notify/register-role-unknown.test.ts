import {describe, expect, it} from 'vitest'
import {draftsCase, linesWith} from './drafts-case.js'

// QA sentences S1-3: with no incident opened (no role recorded) the register said "Controllers
// notified: not applicable (we are the controller)" beside "Our role: to be completed".
describe('report register with no role recorded', () => {
  it('leaves "Controllers notified" to be completed, never "we are the controller"', async () => {
    const c = await draftsCase({open: null})
    for (const lang of ['en', 'fr']) {
      const md = await c.cli('report', 'register', '--lang', lang)
      const row = linesWith(md, lang === 'en' ? '| Controllers notified |' : '| Responsables de traitement informés |')
      expect(row, md).toHaveLength(1)
      expect(row[0]).not.toMatch(/we are the controller|nous sommes le responsable/)
      expect(row[0]).toMatch(lang === 'en' ? /to be completed: the incident record/ : /à compléter : la fiche d'incident/)
    }
  }, 60_000)
})
