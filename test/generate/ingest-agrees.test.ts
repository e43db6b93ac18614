import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {loadGroundTruth} from '../../src/generate/ground-truth.js'
import {runJson} from '../helpers/commands.js'

const base = mkdtempSync(join(tmpdir(), 'ct-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

// The generated incident is the ingest's answer key: counts must agree file by file.
describe('generated logs through crosstalk ingest', () => {
  it('ingests exactly the records, duplicates, bad and blank lines the ground truth lists', async () => {
    const out = join(base, 'inc')
    await generateIncident({out, records: 1500, seed: 5})
    const gt = loadGroundTruth(join(out, 'ground-truth.json'))
    const db = join(base, 'case.db')
    const r = await runJson<{records: number; duplicates: number; bad_lines: number}>(['ingest', 'logs', ...gt.files.map((f) => join(out, f.path)), '--db', db])
    expect({records: r.records, duplicates: r.duplicates, bad_lines: r.bad_lines}).toEqual({records: gt.totals.records, duplicates: gt.totals.duplicates, bad_lines: gt.totals.bad_lines})
    await runJson(['ingest', 'canaries', join(out, 'canaries.csv'), '--db', db])
    const status = await runJson<{canaries: number; records: number}>(['status', '--db', db])
    expect(status.canaries).toBe(gt.canaries)
    expect(status.records).toBe(gt.totals.records)
  })
})
