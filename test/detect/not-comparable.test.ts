import {describe, expect, it} from 'vitest'
import {holdsSpacelessText} from '../../src/detect/provenance/not-comparable.js'

// QA provenance #7: an answer in a script written without spaces between words is one "word" to
// the verbatim-text search; the scan counts those answers (with fewer words than the search needs)
// as not compared. Which texts are such texts:

describe('texts the verbatim-text search cannot compare', () => {
  it('holds as many letters of a spaceless script as the search needs words', () => {
    expect(holdsSpacelessText('好的：患者王小明的诊断结果是二期淋巴瘤', 12)).toBe(true)
    expect(holdsSpacelessText('好的', 12)).toBe(false)
    expect(holdsSpacelessText('สวัสดีครับผมชื่อสมชายครับ', 12)).toBe(true)
    expect(holdsSpacelessText('Please ring me on +44 7700 900123', 12)).toBe(false)
  })

})
