import {describe, expect, it} from 'vitest'
import {renderTopFlows} from '../../src/cli/render-scope.js'

// scope's flows table with long tenant ids (60 characters and more, in any script): the columns
// must line up on the terminal, the tenant columns under their headers. The widths here are
// counted apart from the code under test: a grapheme is one column, a Han character two.

const segmenter = new Intl.Segmenter(undefined, {granularity: 'grapheme'})
const columns = (text: string): number => Array.from(segmenter.segment(text), (s) => (/\p{Script=Han}/u.test(s.segment) ? 2 : 1)).reduce((a, b) => a + b, 0)

const CASES: Record<string, [string, string]> = {
  'ascii, 60 characters and more': ['tenant-' + 'a'.repeat(45) + '-division-alpha', 'tenant-' + 'a'.repeat(45) + '-division-bravo'],
  'shown whole (clipped they would read alike)': ['x'.repeat(30) + '1' + 'y'.repeat(29), 'x'.repeat(30) + '2' + 'y'.repeat(29)],
  'outside the BMP (two UTF-16 units each)': ['𝒜'.repeat(60), '𝒝'.repeat(60)],
  'combining marks': ['e\u0301'.repeat(60), 'o\u0308'.repeat(60)],
  'wide (Han) characters': ['租户'.repeat(30), '客户'.repeat(30)],
}

describe('scope flows table with long tenant ids', () => {
  for (const [what, [a, b]] of Object.entries(CASES)) {
    it(`lines up its columns: ${what}`, () => {
      const flows = [
        {source_tenant: a, recipient_tenant: b, responses: 12},
        {source_tenant: 'short', recipient_tenant: a, responses: 3},
        {source_tenant: b, recipient_tenant: b, responses: 1},
      ]
      const [, header, dashes, ...rows] = renderTopFlows(flows, flows).join('\n').split('\n')
      expect(rows).toHaveLength(3)
      // The dashes give each column's span; every line ends at the last column's right edge.
      const spans = [...dashes!.matchAll(/-+/g)].map((m) => ({start: m.index!, end: m.index! + m[0].length}))
      expect(spans).toHaveLength(4)
      for (const line of [header!, ...rows]) expect(columns(line), line).toBe(spans[3]!.end)
      // Both tenant columns begin where their dashes do, header and cells alike.
      expect(header!.indexOf('recipient tenant')).toBe(spans[1]!.start)
      for (const line of rows) {
        const second = line.slice([...segmenter.segment(line)].find((s) => columns(line.slice(0, s.index)) >= spans[1]!.start)!.index)
        expect(columns(line) - columns(second), line).toBe(spans[1]!.start)
        expect(second.startsWith(' '), line).toBe(false)
      }
    })
  }
})
