import {describe, expect, it} from 'vitest'
import {draftsCase} from './drafts-case.js'

/** The letter's "What we have done" section. */
const done = (letter: string, heading = '## What we have done', next = '## What you can do'): string => letter.slice(letter.indexOf(heading), letter.indexOf(next))

describe('the letter to data subjects: measures', () => {
  // QA sentences S3-8: Art. 34(2) refers to Art. 33(3)(d) (measures taken or proposed); the
  // proposed measures recorded never reached the letter.
  it('states the recorded proposed measures, as proposed', async () => {
    const c = await draftsCase()
    await c.cli('incident', 'set', '--measures-proposed', 'Add a tenant salt to prefix cache keys; Canary every session')
    const section = done(await c.cli('report', 'article34', '--lang', 'en'))
    expect(section).toContain('- Planned, not yet done: Add a tenant salt to prefix cache keys')
    expect(section).toContain('- Planned, not yet done: Canary every session')
    const fr = done(await c.cli('report', 'article34', '--lang', 'fr'), '## Ce que nous avons fait', '## Ce que vous pouvez faire')
    expect(fr).toContain('- Prévu, pas encore fait : Add a tenant salt to prefix cache keys')
  }, 60_000)

  // QA sentences S3-6: a letter a processor prepares for a controller listed the processor's
  // measures under the controller's "What we have done".
  it("prepared for a controller, attributes the processor's measures to it and leaves the controller's own open", async () => {
    const c = await draftsCase({open: ['--role', 'processor']})
    await c.cli('incident', 'set', '--processor-name', 'LLM Co', '--measures-taken', 'Disabled prefix caching on our decode nodes; Rotated our canaries', '--measures-proposed', 'Canary every session')
    const section = done(await c.cli('report', 'article34', '--on-behalf-of-controller', 'tn-alpha', '--lang', 'en'))
    expect(section).toContain('- Our service provider (LLM Co) reports this measure taken: Disabled prefix caching on our decode nodes')
    expect(section).toContain('- Planned by our service provider (LLM Co), not yet done: Canary every session')
    expect(section).not.toMatch(/^- Disabled prefix caching/m)
    expect(section).toContain('to be completed: the measures the controller itself has taken or proposes')
    const fr = done(await c.cli('report', 'article34', '--on-behalf-of-controller', 'tn-alpha', '--lang', 'fr'), '## Ce que nous avons fait', '## Ce que vous pouvez faire')
    expect(fr).toContain('Notre prestataire (LLM Co) indique avoir pris cette mesure : Disabled prefix caching on our decode nodes')
  }, 60_000)
})
