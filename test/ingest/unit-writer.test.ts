import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, beforeEach, expect, it} from 'vitest'
import {UnconventionalSet} from '../../src/extract/extract.js'
import {encodeParseSpec} from '../../src/extract/parse-spec.js'
import {processUnit, type UnitResult} from '../../src/ingest/process-unit.js'
import {RequestIdSet} from '../../src/ingest/request-id-set.js'
import {UnitWriter} from '../../src/ingest/unit-writer.js'
import {openCase, type CaseDb} from '../../src/store/open-case.js'

// The unit writer holds a unit's personal-data and fingerprint rows to write them several to a
// statement: a unit whose transaction fails must leave none of them behind for the next one,
// which reuses the record ids the failed one had taken.

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'crosstalk-unit-writer-'))
})
afterEach(() => rmSync(dir, {recursive: true, force: true}))

const line = (id: string, prompt: string) =>
  JSON.stringify({ts: '2026-11-02T06:00:00Z', request_id: id, tenant_id: 't', session_id: `s-${id}`, request: prompt, response: 'fine, thanks'})

function unit(lines: string[]): UnitResult {
  const bytes = new Uint8Array(Buffer.from(lines.join('\n')))
  return processUnit({seq: 0, bytes, offset: 0, firstLineNo: 1, spec: encodeParseSpec({format: 'native'}), file: '1', maxLineBytes: 1 << 20}, new UnconventionalSet([]))
}

function caseDb(name: string): CaseDb {
  const db = openCase(join(dir, name), {create: true})
  // As ingest writes: no file row behind these records, foreign-key checks off.
  db.pragma('foreign_keys = OFF')
  return db
}

const rows = (db: CaseDb) => ({
  pii: db.prepare('SELECT record_id, in_response, kind, value_sha256 FROM pii_values ORDER BY 1, 2, 3, 4').raw().all(),
  fingerprints: db.prepare('SELECT record_id, prompt_fp, response_fp FROM fingerprints ORDER BY 1').raw().all(),
})

it('a unit whose transaction fails leaves none of its held rows to the next unit', () => {
  const good = unit([line('g1', 'write to ann@example.org'), line('g2', 'call +44 20 7946 0958 today')])
  const bad = unit([line('b1', 'mail bob@example.net please'), line('b2', 'hello there')])
  expect(bad.items.filter((i) => i.k === 'r')).toHaveLength(2)
  // The second record cannot be stored (stream must be 0 or 1): the unit fails after the first record's rows were taken.
  const second = bad.items[1]!
  if (second.k !== 'r') throw new Error('expected a record')
  second.row.stream = 2

  const db = caseDb('a.case')
  const writer = new UnitWriter(db, 1, 'gw', new RequestIdSet(db))
  expect(() => db.transaction(() => writer.write(bad))()).toThrow(/CHECK constraint/)
  db.transaction(() => writer.write(good))()

  const clean = caseDb('b.case')
  clean.transaction(() => new UnitWriter(clean, 1, 'gw', new RequestIdSet(clean)).write(good))()
  expect(rows(db).pii.length).toBeGreaterThan(0)
  expect(rows(db)).toEqual(rows(clean))
  db.close()
  clean.close()
})
