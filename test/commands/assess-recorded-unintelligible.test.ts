import {join} from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// assess --unintelligible (Art. 34(3)(a)) defaults from the fact `incident set --data-unintelligible`
// records, says where each value came from, and reports a flag that contradicts the record.

type Assessed = {inputs: Array<{name: string; value: unknown; source: string; why: string}>; conflicts: string[]}

describe('assess and the recorded data-unintelligible fact', () => {
  it('takes the default from the record, tags its source, and reports a contradicting flag', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    expect((await run(['triage', incident.logs, '--canaries', incident.canaries, '--db', db, '--pool-tokens', '681280'])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    const unset = await runJson<Assessed>(['assess', '--db', db])
    expect(unset.inputs.find((i) => i.name === 'unintelligible')).toMatchObject({value: false, source: 'case default', why: expect.stringMatching(/^not recorded in the case/)})
    expect((await run(['incident', 'set', '--db', db, '--data-unintelligible', 'protection-intact'])).code).toBe(0)
    const recorded = await runJson<Assessed>(['assess', '--db', db])
    expect(recorded.inputs.find((i) => i.name === 'unintelligible')).toMatchObject({value: true, source: 'case record'})
    expect(recorded.conflicts).toEqual([])
    const console = await run(['assess', '--db', db, '--no-unintelligible'])
    expect(console.code, console.stderr).toBe(0)
    expect(console.stdout).toMatch(/^CONFLICT unintelligible: given as false, but the case records true /m)
    expect((await run(['assess', '--db', db])).stdout).toMatch(/^unintelligible\s+true\s+\(recorded\)/m)
  }, 120_000)
})
