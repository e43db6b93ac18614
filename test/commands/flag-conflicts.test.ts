import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A flag that has no effect with the others given, or two that contradict, is a usage error
// (exit 2) naming both, never silently ignored. Checked before the case is opened, so an
// empty case path is enough.

describe('flags that only matter together, or contradict, are usage errors (exit 2)', () => {
  const db = () => join(tempDir(), 'case.db')
  for (const [args, first, second] of [
    [['scope', '--table', 'nodes'], '--table', '--csv'],
    [['scope', '--csv', '--tenant', 'acme', '--table', 'flows'], '--tenant', '--table'],
    [['show', 'req-1', '--raw', '--show-text'], '--show-text', '--raw'],
    [['show', 'req-1', '--raw', '--max-chars', '10'], '--max-chars', '--raw'],
    [['sightings', '--show-markers', '--csv'], '--csv', '--show-markers'],
    [['assess', '--rationale', 'because'], '--rationale', '--decide'],
    [['assess', '--decided-by', 'DPO'], '--decided-by', '--decide'],
    [['clock', '--aware-at', '2026-11-02T09:00:00Z', '--tz', 'Europe/Paris', '--json'], '--json', '--tz'],
    [['replay', '--target', 'http://127.0.0.1:9', '--from-sightings', '--source-pool-tokens', '4096'], '--source-pool-tokens', '--pool-tokens'],
    [['incident', 'set', '--amended-by', 'DPO', '--title', 't'], '--amended-by', '--aware-at'],
  ] as const) {
    it(args.join(' '), async () => {
      const r = await run([...args, '--db', db()])
      expect(r.code, r.stdout + r.stderr).toBe(2)
      const line = r.stderr.split('\n').find((l) => l.includes(first))
      expect(line, r.stderr).toBeDefined()
      expect(line).toContain(second)
    })
  }

  it('each alone, or with its partner, is accepted as before', async () => {
    const path = db()
    expect((await run(['clock', '--aware-at', '2026-11-02T09:00:00Z', '--now', '2026-11-02T10:00:00Z', '--tz', 'Europe/Paris', '--db', path])).code).toBe(0)
    expect((await run(['clock', '--aware-at', '2026-11-02T09:00:00Z', '--now', '2026-11-02T10:00:00Z', '--json', '--db', path])).code).toBe(0)
  })
})

describe('a command given nothing to do', () => {
  it('incident set with no field to set is a usage error (exit 2) saying what to give', async () => {
    const r = await run(['incident', 'set', '--db', join(tempDir(), 'case.db')])
    expect(r.code, r.stdout + r.stderr).toBe(2)
    expect(r.stderr).toContain('nothing to change: give at least one field to set (crosstalk incident set --help lists them)')
  })
})
