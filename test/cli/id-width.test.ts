import {describe, expect, it} from 'vitest'
import {renderSightings} from '../../src/cli/render-detect.js'
import {renderTimeline, renderTopFlows, renderVerdict} from '../../src/cli/render-scope.js'
import {clipMiddle, idNames} from '../../src/cli/text-width.js'
import type {TimelineResult} from '../../src/scope/build-timeline.js'

// Tenant and session ids often share a long prefix and differ only at the end: a console view
// that cuts them must never show two different customers as the same text.

const LONG = 'tenant-very-long-organisation-name-europe-gmbh-division-'
const [A, B, C] = ['A', 'B', 'C'].map((x) => LONG + x) as [string, string, string]
const flows = [
  {source_tenant: B, recipient_tenant: C, responses: 2},
  {source_tenant: A, recipient_tenant: B, responses: 1},
  {source_tenant: A, recipient_tenant: C, responses: 1},
]

/** The distinct texts the ids were rendered as in `text`, per id: every id must be findable by its own text. */
const renderedDistinctly = (text: string, ids: string[], shown: (id: string) => string): void => {
  const forms = ids.map(shown)
  expect(new Set(forms).size).toBe(ids.length)
  for (const f of forms) expect(text).toContain(f)
}

describe('ids on the console', () => {
  it('are cut in the middle, keeping the end that tells them apart; one that would still read as another is shown whole', () => {
    expect(clipMiddle(A, 40)).toHaveLength(40)
    expect(clipMiddle(A, 40).endsWith('division-A')).toBe(true)
    expect(clipMiddle('short', 40)).toBe('short')
    const sameEnds = ['x'.repeat(30) + '1' + 'y'.repeat(30), 'x'.repeat(30) + '2' + 'y'.repeat(30)]
    const shown = idNames(sameEnds, 40)
    expect(shown(sameEnds[0]!)).not.toBe(shown(sameEnds[1]!))
    expect(shown(sameEnds[0]!)).toBe(sameEnds[0])
  })

  it("triage's largest flows, scope's flows table and timeline's events never show two tenants alike", () => {
    const verdict = renderVerdict({contaminated_responses: 4, cross_tenant_responses: 4, cross_session_responses: 0, exposed_sessions: 2, exposed_tenants: 2, recipient_tenants: 2, first_seen: null, last_seen: null, flows, basis: 'scan', canaries: 3, unreadable_files: [], quarantined_lines: 0})
    const lines = verdict.split('\n').filter((l) => l.startsWith('    ') && l.includes(' -> '))
    expect(new Set(lines.map((l) => l.trim().replace(/\s+\d+$/, ''))).size).toBe(3)
    renderedDistinctly(verdict, [A, B, C], (id) => clipMiddle(id, 40))
    const table = renderTopFlows(flows, flows).join('\n')
    const rows = table.split('\n').slice(3, 6).map((r) => r.replace(/\s+\d+\s+\d+$/, ''))
    expect(new Set(rows).size).toBe(3)
    const tl: TimelineResult = {
      bug_window: null, nodes: [], pairs: [], hours: [],
      events: flows.map((f, i) => ({at: `2026-11-01T00:0${i}:00.000Z`, kind: 'pair_first_contamination' as const, source_tenant: f.source_tenant, recipient_tenant: f.recipient_tenant, description: `first leak ${f.source_tenant} → ${f.recipient_tenant}`})),
      exposure: {responses: 4, by_canary: 4, by_text_only: 0, sessions: 2, source_tenants: 2, recipient_tenants: 2, flows: []},
      detection: {complete: true, files_not_scanned: 0, records_not_scanned: 0, files_unfinished: 0, never_scanned: false, unfinished_scan_started_at: null, registry_changed: false, sighting_rules_changed: false, files_extracted_earlier: 0, provenance: 'current', provenance_parameters: {min_words: 12, boilerplate_tenants: 3}, provenance_boilerplate_responses: 0, last_scan_at: '2026-11-03T00:00:00.000Z'},
      at_risk_basis: 'counted',
      at_risk_unknown_records: 0,
      retry_leaks_not_counted: [],
      duplicate_lines_not_examined: 0,
    }
    const events = renderTimeline(tl).split('\n').filter((l) => l.includes('pair_first_contamination'))
    expect(events).toHaveLength(3)
    expect(new Set(events.map((l) => l.slice(26))).size).toBe(3)
    for (const f of flows) expect(events.some((l) => l.includes(`${clipMiddle(f.source_tenant, 40)} → ${clipMiddle(f.recipient_tenant, 40)}`))).toBe(true)
  })

  it("sightings keep the end of tenant and session ids, so two sessions differing only at the end read apart", () => {
    const session = (x: string): string => `session-${'x'.repeat(60)}-${x}`
    const text = renderSightings(
      [
        {request_id: 'r1', ts: '2026-11-01T00:03:00.000Z', class: 'cross_tenant', marker: 'CANARY-aaaa0000', partial: false, possible_sources: [], log_source: 'gw', recipient_tenant: B, recipient_session: session('B1'), source_tenant: A, source_session: session('A1')},
        {request_id: 'r2', ts: '2026-11-01T00:04:00.000Z', class: 'cross_tenant', marker: 'CANARY-aaaa0000', partial: false, possible_sources: [], log_source: 'gw', recipient_tenant: C, recipient_session: session('C1'), source_tenant: A, source_session: session('A2')},
      ],
      {showMarkers: false},
    )
    const rows = text.split('\n').slice(2)
    const cells = rows.map((r) => r.split(/\s{2,}/).slice(-2))
    expect(new Set(cells.flat()).size).toBe(4)
    for (const [recipient] of cells) expect(recipient).toMatch(/division-[BC]\/session-x+…x+-[BC]1$/)
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(250)
  })
})
