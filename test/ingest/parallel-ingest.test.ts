import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {scanCase} from '../../src/detect/scan-case.js'
import {generateIncident} from '../../src/generate/generate-incident.js'
import {loadGroundTruth, type GroundTruth} from '../../src/generate/ground-truth.js'
import {ingestCanaries} from '../../src/ingest/ingest-canaries.js'
import {ingestLogs, type IngestLogsResult} from '../../src/ingest/ingest-logs.js'
import {recordTextLoader} from '../../src/evidence/record-texts.js'
import {verifyCase} from '../../src/case/verify.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'

// Ingest parses in worker threads and extracts detection data as it goes. Whatever the
// order (registry before or after the logs) and however the lines are parsed (two workers
// or inline), the case must hold the same records, the same extracted data and, after a
// scan, the same findings.

const base = mkdtempSync(join(tmpdir(), 'ct-par-'))
afterAll(() => rmSync(base, {recursive: true, force: true}))
const NOW = () => new Date('2027-01-01T00:00:00.000Z')

let gt: GroundTruth
let out: string
const cases: Record<string, {path: string; ingest: IngestLogsResult}> = {}
// PRAGMA synchronous as seen from inside the bulk load (0 OFF, 1 NORMAL, 2 FULL).
const syncDuringLoad: number[] = []

async function build(name: string, canariesFirst: boolean, workers: number): Promise<void> {
  const path = join(base, `${name}.db`)
  const db = openCase(path, {create: true})
  try {
    const logs = gt.files.map((f) => join(out, f.path))
    if (canariesFirst) await ingestCanaries(db, {path: join(out, 'canaries.csv'), now: NOW})
    const ingest = await ingestLogs(db, {
      paths: logs,
      now: NOW,
      workers,
      onProgress: () => syncDuringLoad.push(db.pragma('synchronous', {simple: true}) as number),
    })
    if (!canariesFirst) await ingestCanaries(db, {path: join(out, 'canaries.csv'), now: NOW})
    scanCase(db, {now: NOW(), poolTokens: gt.params.pool_tokens})
    cases[name] = {path, ingest}
  } finally {
    db.close()
  }
}

const dump = (db: CaseDb, sql: string): unknown[] => db.prepare(sql).raw().all()

beforeAll(async () => {
  out = join(base, 'inc')
  await generateIncident({out, records: 4000, seed: 11})
  gt = loadGroundTruth(join(out, 'ground-truth.json'))
  await build('threads', true, 2)
  // Registry after the logs: the scan matches the unconventional markers from the texts.
  await build('inline', false, 0)
}, 180_000)

describe('parallel ingest', () => {
  it('never bulk-loads with synchronous=OFF (a power cut during a checkpoint could tear older evidence)', () => {
    expect(syncDuringLoad.length).toBeGreaterThan(0)
    expect(syncDuringLoad.every((v) => v >= 1)).toBe(true)
  })

  it('used two worker threads for one case and none for the other', () => {
    expect(cases.threads!.ingest.parse_workers).toBe(2)
    expect(cases.inline!.ingest.parse_workers).toBe(0)
    expect(cases.threads!.ingest.records).toBe(gt.totals.records)
  })

  it('stores the same records, extracted data and findings either way', () => {
    const other = 'inline'
    const a = openCase(cases.threads!.path, {readonly: true})
    const b = openCase(cases[other]!.path, {readonly: true})
    try {
      for (const sql of [
        'SELECT id, (SELECT path FROM files WHERE id = file_id), line_no, byte_offset, byte_len, raw_crc32, request_id, ts, ts_ms, tenant_id, session_id, status, prompt_tokens, response_kind, is_error FROM records ORDER BY id',
        'SELECT (SELECT path FROM files WHERE id = file_id) AS p, line_no, reason FROM bad_lines ORDER BY p, line_no',
        'SELECT (SELECT path FROM files WHERE id = file_id) AS p, line_no, identical FROM duplicate_lines ORDER BY p, line_no',
        'SELECT record_id, position, token FROM marker_tokens ORDER BY 1, 2, 3',
        'SELECT record_id, position, marker FROM unconventional_hits ORDER BY 1, 2, 3',
        'SELECT record_id, in_response, kind, value_sha256 FROM pii_values ORDER BY 1, 2, 3, 4',
        'SELECT record_id, prompt_words, response_words, hex(prompt_fp), hex(response_fp) FROM fingerprints ORDER BY 1',
        'SELECT record_id, marker, class, partial, source_session FROM sightings ORDER BY 1, 2',
        'SELECT record_id, source_record_id, overlap_words FROM provenance ORDER BY 1',
        "SELECT path, sha256, content_sha256, records, duplicates, bad_lines, blank_lines FROM files WHERE kind = 'log' ORDER BY path",
      ]) {
        const rows = dump(a, sql)
        expect(rows.length, sql).toBeGreaterThan(0)
        expect(rows, sql).toEqual(dump(b, sql))
      }
      // Unconventional markers were matched by the workers in one case and by the scan in the other.
      expect(a.prepare('SELECT COUNT(*) FROM unconventional_hits').pluck().get()).toBeGreaterThan(0)
    } finally {
      a.close()
      b.close()
    }
  })

  it('keeps every byte as verifiable evidence, though files are read through one reused buffer', async () => {
    const db = openCase(cases.threads!.path, {readonly: true})
    try {
      const v = await verifyCase(db)
      // Built by the stages directly, not by the commands that audit them: only that may differ.
      expect(v.problems.filter((p) => p.kind !== 'unaudited')).toEqual([])
      expect(v.records_checked).toBe(gt.totals.records)
      // More than one read per file: the reuse of the read buffer was exercised.
      expect(db.prepare("SELECT MAX(size) FROM files WHERE kind = 'log'").pluck().get()).toBeGreaterThan(1 << 20)
    } finally {
      db.close()
    }
  })

  it('re-derives each record\u2019s texts from the evidence', () => {
    const db = openCase(cases.threads!.path, {readonly: true})
    try {
      // The schema has nowhere to keep them: the evidence is the only copy of the texts.
      expect(db.prepare(`SELECT COUNT(*) FROM pragma_table_info('records') WHERE name LIKE '%text%'`).pluck().get()).toBe(0)
      const texts = recordTextLoader(db)
      const withMarker = db.prepare('SELECT record_id, position, token FROM marker_tokens LIMIT 50').all() as Array<{record_id: number; position: number; token: string}>
      expect(withMarker.length).toBeGreaterThan(10)
      for (const t of withMarker) expect(texts(t.record_id).response_text!.slice(t.position, t.position + t.token.length)).toBe(t.token)
    } finally {
      db.close()
    }
  })
})
