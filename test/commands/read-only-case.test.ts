import {spawnSync} from 'node:child_process'
import {chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, runJson} from '../helpers/cli.js'

// A responder may give an auditor read access to the case (0644, or 0444 to themself). The
// reporting commands change nothing in it, yet scope, sightings, timeline and report article33
// refused it: "this command writes to the case". Only status opened it read-only.

const A = 'CANARY-00112233445566778899aabb'
const line = (i: number, tenant: string, session: string, content: string): string =>
  JSON.stringify({ts: `2026-11-03T01:00:0${i}Z`, request_id: `r-${i}`, tenant_id: tenant, session_id: session, status: 200, request: 'hello there', response: content})

/** Runs the CLI as a user who may read the case and not write it: nobody where the tests run as root (root may write anything). */
function asReader(args: readonly string[], home: string): {code: number; stderr: string; stdout: string} {
  const root = process.getuid?.() === 0
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    env: {...process.env, NO_COLOR: '1', TZ: 'UTC', CROSSTALK_DB: '', HOME: home, XDG_DATA_HOME: home, XDG_CACHE_HOME: home, XDG_CONFIG_HOME: home, TMPDIR: home},
    ...(root ? {uid: 65534, gid: 65534} : {}),
  })
  return {code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

describe('a case the user may read and not write', () => {
  it('is reported on by the commands that change nothing, and left as it was', () => {
    // Not under the tests' own temporary directory, which only its owner may enter.
    const dir = mkdtempSync('/tmp/ct-reader-')
    try {
      reportAsReader(dir)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }, 120_000)
})

function reportAsReader(dir: string): void {
    const canaries = join(dir, 'reg.csv')
    writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tn-a,sess-a,2026-11-01T00:00:00Z\n`)
    const log = join(dir, 'app.jsonl')
    writeFileSync(log, `${line(1, 'tn-a', 'sess-a', `fine ${A}`)}\n${line(2, 'tn-b', 'sess-b', `leak ${A}`)}\n`)
    const db = join(dir, 'c.db')
    runJson(['triage', log, '--canaries', canaries, '--db', db])
    runJson(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'controller'])
    // A shared incident directory (SQLite keeps -shm beside the case, even to read it); the case itself read-only.
    chmodSync(dir, 0o1777)
    for (const f of readdirSync(dir).filter((f) => f.startsWith('c.db'))) chmodSync(join(dir, f), 0o444)
    const before = statSync(db).mtimeMs
    // assess without --decide records nothing (QA investigate #12: it opened the case to write).
    for (const cmd of [['scope'], ['sightings'], ['timeline'], ['report', 'article33'], ['report', 'article34'], ['assess']]) {
      const r = asReader([...cmd, '--db', db, '--json'], dir)
      expect(r.stderr, cmd.join(' ')).not.toContain('this command writes to the case')
      expect(r.code, `${cmd.join(' ')}: ${r.stderr}`).toBe(0)
      expect(() => JSON.parse(r.stdout) as unknown, cmd.join(' ')).not.toThrow()
    }
    // A decision is recorded: that one writes, and says so.
    const decide = asReader(['assess', '--db', db, '--decide', 'notify', '--rationale', 'r'], dir)
    expect(decide.code).toBe(1)
    expect(decide.stderr).toContain('this command writes to the case')
    // A report written to a file is recorded in the audit log: that one writes, and says so.
    const out = asReader(['report', 'article33', '--db', db, '--out', join(dir, 'a33.md')], dir)
    expect(out.code).toBe(1)
    expect(out.stderr).toContain('this command writes to the case')
    expect(existsSync(join(dir, 'a33.md'))).toBe(false)
    expect(statSync(db).mtimeMs).toBe(before)
}
