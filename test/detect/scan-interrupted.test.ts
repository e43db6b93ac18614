import {afterEach, describe, expect, it} from 'vitest'
import {describeGap, detectionCoverage} from '../../src/detect/coverage.js'
import {scanCase, type ScanProgress} from '../../src/detect/scan-case.js'
import {makeCase, type TestCase} from '../helpers/case-builder.js'

// `scan` runs synchronously, so SIGINT or SIGTERM ends it where it stands (interrupt.ts: a
// caught signal could not be seen before the scan's end). Each phase commits on its own:
// sightings, then provenance, then personal data, then the run is marked finished. A scan
// killed between two of them left findings of its own beside the record of the last finished
// scan: status called detection complete, and the next scan, trusting that record, kept
// provenance computed with the killed scan's parameters under the finished scan's. A kill is
// simulated here by a progress callback that throws where the signal would have ended the
// process (what was committed stays; nothing after it runs).

const NOW = new Date('2026-11-03T00:00:00.000Z')

let tc: TestCase | undefined
afterEach(() => {
  tc?.close()
  tc = undefined
})

/** 15 words of b's prompt in a's answer: provenance at --min-words 12, not at 20. */
const COPIED = 'the quarterly ledger for harbor street shows nine unpaid invoices from the westgate bakery supplier'
const words = (n: number, seed: string): string => Array.from({length: n}, (_, i) => `${seed}${(i * 7919) % 1000}`).join(' ')

async function caseWithCopy(): Promise<TestCase> {
  const t = makeCase()
  await t.addFile([
    {request_id: 'b1', tenant_id: 'tn-b', session_id: 's-b', request_text: `please file this: ${COPIED} ${words(20, 'bq')}`, response_text: words(20, 'ba')},
    {request_id: 'a1', tenant_id: 'tn-a', session_id: 's-a', request_text: words(20, 'aq'), response_text: `here you go: ${COPIED.split(' ').slice(0, 15).join(' ')} ${words(10, 'aa')}`},
  ])
  return t
}

const killAt = (phase: ScanProgress['phase']) => (p: ScanProgress): void => {
  if (p.phase === phase) throw new Error(`killed at ${phase}`)
}

const provenanceRows = (t: TestCase): number => t.db.prepare('SELECT COUNT(*) FROM provenance').pluck().get() as number

describe('a scan killed before it finished', () => {
  it('leaves detection incomplete, naming the unfinished scan, and the next scan computes provenance again', async () => {
    tc = await caseWithCopy()
    scanCase(tc.db, {now: NOW, provenance: {minWords: 12}})
    expect(provenanceRows(tc)).toBe(1)
    expect(detectionCoverage(tc.db).complete).toBe(true)

    // --min-words 20: its provenance (none) is committed, then the process dies.
    expect(() => scanCase(tc!.db, {now: new Date('2026-11-03T01:00:00.000Z'), provenance: {minWords: 20}, onProgress: killAt('pii')})).toThrow('killed at pii')
    expect(provenanceRows(tc)).toBe(0)
    const after = detectionCoverage(tc.db)
    expect(after.complete).toBe(false)
    expect(after.unfinished_scan_started_at).toBe('2026-11-03T01:00:00.000Z')
    expect(describeGap(after)).toMatch(/^the scan begun at 2026-11-03T01:00:00.000Z did not finish/)

    // The same parameters as the last finished scan: its provenance is not the one stored.
    const again = scanCase(tc.db, {now: new Date('2026-11-03T02:00:00.000Z'), provenance: {minWords: 12}})
    expect(again.provenance_matches).toBe(1)
    expect(provenanceRows(tc)).toBe(1)
    expect(detectionCoverage(tc.db)).toMatchObject({complete: true, unfinished_scan_started_at: null})
  })

  it('killed while classifying markers, it leaves nothing of its own and a later scan finishes', async () => {
    tc = await caseWithCopy()
    await tc.addCanary('CANARY-00112233445566778899', 'tn-b', 's-b')
    expect(() => scanCase(tc!.db, {now: NOW, onProgress: killAt('markers')})).toThrow('killed at markers')
    expect(detectionCoverage(tc.db)).toMatchObject({complete: false, never_scanned: true})
    const done = scanCase(tc.db, {now: new Date('2026-11-03T01:00:00.000Z')})
    expect(done.records_scanned).toBe(2)
    expect(detectionCoverage(tc.db).complete).toBe(true)
  })
})
