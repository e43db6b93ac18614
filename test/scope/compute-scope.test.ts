import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {computeScope} from '../../src/scope/compute-scope.js'
import {computeTenantView} from '../../src/scope/tenant-view.js'
import {buildTimeline} from '../../src/scope/build-timeline.js'
import {loadScopeInputs, type LoadScopeOptions} from '../../src/scope/scope-data.js'
import {appendAudit, listAudit} from '../../src/store/audit.js'
import {tenantHasRecords} from '../../src/store/records.js'
import type {TestCase} from '../helpers/case-builder.js'
import {buildKnownCase, POOL} from './known-case.js'

let c: TestCase
beforeAll(async () => {
  c = await buildKnownCase()
})
afterAll(() => c.close())

const inputs = (options: LoadScopeOptions = {}) => loadScopeInputs(c.db, options)
const known = () => ({has: (t: string) => tenantHasRecords(c.db, t)})

describe('computeScope on a hand-built case', () => {
  it('gives every contract figure exactly', () => {
    const s = computeScope(inputs({poolTokens: POOL}))
    expect({
      contaminated_responses: s.contaminated_responses,
      cross_tenant_responses: s.cross_tenant_responses,
      cross_session_responses: s.cross_session_responses,
      exposed_sessions: s.exposed_sessions,
      exposed_tenants: s.exposed_tenants,
      recipient_tenants: s.recipient_tenants,
      first_seen: s.first_seen,
      last_seen: s.last_seen,
      at_risk_responses: s.at_risk_responses,
      flows: s.flows,
    }).toEqual({
      contaminated_responses: 4,
      cross_tenant_responses: 3,
      cross_session_responses: 1,
      exposed_sessions: 4,
      exposed_tenants: 3,
      recipient_tenants: 3,
      first_seen: '2026-11-02T06:00:00.123Z',
      last_seen: '2026-11-02T07:15:30.789Z',
      // records 3, 12, 4, 11 and 5 (exactly at the pool, 200 with an error event); not 6
      // (one token under), 7 (413) or 9 (file still loading)
      at_risk_responses: 5,
      flows: [
        {source_tenant: 'acme', recipient_tenant: 'acme', responses: 1},
        {source_tenant: 'acme', recipient_tenant: 'gamma', responses: 2},
        {source_tenant: 'beta', recipient_tenant: 'gamma', responses: 1},
        {source_tenant: 'gamma', recipient_tenant: 'beta', responses: 1},
      ],
    })
    expect(s.at_risk_error_responses).toBe(1)
    expect(s.orphan_sightings).toBe(1)
  })

  it('leaves at_risk_responses null without a pool, and the exposure bound open', () => {
    const s = computeScope(inputs())
    expect(s.at_risk_responses).toBeNull()
    expect(s.data_subjects.high).toBeNull()
    expect(s.contaminated_responses).toBe(4)
  })

  it('breaks down by node and by hour', () => {
    const s = computeScope(inputs({poolTokens: POOL, advertisedTokens: 800000}))
    expect(s.over_advertised_responses).toBe(1)
    expect(s.by_node).toEqual([
      {decode_node: 'd1', contaminated_responses: 3, cross_tenant_responses: 2, cross_session_responses: 1, provenance_responses: 0, at_risk_responses: 3, first_seen: '2026-11-02T06:00:00.123Z', last_seen: '2026-11-02T06:30:00.456Z', at_risk_first: '2026-11-02T06:00:00.123Z', at_risk_last: '2026-11-02T06:30:00.456Z'},
      {decode_node: 'd2', contaminated_responses: 1, cross_tenant_responses: 1, cross_session_responses: 0, provenance_responses: 1, at_risk_responses: 2, first_seen: '2026-11-02T07:15:30.789Z', last_seen: '2026-11-02T07:15:30.789Z', at_risk_first: '2026-11-02T07:10:00.000Z', at_risk_last: '2026-11-02T07:15:30.789Z'},
    ])
    expect(s.by_hour).toEqual([
      {hour: '2026-11-02T06:00:00.000Z', contaminated_responses: 3, cross_tenant_responses: 2, provenance_responses: 0, text_only_responses: 0, at_risk_responses: 3},
      // record 6's provenance, with no marker: text only
      {hour: '2026-11-02T07:00:00.000Z', contaminated_responses: 1, cross_tenant_responses: 1, provenance_responses: 1, text_only_responses: 1, at_risk_responses: 2},
    ])
    expect(s.flow_matrix).toEqual({tenants: ['acme', 'beta', 'gamma'], responses: [[1, 0, 2], [0, 0, 1], [0, 1, 0]]})
  })

  it('counts provenance-only leaks apart from the sighting-based contract numbers', () => {
    const s = computeScope(inputs({poolTokens: POOL}))
    expect(s.provenance_responses).toBe(1)
    expect(s.provenance_only_responses).toBe(1)
    expect(s.provenance_flows).toEqual([{source_tenant: 'acme', recipient_tenant: 'beta', responses: 1}])
  })

  it('lists data categories from markers, provenance and PII in leaked responses only', () => {
    const s = computeScope(inputs({poolTokens: POOL}))
    expect(s.data_categories.map((d) => [d.category, d.evidence, d.responses])).toEqual([
      ['conversation_content_cross_tenant', 'sightings', 3],
      ['conversation_content_cross_session', 'sightings', 1],
      ['conversation_content_attributed', 'provenance', 1],
      ['email', 'pii_findings', 1],
      ['iban', 'pii_findings', 1],
    ])
  })

  it('gives a data-subject range that brackets the true number of exposed sessions', () => {
    // truly exposed: acme-1, acme-2 (markers and provenance), beta-1, gamma-1 = 4
    const s = computeScope(inputs({poolTokens: POOL}))
    expect(s.data_subjects.low).toBe(4)
    // + beta-2, served by d2 inside its window (07:10..07:20)
    expect(s.data_subjects.high).toBe(5)
    expect(s.data_subjects.low).toBeLessThanOrEqual(4)
    expect(s.data_subjects.high).toBeGreaterThanOrEqual(4)
    expect(s.data_subjects.method).toMatch(/low:.*high:/s)
    expect(s.data_subjects.evidence).toMatchObject({sighting_source_sessions: 4, provenance_source_sessions: 1, exposure_sessions: 4})
    expect(s.records_concerned).toMatchObject({low: 5, high: 6})
    expect(s.bug_window).toMatchObject({start: '2026-11-02T06:00:00.123Z', end: '2026-11-02T07:20:00.000Z'})
  })
})

describe('one exposure: canary and verbatim-text evidence together', () => {
  it('counts every response, session and tenant pair once, each part shown', () => {
    const s = computeScope(inputs({poolTokens: POOL}))
    // reqs 3, 12, 4, 5 by canary; req 6 by text only (acme-2 -> beta-1)
    expect(s.exposure).toEqual({
      responses: 5,
      by_canary: 4,
      by_text_only: 1,
      // acme-1, acme-2, beta-1, gamma-1
      sessions: 4,
      source_tenants: 3,
      recipient_tenants: 3,
      flows: [
        {source_tenant: 'acme', recipient_tenant: 'acme', responses: 1},
        {source_tenant: 'acme', recipient_tenant: 'beta', responses: 1},
        {source_tenant: 'acme', recipient_tenant: 'gamma', responses: 2},
        {source_tenant: 'beta', recipient_tenant: 'gamma', responses: 1},
        {source_tenant: 'gamma', recipient_tenant: 'beta', responses: 1},
      ],
      // every source here is named
      source_not_named: 0,
    })
    // the same sessions the data-subject estimate counts as its low bound
    expect(s.exposure.sessions).toBe(s.data_subjects.low)
    expect(s.exposure.responses).toBe(s.records_concerned.low)
    // the canary keys are unchanged beside it
    expect(s.contaminated_responses).toBe(4)
  })

  it('the tenant view counts both kinds of evidence per direction', () => {
    const acme = computeTenantView(inputs(), {tenant: 'acme'}, known())
    expect(acme.leaked.exposure).toMatchObject({responses: 4, by_canary: 3, by_text_only: 1, own_sessions: 2, other_tenants: 2})
    const beta = computeTenantView(inputs(), {tenant: 'beta'}, known())
    expect(beta.received.exposure).toMatchObject({responses: 2, by_canary: 1, by_text_only: 1, other_tenants: 2})
  })
})

describe('computeTenantView', () => {
  it('shows what gamma received and leaked, other tenants as opaque labels', () => {
    const v = computeTenantView(inputs(), {tenant: 'gamma'}, known())
    expect(v.received).toMatchObject({responses: 2, cross_tenant_responses: 2, cross_session_responses: 0, own_sessions: 1, other_sessions: 3, other_tenants: 2, first_seen: '2026-11-02T06:00:00.123Z', last_seen: '2026-11-02T06:10:00.000Z'})
    expect(v.received.counterparts.map((x) => [x.tenant, x.responses, x.sessions])).toEqual([
      ['tenant#1', 2, 2],
      ['tenant#2', 1, 1],
    ])
    expect(v.leaked).toMatchObject({responses: 1, cross_tenant_responses: 1, own_sessions: 1, other_sessions: 1, other_tenants: 1, first_seen: '2026-11-02T07:15:30.789Z'})
    // beta keeps the same label in both directions
    expect(v.leaked.counterparts.map((x) => x.tenant)).toEqual(['tenant#2'])
    const text = JSON.stringify(v)
    for (const other of ['acme', 'beta']) expect(text).not.toContain(other)
  })

  it('names the other tenants with revealTenants, and counts cross-session under the tenant itself', () => {
    expect(computeTenantView(inputs(), {tenant: 'gamma', revealTenants: true}, known()).received.counterparts.map((x) => x.tenant)).toEqual(['acme', 'beta'])
    const acme = computeTenantView(inputs({poolTokens: POOL}), {tenant: 'acme'}, known())
    expect(acme.received.counterparts).toMatchObject([{tenant: 'acme', same_tenant: true, responses: 1}])
    expect(acme.leaked).toMatchObject({responses: 3, cross_session_responses: 1, other_tenants: 1, provenance_responses: 1, provenance_only_responses: 1, provenance_other_tenants: 1})
    expect(acme.at_risk_responses).toBe(1)
  })

  it('refuses a tenant the case does not hold', () => {
    expect(() => computeTenantView(inputs(), {tenant: 'nobody'}, known())).toThrow(/no records/)
  })
})

describe('buildTimeline', () => {
  it('merges node and pair milestones, sightings and the audit log in time order', () => {
    appendAudit(c.db, {at: new Date('2026-11-02T09:00:00.000Z'), command: 'scan', args: {}, version: 't', summary: {sightings: 6}})
    const t = buildTimeline(inputs({poolTokens: POOL}), listAudit(c.db))
    expect(t.bug_window).toMatchObject({start: '2026-11-02T06:00:00.123Z', end: '2026-11-02T07:20:00.000Z'})
    expect(t.nodes.find((n) => n.decode_node === 'd2')).toEqual({decode_node: 'd2', first_contaminated: '2026-11-02T07:15:30.789Z', last_contaminated: '2026-11-02T07:15:30.789Z', first_at_risk: '2026-11-02T07:10:00.000Z', last_at_risk: '2026-11-02T07:15:30.789Z'})
    expect(t.pairs.find((p) => p.source_tenant === 'acme' && p.recipient_tenant === 'gamma')).toEqual({source_tenant: 'acme', recipient_tenant: 'gamma', responses: 2, by_canary: 2, by_text_only: 0, first_seen: '2026-11-02T06:00:00.123Z', last_seen: '2026-11-02T06:10:00.000Z'})
    // the canary-less leak (req 6: acme-2's text in beta-1's answer) is a pair and an event too
    expect(t.pairs.find((p) => p.source_tenant === 'acme' && p.recipient_tenant === 'beta')).toMatchObject({responses: 1, by_canary: 0, by_text_only: 1, first_seen: '2026-11-02T07:20:00.000Z'})
    expect(t.events.filter((e) => e.kind === 'text_leak').map((e) => e.request_id)).toEqual(['req-6'])
    expect(t.exposure).toEqual(computeScope(inputs({poolTokens: POOL})).exposure)
    const ats = t.events.map((e) => e.at)
    expect([...ats].sort()).toEqual(ats)
    expect(t.events[0]!.kind).toBe('bug_window_start')
    expect(t.events.at(-1)).toMatchObject({kind: 'audit', command: 'scan', summary: {sightings: 6}})
    expect(t.events.filter((e) => e.kind === 'sighting')).toHaveLength(6)
    expect(t.hours.map((h) => [h.hour.slice(11, 13), h.contaminated_responses, h.at_risk_responses])).toEqual([
      ['06', 3, 3],
      ['07', 1, 2],
    ])
  })
})
