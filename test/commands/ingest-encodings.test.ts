import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A log in UTF-16, or compressed with something other than gzip, reads as no line at all; the
// refusal used to suggest --log-format or --map, which cannot read it.

const line = JSON.stringify({ts: '2026-11-02T10:00:00Z', request_id: 'r1', tenant_id: 't', session_id: 's', status: 200, response: 'ok'})

describe('ingest logs refuses a file in another encoding or compression, saying what it is and how to convert it', () => {
  const cases: Array<[string, Buffer, RegExp]> = [
    ['UTF-16 LE', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`${line}\n${line}\n`, 'utf16le')]), /\(the file is UTF-16 text\); to fix: convert it to UTF-8 first \(iconv -f UTF-16 -t UTF-8 FILE/],
    ['bzip2', Buffer.concat([Buffer.from('BZh91AY&SY'), Buffer.from([0x80, 0x81, 0xfe, 0x0a, 0xc3, 0x28])]), /\(the file is bzip2-compressed\); to fix: decompress it first \(bunzip2 -k FILE\)/],
    ['zstd', Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x80, 0xff, 0x0a, 0xfe]), /\(the file is zstd-compressed\)/],
  ]
  for (const [name, bytes, expected] of cases) {
    it(name, async () => {
      const dir = tempDir()
      const file = join(dir, 'gw.jsonl')
      writeFileSync(file, bytes)
      const r = await run(['ingest', 'logs', file, '--db', join(dir, 'case.db')])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(expected)
      expect(r.stderr).not.toContain('--log-format (otel')
    })
  }
})
