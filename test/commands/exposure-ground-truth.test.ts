import fs from 'node:fs'
import path from 'node:path'
import type {Exposure} from '../../src/scope/exposure.js'
import {describe, expect, it} from 'vitest'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {loadGroundTruth, type GroundTruth} from '../../src/generate/ground-truth.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {readLines} from '../helpers/generated-logs.js'
import {count} from '../../src/util/plural.js'

// One exposure, told the same way everywhere: on generated incidents, scope --json's
// `exposure`, the numbers of report article33 --format json and the processor notices equal
// each other and the ground truth's union of canary (cross-session/cross-tenant sightings) and
// canary-less (provenance, 12+ words) leaks, whose sources the generator knows (chained leaks
// included: a source is the earliest original occurrence).


/** The ground truth's union of canary and canary-less leaks, counted the way the contract defines `exposure`. */
function truthExposure(gt: GroundTruth, tenantOf: Map<string, string>): {exposure: Exposure; perTenant: Map<string, {leaked: number; received: number}>} {
  const rows = [
    // A marker cut short of the markers of several sessions names no session, nor a tenant where theirs differ (null).
    ...gt.sightings.filter((s) => s.class === 'cross_session' || s.class === 'cross_tenant').map((s) => ({id: s.request_id, by: 'canary', source: [s.source_tenant, s.source_session] as [string | null, string | null], recipient: s.recipient_tenant})),
    ...gt.provenance.map((p) => ({id: p.request_id, by: 'text', source: [p.source_tenant, p.source_session] as [string | null, string | null], recipient: tenantOf.get(p.request_id)!})),
  ]
  const named = rows.filter((r) => r.source[0] !== null)
  const ids = new Set(rows.map((r) => r.id))
  const canary = new Set(rows.filter((r) => r.by === 'canary').map((r) => r.id))
  const flows = new Map<string, Set<string>>()
  const perTenant = new Map<string, {leaked: Set<string>; received: Set<string>}>()
  const tenant = (t: string) => perTenant.get(t) ?? perTenant.set(t, {leaked: new Set(), received: new Set()}).get(t)!
  for (const r of rows) {
    tenant(r.recipient).received.add(r.id)
    if (r.source[0] === null) continue
    const key = JSON.stringify([r.source[0], r.recipient])
    flows.set(key, (flows.get(key) ?? new Set()).add(r.id))
    tenant(r.source[0]).leaked.add(r.id)
  }
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  // Where some evidence names no source session (a marker cut short of several sessions' markers):
  // the responses it is in, and the lower bounds it gives. A tenant named without its session is one
  // more session only where none of that tenant's sessions is counted; a source naming no tenant
  // counts one session and one tenant only where nothing else is counted (it may be any of them).
  const unnamed = rows.filter((r) => r.source[1] === null)
  const namedSessions = new Set(named.filter((r) => r.source[1] !== null).map((r) => JSON.stringify(r.source)))
  const tenantsWithSessions = new Set(named.filter((r) => r.source[1] !== null).map((r) => r.source[0]))
  const tenantOnly = new Set(unnamed.filter((r) => r.source[0] !== null).map((r) => r.source[0]))
  const noTenant = unnamed.some((r) => r.source[0] === null)
  const sessionsLow = namedSessions.size + [...tenantOnly].filter((t) => !tenantsWithSessions.has(t)).length || (noTenant ? 1 : 0)
  const sourceTenants = new Set(named.map((r) => r.source[0])).size
  const bounds = unnamed.length === 0 ? {} : {
    session_not_named: new Set(unnamed.map((r) => r.id)).size,
    marker_session_not_named: new Set(unnamed.filter((r) => r.by === 'canary').map((r) => r.id)).size,
    marker_source_not_named: new Set(unnamed.filter((r) => r.by === 'canary' && r.source[0] === null).map((r) => r.id)).size,
    sessions_low: sessionsLow,
    source_tenants_low: sourceTenants === 0 && noTenant ? 1 : sourceTenants,
  }
  return {
    exposure: {
      ...bounds,
      responses: ids.size,
      by_canary: canary.size,
      by_text_only: ids.size - canary.size,
      sessions: new Set(named.filter((r) => r.source[1] !== null).map((r) => JSON.stringify(r.source))).size,
      source_tenants: new Set(named.map((r) => r.source[0])).size,
      recipient_tenants: new Set(rows.map((r) => r.recipient)).size,
      flows: [...flows].map(([k, v]) => {
        const [source_tenant, recipient_tenant] = JSON.parse(k) as [string, string]
        return {source_tenant, recipient_tenant, responses: v.size}
      }).sort((a, b) => cmp(a.source_tenant, b.source_tenant) || cmp(a.recipient_tenant, b.recipient_tenant)),
      // the generator's leaks each have one source whose prompt is logged: only a marker cut short
      // of markers of several tenants' sessions names none
      source_not_named: ids.size - new Set(named.map((r) => r.id)).size,
    },
    perTenant: new Map([...perTenant].map(([t, v]) => [t, {leaked: v.leaked.size, received: v.received.size}])),
  }
}

async function check(seed: number): Promise<void> {
  const dir = tempDir()
  const out = path.join(dir, 'inc')
  await generateIncident({out, records: 5000, seed})
  const gt = loadGroundTruth(path.join(out, 'ground-truth.json'))
  const tenantOf = new Map<string, string>()
  for (const f of gt.files) {
    for (const l of readLines(out, f.path)) {
      try {
        const o = JSON.parse(l.bytes.toString('utf8')) as {request_id?: string; tenant_id?: string}
        if (o.request_id && o.tenant_id) tenantOf.set(o.request_id, o.tenant_id)
      } catch {
        // a bad line the generator planted
      }
    }
  }
  const truth = truthExposure(gt, tenantOf)
  expect(gt.leaks.some((l) => l.via_request_id !== null && l.words >= 12), 'the incident has chained leaks').toBe(true)

  const db = path.join(dir, 'case.db')
  await runJson(['triage', path.join(out, 'logs'), '--canaries', path.join(out, 'canaries.csv'), '--db', db, '--pool-tokens', String(gt.params.pool_tokens)])
  const scope = await runJson<{exposure: Exposure; data_subjects: {low: number}}>(['scope', '--db', db])
  expect(scope.exposure).toEqual(truth.exposure)

  const draft = await runJson<{
    scope: {exposure: Exposure}
    data_subjects: {approximate: {low: number}}
    records: {approximate: {low: number}}
    data_categories: Array<{kind: string; count: number}>
    nature: {summary: string[]}
  }>(['report', 'article33', '--db', db, '--format', 'json', '--now', '2026-11-03T00:00:00Z'])
  expect(draft.scope.exposure).toEqual(truth.exposure)
  expect(draft.data_subjects.approximate.low).toBe(truth.exposure.sessions)
  expect(draft.records.approximate.low).toBe(truth.exposure.responses)
  // the verbatim-text category counts exactly the responses with no marker (defect 4)
  expect(draft.data_categories.find((c) => c.kind === 'conversation_content_attributed')?.count ?? 0).toBe(truth.exposure.by_text_only)
  const e = truth.exposure
  expect(draft.nature.summary[0]).toContain(`${e.responses} responses carried data belonging to another session: ${e.by_canary} of them held that session's canary marker and ${e.by_text_only} reproduced its text verbatim`)
  expect(draft.nature.summary[0]).toContain(`The data of ${count(e.sessions, 'session')} of ${count(e.source_tenants, 'customer')} reached ${count(e.recipient_tenants, 'receiving customer')}`)
  const md = (await run(['report', 'article33', '--db', db, '--now', '2026-11-03T00:00:00Z'])).stdout
  expect(md).toContain(`| Responses carrying another session's data | ${e.responses} |`)
  expect(md).toContain(`| of which by verbatim text only (no marker) | ${e.by_text_only} |`)

  // the processor notices: exactly the tenants of the exposure, each with its own share of it
  const notices = path.join(dir, 'notices')
  await runJson(['report', 'processor-notice', '--db', db, '--all', '--out', notices, '--format', 'json'])
  const files = fs.readdirSync(notices)
  expect(files).toHaveLength(truth.perTenant.size)
  for (const f of files) {
    const n = JSON.parse(fs.readFileSync(path.join(notices, f), 'utf8')) as {tenant_id: string; your_data_reached_others: {responses: number}; you_received_other_data: {responses: number}}
    const want = truth.perTenant.get(n.tenant_id)
    expect(want, n.tenant_id).toBeDefined()
    expect({tenant: n.tenant_id, leaked: n.your_data_reached_others.responses, received: n.you_received_other_data.responses}).toEqual({tenant: n.tenant_id, leaked: want!.leaked, received: want!.received})
  }
}

describe('one exposure on generated incidents', () => {
  it('seed 1: scope, the Article 33 draft and the processor notices equal the ground truth', async () => check(1), 180_000)
  it('seed 42: scope, the Article 33 draft and the processor notices equal the ground truth', async () => check(42), 180_000)
})
