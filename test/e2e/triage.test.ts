import {join} from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {loadGroundTruth} from '../../src/generate/ground-truth.js'
import {runCli, tempDir} from '../helpers/cli.js'

// triage = ingest canaries + ingest logs + scan + scope in one process, run as installed on
// the run's shared generated incident: its --json nests each step's output, the scope equals
// the ground truth, and the gate exits 3.

const incident = inject('incident')
const gt = loadGroundTruth(incident.groundTruth)
const dir = tempDir('ct-triage-')

describe('crosstalk triage', () => {
  it('ingests, scans and scopes in one go, matching the ground truth', () => {
    const db = join(dir, 'a.db')
    // A small input parses inline unless told otherwise: force the worker threads.
    const r = runCli(['triage', incident.logs, '--canaries', incident.canaries, '--db', db, '--json'], {env: {CROSSTALK_WORKERS: '2'}})
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as {
      canaries: {added: number}; ingest: {records: number; parse_workers: number}; scan: {contaminated_responses: number}; scope: Record<string, unknown>; timings_ms: {total: number}
    }
    expect(out.ingest.records).toBe(gt.totals.records)
    expect(out.ingest.parse_workers).toBe(2)
    expect(out.canaries.added).toBeGreaterThan(0)
    const {flows: _f, at_risk_responses: _a, ...want} = gt.scope as Record<string, unknown>
    expect(out.scope).toMatchObject(want)
    expect(out.scan.contaminated_responses).toBe(gt.scope.contaminated_responses)
    // Re-running adds nothing and finds the same.
    const again = JSON.parse(runCli(['triage', incident.logs, '--db', db, '--json']).stdout) as typeof out
    expect(again.ingest.records).toBe(0)
    expect(again.scope).toMatchObject(want)
  })

  it('--fail-on-leak exits 3 and still prints the result', () => {
    const r = runCli(['triage', incident.logs, '--canaries', incident.canaries, '--db', join(dir, 'b.db'), '--fail-on-leak', '--json'])
    expect(r.code).toBe(3)
    expect(JSON.parse(r.stdout).scope.contaminated_responses).toBeGreaterThan(0)
  })
})
