import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, runCli, tempDir} from '../helpers/cli.js'

// A reader that goes away before the command has written everything (`2>&1 | true`, `| head`, a
// log shipper that exited): the command's exit code is still its own. A CI job reads a gate's 3
// as "leak found" and a usage error's 2 as "wrong invocation"; EPIPE used to turn both into 1.

/** The command's exit code with its output piped into `true`, which reads nothing and exits. */
function exitWithReaderGone(args: string[], cwd: string): number {
  const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
  const r = spawnSync('bash', ['-c', `'${process.execPath}' '${BIN}' ${quoted} 2>&1 | true; echo "\${PIPESTATUS[0]}"`], {cwd, encoding: 'utf8', env: {...process.env, NO_COLOR: '1', CROSSTALK_DB: ''}, timeout: 120_000})
  return Number(r.stdout.trim().split('\n').at(-1))
}

describe('a closed pipe', () => {
  it('leaves a usage error exiting 2 and a tripped gate exiting 3', () => {
    const dir = tempDir('ct-pipe-')
    const a = 'CANARY-aaaaaaaaaaaaaaaaaaaa'
    const b = 'CANARY-bbbbbbbbbbbbbbbbbbbb'
    writeFileSync(join(dir, 'reg.csv'), `marker,tenant_id,session_id,issued_at\n${a},tA,sA,2026-11-01T00:00:00Z\n${b},tB,sB,2026-11-01T00:00:00Z\n`)
    const line = {ts: '2026-11-01T10:00:01Z', request_id: 'r1', tenant_id: 'tB', session_id: 'sB', status: 200, request: {messages: [{role: 'user', content: `hi ${b}`}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: `leaked ${a}`}}]}}
    writeFileSync(join(dir, 'leak.jsonl'), `${JSON.stringify(line)}\n`)
    const db = join(dir, 'case.db')
    expect(runCli(['triage', 'leak.jsonl', '--canaries', 'reg.csv', '--db', db], {cwd: dir}).code).toBe(0)
    // With the reader there, as a baseline.
    expect(runCli(['scan', '--db', db, '--fail-on-leak'], {cwd: dir}).code).toBe(3)
    expect(exitWithReaderGone(['scan', '--db', db, '--fail-on-leak'], dir)).toBe(3)
    expect(exitWithReaderGone(['ingest', 'logs'], dir)).toBe(2)
    expect(exitWithReaderGone(['sightings', '--db', db, '--json'], dir)).toBe(0)
  }, 180_000)
})
