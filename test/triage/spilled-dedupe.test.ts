import {mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, it, vi} from 'vitest'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {loadGroundTruth, type GroundTruth} from '../../src/generate/ground-truth.js'
import {openCase} from '../../src/store/open-case.js'
import {runTriage, type TriageResult, type TriageVerdict} from '../../src/triage/run-triage.js'

// The duplicate rule's tables (the quick pass's and ingest's) keep 2^19 entries in memory and
// write the rest to sorted runs on disk. Here the cap is 32 entries, so that a few thousand
// records spill into about a hundred runs in both passes: ingest must keep and count the same
// records and duplicates as the ground truth says, and the quick verdict must still be the
// scan's.

const state = vi.hoisted(() => ({spilled: [] as number[], scratch: ''}))
vi.mock('../../src/ingest/spill-multimap.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/ingest/spill-multimap.js')>()
  class Small extends real.SpillingMultimap {
    constructor(options: ConstructorParameters<typeof real.SpillingMultimap>[0] = {}) {
      super({...options, memoryEntries: 32, dir: state.scratch})
    }

    override close(): void {
      state.spilled.push(this.spilled)
      super.close()
    }
  }
  return {...real, SpillingMultimap: Small}
})

const base = mkdtempSync(join(tmpdir(), 'ct-spilled-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))

let gt: GroundTruth
let result: TriageResult
let verdicts: TriageVerdict[]
let mismatch = false
let repeated = 0
let changed = 0
let dupRows: Array<{identical: number}>

beforeAll(async () => {
  state.scratch = mkdtempSync(join(base, 'scratch-'))
  const out = join(base, 'inc')
  await generateIncident({out, records: 3000, seed: 23})
  gt = loadGroundTruth(join(out, 'ground-truth.json'))
  const logs = gt.files.map((f) => join(out, f.path)).filter((p) => !p.endsWith('.gz'))
  // One more file of lines seen before: 300 copied as they were, every fourth with its text changed (where the response is a string).
  const seenLines = logs.flatMap((p) => readFileSync(p, 'utf8').split('\n').filter((l) => l.startsWith('{') && l.includes('"request_id"')))
  const picked = seenLines.filter((_, i) => i % 7 === 3).slice(0, 300)
  const again = picked.map((l, i) => (i % 4 === 0 ? l.replace(/"response":"/, '"response":"changed ') : l))
  repeated = again.length
  changed = again.filter((l, i) => l !== picked[i]).length
  const extra = join(out, 'zz-repeats.jsonl')
  writeFileSync(extra, again.join('\n') + '\n')
  const db = openCase(join(base, 'case.db'), {create: true})
  verdicts = []
  try {
    result = await runTriage(db, {
      paths: [...gt.files.map((f) => join(out, f.path)), extra], canaries: join(out, 'canaries.csv'), now: () => new Date('2027-01-01T00:00:00Z'),
      poolTokens: gt.params.pool_tokens, workers: 2, onVerdict: (v) => verdicts.push(v), onVerdictMismatch: () => (mismatch = true),
    })
    dupRows = db.prepare('SELECT identical FROM duplicate_lines').all() as Array<{identical: number}>
  } finally {
    db.close()
  }
}, 240_000)

it('spilled in both passes, and left no scratch file', () => {
  expect(repeated).toBe(300)
  // the quick pass's table and ingest's, each over many runs
  expect(state.spilled).toHaveLength(2)
  expect(Math.min(...state.spilled)).toBeGreaterThan(50)
  expect(readdirSync(state.scratch)).toEqual([])
})

it('keeps and counts the records and duplicates the ground truth says', () => {
  expect(result.ingest.records).toBe(gt.totals.records)
  expect(result.ingest.duplicates).toBe(gt.totals.duplicates + repeated)
  expect(dupRows).toHaveLength(gt.totals.duplicates + repeated)
  // the changed copies are told apart from the identical ones
  expect(changed).toBeGreaterThan(20)
  expect(dupRows.filter((d) => d.identical === 0).length).toBeGreaterThanOrEqual(changed)
  expect(dupRows.filter((d) => d.identical === 1).length).toBeGreaterThanOrEqual(repeated - changed)
})

it('gives the quick verdict first, and the scan agrees with it and with the ground truth', () => {
  expect(mismatch).toBe(false)
  expect(verdicts).toHaveLength(1)
  expect(result.verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
  expect(verdicts[0]!.contaminated_responses).toBe(new Set(gt.contaminated_request_ids).size)
  expect(verdicts[0]!.contaminated_responses).toBeGreaterThan(0)
})
