import {writeFileSync} from 'node:fs'
import {gzipSync} from 'node:zlib'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A truncated .jsonl.gz is stored "NOT READ WHOLE" with a warning; ingested again it reported
// `warnings: []` and `unread: null`, as if it were whole; both exited 0. Every ingest of it says
// its state and exits 1, as a file that could not be read at all does.

describe('a gzip log not read whole, ingested again', () => {
  it('reports what was not read, each time', async () => {
    const dir = tempDir()
    const lines: string[] = []
    for (let i = 0; i < 400; i++) {
      lines.push(JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id: `r-${i}`, tenant_id: `tenant-${i % 7}`, session_id: `s-${i}`, status: 200, request: `hello ${i} ${'x'.repeat(i % 50)}`, response: `answer ${i} ${Math.sin(i)}`}))
    }
    const whole = gzipSync(lines.join('\n') + '\n')
    const log = join(dir, 'trunc.jsonl.gz')
    writeFileSync(log, whole.subarray(0, Math.floor(whole.length / 2)))
    const db = join(dir, 'case.db')
    for (const pass of ['first', 'again']) {
      const r = await run(['ingest', 'logs', log, '--db', db, '--json'])
      // Not read whole: exit 1 (E_NOT_READ), what was read kept, the document as the error's details.
      expect(r.code, `${pass}: ${r.stderr}`).toBe(1)
      expect(r.stderr).toMatch(/^Error: .*trunc\.jsonl\.gz: not read whole/m)
      const out = JSON.parse(r.stdout) as {per_file?: Array<{unread: string | null}>; warnings?: string[]; error?: {details: {per_file: Array<{unread: string | null}>; warnings: string[]}}}
      const doc = out.error ? out.error.details : out
      expect(doc.per_file![0]!.unread, pass).toMatch(/truncated/)
      expect(doc.warnings!.join('\n'), pass).toMatch(/truncated/)
    }
    const console = await run(['ingest', 'logs', log, '--db', db])
    expect(console.stdout).toContain('NOT READ WHOLE')
    expect(console.code).toBe(1)
    // triage, no gate asked: the same exit 1 once the case is complete.
    const triage = await run(['triage', log, '--db', join(dir, 'triage.db')])
    expect(triage.code, triage.stderr).toBe(1)
    expect(triage.stderr).toMatch(/^Error: .*not read whole/m)
  })
})
