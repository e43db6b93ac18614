import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// QA report D: with a registry and one log file that could not be read at all, `scan` printed
// "Contaminated responses: 0" and `scan --json` gave 0 for every count (unknown shown as zero:
// no record was examined), and its `unreadable_files` was empty though the console named the file.

interface ScanOut {
  records_total: number
  sightings: number | null
  sightings_by_class: Record<string, number | null>
  partial_sightings: number | null
  contaminated_responses: number | null
  cross_tenant_responses: number | null
  cross_session_responses: number | null
  unreadable_files: Array<{path: string; state: string; records: number; why: string}>
}

function caseWithUnreadLog(): string {
  const dir = tempDir()
  const db = join(dir, 'case.db')
  writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-aaaaaaaaaaaaaaaaaaaa01,tn-a,s-a,2026-10-30T00:00:00Z\n')
  writeFileSync(join(dir, 'bad.jsonl'), 'garbage line 1\n{"broken":\n')
  return db
}

describe('scan over a case that holds no log record', () => {
  for (const registry of [true, false]) {
    it(`gives every sighting and contamination count as not known (null), and lists the log source never read${registry ? '' : ' (no registry)'}`, async () => {
      const db = caseWithUnreadLog()
      const dir = join(db, '..')
      if (registry) expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
      expect((await run(['ingest', 'logs', join(dir, 'bad.jsonl'), '--db', db])).code).toBe(1)
      const json = await runJson<ScanOut>(['scan', '--db', db])
      expect(json.records_total).toBe(0)
      expect(json).toMatchObject({sightings: null, partial_sightings: null, contaminated_responses: null, cross_tenant_responses: null, cross_session_responses: null})
      expect(Object.values(json.sightings_by_class)).toEqual([null, null, null, null, null])
      expect(json.unreadable_files).toEqual([expect.objectContaining({path: expect.stringMatching(/bad\.jsonl$/), state: 'not_read', records: 0, why: expect.stringMatching(/^not ingested: /)})])
      const text = await run(['scan', '--db', db])
      expect(text.stdout).toMatch(/^Sightings: not known: no record was examined/m)
      expect(text.stdout).toMatch(/^Contaminated responses: not known: no record was examined \(the case holds no log record, so the scan searched nothing\)/m)
      expect(text.stdout).not.toMatch(/Contaminated responses: 0|Sightings: 0/)
      // The console names the same file as not read.
      expect(text.stdout).toMatch(/not read whole: .*bad\.jsonl/)
      expect((await run(['scan', '--db', db, '--fail-on-leak'])).code).toBe(1)
    })
  }

  it('with one record read, the counts are known again (0 where nothing was found)', async () => {
    const db = caseWithUnreadLog()
    const dir = join(db, '..')
    await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])
    writeFileSync(join(dir, 'one.jsonl'), `${chatLine({request_id: 'r1'})}\n`)
    expect((await run(['ingest', 'logs', join(dir, 'one.jsonl'), '--db', db])).code).toBe(0)
    const json = await runJson<ScanOut>(['scan', '--db', db])
    expect(json).toMatchObject({records_total: 1, sightings: 0, contaminated_responses: 0, cross_tenant_responses: 0, cross_session_responses: 0, unreadable_files: []})
    expect((await run(['scan', '--db', db])).stdout).toMatch(/^Contaminated responses: 0 \(cross-tenant 0, cross-session 0\)\./m)
  })
})
