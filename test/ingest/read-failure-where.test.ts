import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it, vi} from 'vitest'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {makeCase} from '../helpers/case-builder.js'
import {tempDir} from '../helpers/cli.js'

// A read error while a file is streamed into the case names where it came. On the first line it
// said "read failed after line 0", a line there is none of: it says "before the first line".

// An I/O error (which root's permissions cannot provoke) on the file's first read.
vi.mock('../../src/ingest/unit-reader.js', async (importActual) => {
  const actual = await importActual<typeof import('../../src/ingest/unit-reader.js')>()
  return {
    ...actual,
    readUnits: (...args: Parameters<typeof actual.readUnits>) => {
      if (!args[0].includes('read-fails')) return actual.readUnits(...args)
      return (async function* () {
        throw Object.assign(new Error('EIO: i/o error, read'), {code: 'EIO'})
      })()
    },
  }
})

describe('a read error while a file is ingested', () => {
  it('on the first read: the error says it came before the first line, naming the file and the cause', async () => {
    const file = join(tempDir(), 'read-fails.jsonl')
    writeFileSync(file, `${JSON.stringify({ts: '2026-10-30T00:00:00Z', request_id: 'r1', tenant_id: 't', session_id: 's', request: 'hi', response: 'ok'})}\n`)
    const tc = makeCase()
    const ingest = ingestLogs(tc.db, {paths: [file], logFormat: 'native', now: () => new Date('2026-11-03T00:00:00Z'), workers: 0})
    await expect(ingest).rejects.toThrow(`${file}: read failed before the first line (EIO)`)
  })
})
