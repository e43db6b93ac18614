import {mkdtempSync, rmSync, statSync, truncateSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {openCase} from '../../src/store/open-case.js'

const base = mkdtempSync(join(tmpdir(), 'ct-shrink-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))
const NOW = (): Date => new Date('2026-11-02T00:00:00Z')

function line(i: number): string {
  return JSON.stringify({
    ts: `2026-11-01T10:00:${String(i % 60).padStart(2, '0')}Z`, request_id: `g${i}`, tenant_id: i % 2 ? 'tA' : 'tB', session_id: i % 2 ? 'sA' : 'sB', status: 200,
    request: {messages: [{role: 'user', content: 'hi there '.repeat(20)}]},
    response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: `ok fine ${i} `.repeat(30)}}]},
  }) + '\n'
}

describe('a log cut shorter while ingest reads it (copytruncate)', () => {
  it('is refused as changed while read, and no size it was not read at is recorded', async () => {
    const log = join(base, 'gw.jsonl')
    const text = Array.from({length: 40000}, (_, i) => line(i)).join('')
    writeFileSync(log, text)
    const full = statSync(log).size
    // A line boundary well past what is read when the first progress report comes (after 4 MB of results, one read ahead).
    const cut = text.indexOf('\n', 14 << 20) + 1
    expect(full).toBeGreaterThan(cut)
    const db = openCase(join(base, 'case.db'), {create: true})
    try {
      let truncated = false
      const result = await ingestLogs(db, {
        paths: [log], now: NOW, workers: 0,
        // The writer's rotation, at a fixed point of the read instead of a race with a timer.
        onProgress: () => {
          if (truncated) return
          truncated = true
          truncateSync(log, cut)
        },
      })
      expect(truncated).toBe(true)
      const f = result.per_file[0]!
      expect(f.status).toBe('refused')
      expect(f.refused!.reason).toContain(`changed while it was being read: it was ${full} bytes when the read began and only ${cut} could be read`)
      const rows = db.prepare("SELECT size FROM files WHERE kind = 'log'").all() as Array<{size: number}>
      expect(rows.map((r) => r.size)).not.toContain(full)
    } finally {
      db.close()
    }
  })
})
