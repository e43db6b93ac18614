import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {makeCase} from '../helpers/case-builder.js'
import {run} from '../helpers/commands.js'

// The QA contract report's minor notes and the investigation report's small ones: each flag or
// state that contradicted another, said plainly.

const MARKER = 'CANARY-0123456789abcdef0123'

describe('a scan over a case that holds no log record is a scan', () => {
  it('status --json: never_scanned false beside last_scan_at; what it could not judge is null; the console says the scan searched nothing', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'tn-a', 's-a')
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const r = await run(['status', '--db', c.path, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.detection.last_scan_at).not.toBeNull()
    expect(s.detection.never_scanned).toBe(false)
    expect(s.detection.no_log_records).toBe(true)
    expect(s.detection.complete).toBe(false)
    for (const k of ['sightings', 'provenance_attributed', 'personal_data']) expect(s[k], k).toBeNull()
    const con = await run(['status', '--db', c.path])
    expect(con.code, con.stderr).toBe(0)
    expect(con.stdout).not.toMatch(/never scanned/)
    expect(con.stdout).toMatch(/provenance +unknown: the case holds no log record, so the scan searched nothing/)
    expect(con.stdout).toMatch(/personal data +unknown: the case holds no log record, so the scan searched nothing/)
    const assess = await run(['assess', '--db', c.path])
    expect(assess.stdout + assess.stderr).not.toMatch(/never been scanned/)
  }, 60_000)
})

describe('usage errors (exit 2) for values that contradict', () => {
  const db = () => join(tempDir(), 'case.db')
  for (const [args, ...named] of [
    [['report', 'article33', '--format', 'md', '--json'], '--format md', '--json'],
    [['report', 'article34', '--format', 'md', '--json'], '--format md', '--json'],
    [['probe', '--target', 'http://127.0.0.1:9', '--pool-tokens', '20000', '--advertised-tokens', '10'], '--pool-tokens 20000', '--advertised-tokens 10'],
  ] as const) {
    it(args.join(' '), async () => {
      const r = await run([...args, ...(args[0] === 'probe' ? [] : ['--db', db()])])
      expect(r.code, r.stdout + r.stderr).toBe(2)
      const line = r.stderr.split('\n').find((l) => l.includes(named[0]))
      expect(line, r.stderr).toBeDefined()
      for (const n of named) expect(line).toContain(n)
    })
  }

  it('--format json beside --json, and --format md with --out, stay accepted', async () => {
    const c = makeCase()
    await c.addFile([{request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hello there', response_text: 'hi'}])
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const json = await run(['report', 'article33', '--format', 'json', '--json', '--db', c.path])
    expect(json.code, json.stderr).toBe(0)
    expect(() => JSON.parse(json.stdout)).not.toThrow()
    const out = join(c.dir, 'a33.md')
    const written = await run(['report', 'article33', '--format', 'md', '--json', '--out', out, '--db', c.path])
    expect(written.code, written.stderr).toBe(0)
  }, 60_000)
})

describe('scope --advertised-tokens without --pool-tokens', () => {
  it('is judged at the pool the scan recorded, and says so', async () => {
    const c = makeCase()
    await c.addFile([{request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hello there', response_text: 'hi'}])
    c.close()
    expect((await run(['scan', '--db', c.path, '--pool-tokens', '4096'])).code).toBe(0)
    const r = await run(['scope', '--db', c.path, '--json', '--advertised-tokens', '8192'])
    expect(r.code, r.stderr).toBe(0)
    const s = JSON.parse(r.stdout)
    expect(s.pool_basis).toBe('recorded')
    expect(r.stderr).toContain('--advertised-tokens 8192 judged at the pool size the scan recorded (4096 tokens)')
  }, 60_000)

  it('with no pool recorded it is still a usage error (exit 2) saying why', async () => {
    const c = makeCase()
    await c.addFile([{request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hello there', response_text: 'hi'}])
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const r = await run(['scope', '--db', c.path, '--advertised-tokens', '8192'])
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr).toContain('--advertised-tokens needs --pool-tokens: no scan recorded a pool size in this case')
  }, 60_000)
})

describe('provenance-verify', () => {
  it('a task line that is not JSON names the file and line, without its text', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'shards.json'), '[]')
    writeFileSync(join(dir, 'bad.jsonl'), '\n\nnot json\n')
    const r = await run(['provenance-verify', '--shards', join(dir, 'shards.json'), '--in', join(dir, 'bad.jsonl')])
    expect(r.code).toBe(1)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain(`${join(dir, 'bad.jsonl')} line 3: not a JSON object`)
    expect(r.stderr).not.toContain('not json')
  })

  it('a missing --shards file is named even when a task is bad', async () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'tasks.jsonl'), '{"a":1}\nnot json\n')
    const r = await run(['provenance-verify', '--shards', join(dir, 'nope.json'), '--in', join(dir, 'tasks.jsonl')])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${join(dir, 'nope.json')}: the shards table cannot be read (ENOENT)`)
  })
})
