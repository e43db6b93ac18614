import {execFileSync} from 'node:child_process'
import {mkdirSync, symlinkSync, writeFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// A directory walk (and a quoted glob) skipped every symbolic link, FIFO, rotated name and log
// compressed other than gzip without a word, and the gate then passed on what it had read.

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

describe('the directory walk follows links, reads rotated names and names what it cannot read', () => {
  it('reads links to files and directories and rotated names once each', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    const pods = join(dir, 'pods')
    mkdirSync(logs)
    mkdirSync(join(pods, 'p1'), {recursive: true})
    writeFileSync(join(pods, 'p1', '0.log'), leak('pod'))
    writeFileSync(join(logs, 'clean.jsonl'), clean('c'))
    symlinkSync(join(pods, 'p1', '0.log'), join(logs, 'pod_c.log'))
    symlinkSync(pods, join(logs, 'pods-dir'))
    symlinkSync(logs, join(logs, 'up'))
    symlinkSync(join(logs, 'clean.jsonl'), join(logs, 'again.jsonl'))
    writeFileSync(join(logs, 'a.jsonl.1'), clean('r1'))
    writeFileSync(join(logs, 'b.log.2.gz'), gzipSync(clean('r2')))
    writeFileSync(join(logs, 'c.jsonl-20261101'), clean('r3'))
    writeFileSync(join(logs, 'd.ndjson-20261101.gz'), gzipSync(clean('r4')))
    writeFileSync(join(logs, 'README.md'), 'notes\n')
    const r = await run(['ingest', 'logs', logs, '--db', join(dir, 'case.db'), '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as WalkJson
    expect(out.per_file.map((f) => relative(logs, f.path)).sort()).toEqual(['a.jsonl.1', 'b.log.2.gz', 'c.jsonl-20261101', 'clean.jsonl', 'd.ndjson-20261101.gz', 'pod_c.log'])
    expect(out.skipped_entries).toEqual([{path: join(logs, 'README.md'), reason: 'not a log file name, and its first line is not JSON (not a JSON Lines log)', unread: false}])
    const t = await run(['triage', logs, '--canaries', registry(dir), '--db', join(dir, 'triage.db'), '--fail-on-leak'])
    expect(t.code, t.stderr).toBe(3)
    expect(t.stderr).toMatch(/Gate: contamination found: 1 response/)
  })

  it('a broken link, a link loop, a FIFO and a .zst log are named, ingest exits 1 and the gate does not pass', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'clean.jsonl'), clean('c'))
    symlinkSync(join(dir, 'gone.log'), join(logs, 'broken.log'))
    symlinkSync(join(logs, 'loop.log'), join(logs, 'loop.log'))
    execFileSync('mkfifo', [join(logs, 'pipe.jsonl')])
    writeFileSync(join(logs, 'leak.jsonl.zst'), Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0, 0]))
    writeFileSync(join(logs, 'notes.txt'), 'x\n')
    const db = join(dir, 'case.db')
    const r = await run(['ingest', 'logs', logs, '--db', db, '--json'])
    expect(r.code).toBe(1)
    for (const name of ['broken.log', 'loop.log', 'pipe.jsonl', 'leak.jsonl.zst']) {
      expect(r.stderr).toContain(join(logs, name))
    }
    const text = await run(['ingest', 'logs', logs, '--db', join(dir, 'text.db')])
    expect(text.code).toBe(1)
    expect(text.stderr).toMatch(/warning: .*broken\.log: not read: broken symbolic link/)
    expect(text.stderr).toMatch(/warning: .*loop\.log: not read: symbolic link loop/)
    expect(text.stderr).toMatch(/warning: .*pipe\.jsonl: not read: not a regular file/)
    expect(text.stderr).toMatch(/warning: .*leak\.jsonl\.zst: not read: compressed as \.zst/)
    // A file skipped as not a log is said, and is no reason to exit 1.
    expect(text.stderr).toMatch(/warning: .*notes\.txt: skipped: not a log file name, and its first line is not JSON/)
    // The readable file is in the case all the same.
    expect(text.stderr).toMatch(/the file read is in the case/)
    const t = await run(['triage', logs, '--canaries', registry(dir), '--db', join(dir, 'triage.db'), '--fail-on-leak'])
    expect(t.code).toBe(1)
    expect(t.stderr).toMatch(/--fail-on-leak cannot pass: 4 log files could not be judged: .*broken\.log \(not read: broken symbolic link/)
    expect(t.stdout).toMatch(/No response carried another session's canary marker in the lines that could be read\.\n {2}4 entries reached in the directories or globs given could not be read/)
    const j = await run(['triage', logs, '--canaries', registry(dir), '--db', join(dir, 'triage-json.db'), '--json'])
    // It exits 1 as ingest logs does, once the case is complete; the document is the error's details.
    expect(j.code, j.stderr).toBe(1)
    const json = (JSON.parse(j.stdout) as {error: {code: string; details: {ingest: WalkJson}}}).error.details
    expect(json.ingest.skipped_entries.filter((s) => s.unread).map((s) => relative(logs, s.path)).sort()).toEqual(['broken.log', 'leak.jsonl.zst', 'loop.log', 'pipe.jsonl'])
    expect(json.ingest.skipped_entries.find((s) => s.path.endsWith('notes.txt'))).toEqual({path: join(logs, 'notes.txt'), reason: 'not a log file name, and its first line is not JSON (not a JSON Lines log)', unread: false})
    // A quoted glob names a broken link it matched the same way.
    const g = await run(['triage', `${logs}/*.log`, '--canaries', registry(dir), '--db', join(dir, 'glob.db'), '--fail-on-leak'])
    expect(g.code).toBe(1)
    expect(g.stderr).toMatch(/no log file could be read: 2 entries not read: .*broken\.log \(broken symbolic link/)
  })

  it('an entry it could not examine under any name (a FIFO, a link to a device, a broken link) and UTF-16 or NUL-led text under a name not a log\'s are not read, and the gate does not pass', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'clean.jsonl'), clean('c'))
    execFileSync('mkfifo', [join(logs, 'stream')])
    symlinkSync('/dev/zero', join(logs, 'current'))
    symlinkSync(join(dir, 'gone'), join(logs, 'latest'))
    // The leak, written as UTF-16 with its byte-order mark, under a converter's name.
    writeFileSync(join(logs, 'trace.txt'), Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(leak('u16'), 'utf16le')]))
    // Nothing but NUL bytes in its first bytes: whether a log follows is not known.
    writeFileSync(join(logs, 'prealloc.dat'), Buffer.alloc(70 * 1024))
    // NUL bytes, then the log's lines: read (its first line quarantined).
    writeFileSync(join(logs, 'zeroed.out'), Buffer.concat([Buffer.alloc(4096), Buffer.from(`\n${leak('z')}`)]))
    const r = await run(['ingest', 'logs', logs, '--db', join(dir, 'case.db'), '--json'])
    expect(r.code, r.stderr).toBe(1)
    const out = JSON.parse(r.stdout) as {error: {details?: WalkJson}} & WalkJson
    const walked = out.skipped_entries ?? out.error.details!.skipped_entries
    expect(walked.filter((s) => s.unread).map((s) => relative(logs, s.path)).sort()).toEqual(['current', 'latest', 'prealloc.dat', 'stream', 'trace.txt'])
    expect(walked.find((s) => s.path.endsWith('trace.txt'))!.reason).toMatch(/^UTF-16 text \(by its first bytes\)/)
    const t = await run(['triage', logs, '--canaries', registry(dir), '--db', join(dir, 'triage.db'), '--fail-on-leak'])
    // The NUL-led file's leak is read and trips the gate (3); the rest keeps it from passing.
    expect(t.code, t.stderr).toBe(3)
    expect(t.stderr).toMatch(/trace\.txt/)
    expect(t.stderr).toMatch(/stream/)
  })
})

