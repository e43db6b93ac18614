import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA investigate #9: scope --tenant T --csv had no column for the responses the console and
// --json count (marker or verbatim text, each once: exposure_responses); its `responses` counts
// markers only, and adding it to provenance_responses double-counts a response with both.

const dir = tempDir('ct-tenant-csv-')
const db = join(dir, 'c.db')
const TENANT = 'tn-nordbank'

interface Counterpart {tenant: string; responses: number; provenance_responses: number; exposure_responses: number; sessions: number}

beforeAll(async () => {
  const gen = join(dir, 'gen')
  for (const args of [['generate', '--out', gen, '--records', '3000', '--seed', '3'], ['ingest', 'logs', join(gen, 'logs'), '--db', db], ['ingest', 'canaries', join(gen, 'canaries.csv'), '--db', db], ['scan', '--db', db]]) {
    const r = await run(args)
    if (r.code !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`)
  }
}, 120_000)

describe('scope --tenant --csv', () => {
  it('gives exposure_responses per counterpart, as --json gives it', async () => {
    const j = await runJson<{tenant: string; received: {counterparts: Counterpart[]}; leaked: {counterparts: Counterpart[]}}>(['scope', '--tenant', TENANT, '--json', '--reveal-tenants', '--db', db])
    const csv = await run(['scope', '--tenant', TENANT, '--csv', '--reveal-tenants', '--db', db])
    expect(csv.code, csv.stderr).toBe(0)
    const [header, ...lines] = csv.stdout.trim().split('\r\n')
    const columns = header!.split(',')
    expect(columns).toContain('exposure_responses')
    const rows = lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [columns[i]!, v])))
    const expected = (['received', 'leaked'] as const).flatMap((d) => j[d].counterparts.map((c) => [d, c.tenant, String(c.exposure_responses)]))
    expect(expected.length).toBeGreaterThan(0)
    expect(rows.map((r) => [r.direction, r.counterpart, r.exposure_responses])).toEqual(expected)
  })
})
