import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA investigate #6: extract reported a truncated .gz shard as a plain success (exit 0, no word in
// the text, no key in --json per_file), where ingest logs of the same file says NOT READ WHOLE and exits 1.

const line = (i: number): string =>
  JSON.stringify({ts: `2026-11-01T10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`, request_id: `r${i}`, tenant_id: 't', session_id: `s${i}`, status: 200, request: {messages: [{role: 'user', content: `prompt ${i} ${Math.cos(i)}`}]}, response: {choices: [{message: {role: 'assistant', content: `answer ${i} ${Math.sin(i)}`}}]}})

describe('extract of a gzip stream cut short', () => {
  it('exits 1 naming the file and why, and --json details carry per_file unread', async () => {
    const dir = tempDir('ct-extract-cut-')
    const gz = gzipSync(Buffer.from(Array.from({length: 400}, (_, i) => line(i)).join('\n') + '\n'))
    const cut = join(dir, 'cut.jsonl.gz')
    writeFileSync(cut, gz.subarray(0, Math.floor(gz.length / 2)))
    const text = await run(['extract', cut, '--out', join(dir, 'ex'), '--log-format', 'native'])
    expect(text.code).toBe(1)
    expect(text.stdout).toMatch(/NOT READ WHOLE/)
    expect(text.stderr).toMatch(/cut\.jsonl\.gz: not read whole \(gzip stream /)
    const json = await run(['extract', cut, '--out', join(dir, 'ex2'), '--log-format', 'native', '--json'])
    expect(json.code).toBe(1)
    const err = JSON.parse(json.stdout) as {error: {code: string; details: {per_file: Array<{unread: string | null; record_lines: number}>}}}
    expect(err.error.code).toBe('E_NOT_READ')
    expect(err.error.details.per_file[0]!.unread).toMatch(/^gzip stream /)
    expect(err.error.details.per_file[0]!.record_lines).toBeGreaterThan(0)
  })

  it('a whole file is extracted as before, with unread null', async () => {
    const dir = tempDir('ct-extract-whole-')
    const whole = join(dir, 'whole.jsonl.gz')
    writeFileSync(whole, gzipSync(Buffer.from(line(1) + '\n')))
    const r = await run(['extract', whole, '--out', join(dir, 'ex'), '--log-format', 'native', '--json'])
    expect(r.code, r.stderr).toBe(0)
    expect((JSON.parse(r.stdout) as {per_file: Array<{unread: string | null}>}).per_file[0]!.unread).toBeNull()
  })
})
