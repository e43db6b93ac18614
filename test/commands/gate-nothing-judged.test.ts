import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// --fail-on-leak passed over zero records: triage of an empty, a blank-only and an empty .gz
// file said "No response carried another session's canary marker" and exited 0, and scan of a
// case holding only a registry exited 0. Nothing judged is no verdict.

const registry = (dir: string): string => {
  const file = join(dir, 'canaries.csv')
  writeFileSync(file, 'marker,tenant_id,session_id\nCANARY-00000000000000000000000000000001,tenant-a,sess-1\n')
  return file
}

describe('a gate over zero records does not pass', () => {
  for (const quick of [true, false]) {
    it(`triage --fail-on-leak of files that hold no record exits 1 naming each and why${quick ? '' : ' (--no-quick-verdict)'}`, async () => {
      const dir = tempDir()
      const logs = join(dir, 'logs')
      mkdirSync(logs)
      writeFileSync(join(logs, 'empty.jsonl'), '')
      writeFileSync(join(logs, 'blank.jsonl'), '\n  \n\n')
      writeFileSync(join(logs, 'nothing.jsonl.gz'), gzipSync(''))
      const r = await run(['triage', logs, '--canaries', registry(dir), '--db', join(dir, 'case.db'), '--fail-on-leak', ...(quick ? [] : ['--no-quick-verdict'])])
      expect(r.code).toBe(1)
      expect(r.stderr).toMatch(/--fail-on-leak cannot pass: no log record was judged: the log files read hold none: .*blank\.jsonl \(blank lines only\); .*empty\.jsonl \(empty\); .*nothing\.jsonl\.gz \(empty\)/)
      // The verdict says nothing was judged, not that no response carried a marker.
      expect(r.stdout).toMatch(/Not known: no log record was read, so nothing was judged/)
      expect(r.stdout).not.toMatch(/No response carried/)
    })
  }

  it('scan --fail-on-leak of a case holding only a registry exits 1; with a record read it passes', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', registry(dir), '--db', db])).code).toBe(0)
    const s = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(s.code).toBe(1)
    expect(s.stderr).toMatch(/--fail-on-leak cannot pass: no log record was judged: the case holds no log file/)
    writeFileSync(join(dir, 'one.jsonl'), `${chatLine({request_id: 'r1'})}\n`)
    expect((await run(['ingest', 'logs', join(dir, 'one.jsonl'), '--db', db])).code).toBe(0)
    const again = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stderr).not.toMatch(/cannot pass/)
  })
})
