import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir} from '../helpers/cli.js'

// --map ts=epoch_s: over a field of milliseconds: the refusal named a converted year-58804 string
// that is in no file as an unrecognised timestamp, and told to change the format. It names the
// value as the line holds it, the unit it reads right in, and that --map as the fix.
describe('ingest logs with an epoch --map in the wrong unit', () => {
  it('names the raw value and the unit it reads right in, and gives that --map as the fix', () => {
    const dir = tempDir('ct-epoch-unit-')
    const log = join(dir, 'gw.jsonl')
    writeFileSync(log, `${JSON.stringify({t: 1793527260123, rid: 'r1', org: 'tA', conv: 'sA', out: {choices: [{message: {role: 'assistant', content: 'ok'}}]}})}\n`)
    const r = runCli(['ingest', 'logs', log, '--db', join(dir, 'c.db'), '--log-format', 'native', '--map', 'ts=epoch_s:t', '--map', 'request_id=rid',
      '--map', 'tenant_id=org', '--map', 'session_id=conv', '--map', 'response=out'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/line 1: .*t 1793527260123 is not seconds of a plausible time .*it reads as milliseconds \(2026-11-01T10:01:00\.123Z\)/)
    expect(r.stderr).toMatch(/; to fix: --map ts=epoch_ms:t /)
    expect(r.stderr).not.toMatch(/58804|unrecognised timestamp|to fix: --log-format/)
  })
})
