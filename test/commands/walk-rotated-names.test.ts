import {mkdirSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// A directory walk skipped a leaking log under a rotated name it did not know (Python's
// TimedRotatingFileHandler's gw.log.2026-11-01_13, logrotate's dateformat gw.log-2026-11-01), or
// under no log extension at all (traces.txt, traces), listing it only in --json skipped_entries:
// nothing on stderr, and triage --fail-on-leak exited 0 over the leak.

const LEAK = 'CANARY-00000000000000000000000000000002'
const registry = (dir: string): string => {
  const file = join(dir, 'canaries.csv')
  writeFileSync(file, `marker,tenant_id,session_id\nCANARY-00000000000000000000000000000001,tenant-a,sess-1\n${LEAK},tenant-b,sess-9\n`)
  return file
}
const clean = (id: string): string => `${chatLine({request_id: id})}\n`
const leak = (id: string): string => `${chatLine({request_id: id, answer: `your code is ${LEAK}`})}\n`

interface WalkJson {
  per_file: Array<{path: string; records: number}>
  skipped_entries: Array<{path: string; reason: string; unread: boolean}>
  warnings: string[]
}

/** A log directory holding clean.jsonl and, under `name`, the leaking log (gzip where asked). */
function caseDir(name: string, gzip = false): {dir: string; logs: string} {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'clean.jsonl'), clean('c'))
  writeFileSync(join(logs, name), gzip ? gzipSync(leak('x')) : leak('x'))
  return {dir, logs}
}

describe('a directory walk reads rotated and unnamed logs, and says what it skips', () => {
  it.each([
    ['gw.log.2026-11-01', false],
    ['gw.log.2026-11-01_13', false],
    ['gw.log-2026-11-01', false],
    ['gw.log.2026-11-01.gz', true],
    ['traces.txt', false],
    ['traces', false],
    ['export.bin', true],
  ])('the leak in %s trips the gate', async (name, gzip) => {
    const {dir, logs} = caseDir(name, gzip)
    const t = await run(['triage', logs, '--canaries', registry(dir), '--db', join(dir, 'case.db'), '--fail-on-leak'])
    expect(t.stderr).toMatch(/Gate: contamination found: 1 response/)
    expect(t.code, t.stderr).toBe(3)
  })

  it('a README, a .DS_Store and a checksum list are skipped with a warning each and fail no gate', async () => {
    const {dir, logs} = caseDir('traces')
    writeFileSync(join(logs, 'README.md'), '# gateway logs\n\nexported 2026-11-02\n')
    writeFileSync(join(logs, '.DS_Store'), Buffer.from([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31, 0, 0, 0x10, 0]))
    writeFileSync(join(logs, 'SHA256SUMS'), `${'ab'.repeat(32)}  clean.jsonl\n`)
    writeFileSync(join(logs, 'empty'), '')
    const r = await run(['ingest', 'logs', logs, '--db', join(dir, 'ingest.db'), '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as WalkJson
    expect(out.per_file.map((f) => relative(logs, f.path)).sort()).toEqual(['clean.jsonl', 'traces'])
    const skipped = Object.fromEntries(out.skipped_entries.map((s) => [relative(logs, s.path), s]))
    expect(Object.keys(skipped).sort()).toEqual(['.DS_Store', 'README.md', 'SHA256SUMS', 'empty'])
    expect(Object.values(skipped).every((s) => !s.unread && s.reason.startsWith('not a log file name, '))).toBe(true)
    expect(skipped['README.md']!.reason).toBe('not a log file name, and its first line is not JSON (not a JSON Lines log)')
    expect(skipped['.DS_Store']!.reason).toBe('not a log file name, and binary (not gzip, not JSON)')
    expect(skipped.empty!.reason).toBe('not a log file name, and empty')
    const text = await run(['ingest', 'logs', logs, '--db', join(dir, 'text.db')])
    expect(text.code, text.stderr).toBe(0)
    for (const name of ['README.md', '.DS_Store', 'SHA256SUMS', 'empty']) {
      expect(text.stderr).toContain(`warning: ${join(logs, name)}: skipped: not a log file name, and`)
    }
    const t = await run(['triage', logs, '--canaries', registry(dir), '--db', join(dir, 'triage.db'), '--fail-on-leak'])
    expect(t.code, t.stderr).toBe(3)
    expect(t.stderr).toMatch(/Gate: contamination found: 1 response/)
  })

  it('a file that may hold a log and is not read keeps the gate closed', async () => {
    const {dir, logs} = caseDir('clean-too.jsonl')
    writeFileSync(join(logs, 'clean-too.jsonl'), clean('c2'))
    writeFileSync(join(logs, 'traces'), Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]))
    const r = await run(['ingest', 'logs', logs, '--db', join(dir, 'ingest.db')])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/warning: .*traces: not read: compressed as zstd \(by its first bytes\)/)
    const t = await run(['triage', logs, '--canaries', registry(dir), '--db', join(dir, 'triage.db'), '--fail-on-leak'])
    expect(t.code, t.stderr).toBe(1)
    expect(t.stderr).toMatch(/--fail-on-leak cannot pass: 1 log file could not be judged: .*traces \(not read: compressed as zstd/)
  })
})
