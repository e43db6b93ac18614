import {crc32} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {evidenceReader} from '../../src/evidence/evidence-store.js'
import {insertReferenceFile, referencedLineBlocks} from '../../src/store/scale.js'
import {makeCase} from '../helpers/case-builder.js'

// A case of Spark findings keeps one evidence block per line it holds, each of its line's length,
// with the newline (and any line it does not hold) between them. The reader took blocks of the
// first block's length: a read of the second line took in the third block too (wholly after the
// range) and failed with "evidence blocks do not cover bytes 1742..3532", so a retry line the job
// brought in was counted "not examined".

const shard = {
  path: '/logs/shard-00.jsonl', name: 'shard-00.jsonl', absPath: '/logs/shard-00.jsonl', uri: 'file:///logs/shard-00.jsonl', sha256: 'a'.repeat(64),
  size: 9000, compression: 'none' as const, parseSpec: '{"format":"native"}', source: 'default', at: '2026-12-01T00:00:00.000Z', contentSha256: 'a'.repeat(64),
  contentSize: 9000, lines: 5, blankLines: 0, records: 5, duplicates: 0, badLines: 0, firstTs: null, lastTs: null, notes: [],
  extractScheme: 'x1/words-k5-w8-v2', unconventionalSha256: '', logFormat: 'native', formatReason: 'auto: native', noRequestText: 0, noResponseText: 0,
  errorRecords: 0, ignoredItems: 0, unread: null,
}

const line = (n: number, fill: string): Buffer => Buffer.from(`{"n":"${fill.repeat(n - 8)}"}`.slice(0, n))

describe('evidence blocks of unequal sizes (a case of Spark findings: one block per line)', () => {
  it('reads each line held, whatever the lengths of the blocks before and after it', () => {
    const c = makeCase()
    try {
      const fileId = insertReferenceFile(c.db, shard)
      // Offsets as in the QA case: lines of 1741, 1790 and 2655 bytes, a newline between; then two lines far on with no byte between them.
      const lines: Array<[number, Buffer]> = [[0, line(1741, 'a')], [1742, line(1790, 'b')], [3533, line(2655, 'c')], [8000, line(41, 'd')], [8041, line(900, 'e')]]
      const insert = referencedLineBlocks(c.db)
      lines.forEach(([offset, bytes], seq) => insert(fileId, seq, offset, bytes, crc32(bytes)))
      for (const random of [false, true]) {
        const read = evidenceReader(c.db, {random})
        for (const [offset, bytes] of lines) expect(read(fileId, offset, bytes.length).equals(bytes), `bytes ${offset}..${offset + bytes.length}`).toBe(true)
        // Part of a line, and a range across two adjacent lines.
        expect(read(fileId, 1800, 100).equals(lines[1]![1].subarray(58, 158))).toBe(true)
        expect(read(fileId, 8000, 941).equals(Buffer.concat([lines[3]![1], lines[4]![1]]))).toBe(true)
        // A range over a gap (a line not held) is refused, never filled with another block's bytes.
        expect(() => read(fileId, 6000, 2100)).toThrow(/do not cover bytes 6000\.\.8100/)
      }
    } finally {
      c.close()
    }
  })
})
