import {spawnSync} from 'node:child_process'
import {closeSync, existsSync, openSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, runCli, tempDir} from '../helpers/cli.js'

// A failed write to stdout other than EPIPE (ENOSPC on a full disk, here /dev/full) was rethrown
// by bin/run.js and by oclif's own handler and escaped as Node's uncaught-exception stack (about
// 20 lines). The contract: one line naming the cause, exit 1, no stack.

describe('stdout that cannot be written to', () => {
  it.skipIf(!existsSync('/dev/full'))('is one line on stderr and exit 1, not a stack trace', () => {
    const dir = tempDir('ct-full-')
    writeFileSync(join(dir, 'a.jsonl'), `${JSON.stringify({ts: '2026-11-01T00:00:00Z', request_id: 'r1', tenant_id: 'tn-a', session_id: 's1', request: 'hello', response: 'hi'})}\n`)
    const db = join(dir, 'case.db')
    expect(runCli(['ingest', 'logs', 'a.jsonl', '--db', db], {cwd: dir}).code).toBe(0)
    expect(runCli(['scan', '--db', db], {cwd: dir}).code).toBe(0)
    for (const args of [['sightings', '--csv'], ['scope'], ['status', '--json']]) {
      const full = openSync('/dev/full', 'w')
      try {
        const r = spawnSync(process.execPath, [BIN, ...args, '--db', db], {cwd: dir, stdio: ['ignore', full, 'pipe'], encoding: 'utf8', env: {...process.env, NO_COLOR: '1', CROSSTALK_DB: ''}, timeout: 120_000})
        const lines = r.stderr.split('\n').filter((l) => l !== '' && !l.startsWith('warning'))
        expect(r.status, args.join(' ')).toBe(1)
        expect(lines, args.join(' ')).toEqual(['Error: stdout: writing failed (ENOSPC: no space left on device); the output is incomplete'])
        expect(r.stderr).not.toMatch(/^\s+at /m)
      } finally {
        closeSync(full)
      }
    }
  }, 240_000)
})
