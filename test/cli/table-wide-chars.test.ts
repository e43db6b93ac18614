import {describe, expect, it} from 'vitest'
import {table} from '../../src/cli/render-detect.js'
import {displayWidth} from '../../src/cli/text-width.js'

// Console tables pad by terminal columns: a tenant named in Chinese (two columns a character)
// or with an accent written as a combining mark (none) pushed every later column of its row.

/** The terminal column where `needle` starts in `line`. */
function columnOf(line: string, needle: string): number {
  return displayWidth(line.slice(0, line.indexOf(needle)))
}

describe('console tables with wide and combining characters', () => {
  it('counts terminal columns', () => {
    expect(displayWidth('東京銀行')).toBe(8)
    expect(displayWidth('Zoe\u0301')).toBe(3)
    expect(displayWidth('tn-😀')).toBe(5)
    expect(displayWidth('plain')).toBe(5)
  })

  it('starts each column at the same terminal column on every row', () => {
    const out = table(['recipient', 'source', 'class'], [
      ['東京銀行/s-a', 'tn-Zoe\u0301\u0301/s-b', 'cross_tenant'],
      ['tn-Zoe\u0301\u0301/s-b', '東京銀行/s-a', 'cross_tenant'],
      ['tn-plain/s-c', 'tn-😀/s-d', 'cross_session'],
    ])
    const rows = out.split('\n').slice(2)
    const starts = rows.map((l) => columnOf(l, 'cross_'))
    expect(new Set(starts).size).toBe(1)
    const header = out.split('\n')[0]!
    expect(columnOf(header, 'class')).toBe(starts[0])
  })
})
