import {mkdtempSync} from 'node:fs'
import {join} from 'node:path'
import type {TestProject} from 'vitest/node'
import {generateIncident} from '../../src/generate/generate-incident.js'

// One generated incident per test run, shared by the command and end-to-end tests (each copies
// what it changes): generating it once instead of in every file. Seeded, with its ground truth.

export interface SharedIncident {
  dir: string
  logs: string
  canaries: string
  groundTruth: string
  records: number
  seed: number
}

declare module 'vitest' {
  export interface ProvidedContext {
    incident: SharedIncident
  }
}

export const SHARED_RECORDS = 3000
export const SHARED_SEED = 1

export default async function setup(project: TestProject): Promise<void> {
  let cached = process.env.CROSSTALK_TEST_INCIDENT
  if (!cached) {
    const dir = join(mkdtempSync(join(process.env.TMPDIR ?? '/tmp', 'incident-')), 'inc')
    await generateIncident({out: dir, records: SHARED_RECORDS, seed: SHARED_SEED})
    const incident: SharedIncident = {
      dir, logs: join(dir, 'logs'), canaries: join(dir, 'canaries.csv'), groundTruth: join(dir, 'ground-truth.json'), records: SHARED_RECORDS, seed: SHARED_SEED,
    }
    cached = JSON.stringify(incident)
    process.env.CROSSTALK_TEST_INCIDENT = cached
  }
  project.provide('incident', JSON.parse(cached) as SharedIncident)
}
