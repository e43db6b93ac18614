import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {gzipSync} from 'node:zlib'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A quarantined line is a line no rule could read. Read later (the file's last line was still
// being written, and the file was ingested again once it grew) it stayed quarantined, and the
// Article 33 draft said it "could not be read"; the same bytes under gzip (a rotated copy)
// counted one physical line twice.

const A = 'CANARY-00112233445566778899aabb'
const line = (i: number, tenant: string, session: string, content: string): string =>
  JSON.stringify({ts: `2026-11-03T01:00:0${i}Z`, request_id: `r-${i}`, tenant_id: tenant, session_id: session, status: 200, request: 'hello there', response: content})

function registry(dir: string): string {
  const canaries = join(dir, 'reg.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tn-a,sess-a,2026-11-01T00:00:00Z\n`)
  return canaries
}

type Status = {bad_lines: number}

describe('a quarantined line read since', () => {
  it('from a later version of the same file is settled: no longer counted, listed or said to be unread', async () => {
    const dir = tempDir()
    const log = join(dir, 'app.jsonl')
    const first = line(1, 'tn-a', 'sess-a', `fine ${A}`)
    const second = line(2, 'tn-b', 'sess-b', 'all good here')
    writeFileSync(log, `${first}\n${second.slice(0, 60)}`)
    const db = join(dir, 'c.db')
    await run(['triage', log, '--canaries', registry(dir), '--db', db])
    expect((await runJson<Status>(['status', '--db', db])).bad_lines).toBe(1)
    writeFileSync(log, `${first}\n${second}\n`)
    const again = await run(['triage', log, '--db', db, '--fail-on-leak'])
    expect(again.code, again.stderr).toBe(0)
    expect((await runJson<Status>(['status', '--db', db])).bad_lines).toBe(0)
    expect((await run(['status', '--db', db, '--bad-lines'])).stdout).not.toContain('app.jsonl:2')
    await runJson(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'controller'])
    const draft = await run(['report', 'article33', '--db', db])
    expect(draft.code, draft.stderr).toBe(0)
    expect(draft.stdout).not.toMatch(/could not be read/)
  }, 120_000)

  it('the same bytes under gzip count one physical line once', async () => {
    const dir = tempDir()
    const log = join(dir, 'g.jsonl')
    writeFileSync(log, `${line(1, 'tn-a', 'sess-a', 'fine')}\n{"broken\n`)
    writeFileSync(join(dir, 'g.jsonl.1.gz'), gzipSync(Buffer.from(`${line(1, 'tn-a', 'sess-a', 'fine')}\n{"broken\n`)))
    const db = join(dir, 'd.db')
    await run(['triage', log, '--canaries', registry(dir), '--db', db])
    await run(['triage', join(dir, 'g.jsonl.1.gz'), '--db', db])
    expect((await runJson<Status>(['status', '--db', db])).bad_lines).toBe(1)
    // Still open: the gate fails on it, once.
    const gate = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(gate.code).toBe(1)
    expect(gate.stderr).toContain('1 log file could not be judged')
  }, 120_000)
})
