import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {BIN} from '../helpers/cli.js'

// bin/run.js as installed: its first line is a POSIX sh launcher that checks
// CROSSTALK_HEAP_MB and execs node with the memory settings.
const run = (env: Record<string, string>) => spawnSync(BIN, ['--version'], {encoding: 'utf8', env: {...process.env, ...env}})

describe('bin/run.js launcher', () => {
  it('starts crosstalk with the default and with a given heap limit', () => {
    for (const env of [{}, {CROSSTALK_HEAP_MB: '2048'}]) {
      const r = run(env)
      expect(r.status).toBe(0)
      expect(r.stdout).toMatch(/^crosstalk\/\d/)
    }
  })

  it.each(['abc', '0', '-5', '1.5'])('refuses CROSSTALK_HEAP_MB=%s with one line and exit 1', (value) => {
    const r = run({CROSSTALK_HEAP_MB: value})
    expect(r.status).toBe(1)
    expect(r.stdout).toBe('')
    expect(r.stderr.trim().split('\n')).toEqual([`crosstalk: CROSSTALK_HEAP_MB must be a whole number of MB (got '${value}')`])
  })
})
