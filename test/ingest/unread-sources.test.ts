import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'

// A refused file was hashed while it was read; remembering it read the whole file again to
// hash it a second time (a refused multi-gigabyte log doubled the ingest's reads).
const hashed: string[] = []
vi.mock('../../src/evidence/hash-file.js', async (original) => {
  const m = await original<typeof import('../../src/evidence/hash-file.js')>()
  return {...m, sha256File: async (path: string) => (hashed.push(path), m.sha256File(path))}
})

const {rememberUnread} = await import('../../src/ingest/unread-sources.js')
const {openCase} = await import('../../src/store/open-case.js')
const {tempDir} = await import('../helpers/cli.js')

describe('rememberUnread', () => {
  it('keeps a refused file under the SHA-256 its ingest computed, without reading it again', async () => {
    const dir = tempDir()
    const file = join(dir, 'refused.jsonl')
    writeFileSync(file, 'not json\n')
    const db = openCase(join(dir, 'case.db'), {create: true})
    try {
      const summary = {path: file, sha256: 'a'.repeat(64), status: 'refused', unread: null, refused: {reason: 'no line could be read', fix: '-'}}
      const change = await rememberUnread(db, {skipped_entries: [], per_file: [summary as never]}, {recordedBy: 'ingest logs', now: () => new Date(0)})
      expect(change.recorded).toMatchObject([{path: file, sha256: 'a'.repeat(64), size: 9, reason: 'not ingested: no line could be read'}])
      expect(hashed).toEqual([])
    } finally {
      db.close()
    }
  })
})
