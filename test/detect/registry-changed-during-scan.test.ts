import Database from 'better-sqlite3'
import {spawn, type ChildProcess} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {detectionCoverage} from '../../src/detect/coverage.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {markerKey} from '../../src/extract/markers.js'
import {ingestCanaries} from '../../src/ingest/ingest-canaries.js'
import {countCanaries} from '../../src/store/canaries.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'
import {tempDir} from '../helpers/cli.js'

// QA (upgrade, defect 1): `ingest canaries` in a second process was accepted while a scan ran.
// The scan classified every marker against the one-entry registry it began with, yet printed
// the registry's new count and its gate exited 0 over 103 contaminated responses. Now the
// registry's ingest takes the claim a scan holds (refused as busy), and a scan whose registry
// changed all the same (a claim broken by hand, an older crosstalk) refuses to give its
// findings as current.

const NOW = new Date('2026-11-03T00:00:00.000Z')
const MINE = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const THEIRS = 'CANARY-b1b1b1b1b1b1b1b1b1b1'

let tc: TestCase | undefined
let holder: ChildProcess | undefined
afterEach(() => {
  holder?.kill()
  holder = undefined
  tc?.close()
  tc = undefined
})

/** A case where tn-b's answer carries tn-a's marker: with tn-a's marker registered, a cross-tenant leak. */
async function leakCase(): Promise<TestCase> {
  const t = makeCase()
  await t.addCanaries([[MINE, 'tn-b', 's-b']])
  await t.addFile([
    {request_id: 'r1', tenant_id: 'tn-a', session_id: 's-a', request_text: 'hello', response_text: 'fine'},
    {request_id: 'r2', tenant_id: 'tn-b', session_id: 's-b', request_text: 'hi', response_text: `here: ${THEIRS}`},
  ])
  return t
}

describe('a canary registry that changes while a scan runs', () => {
  it('ingest canaries is refused as busy while another process holds the case (a scan, an ingest, a drop), naming it; nothing is stored', async () => {
    tc = await leakCase()
    // Another live process's claim, as a running scan leaves it.
    holder = spawn('sleep', ['30'])
    tc.db.prepare('UPDATE case_settings SET ingest_pid = ?, ingest_claim = NULL WHERE id = 1').run(holder.pid)
    const csv = join(tempDir(), 'more.csv')
    writeFileSync(csv, `marker,tenant_id,session_id,issued_at\n${THEIRS},tn-a,s-a,\n`)
    const before = countCanaries(tc.db)
    await expect(ingestCanaries(tc.db, {path: csv, now: () => NOW})).rejects.toMatchObject({code: 'E_BUSY', message: expect.stringContaining(`(process ${holder.pid}) is writing to this case`)})
    expect(countCanaries(tc.db)).toBe(before)
    // The claim is still the other process's: the refusal did not clear it.
    expect(tc.db.prepare('SELECT ingest_pid FROM case_settings').pluck().get()).toBe(holder.pid)
  })

  it('ingest canaries leaves the case unclaimed when it is done', async () => {
    tc = await leakCase()
    expect(tc.db.prepare('SELECT ingest_pid FROM case_settings').pluck().get()).toBeNull()
  })

  it('a scan whose registry changed before it was stored refuses its findings as current (exit 1, naming the change), and the case reads as not scanned against the registry now', async () => {
    tc = await leakCase()
    const other = new Database(tc.path)
    try {
      const used = countCanaries(tc.db)
      let error: unknown
      try {
        scanCase(tc.db, {
          now: NOW,
          // Another connection registers tn-a's marker once the markers are classified (the claim bypassed, as an older crosstalk would).
          onMarkersClassified: () => {
            other.prepare('INSERT INTO canaries (marker_key, marker, tenant_id, session_id) VALUES (?, ?, ?, ?)').run(markerKey(THEIRS), THEIRS, 'tn-a', 's-a')
          },
        })
      } catch (e) {
        error = e
      }
      expect(error).toMatchObject({code: 'E_REGISTRY_CHANGED', exit: 1})
      expect((error as Error).message).toMatch(/^the canary registry changed while this scan ran \(registry version \d+ when it began, \d+ now/)
      // The registry actually used is named, not the one there now.
      expect((error as Error).message).toContain(`against the registry as it began (${used} canary)`)
      expect(countCanaries(tc.db)).toBe(used + 1)
      const coverage = detectionCoverage(tc.db)
      expect(coverage.complete).toBe(false)
      expect(coverage.registry_changed).toBe(true)
      // Scanned again, the leak is classified against the registry as it is.
      const again = scanCase(tc.db, {now: new Date('2026-11-03T01:00:00.000Z')})
      expect(again.canaries).toBe(used + 1)
      expect(again.cross_tenant_responses).toBe(1)
      expect(detectionCoverage(tc.db).registry_changed).toBe(false)
    } finally {
      other.close()
    }
  })

  it("a scan's count of canaries is the registry its markers were classified against", async () => {
    tc = await leakCase()
    const result = scanCase(tc.db, {now: NOW})
    expect(result.canaries).toBe(countCanaries(tc.db))
    expect(result.cross_tenant_responses).toBe(0)
  })
})
