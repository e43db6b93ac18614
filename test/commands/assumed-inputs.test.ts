import {join} from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {assumedInputs} from '../../src/notify/article33.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// assess fills the ENISA inputs the logs cannot decide (vulnerable people, special categories,
// public or inaccurate data, malice, ...) with assumed values. The draft stated the severity
// built on them with nothing saying that nobody had confirmed them.

describe('the Article 33 draft over an assessment with assumed inputs', () => {
  it('names each input assumed by default as an open item, and none once the assessor has set them all', async () => {
    const incident = inject('incident')
    const db = join(tempDir(), 'case.db')
    expect((await run(['triage', incident.logs, '--canaries', incident.canaries, '--db', db, '--pool-tokens', '681280'])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 't', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    expect((await run(['assess', '--db', db, '--decide', 'notify', '--rationale', 'cross-tenant leak'])).code).toBe(0)
    type Draft = {open_items: Array<{item: string}>}
    const before = await runJson<Draft>(['report', 'article33', '--db', db, '--lang', 'en', '--allow-incomplete'])
    const item = before.open_items.find((o) => o.item.startsWith('the severity rests on inputs assumed by default'))
    expect(item?.item).toContain('vulnerable_subjects=false')
    expect(item?.item).toContain('special_categories=false')
    const given = ['--dpc', '2', '--no-special-categories', '--no-vulnerable-subjects', '--data-volume', 'normal', '--no-public-data', '--no-inaccurate-data', '--cb-availability', '0', '--no-malicious', '--no-unintelligible']
    const set = await run(['assess', '--db', db, ...given, '--decide', 'notify', '--rationale', 'inputs reviewed'])
    expect(set.code, set.stderr).toBe(0)
    const after = await runJson<Draft>(['report', 'article33', '--db', db, '--lang', 'en', '--allow-incomplete'])
    expect(after.open_items.some((o) => o.item.startsWith('the severity rests on inputs assumed by default'))).toBe(false)
  }, 120_000)

  it('assumedInputs: only inputs left at their default are named, with the value assumed', () => {
    expect(assumedInputs({dpc: {value: 3, source: 'case default'}, malicious: {value: false, source: 'case default'}, public_data: {value: true, source: 'given'}})).toEqual(['malicious=false'])
    expect(assumedInputs({dpc: {value: 1, source: 'case default'}})).toEqual(['dpc=1'])
  })
})
