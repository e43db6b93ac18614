import {execFileSync} from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {renderMarkdownPdf} from '../../src/cli/render-pdf.js'

// The PDF drafts go to a regulator and to customers: a controller or a customer named in Greek,
// Polish or Cyrillic must read as named (they were all "?", so three customers read the same),
// and a character no embedded font draws must stay told apart (<U+XXXX>) and be said.

function pdfText(pdf: Buffer): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-unicode-')), 'x.pdf')
  fs.writeFileSync(file, pdf)
  try {
    return execFileSync('pdftotext', [file, '-'], {encoding: 'utf8'})
  } finally {
    fs.rmSync(path.dirname(file), {recursive: true, force: true})
  }
}

describe('PDF text beyond Latin-1', () => {
  it('draws Greek, Polish, Czech and Cyrillic as written, and CJK or emoji as code points, said once', async () => {
    const md = [
      '## Parties',
      '',
      '- Controller: Εθνική Τράπεζα Α.Ε.',
      '- Customer: Łódzka Spółdzielnia, Příbram s.r.o., ООО Ромашка',
      '',
      '| tenant | responses |',
      '| --- | --- |',
      '| tn-Αθήνα | 1 |',
      '| tn-Πάτρα | 2 |',
      '| tn-北京 | 3 |',
      '| tn-😀 | 4 |',
    ].join('\n')
    const text = pdfText(await renderMarkdownPdf(md, {title: 'Διαρροή δεδομένων', createdAt: '2026-11-02T00:00:00.000Z'}))
    expect(text).toContain('Διαρροή δεδομένων')
    expect(text).toContain('Εθνική Τράπεζα Α.Ε.')
    expect(text).toContain('Łódzka Spółdzielnia, Příbram s.r.o., ООО Ромашка')
    expect(text).toContain('tn-Αθήνα')
    expect(text).toContain('tn-Πάτρα')
    expect(text).toContain('tn-<U+5317><U+4EAC>')
    expect(text).toContain('tn-<U+1F600>')
    expect(text).not.toContain('?')
    expect(text.replace(/\s+/g, ' ')).toContain('3 characters the fonts of this PDF cannot draw are written <U+XXXX>')
  })

  it('says nothing of code points where every character is drawn', async () => {
    const text = pdfText(await renderMarkdownPdf('Plain text: déjà vu, Ærøskøbing.', {title: 'T', createdAt: '2026-11-02T00:00:00.000Z'}))
    expect(text).toContain('déjà vu, Ærøskøbing.')
    expect(text).not.toContain('U+')
  })
})
