import {spawnSync} from 'node:child_process'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, tempDir} from '../helpers/cli.js'

// bin/run.js as installed: its first line is a POSIX sh launcher that execs node with the
// memory settings, taking the heap limit from CROSSTALK_HEAP_MB. A bad value is refused by
// the command (one line; the contract's error document under --json), before it touches a case.
// Bounded: vitest cannot interrupt a synchronous child, so a hung command fails instead of blocking CI.
const run = (args: string[], env: Record<string, string>) => spawnSync(BIN, args, {encoding: 'utf8', env: {...process.env, ...env}, timeout: 120_000, killSignal: 'SIGKILL'})

describe('bin/run.js launcher', () => {
  it('starts crosstalk with the default and with a given heap limit', () => {
    for (const env of [{}, {CROSSTALK_HEAP_MB: '2048'}] as Array<Record<string, string>>) {
      const r = run(['--version'], env)
      expect(r.status).toBe(0)
      expect(r.stdout).toMatch(/^crosstalk\/\d/)
    }
  })

  it.each(['abc', '0', '-5', '1.5', '\u001b[31m9'])('refuses CROSSTALK_HEAP_MB=%j with one line and exit 1, creating nothing', (value) => {
    const db = join(tempDir(), 'case.db')
    const plain = run(['ingest', 'canaries', join(tempDir(), 'missing.csv'), '--db', db], {CROSSTALK_HEAP_MB: value})
    expect(plain.status).toBe(1)
    expect(plain.stdout).toBe('')
    // the value is quoted as given and its controls shown once (\x1b), never as JSON's \u001b escaped again
    expect(plain.stderr.trim().split('\n')).toEqual([`Error: CROSSTALK_HEAP_MB must be a whole number of MB (got "${value.replace('\u001b', '\\x1b')}")`])
    const json = run(['status', '--json', '--db', db], {CROSSTALK_HEAP_MB: value})
    expect(json.status).toBe(1)
    expect(JSON.parse(json.stdout)).toEqual({error: {message: `CROSSTALK_HEAP_MB must be a whole number of MB (got "${value.replace('\u001b', '\\x1b')}")`, code: 'E_BAD_ENV'}})
    expect(json.stderr.trim().split('\n')).toHaveLength(1)
    expect(spawnSync('test', ['-e', db]).status).not.toBe(0)
  })

  it('starts the data pipeline without NODE_EXTRA_CA_CERTS and every other command with it', () => {
    // Node warns as it starts when the bundle it names cannot be read: the warning shows where it was read.
    const env = {NODE_EXTRA_CA_CERTS: join(tempDir(), 'no-such-bundle.pem')}
    const warned = (args: string[]): boolean => {
      const r = run([...args, '--help'], env)
      expect(r.status, r.stderr).toBe(0)
      return r.stderr.includes('Ignoring extra certs')
    }
    for (const args of [['triage'], ['ingest', 'logs'], ['ingest', 'canaries'], ['scan'], ['scope'], ['verify']]) expect(warned(args), args.join(' ')).toBe(false)
    for (const args of [['probe'], ['replay'], ['status']]) expect(warned(args), args.join(' ')).toBe(true)
  })
})
