import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {listPiiFindings, listProvenance, listSightings} from '../../src/detect/list.js'
import {findPii, hashPii} from '../../src/extract/pii.js'
import {provenanceResultSchema, sightingsResultSchema} from '../../src/detect/schemas.js'
import {scanCase} from '../../src/detect/scan-case.js'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {loadGroundTruth, type GroundTruth} from '../../src/generate/ground-truth.js'
import {ingestCanaries} from '../../src/ingest/ingest-canaries.js'
import {ingestLogs} from '../../src/ingest/ingest-logs.js'
import {openCase} from '../../src/store/open-case.js'
import {run} from '../helpers/commands.js'

// The whole detection pipeline against the generator's answer key: generate -> ingest ->
// scan, then sightings, provenance and PII must equal the ground truth exactly.

const base = mkdtempSync(join(tmpdir(), 'ct-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))
const NOW = () => new Date('2027-01-01T00:00:00.000Z')

async function prepare(seed: number): Promise<{gt: GroundTruth; dbPath: string}> {
  const out = join(base, `inc-${seed}`)
  await generateIncident({out, records: 5000, seed})
  const gt = loadGroundTruth(join(out, 'ground-truth.json'))
  const dbPath = join(base, `case-${seed}.db`)
  const db = openCase(dbPath, {create: true})
  try {
    await ingestLogs(db, {paths: gt.files.map((f) => join(out, f.path)), now: NOW})
    await ingestCanaries(db, {path: join(out, 'canaries.csv'), now: NOW})
    scanCase(db, {now: NOW(), poolTokens: gt.params.pool_tokens})
  } finally {
    db.close()
  }
  return {gt, dbPath}
}

const sightingKey = (s: {request_id: string; class: string; marker: string; partial: boolean; recipient_session: string; recipient_tenant: string; source_session: string | null; source_tenant: string | null}) =>
  JSON.stringify([s.request_id, s.class, s.marker, s.partial, s.recipient_session, s.recipient_tenant, s.source_session, s.source_tenant])

function check(gt: GroundTruth, dbPath: string): void {
  const db = openCase(dbPath)
  try {
    // Sightings: the same set, nothing more, nothing less.
    const found = listSightings(db).map(sightingKey).sort()
    expect(found).toEqual(gt.sightings.map(sightingKey).sort())
    expect(gt.sightings.length).toBeGreaterThan(50)

    // Chained leaks (a contaminated answer's cached page leaking again) are in the incident:
    // their source is the original record, not the answer they passed through.
    expect(gt.leaks.filter((l) => l.via_request_id !== null && l.words >= 12).length).toBeGreaterThan(0)
    // Provenance: every leak of 12+ words with its source and overlap; nothing else.
    const prov = new Map(listProvenance(db).map((p) => [p.request_id, p]))
    expect(gt.provenance.length).toBeGreaterThan(20)
    const wrong: string[] = []
    for (const want of gt.provenance) {
      const got = prov.get(want.request_id)
      const pick = got && {
        request_id: got.request_id,
        source_request_id: got.source_request_id,
        source_session: got.source_session,
        source_tenant: got.source_tenant,
        matched: got.matched,
        overlap_words: got.overlap_words,
      }
      if (JSON.stringify(pick) !== JSON.stringify(want)) wrong.push(`${JSON.stringify(want)} -> ${JSON.stringify(pick)}`)
    }
    expect(wrong).toEqual([])
    const expected = new Set(gt.provenance.map((p) => p.request_id))
    expect([...prov.keys()].filter((id) => !expected.has(id))).toEqual([])

    // PII the recipient never sent: found, and attributed to the leaked request.
    const pii = listPiiFindings(db, {showValues: true})
    expect(gt.pii.length).toBeGreaterThan(0)
    const missing = gt.pii.filter((want) => !pii.some((p) => p.request_id === want.request_id && p.kind === want.kind && p.value_sha256 === hashPii(want.kind, piiNorm(want.kind, want.value)) && p.source_request_id === want.source_request_id))
    expect(missing).toEqual([])
  } finally {
    db.close()
  }
}

/** The detector's normalised form of a generated value (stored hashes are over normalised values). */
function piiNorm(kind: string, value: string): string {
  const found = findPii(` ${value} `).find((v) => v.kind === kind)
  if (!found) throw new Error(`the detector does not see the generated ${kind} value`)
  return found.value
}

describe('detection against the generated ground truth', () => {
  it('seed 1: sightings, provenance and PII are exact (in process and through the CLI)', async () => {
    const {gt, dbPath} = await prepare(1)
    check(gt, dbPath)
    const sightings = await run(['sightings', '--db', dbPath, '--json'])
    expect(sightings.code, sightings.stderr).toBe(0)
    expect(sightingsResultSchema.parse(JSON.parse(sightings.stdout)).map(sightingKey).sort()).toEqual(gt.sightings.map(sightingKey).sort())
    const prov = await run(['provenance', '--db', dbPath, '--json'])
    expect(prov.code, prov.stderr).toBe(0)
    expect(provenanceResultSchema.parse(JSON.parse(prov.stdout)).map((p) => p.request_id).sort()).toEqual(gt.provenance.map((p) => p.request_id).sort())
  }, 180_000)

  it('seed 42: sightings, provenance and PII are exact', async () => {
    const {gt, dbPath} = await prepare(42)
    check(gt, dbPath)
  }, 180_000)
})
