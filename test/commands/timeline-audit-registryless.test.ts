import {describe, expect, it} from 'vitest'
import {appendAudit} from '../../src/store/audit.js'
import {openCase} from '../../src/store/open-case.js'
import {makeCase} from '../helpers/case-builder.js'
import {run, runJson} from '../helpers/commands.js'

// timeline --json on a case with no canary registry: the scan's audit event held 0 for the marker
// classes and the contamination counts, where no marker could be attributed to any session (not
// known, as scan --json and scope --json give it). Entries recorded so by earlier releases are
// read back as not known too: the audit log is append-only and is never rewritten.

interface ScanSummary {
  canaries: number
  sightings: number
  contaminated_responses: number | null
  cross_session_responses: number | null
  cross_tenant_responses: number | null
  sightings_by_class: Record<string, number | null>
}
interface Timeline {events: Array<{kind: string; command?: string; audit_seq?: number; summary?: unknown}>}

const ORPHAN = 'CANARY-00112233445566778899aabb'

function scanEvents(t: Timeline): ScanSummary[] {
  return t.events.filter((e) => e.kind === 'audit' && e.command === 'scan').map((e) => e.summary as ScanSummary)
}

function expectNotKnown(s: ScanSummary, orphans: number): void {
  expect(s.canaries).toBe(0)
  expect(s.contaminated_responses).toBeNull()
  expect(s.cross_session_responses).toBeNull()
  expect(s.cross_tenant_responses).toBeNull()
  expect(s.sightings_by_class).toEqual({own: null, echo: null, cross_session: null, cross_tenant: null, orphan: orphans})
}

describe('timeline --json audit events of a scan with no canary registry', () => {
  it('give the marker classes and contamination counts as null, never 0', async () => {
    const c = makeCase()
    await c.addFile([
      {request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hello', response_text: `token ${ORPHAN} here`},
      {request_id: 'r2', tenant_id: 'tn-b', session_id: 's-b', request_text: 'hi', response_text: 'plain answer'},
    ])
    c.close()
    const scan = await run(['scan', '--db', c.path, '--json'])
    expect(scan.code, scan.stderr).toBe(0)
    // What a release before this one recorded for the same scan: zeros where nothing could be attributed.
    const db = openCase(c.path)
    appendAudit(db, {at: new Date('2026-11-03T01:00:00.000Z'), command: 'scan', args: {}, version: 'old', summary: {canaries: 0, sightings: 1, contaminated_responses: 0, cross_session_responses: 0, cross_tenant_responses: 0, sightings_by_class: {own: 0, echo: 0, cross_session: 0, cross_tenant: 0, orphan: 1}}})
    db.close()
    const t = await runJson<Timeline>(['timeline', '--db', c.path, '--json'])
    const scans = scanEvents(t)
    expect(scans).toHaveLength(2)
    for (const s of scans) {
      expect(s.sightings).toBe(1)
      expectNotKnown(s, 1)
    }
    expect(JSON.stringify(scans)).not.toMatch(/"contaminated_responses":0/)
  }, 60_000)

  it('keep the counts of a scan that had a registry', async () => {
    const c = makeCase()
    await c.addCanary('CANARY-aaaaaaaaaaaaaaaaaaaa01', 'tn-a', 's-a')
    await c.addFile([
      {request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'mine CANARY-aaaaaaaaaaaaaaaaaaaa01', response_text: 'ok'},
      {request_id: 'r2', tenant_id: 'tn-b', session_id: 's-b', request_text: 'hi', response_text: 'leak CANARY-aaaaaaaaaaaaaaaaaaaa01'},
    ])
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const [s] = scanEvents(await runJson<Timeline>(['timeline', '--db', c.path, '--json']))
    expect(s).toMatchObject({canaries: 1, contaminated_responses: 1, cross_tenant_responses: 1, cross_session_responses: 0, sightings_by_class: {cross_tenant: 1, own: 0}})
  }, 60_000)
})
