import Database from 'better-sqlite3'
import {writeFileSync} from 'node:fs'
import {hostname} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {currentProcessIdentity} from '../../src/util/process-identity.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// An ingest killed inside a container (its own PID namespace) left its pid, 2, as the case's
// claim; on the host pid 2 is a kernel thread that never ends, so every later ingest, scan and
// verify was refused for ever, with no way to break the claim.

function smallCase(): {db: string; log: string} {
  const dir = tempDir()
  const log = join(dir, 'a.jsonl')
  writeFileSync(log, `${JSON.stringify({ts: '2026-11-03T01:00:01Z', request_id: 'r-1', tenant_id: 'tn-a', session_id: 's-a', response: 'hi'})}\n`)
  const db = join(dir, 'c.db')
  return {db, log}
}

function setClaim(db: string, claim: {pid: number; host: string; pid_ns: string}): void {
  const me = currentProcessIdentity()
  const sql = new Database(db)
  sql.prepare('UPDATE case_settings SET ingest_pid = ?, ingest_claim = ?').run(claim.pid, JSON.stringify({...me, ...claim, start: null}))
  sql.close()
}

describe('an ingest claim made in another PID namespace', () => {
  it('of a namespace that no longer holds any process does not hold the case (pid 2 alive on the host notwithstanding)', async () => {
    const {db, log} = smallCase()
    await runJson(['ingest', 'logs', log, '--db', db])
    setClaim(db, {pid: 2, host: hostname(), pid_ns: 'pid:[1]'})
    const again = await run(['ingest', 'logs', log, '--db', db])
    expect(again.code, again.stderr).toBe(0)
    expect((await run(['verify', '--db', db])).code).toBe(0)
  }, 60_000)

  it('that cannot be judged from here (another host) holds it until released, and the release is audited', async () => {
    const {db, log} = smallCase()
    await runJson(['ingest', 'logs', log, '--db', db])
    setClaim(db, {pid: 2, host: 'elsewhere', pid_ns: 'pid:[1]'})
    const refused = await run(['ingest', 'logs', log, '--db', db])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('crosstalk ingest release --reason')
    const released = await runJson<{pid: number; host: string}>(['ingest', 'release', '--db', db, '--reason', 'the ingest container was killed'])
    expect(released).toMatchObject({pid: 2, host: 'elsewhere'})
    const sql = new Database(db, {readonly: true})
    const entry = sql.prepare(`SELECT summary FROM audit_log WHERE command = 'ingest:release'`).pluck().get() as string
    sql.close()
    expect(JSON.parse(entry)).toMatchObject({pid: 2, reason: 'the ingest container was killed'})
    expect((await run(['ingest', 'logs', log, '--db', db])).code).toBe(0)
    // Nothing to release now; a live claim of this machine is never broken.
    expect((await run(['ingest', 'release', '--db', db, '--reason', 'x'])).code).toBe(1)
  }, 60_000)
})
