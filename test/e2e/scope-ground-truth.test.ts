import fs from 'node:fs'
import path from 'node:path'
import {describe, expect, inject, it} from 'vitest'
import {findPii} from '../../src/extract/pii.js'
import {runCli, tempDir} from '../helpers/cli.js'

// generate -> ingest -> scan -> scope, as installed, against the generator's ground truth
// (the run's shared incident): every contract field of scope --json equals the truth.
const CONTRACT_KEYS = ['contaminated_responses', 'cross_tenant_responses', 'cross_session_responses', 'exposed_sessions', 'exposed_tenants', 'recipient_tenants', 'first_seen', 'last_seen', 'at_risk_responses', 'flows'] as const

describe('scope on a generated incident', () => {
  it('every contract field of scope --json equals the ground truth', () => {
    const incident = inject('incident')
    const db = path.join(tempDir(), 'case.db')
    const ok = (args: string[]) => {
      const r = runCli(args)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
      return r
    }
    ok(['ingest', 'canaries', incident.canaries, '--db', db])
    ok(['ingest', 'logs', incident.logs, '--db', db])
    ok(['scan', '--db', db, '--pool-tokens', '681280'])
    // The pool recorded by scan is what scope uses.
    const scope = JSON.parse(ok(['scope', '--json', '--db', db]).stdout)
    const gt = JSON.parse(fs.readFileSync(incident.groundTruth, 'utf8'))
    const truth = gt.scope
    for (const key of CONTRACT_KEYS) expect(scope[key], key).toEqual(truth[key])
    expect(scope.pool_basis).toBe('recorded')
    // The real number of data subjects: every session a stale page served to another session,
    // with or without a marker, however short the span (not just the marker-based exposed_sessions).
    const exposed: number = gt.true_exposed_session_ids.length
    expect(exposed).toBeGreaterThanOrEqual(truth.exposed_sessions)
    expect(scope.data_subjects.low).toBeLessThanOrEqual(exposed)
    expect(scope.data_subjects.high).toBeGreaterThanOrEqual(exposed)
    // Personal data the recipient never sent: exactly the values the generator leaked, no more (a
    // run of digits or capitals inside a marker's hex is not a card number or an IBAN). A phone
    // number as the extractor writes it (its forms are pii.test.ts's).
    const pii = JSON.parse(ok(['pii', '--json', '--show-values', '--db', db]).stdout) as Array<{request_id: string; kind: string; value: string}>
    const norm = (kind: string, v: string): string =>
      kind === 'card' ? v.replace(/\D/g, '') : kind === 'phone' ? (findPii(v).find((f) => f.kind === 'phone')?.value ?? v) : kind === 'iban' ? v.replace(/ /g, '') : kind === 'email' ? v.toLowerCase() : v
    const key = (p: {request_id: string; kind: string; value: string}) => `${p.request_id} ${p.kind} ${norm(p.kind, p.value)}`
    expect(pii.map(key).sort()).toEqual((gt.pii as Array<{request_id: string; kind: string; value: string}>).map(key).sort())
  })
})
