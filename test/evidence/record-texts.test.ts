import {describe, expect, it} from 'vitest'
import {verifyCase} from '../../src/case/verify.js'
import {recordTextLoader} from '../../src/evidence/record-texts.js'
import {makeCase} from '../helpers/case-builder.js'

describe('recordTextLoader', () => {
  it('decodes a record\'s texts again from the evidence', async () => {
    const tc = makeCase()
    await tc.addFile([{request_id: 'r1', tenant_id: 't', session_id: 's', request_text: 'question', response_text: 'answer'}])
    const id = tc.db.prepare('SELECT id FROM records').pluck().get() as number
    expect(recordTextLoader(tc.db)(id)).toEqual({request_text: 'question', response_text: 'answer'})
    tc.db.close()
  })

  it('says the texts are unknown (an error naming the record) instead of handing back empty texts', async () => {
    const tc = makeCase()
    await tc.addFile([{request_id: 'r1', tenant_id: 't', session_id: 's', response_text: 'answer'}])
    const id = tc.db.prepare('SELECT id FROM records').pluck().get() as number
    // A parse spec this version cannot build (as from a newer version, or tampered with).
    tc.db.exec(`UPDATE files SET parse_spec = '{"format":"no-such-format"}'`)
    expect(() => recordTextLoader(tc.db)(id)).toThrow(/texts of the record at line 1 of log file #\d+ could not be decoded again .*crosstalk verify/)
    expect(() => recordTextLoader(tc.db)(id + 1000)).toThrow(/record #\d+ could not be decoded/)
    // verify names it instead of failing
    const v = await verifyCase(tc.db, {rehashOriginals: false})
    expect(v.problems.map((p) => `${p.kind}: ${p.detail}`)).toContainEqual(expect.stringMatching(/^record: its parse spec cannot be read \(parse spec names an unknown log format "no-such-format"\)/))
    tc.db.close()
  })
})
