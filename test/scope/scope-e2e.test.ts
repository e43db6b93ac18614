import fs from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT, runCli, tempDir} from '../helpers/cli.js'

// generate → ingest → scan → scope against the generator's ground truth. It needs three
// commands owned elsewhere (generate: issue 2, scan: issue 3); until they are built into
// dist/ this test is skipped, not passed.
const HAVE = ['generate', 'scan'].every((c) => fs.existsSync(path.join(ROOT, 'dist/commands', `${c}.js`)))
const CONTRACT_KEYS = ['contaminated_responses', 'cross_tenant_responses', 'cross_session_responses', 'exposed_sessions', 'exposed_tenants', 'recipient_tenants', 'first_seen', 'last_seen', 'at_risk_responses', 'flows'] as const

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, {withFileTypes: true}).flatMap((e) => (e.isDirectory() ? filesUnder(path.join(dir, e.name)) : [path.join(dir, e.name)]))
}

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, {recursive: true, force: true})
})

describe.skipIf(!HAVE)('scope on a generated incident', () => {
  it('every contract field of scope --json --pool-tokens 681280 equals the ground truth', () => {
    const dir = tempDir()
    dirs.push(dir)
    const out = path.join(dir, 'incident')
    const db = path.join(dir, 'case.db')
    const ok = (args: string[]) => {
      const r = runCli(args)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      return r
    }
    ok(['generate', '--out', out, '--records', '3000', '--seed', '7'])
    const files = filesUnder(out)
    const canaries = files.filter((f) => /canar/i.test(path.basename(f)))
    const logs = files.filter((f) => /\.jsonl(\.gz)?$/.test(f) && !canaries.includes(f))
    expect(canaries.length).toBeGreaterThan(0)
    expect(logs.length).toBeGreaterThan(0)
    for (const c of canaries) ok(['ingest', 'canaries', c, '--db', db])
    ok(['ingest', 'logs', ...logs, '--db', db])
    ok(['scan', '--db', db])
    const scope = JSON.parse(ok(['scope', '--json', '--db', db, '--pool-tokens', '681280']).stdout)
    const gt = JSON.parse(fs.readFileSync(path.join(out, 'ground-truth.json'), 'utf8'))
    const truth = gt.scope
    for (const key of CONTRACT_KEYS) expect(scope[key], key).toEqual(truth[key])
    // The real number of data subjects: every session a stale page served to another session,
    // with or without a marker, however short the span (not just the marker-based exposed_sessions).
    const exposed: number = gt.true_exposed_session_ids.length
    expect(exposed).toBeGreaterThanOrEqual(truth.exposed_sessions)
    expect(scope.data_subjects.low).toBeLessThanOrEqual(exposed)
    expect(scope.data_subjects.high).toBeGreaterThanOrEqual(exposed)
  })
})
