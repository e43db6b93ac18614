import {createHash} from 'node:crypto'
import {renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {crc32} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {verifyCase} from '../../src/case/verify.js'
import {insertReferenceFile, referencedLineBlocks} from '../../src/store/scale.js'
import {makeCase} from '../helpers/case-builder.js'

// A case of Spark findings holds only the lines its findings rest on; every other record's
// evidence is the shard. `verify` with every shard moved away said OK, counted nothing as not
// re-hashed and still said each line was checked "against the original shard".

describe('verify on a case of Spark findings whose shards are gone', () => {
  it('names each shard it could not re-hash, and no longer says the lines were checked against them', async () => {
    const c = makeCase()
    try {
      const insert = referencedLineBlocks(c.db)
      const shards = ['gw-a.jsonl', 'gw-b.jsonl'].map((name) => {
        const path = join(c.dir, name)
        const line = Buffer.from(`{"request_id":"${name}"}`)
        const bytes = Buffer.concat([line, Buffer.from('\n')])
        writeFileSync(path, bytes)
        const sha = createHash('sha256').update(bytes).digest('hex')
        const fileId = insertReferenceFile(c.db, {
          path, name, absPath: path, uri: `file://${path}`, sha256: sha, size: bytes.length, compression: 'none', parseSpec: '{"format":"native"}', source: 'default',
          at: '2026-12-01T00:00:00.000Z', contentSha256: sha, contentSize: bytes.length, lines: 1, blankLines: 0, records: 1, duplicates: 0, badLines: 0,
          firstTs: null, lastTs: null, notes: [], extractScheme: 'x1/words-k5-w8-v2', unconventionalSha256: '', logFormat: 'native', formatReason: 'auto: native',
          noRequestText: 0, noResponseText: 0, errorRecords: 0, ignoredItems: 0, unread: null,
        })
        insert(fileId, 0, 0, line, crc32(line))
        return path
      })
      const before = await verifyCase(c.db)
      expect(before.originals_rehashed).toBe(2)
      expect(before.not_checked.join('\n')).toMatch(/2 log files by reference \(ingest findings\): each stored line was checked against its CRC-32 and the original shard;/)

      renameSync(shards[0]!, `${shards[0]}.moved`)
      renameSync(shards[1]!, `${shards[1]}.moved`)
      const after = await verifyCase(c.db)
      expect(after.originals_rehashed).toBe(0)
      const notes = after.not_checked.join('\n')
      expect(notes).toContain(`2 original shards of Spark findings not re-hashed nor read again, only the case's stored lines checked (every other record's evidence is the shard): ${shards[0]} (no longer on disk); ${shards[1]} (no longer on disk)`)
      expect(notes).toMatch(/2 log files by reference \(ingest findings\): each stored line was checked against its CRC-32;/)
    } finally {
      c.close()
    }
  })
})
