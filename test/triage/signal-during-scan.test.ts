import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'
import {runTriage, TriageStopped, type TriageOptions, type TriageStep} from '../../src/triage/run-triage.js'

// triage's scan and scope run on the main thread: a signal (its AbortSignal) is seen between the
// scan's phases and pages of records, and between scope's steps. Triage stops there, says where,
// and leaves the case consistent: a marker pass stopped part-way is rolled back whole and the
// scan's run stays unfinished (detection incomplete, a gate fails), and the next triage finishes it.

const now = () => new Date('2027-01-01T00:00:00Z')

async function incident(seed: number): Promise<{db: CaseDb; options: TriageOptions; records: number}> {
  const base = mkdtempSync(join(tmpdir(), 'ct-scan-signal-'))
  const out = join(base, 'inc')
  const gen = await generateIncident({out, records: 3000, seed})
  const db = openCase(join(base, 'case.db'), {create: true})
  return {db, options: {paths: [join(out, 'logs')], canaries: join(out, 'canaries.csv'), now, quickVerdict: false}, records: gen.records}
}

const count = (db: CaseDb, sql: string): number => db.prepare(sql).pluck().get() as number

it('a signal during the marker pass stops triage during its scan: the pass is rolled back, the run left unfinished, and the next triage finishes it', async () => {
  const {db, options, records} = await incident(43)
  const controller = new AbortController()
  const steps: string[] = []
  try {
    const run = runTriage(db, {
      ...options, signal: controller.signal,
      // After the first file's markers are classified, inside the pass's transaction.
      onScanProgress: (p) => {
        if (p.phase === 'markers' && p.done === 1) controller.abort(new Error('received SIGINT'))
      },
    }, (s: TriageStep) => steps.push(s.step))
    const error = await run.then(() => null, (e: unknown) => e)
    expect(error).toBeInstanceOf(TriageStopped)
    const stopped = error as TriageStopped
    expect(stopped.during).toBe('scan')
    expect(stopped.ingest).toMatchObject({records, interrupted: null})
    expect(steps).toEqual(['canaries', 'ingest'])
    // The run was begun and not finished; nothing of the pass under way was kept.
    expect(count(db, 'SELECT count(*) FROM scan_runs WHERE finished_at IS NULL')).toBe(1)
    expect(count(db, 'SELECT count(*) FROM scan_runs WHERE finished_at IS NOT NULL')).toBe(0)
    expect(count(db, 'SELECT count(*) FROM sightings')).toBe(0)
    expect(db.inTransaction).toBe(false)

    // Run again (nothing new to ingest): the scan finishes, and scope is computed.
    const again = await runTriage(db, options, () => {})
    expect(again.scan.records_total).toBe(records)
    expect(again.scan.sightings).toBeGreaterThan(0)
    expect(count(db, 'SELECT count(*) FROM scan_runs WHERE finished_at IS NOT NULL')).toBe(1)
  } finally {
    db.close()
  }
}, 120_000)

it('a signal once the scan is stored stops triage during scope, with the scan it stored', async () => {
  const {db, options, records} = await incident(44)
  const controller = new AbortController()
  try {
    const run = runTriage(db, {...options, signal: controller.signal}, (s: TriageStep) => {
      if (s.step === 'scan') controller.abort(new Error('received SIGTERM'))
    })
    const error = await run.then(() => null, (e: unknown) => e)
    expect(error).toBeInstanceOf(TriageStopped)
    const stopped = error as TriageStopped
    expect(stopped.during).toBe('scope')
    expect(stopped.scan?.records_total).toBe(records)
    expect(count(db, 'SELECT count(*) FROM scan_runs WHERE finished_at IS NOT NULL')).toBe(1)
  } finally {
    db.close()
  }
}, 120_000)
