import {existsSync, readdirSync, statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, tempDir} from '../helpers/cli.js'

describe('crosstalk demo', () => {
  it('runs the whole pipeline on a generated incident and leaves a verified case and reports', () => {
    const out = join(tempDir(), 'demo')
    const r = runCli(['demo', '--out', out, '--records', '3000', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const result = JSON.parse(r.stdout) as {steps: {command: string; result: any}[]; db: string}
    const step = (name: string) => result.steps.find((s) => s.command.startsWith(`crosstalk ${name} `))?.result
    const triage = step('triage')
    expect(triage.ingest.records).toBe(3000)
    expect(triage.scan.contaminated_responses).toBeGreaterThan(0)
    expect(triage.scope.contaminated_responses).toBe(triage.scan.contaminated_responses)
    expect(step('probe').verdict).toBe('fail')
    expect(step('replay').results.some((x: {verdict: string}) => x.verdict === 'confirmed')).toBe(true)
    expect(step('clock').status).toBe('open')
    expect(step('verify').ok).toBe(true)
    expect(statSync(join(out, 'reports/article33.pdf')).size).toBeGreaterThan(5000)
    expect(existsSync(join(out, 'reports/article33.md'))).toBe(true)
    expect(readdirSync(join(out, 'reports/processor-notices')).length).toBeGreaterThan(1)
    expect(statSync(result.db).mode & 0o777).toBe(0o600)
    // Contract: every timestamp in --json output is UTC in toISOString() form.
    const stamps: string[] = []
    const walk = (v: unknown): void => {
      if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v)) stamps.push(v)
      else if (v && typeof v === 'object') Object.values(v).forEach(walk)
    }
    walk(result)
    expect(stamps.length).toBeGreaterThan(10)
    expect(stamps.filter((t) => !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(t))).toEqual([])
  })

  it('prints a readable summary naming where the outputs are', () => {
    const out = join(tempDir(), 'demo')
    const r = runCli(['demo', '--out', out, '--records', '1000'])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/contaminated responses/)
    // Both kinds of evidence lead, as in the drafts; the markers' own times say they are the markers'.
    expect(r.stdout).toMatch(/scope {9}\d+ responses? carried another session's data: \d+ with its marker \(contaminated responses: \d+ cross-tenant, \d+ cross-session\), \d+ by verbatim text only/)
    expect(r.stdout).toMatch(/data of \d+ sessions? of \d+ tenants? reached \d+ tenants?; data subjects/)
    expect(r.stdout).toMatch(/first marker \S+ {2}last marker /)
    expect(r.stdout).toMatch(/verify passed/)
    // The probe's "fail" says what failed: alone it reads as the probe having failed to run.
    expect(r.stdout).toMatch(/reproduction {2}probe against the reference backend \(stale, disaggregated\): fail \(failed checks?: [a-z_.]+(, [a-z_.]+)*\); replay confirmed/)
    expect(r.stdout).toContain(join(out, 'case.db'))
    expect(r.stderr).toMatch(/\$ crosstalk triage /)
  })
})
