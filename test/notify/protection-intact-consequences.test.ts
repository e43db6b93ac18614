import {describe, expect, it} from 'vitest'
import {draftsCase, linesWith} from './drafts-case.js'

// QA sentences S2-1: with "data unintelligible: protection intact" recorded, the drafts still said
// the data was disclosed with a risk of fraud (Art. 33 §4 and fields 79-85, the letter, the register's
// effects), beside field 57's "yes, its protection is intact". The consequences follow the record;
// where the scan read personal data in clear text, the contradiction is an open item beside them.
const RECORD = ['incident', 'set', '--data-unintelligible', 'protection-intact', '--measures-before', 'prompts encrypted end-to-end, keys not compromised']

describe('data recorded as unintelligible to its recipients', () => {
  it('gives consequences that follow the record where no personal data was found in clear', async () => {
    const c = await draftsCase({iban: false})
    await c.cli(...RECORD)
    const a33 = await c.cli('report', 'article33')
    const field = linesWith(a33, '| 79-85 |')[0]!
    expect(field).toContain('in a form protected by the measures in place (prompts encrypted end-to-end, keys not compromised) whose protection is intact')
    expect(field).toContain('Art. 34(3)(a)')
    expect(field).not.toContain('Loss of confidentiality')
    const letter = await c.cli('report', 'article34', '--lang', 'en')
    expect(letter).toContain('in a protected (encrypted or pseudonymised) form that they cannot read')
    expect(letter).not.toContain('may have seen part of your conversation')
    expect(await c.cli('report', 'article34', '--lang', 'fr')).toContain("sous une forme protégée (chiffrée ou pseudonymisée) qu'elle ne peut pas lire")
    const effects = linesWith(await c.cli('report', 'register'), '| Effects |')[0]!
    expect(effects).toContain('in a form recorded as protected')
    expect(effects).not.toContain('Loss of confidentiality')
  }, 90_000)

  it('names the contradiction wherever the scan read personal data in clear', async () => {
    const c = await draftsCase()
    await c.cli(...RECORD)
    const item = 'its protection is recorded as intact, but the personal-data search found financial data (IBANs / bank accounts) in clear text'
    const a33 = await c.cli('report', 'article33')
    for (const row of ['| 57 |', '| 79-85 |']) expect(linesWith(a33, row)[0], row).toContain(item)
    // The consequences are said as found, with the open item beside them in the same section.
    const section = a33.slice(a33.indexOf('## 4.'), a33.indexOf('### Risk assessment'))
    expect(section).toContain('Financial data (IBAN / payment card numbers) was disclosed')
    expect(section).toContain(item)
    const letter = await c.cli('report', 'article34', '--lang', 'en')
    const mean = letter.slice(letter.indexOf('## What this could mean for you'), letter.indexOf('## What we have done'))
    expect(mean).toContain('misuse bank or card details')
    expect(mean).toContain(item)
    expect(linesWith(await c.cli('report', 'register'), '| Effects |')[0]).toContain(item)
  }, 90_000)
})
