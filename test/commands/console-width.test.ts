import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {WIDE_POOL_TOKENS, writeWideIncident, type WideIncident} from '../helpers/wide-incident.js'
import {clipMiddle} from '../../src/cli/text-width.js'

// Issue 17: the text views read at 200 tenants. No line of scope, triage or timeline is
// wider than 160 characters; --json and --csv still carry every flow.

const MAX = 160
const widest = (text: string): {width: number; line: string} =>
  text.split('\n').reduce((w, line) => ([...line].length > w.width ? {width: [...line].length, line} : w), {width: 0, line: ''})

describe('console output at 200 tenants', () => {
  let dir: string
  let db: string
  let wide: WideIncident
  let triage: Awaited<ReturnType<typeof run>>
  beforeAll(async () => {
    dir = tempDir()
    db = join(dir, 'case.db')
    wide = writeWideIncident(dir)
    triage = await run(['triage', wide.logs, '--canaries', wide.canaries, '--db', db, '--pool-tokens', String(WIDE_POOL_TOKENS)])
  }, 120_000)

  it('the incident is as wide as intended', async () => {
    expect(triage.code, triage.stderr).toBe(0)
    const scope = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout)
    expect(scope.flow_matrix.tenants).toHaveLength(200)
    expect(scope.flows.length).toBeGreaterThan(1000)
  })

  it('triage, scope and timeline print no line over 160 characters, on stdout or stderr', async () => {
    const runs = {
      triage,
      scope: await run(['scope', '--db', db, '--pool-tokens', String(WIDE_POOL_TOKENS)]),
      timeline: await run(['timeline', '--db', db, '--pool-tokens', String(WIDE_POOL_TOKENS)]),
    }
    for (const [name, r] of Object.entries(runs)) {
      expect(r.code, `${name}: ${r.stderr}`).toBe(0)
      for (const stream of [r.stdout, r.stderr]) {
        const w = widest(stream)
        expect(w.width, `${name}: ${w.line}`).toBeLessThanOrEqual(MAX)
      }
    }
  })

  it('lists the top 10 flows and counts the rest, pointing to --csv and --json', async () => {
    const r = await run(['scope', '--db', db])
    const scope = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout) as {exposure: {flows: Array<{source_tenant: string; recipient_tenant: string; responses: number}>}}
    const flows = scope.exposure.flows
    const rest = flows.length - 10
    const restResponses = [...flows].sort((a, b) => b.responses - a.responses).slice(10).reduce((a, f) => a + f.responses, 0)
    expect(r.stdout).toContain(`Flows (marker or verbatim text): ${flows.length} tenant pairs among 200 tenants; the 10 with the most responses`)
    expect(r.stdout).toContain(`... and ${rest} more pairs with ${restResponses} responses: every pair with --csv --table exposure or --json (markers alone: --table flows, matrix)`)
    const top = Math.max(...flows.map((f) => f.responses))
    expect(r.stdout).toMatch(new RegExp(`^tn-\\S+\\s+tn-\\S+(?: \\(same tenant\\))?\\s+${top}\\s+\\d+$`, 'm'))
    // the biggest flow comes from a tenant whose name is longer than a line: cut in the middle (its end kept), not printed whole
    expect(r.stdout).not.toContain(wide.tenants[0])
    const shown = clipMiddle(wide.tenants[0]!, 40)
    expect(shown).toMatch(/^tn-very-long.*…/)
    expect(r.stdout.split('\n').some((l) => l.startsWith(shown) && /\s+tn-customer-organisation-001\s+120\s+120$/.test(l))).toBe(true)
  })

  it('--csv carries every flow and the full matrix', async () => {
    const flows = (await run(['scope', '--db', db, '--csv', '--table', 'flows'])).stdout.trim().split('\r\n')
    const scope = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout)
    expect(flows).toHaveLength(scope.flows.length + 1)
    const matrix = (await run(['scope', '--db', db, '--csv', '--table', 'matrix'])).stdout.trim().split('\r\n')
    expect(matrix).toHaveLength(201)
    expect(matrix[0]!.split(',')).toHaveLength(201)
    expect(matrix[0]).toMatch(/^source_tenant \\ recipient_tenant,/)
    const total = matrix.slice(1).reduce((a, row) => a + row.split(',').slice(1).reduce((b, v) => b + Number(v), 0), 0)
    expect(total).toBe(scope.flows.reduce((a: number, f: {responses: number}) => a + f.responses, 0))
  })
})
