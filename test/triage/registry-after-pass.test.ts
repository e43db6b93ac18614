import {appendFileSync, mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {countCanaries} from '../../src/store/canaries.js'
import {countAllRecords} from '../../src/store/records.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'
import {runTriage, TriageStopped, type TriageStep, type TriageVerdict} from '../../src/triage/run-triage.js'

// Issue 18: on a case with no registry yet, triage reads the registry into memory, gives its
// quick verdict against it, and stores it into the case once the pass is over (before any log
// record). What the verdict was given must be what the case holds: a registry rewritten in
// between refuses the run; a failure before the registry's turn still leaves it in the case.

const base = mkdtempSync(join(tmpdir(), 'ct-regpass-'))
const out = join(base, 'inc')
let records = 0
const now = () => new Date('2027-01-01T00:00:00Z')
const open: CaseDb[] = []
beforeAll(async () => {
  records = (await generateIncident({out, records: 1500, seed: 43})).records
}, 120_000)
afterAll(() => {
  for (const db of open) db.close()
})
const fresh = (name: string): CaseDb => {
  const db = openCase(join(base, `${name}.db`), {create: true})
  open.push(db)
  return db
}

describe('the registry stored after the quick pass', () => {
  it('is not in the case when the verdict is given, and is before the first record', async () => {
    const db = fresh('order')
    let atVerdict: {canaries: number; records: number; verdict: TriageVerdict} | null = null
    const steps: string[] = []
    const result = await runTriage(
      db,
      {paths: [join(out, 'logs')], canaries: join(out, 'canaries.csv'), now, onVerdict: (v) => (atVerdict = {canaries: countCanaries(db), records: countAllRecords(db), verdict: v})},
      (s: TriageStep) => {
        steps.push(s.step)
        if (s.step === 'canaries') expect(countAllRecords(db)).toBe(0)
      },
    )
    expect(atVerdict).not.toBeNull()
    const seen = atVerdict!
    expect(seen.canaries).toBe(0)
    expect(seen.records).toBe(0)
    expect(seen.verdict.basis).toBe('quick')
    // The verdict counted the markers the case holds now, and the scan agreed with every figure.
    expect(seen.verdict.canaries).toBe(countCanaries(db))
    expect(result.verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
    expect(result.canaries).toMatchObject({status: 'ingested', added: countCanaries(db)})
    expect(result.ingest.records).toBe(records)
    expect(steps).toEqual(['canaries', 'ingest', 'scan'])
  }, 120_000)

  it('refuses the run when the registry changed after the verdict was given', async () => {
    const db = fresh('changed')
    const path = join(base, 'changing.csv')
    appendFileSync(path, (await import('node:fs')).readFileSync(join(out, 'canaries.csv')))
    const error = await runTriage(db, {
      paths: [join(out, 'logs')], canaries: path, now,
      onVerdict: () => appendFileSync(path, 'CANARY-00000000000000000000000000000001,t-late,s-late,2026-11-01T00:00:00Z\n'),
    }).then(() => null, (e: unknown) => e)
    expect(error).toMatchObject({code: 'E_CHANGED', message: expect.stringMatching(/changing\.csv: changed while it was being read.*nothing of it was stored/)})
    expect(countAllRecords(db)).toBe(0)
    // Nothing of the rewritten registry stays in the case (QA registry #9: it was stored, one row more).
    expect(countCanaries(db)).toBe(0)
  }, 120_000)

  it('is stored all the same when a signal stops the pass', async () => {
    const db = fresh('signal')
    const controller = new AbortController()
    const steps: string[] = []
    const error = await runTriage(
      db,
      {paths: [join(out, 'logs')], canaries: join(out, 'canaries.csv'), now, signal: controller.signal, workers: 0, onIngestProgress: () => controller.abort(new Error('received SIGINT'))},
      (s) => steps.push(s.step),
    ).then(() => null, (e: unknown) => e)
    expect(error).toBeInstanceOf(TriageStopped)
    expect((error as TriageStopped).ingest.interrupted).not.toBeNull()
    expect(steps).toEqual(['canaries', 'ingest'])
    expect(countCanaries(db)).toBeGreaterThan(0)
    expect(countAllRecords(db)).toBe(0)
  }, 120_000)

  it('stops before the scan on a signal that came while ingest was being recorded', async () => {
    // A caught signal reaches its listener when the event loop turns. Triage turns the loop
    // between ingest's step and its scan, so a signal that came during the step (here: an abort
    // the loop delivers next) stops it before the scan begins.
    const db = fresh('late-signal')
    const controller = new AbortController()
    const steps: string[] = []
    const error = await runTriage(
      db,
      {paths: [join(out, 'logs')], canaries: join(out, 'canaries.csv'), now, signal: controller.signal},
      (s) => {
        steps.push(s.step)
        if (s.step === 'ingest') setImmediate(() => controller.abort(new Error('received SIGINT')))
      },
    ).then(() => null, (e: unknown) => e)
    expect(error).toBeInstanceOf(TriageStopped)
    expect((error as TriageStopped).ingest.records).toBe(records)
    expect(steps).toEqual(['canaries', 'ingest'])
    expect((error as TriageStopped).during).toBe('ingest')
    expect(db.prepare('SELECT count(*) FROM scan_runs').pluck().get()).toBe(0)
  }, 120_000)

  it('is stored all the same when ingest fails before its turn', async () => {
    const db = fresh('failed')
    const steps: string[] = []
    const saved = process.env.CROSSTALK_WORKERS
    process.env.CROSSTALK_WORKERS = 'many'
    try {
      const error = await runTriage(db, {paths: [join(out, 'logs')], canaries: join(out, 'canaries.csv'), now}, (s) => steps.push(s.step)).then(() => null, (e: unknown) => e)
      expect(error).toMatchObject({message: expect.stringMatching(/CROSSTALK_WORKERS/)})
    } finally {
      if (saved === undefined) delete process.env.CROSSTALK_WORKERS
      else process.env.CROSSTALK_WORKERS = saved
    }
    expect(steps).toEqual(['canaries'])
    expect(countCanaries(db)).toBeGreaterThan(0)
  }, 120_000)
})
