import {describe, expect, it} from 'vitest'
import {refusalOf} from '../../src/ingest/ingest-file.js'

const counts = {records: 0, duplicates: 0, bad_lines: 1, ignored_items: 0, error_records: 0, no_response: 0, no_response_text: 0, notes: {}}

describe('a file refused for its one line over --max-line-bytes', () => {
  it('is told to check the file or raise --max-line-bytes, not to try another --log-format or --map', () => {
    const why = refusalOf('native', counts, {line: 1, reason: 'line is 600000000 bytes, over --max-line-bytes 268435456'})
    expect(why?.reason).toContain('line is 600000000 bytes, over --max-line-bytes 268435456')
    expect(why?.fix).toContain('--max-line-bytes raised past')
    expect(why?.fix).not.toContain('--log-format')
  })

  it('a malformed line keeps the format advice', () => {
    const why = refusalOf('native', counts, {line: 1, reason: 'not valid JSON (Unexpected token)'})
    expect(why?.fix).toContain('--log-format')
  })
})

// QA parts #7: a native line with one invalid UTF-8 sequence (a character cut short) made the file
// refused with "to fix: --log-format (otel, …) or --map FIELD=PATH", which no format can fix.
describe('a file refused for a line that is not UTF-8 text', () => {
  it('names the encoding fault, its line and byte, and a way on that works (a copy with the bytes dropped or converted), not another --log-format or --map', () => {
    const why = refusalOf('native', counts, {line: 1, reason: 'invalid UTF-8 at byte 406'})
    expect(why?.reason).toContain('line 1')
    expect(why?.reason).toContain('not UTF-8 text: invalid UTF-8 at byte 406 of the line')
    expect(why?.fix).toContain('iconv -f UTF-8 -t UTF-8 -c')
    expect(why?.fix).not.toContain('--log-format (')
    expect(why?.fix).not.toContain('--map FIELD=PATH')
  })

  it('where no line of several was read and the first is not UTF-8, says the encoding fault first and keeps the format advice for the rest', () => {
    const why = refusalOf('native', {...counts, bad_lines: 3}, {line: 1, reason: 'invalid UTF-8 at byte 12'})
    expect(why?.reason).toContain('line 1: invalid UTF-8 at byte 12')
    expect(why?.fix.startsWith('no --log-format or --map reads bytes that are not UTF-8')).toBe(true)
    expect(why?.fix).toContain('--log-format (otel, langfuse, litellm, openai-batch) or --map FIELD=PATH')
  })
})
