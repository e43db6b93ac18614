import {describe, expect, it} from 'vitest'
import {renderTimeline} from '../../src/cli/render-scope.js'
import {clip, wrap} from '../../src/cli/text-width.js'
import type {TimelineResult} from '../../src/scope/build-timeline.js'

describe('clip and wrap', () => {
  it('clips by characters and marks the cut', () => {
    expect(clip('abcdef', 4)).toBe('abc…')
    expect(clip('abc', 4)).toBe('abc')
    expect(clip('ééééé', 3)).toBe('éé…')
  })
  it('wraps prose at word boundaries with a hanging indent; a word longer than a line is clipped', () => {
    const text = wrap('one two three four five six', 10)
    expect(text).toBe('one two\n  three\n  four\n  five six')
    for (const line of wrap(`start ${'x'.repeat(50)} end`, 20).split('\n')) expect([...line].length).toBeLessThanOrEqual(20)
  })
})

describe('renderTimeline', () => {
  it('keeps a hostile node name and a long basis within 160 characters, and names audited commands as typed', () => {
    const node = `decode-${'n'.repeat(300)}`
    const tl: TimelineResult = {
      bug_window: {start: '2026-11-01T00:00:00.000Z', end: '2026-11-02T00:00:00.000Z', basis: `first to last of: ${'contaminating sightings, '.repeat(10)}`},
      nodes: [],
      pairs: [],
      hours: [],
      events: [
        {at: '2026-11-01T00:00:00.000Z', kind: 'node_first_contamination', decode_node: node, description: `first response with another session's marker on ${node}`},
        {at: '2026-11-03T00:00:00.000Z', kind: 'audit', command: 'ingest:logs', audit_seq: 1, description: 'crosstalk ingest:logs'},
      ],
      exposure: {responses: 1, by_canary: 1, by_text_only: 0, sessions: 1, source_tenants: 1, recipient_tenants: 1, flows: []},
      detection: {complete: true, files_not_scanned: 0, records_not_scanned: 0, files_unfinished: 0, never_scanned: false, unfinished_scan_started_at: null, registry_changed: false, sighting_rules_changed: false, files_extracted_earlier: 0, provenance: 'current', provenance_parameters: {min_words: 12, boilerplate_tenants: 3}, provenance_boilerplate_responses: 0, last_scan_at: '2026-11-03T00:00:00.000Z'},
      at_risk_basis: 'counted',
      at_risk_unknown_records: 0,
      retry_leaks_not_counted: [],
      duplicate_lines_not_examined: 0,
    }
    const text = renderTimeline(tl)
    for (const line of text.split('\n')) expect([...line].length).toBeLessThanOrEqual(160)
    expect(text).toContain('crosstalk ingest logs')
    expect(text).not.toContain('ingest:logs')
  })
})

describe('renderTimeline with nothing found', () => {
  const quiet = (over: Partial<TimelineResult>): string =>
    renderTimeline({
      bug_window: null, nodes: [], pairs: [], hours: [], events: [],
      exposure: {responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []},
      detection: {complete: true, files_not_scanned: 0, records_not_scanned: 0, files_unfinished: 0, never_scanned: false, unfinished_scan_started_at: null, registry_changed: false, sighting_rules_changed: false, files_extracted_earlier: 0, provenance: 'current', provenance_parameters: {min_words: 12, boilerplate_tenants: 3}, provenance_boilerplate_responses: 0, last_scan_at: '2026-11-03T00:00:00.000Z'},
      at_risk_basis: 'counted',
      at_risk_unknown_records: 0,
      retry_leaks_not_counted: [],
      duplicate_lines_not_examined: 0,
      ...over,
    }).split('\n')[0]!

  it('says "none" only of what was looked at: at-risk counted, every file scanned', () => {
    expect(quiet({})).toBe('No contamination or at-risk responses in this case.')
    expect(quiet({at_risk_basis: 'no_pool'})).toBe('No contamination in this case; at-risk responses are not known without a KV pool size (--pool-tokens N).')
    expect(quiet({at_risk_basis: 'no_status_or_prompt_size'})).toBe('No contamination in this case; at-risk responses are unknown: no record gives both its HTTP status and its prompt size.')
    const partial = quiet({detection: {complete: false, files_not_scanned: 2, records_not_scanned: 40, files_unfinished: 0, never_scanned: false, unfinished_scan_started_at: null, registry_changed: false, sighting_rules_changed: false, files_extracted_earlier: 0, provenance: 'current', provenance_parameters: {min_words: 12, boilerplate_tenants: 3}, provenance_boilerplate_responses: 0, last_scan_at: '2026-11-03T00:00:00.000Z'}})
    expect(partial).toBe('No contamination or at-risk responses in what was scanned (2 log files with 40 records ingested since the last scan).')
  })

  it('never says "no at-risk responses" while some records leave their at-risk test open', () => {
    const tl = {
      bug_window: null, nodes: [], pairs: [], hours: [], events: [],
      exposure: {responses: 0, by_canary: 0, by_text_only: 0, sessions: 0, source_tenants: 0, recipient_tenants: 0, flows: []},
      detection: {complete: true, files_not_scanned: 0, records_not_scanned: 0, files_unfinished: 0, never_scanned: false, unfinished_scan_started_at: null, registry_changed: false, sighting_rules_changed: false, files_extracted_earlier: 0, provenance: 'current' as const, provenance_parameters: {min_words: 12, boilerplate_tenants: 3}, provenance_boilerplate_responses: 0, last_scan_at: '2026-11-03T00:00:00.000Z'},
      at_risk_basis: 'counted' as const,
      at_risk_unknown_records: 10,
      retry_leaks_not_counted: [],
      duplicate_lines_not_examined: 0,
    }
    expect(renderTimeline(tl).split('\n\n')[0]!.replace(/\s*\n\s*/g, ' ')).toBe('No contamination in this case; no at-risk response among the records that could be tested, and 10 records whose status or prompt size is not recorded: whether at risk unknown.')
  })
})

