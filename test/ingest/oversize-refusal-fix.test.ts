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
