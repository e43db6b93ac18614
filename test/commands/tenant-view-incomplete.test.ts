import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// scope --tenant T --allow-incomplete over a case whose detection does not cover every file: the
// tenant view had no `detection` key (every other findings command's --json has it) and gave 0
// for what a tenant whose only record was never scanned received, on the console, in --json and
// in the CSV alike. Unknown is never printed as zero.

const M = 'CANARY-00000000000000000000000000000001'
const dir = tempDir('ct-tenant-incomplete-')
const db = join(dir, 'c.db')

beforeAll(async () => {
  writeFileSync(join(dir, 'a.jsonl'), `${JSON.stringify({ts: '2026-11-01T00:00:00Z', request_id: 'r1', tenant_id: 'tn-a', session_id: 's1', request: 'hello there', response: `hi ${M}`})}\n`)
  writeFileSync(join(dir, 'b.jsonl'), `${JSON.stringify({ts: '2026-11-01T01:00:00Z', request_id: 'r2', tenant_id: 'tn-b', session_id: 's2', request: 'hello', response: `here: ${M}`})}\n`)
  writeFileSync(join(dir, 'c.csv'), `marker,tenant_id,session_id,issued_at\n${M},tn-a,s1,2026-10-31T00:00:00Z\n`)
  for (const args of [['ingest', 'canaries', join(dir, 'c.csv')], ['ingest', 'logs', join(dir, 'a.jsonl')], ['scan'], ['ingest', 'logs', join(dir, 'b.jsonl')]]) {
    const r = await run([...args, '--db', db])
    if (r.code !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`)
  }
}, 60_000)

describe('the tenant view over an incomplete detection', () => {
  it('--json carries detection and gives null, not 0, for what a tenant never scanned received', async () => {
    const r = await run(['scope', '--tenant', 'tn-b', '--json', '--allow-incomplete', '--db', db])
    expect(r.code, r.stderr).toBe(0)
    const v = JSON.parse(r.stdout) as {detection: {complete: boolean; files_not_scanned: number}; counts_lower_bound: boolean; records_not_scanned: number; received: {responses: number | null; exposure: {responses: number | null}; counterparts: unknown[]}; leaked: {responses: number | null}}
    expect(v.detection).toMatchObject({complete: false, files_not_scanned: 1})
    expect(v.counts_lower_bound).toBe(true)
    expect(v.records_not_scanned).toBe(1)
    expect(v.received.responses).toBeNull()
    expect(v.received.exposure.responses).toBeNull()
    expect(v.received.counterparts).toEqual([])
    // What of it reached others is counted over what was scanned: a lower bound, labelled as one.
    expect(v.leaked.responses).toBe(0)
  })

  it('a tenant partly scanned keeps its figures, labelled as lower bounds', async () => {
    const v = JSON.parse((await run(['scope', '--tenant', 'tn-a', '--json', '--allow-incomplete', '--db', db])).stdout) as {detection: {complete: boolean}; counts_lower_bound: boolean; records_not_scanned: number}
    expect(v.detection.complete).toBe(false)
    expect(v.counts_lower_bound).toBe(true)
    expect(v.records_not_scanned).toBe(0)
  })

  it('the console says so above the view and prints unknown, not 0, for the tenant never scanned', async () => {
    const r = await run(['scope', '--tenant', 'tn-b', '--allow-incomplete', '--db', db])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/Detection has not covered the whole case .*no record of tenant "tn-b" was scanned .*lower bound/s)
    expect(r.stdout).toMatch(/responses \(marker or verbatim text\)\s+unknown/)
    expect(r.stdout).not.toMatch(/responses \(marker or verbatim text\)\s+0/)
  })

  it('the CSV: refused for the tenant never scanned, said beside it for one partly covered', async () => {
    const b = await run(['scope', '--tenant', 'tn-b', '--csv', '--allow-incomplete', '--db', db])
    expect(b.code).toBe(1)
    expect(b.stderr).toMatch(/no record of this tenant was scanned/)
    expect(b.stdout).toBe('')
    const a = await run(['scope', '--tenant', 'tn-a', '--csv', '--allow-incomplete', '--db', db])
    expect(a.code, a.stderr).toBe(0)
    expect(a.stderr).toMatch(/Detection has not covered the whole case .*lower bound.*The CSV counts what was scanned\./s)
  })

  it('a case detection covers has none of these keys', async () => {
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const v = JSON.parse((await run(['scope', '--tenant', 'tn-b', '--json', '--db', db])).stdout) as Record<string, unknown>
    expect(v).not.toHaveProperty('counts_lower_bound')
    expect((v.received as {responses: number}).responses).toBe(1)
  })
})
