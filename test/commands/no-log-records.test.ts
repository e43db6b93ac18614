import {describe, expect, it} from 'vitest'
import {detectionCoverage} from '../../src/detect/coverage.js'
import {run} from '../helpers/commands.js'
import {makeCase} from '../helpers/case-builder.js'

// A scan over a case that holds no log record (none ingested, or every log file dropped) searched
// nothing: detection is not complete, and every report refuses as before a first scan instead
// of stating an all-clear over no evidence.

const MARKER = 'CANARY-0123456789abcdef0123'

async function expectRefusals(db: string): Promise<void> {
  const scope = await run(['scope', '--db', db, '--json'])
  expect(scope.code).toBe(1)
  expect(scope.stdout).toMatch(/the case holds no log record, so the scan searched nothing/)
  expect(scope.stdout).not.toMatch(/"contaminated_responses": 0/)
  for (const report of ['article33', 'article34', 'register']) {
    const r = await run(['report', report, '--db', db, '--lang', 'en'])
    expect(r.code, report).toBe(1)
    expect(r.stderr).toMatch(/detection is incomplete \(the case holds no log record, so the scan searched nothing\); run `crosstalk ingest logs` and `crosstalk scan` first/)
    expect(r.stdout).not.toMatch(/found no/)
  }
  // Under --allow-incomplete the letter says nothing was searched, never that nothing was found.
  const letter = await run(['report', 'article34', '--db', db, '--lang', 'en', '--allow-incomplete'])
  expect(letter.code, letter.stderr).toBe(0)
  expect(letter.stdout).toContain('No marker or text has been searched for yet.')
  expect(letter.stdout).not.toMatch(/found no answer/)
}

describe('detection over a case with no log record', () => {
  it('a scan of a case holding only a registry is not complete detection', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'tn-a', 's-a')
    const scan = await run(['scan', '--db', c.path])
    expect(scan.code, scan.stderr).toBe(0)
    // A scan ran (never_scanned false) and searched nothing (no_log_records).
    expect(detectionCoverage(c.db)).toMatchObject({complete: false, never_scanned: false, no_log_records: true})
    c.close()
    await expectRefusals(c.path)
    const opened = await run(['incident', 'open', '--db', c.path, '--title', 't', '--aware-at', '2026-11-02T08:00:00Z', '--role', 'controller'])
    expect(opened.code, opened.stderr).toBe(0)
    await expectRefusals(c.path)
  }, 60_000)

  it('every log file dropped, then scanned again: not complete either', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'tn-a', 's-a')
    const log = await c.addFile([
      {request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: `secret ${MARKER}`, response_text: 'ok'},
      {request_id: 'r2', tenant_id: 'tn-b', session_id: 's-b', request_text: 'hi', response_text: `here: ${MARKER}`},
    ])
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const before = await run(['scope', '--db', c.path, '--json'])
    expect(before.code, before.stderr).toBe(0)
    expect(JSON.parse(before.stdout).contaminated_responses).toBe(1)
    const dropped = await run(['drop', log, '--reason', 'wrong format', '--db', c.path])
    expect(dropped.code, dropped.stderr).toBe(0)
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    await expectRefusals(c.path)
  }, 60_000)
})

describe('status over a case with no log record', () => {
  it('names ingesting logs, not only a scan, as what gives the sightings', async () => {
    const c = makeCase()
    await c.addCanary(MARKER, 'tn-a', 's-a')
    c.close()
    expect((await run(['scan', '--db', c.path])).code).toBe(0)
    const status = await run(['status', '--db', c.path])
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/sightings\s+unknown: the case holds no log record, so the scan searched nothing {2}\(crosstalk ingest logs PATH; crosstalk scan\)/)
  }, 60_000)
})
