import {describe, expect, it} from 'vitest'
import {safeLine, safeText} from '../../src/util/sanitize.js'
import {csvCell} from '../../src/cli/csv.js'
import {esc} from '../../src/cli/html/escape.js'

// A real C1 control and the text that spells its escape must never display alike.
describe('display escaping is unambiguous', () => {
  const real = 'acme\u0085'
  const spelled = 'acme\\x85'

  it('safeLine and safeText tell U+0085 from the literal text \\x85', () => {
    expect(safeLine(real)).toBe('acme\\x85')
    expect(safeLine(spelled)).toBe('acme\\\\x85')
    expect(safeText(real)).not.toBe(safeText(spelled))
    expect(safeLine('a\\u202e')).not.toBe(safeLine('a\u202e'))
    expect(safeLine('a\\n')).not.toBe(safeLine('a\n'))
    expect(safeLine('a\\t')).not.toBe(safeLine('a\t'))
  })

  it('a backslash next to an escaped character is doubled too', () => {
    // "a\" + U+0085 must not print as the literal "a\\x85" does, nor as "a\x85".
    const outs = new Set([safeLine('a\\\u0085'), safeLine('a\\\\x85'), safeLine('a\\x85'), safeLine('a\u0085')])
    expect(outs.size).toBe(4)
  })

  it('text with no escape-looking sequence is left as it is', () => {
    expect(safeLine('C:\\Users\\bob')).toBe('C:\\Users\\bob')
    expect(safeText('line one\nline two')).toBe('line one\nline two')
  })

  it('CSV and HTML show the two differently', () => {
    expect(csvCell(real)).not.toBe(csvCell(spelled))
    expect(esc(real)).not.toBe(esc(spelled))
  })
})

describe('text already in shown form is not escaped twice', () => {
  it('a draft\'s facts (safeLine) keep their single escape in Markdown and the register CSV', async () => {
    const {escapeMd} = await import('../../src/notify/escape.js')
    const shown = safeLine('evil\u001b[2J')
    expect(escapeMd(shown)).toBe('evil\\\\x1b\\[2J')
    expect(csvCell(shown, true)).toBe('evil\\x1b[2J')
  })
})
