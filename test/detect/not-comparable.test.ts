import {describe, expect, it} from 'vitest'
import {countNotComparable, holdsSpacelessText} from '../../src/detect/provenance/not-comparable.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {makeCase} from '../helpers/case-builder.js'

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

  it('counts an answer whose spaceless text follows a preface of 12 or more spaced words, not only answers short in words', async () => {
    const zh = '患者王伟于二零二六年十月三十日确诊为二型糖尿病，目前服用二甲双胍，每日两次，主治医生为李明，下次复诊时间为十一月十五日上午九点，请勿向外透露。'
    const tc = makeCase()
    try {
      await tc.addFile([
        {request_id: 'a1', tenant_id: 'ta', session_id: 'sa', request_text: `请把这段病历翻译成英文：${zh}`, response_text: '好的。'},
        {request_id: 'b1', tenant_id: 'tb', session_id: 'sb', request_text: "What's the capital of France?", response_text: `Sure, here is the information you asked for about the project timeline and the next steps today: ${zh}`},
        {request_id: 'c1', tenant_id: 'tc', session_id: 'sc', request_text: '你好', response_text: `您好：${zh}`},
        {request_id: 'd1', tenant_id: 'td', session_id: 'sd', request_text: 'hello', response_text: 'Sure, here is the information you asked for about the project timeline and the next steps today.'},
      ])
      expect(countNotComparable(tc.db, 12)).toBe(2)
      expect(scanCase(tc.db, {now: new Date('2026-11-03T00:00:00Z')}).provenance_not_comparable).toBe(2)
    } finally {
      tc.close()
    }
  })
})
