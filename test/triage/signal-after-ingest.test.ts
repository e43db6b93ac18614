import {mkdtempSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {interruptedMessage} from '../../src/cli/render-ingest.js'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {openCase} from '../../src/store/open-case.js'
import {runTriage, TriageStopped, type TriageStep} from '../../src/triage/run-triage.js'

// A signal whose abort is seen only after ingest has read its last unit (it came during the last
// unit or its commit) stops triage before the scan, as one during ingest does: the ingest is kept
// and audited, nothing is scanned, and the line printed says so.

it('a signal after ingest\'s last unit stops triage before its scan, and says what was kept', async () => {
  const base = mkdtempSync(join(tmpdir(), 'ct-signal-'))
  const out = join(base, 'inc')
  const gen = await generateIncident({out, records: 1500, seed: 41})
  const db = openCase(join(base, 'case.db'), {create: true})
  const controller = new AbortController()
  const steps: string[] = []
  try {
    const run = runTriage(db, {paths: [join(out, 'logs')], canaries: join(out, 'canaries.csv'), now: () => new Date('2027-01-01T00:00:00Z'), signal: controller.signal}, (s: TriageStep) => {
      steps.push(s.step)
      if (s.step === 'ingest') controller.abort(new Error('received SIGINT'))
    })
    const error = await run.then(() => null, (e: unknown) => e)
    expect(error).toBeInstanceOf(TriageStopped)
    const {ingest} = error as TriageStopped
    expect(ingest).toMatchObject({files: gen.files, records: gen.records, interrupted: null})
    expect(steps).toEqual(['canaries', 'ingest'])
    expect(db.prepare('SELECT count(*) FROM scan_runs').pluck().get()).toBe(0)
    expect(interruptedMessage(ingest, 'SIGINT')).toBe(
      `Interrupted by SIGINT after ingest: ${gen.files} files ingested completely and kept (${gen.records} records); nothing was scanned. Run the same command again to scan.`,
    )
  } finally {
    db.close()
  }
}, 120_000)
