import {mkdtempSync, readFileSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it, vi} from 'vitest'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {ParsePool} from '../../src/ingest/parse-pool.js'
import {countAllRecords} from '../../src/store/records.js'
import {setIngestClaimant} from '../../src/store/settings.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'
import {runTriage} from '../../src/triage/run-triage.js'

// triage starts its parse workers before it reads the registry (they load their code on the
// other core meanwhile) and gives them the markers once it has them. They must read with those
// markers, and must never be left running: a registry refused ends the command.

const base = mkdtempSync(join(tmpdir(), 'ct-early-'))
const out = join(base, 'inc')
const now = () => new Date('2027-01-01T00:00:00Z')
const open: CaseDb[] = []
beforeAll(async () => {
  await generateIncident({out, records: 1200, seed: 44})
}, 120_000)
afterAll(() => {
  for (const db of open) db.close()
})
afterEach(() => {
  vi.restoreAllMocks()
})
const fresh = (name: string): CaseDb => {
  const db = openCase(join(base, `${name}.db`), {create: true})
  open.push(db)
  return db
}

describe('parse workers started before the registry is read', () => {
  it('are given the registry\'s markers and give the verdict the scan confirms', async () => {
    const given = vi.spyOn(ParsePool.prototype, 'useMarkers')
    const closed = vi.spyOn(ParsePool.prototype, 'close')
    const db = fresh('ok')
    const result = await runTriage(db, {paths: [join(out, 'logs')], canaries: join(out, 'canaries.csv'), now, workers: 2})
    // The pool started early was the one ingest used: it was given the markers once.
    expect(given).toHaveBeenCalledTimes(1)
    expect(closed).toHaveBeenCalledTimes(1)
    expect(result.verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
    expect(result.ingest.parse_workers).toBe(2)
  }, 120_000)

  it('are closed when the registry is refused', async () => {
    const closed = vi.spyOn(ParsePool.prototype, 'close')
    const bad = join(base, 'bad.csv')
    writeFileSync(bad, `${readFileSync(join(out, 'canaries.csv'), 'utf8')}  ,tn-x,sess-x,2026-11-01T00:00:00Z\n`)
    const db = fresh('refused')
    const error = await runTriage(db, {paths: [join(out, 'logs')], canaries: bad, now, workers: 2}).then(() => null, (e: unknown) => e)
    expect(error).toMatchObject({message: expect.stringMatching(/bad\.csv:\d+: marker/)})
    expect(closed).toHaveBeenCalledTimes(1)
    expect(countAllRecords(db)).toBe(0)
  }, 120_000)

  it('are closed, and others started, where ingest needs another number of them', async () => {
    const closed = vi.spyOn(ParsePool.prototype, 'close')
    const given = vi.spyOn(ParsePool.prototype, 'useMarkers')
    const db = fresh('count')
    const started = new ParsePool(1, null)
    const submitted = vi.spyOn(ParsePool.prototype, 'submit')
    const result = await ingestLogs(db, {paths: [join(out, 'logs')], now, workers: 2, startedPool: started})
    expect(given).not.toHaveBeenCalled()
    // Let go before the first unit is read, not held idle through the ingest.
    const closedAt = closed.mock.invocationCallOrder[closed.mock.contexts.indexOf(started)]
    expect(closedAt).toBeLessThan(submitted.mock.invocationCallOrder[0]!)
    expect(result.parse_workers).toBe(2)
    expect(result.records).toBeGreaterThan(0)
  }, 120_000)

  it('are closed when ingest fails before it takes them', async () => {
    const closed = vi.spyOn(ParsePool.prototype, 'close')
    const db = fresh('held')
    vi.spyOn(ParsePool.prototype, 'useMarkers').mockImplementation(() => {
      throw new Error('not expected: the pool was taken')
    })
    // Another live process holds the case (this one's parent).
    setIngestClaimant(db, process.ppid)
    const error = await runTriage(db, {paths: [join(out, 'logs')], canaries: join(out, 'canaries.csv'), now, workers: 2}).then(() => null, (e: unknown) => e)
    expect(error).toMatchObject({code: 'E_BUSY'})
    expect(closed).toHaveBeenCalledTimes(1)
  }, 120_000)
})
