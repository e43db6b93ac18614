import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA investigate #8: a case whose only log gave no record, then scanned: status said "provenance
// 0 responses repeat ..." (--json provenance_attributed 0) beside sightings unknown, and "personal
// data unknown: the case was never scanned" (as did assess) although a scan ran and searched nothing.

const dir = tempDir('ct-searched-nothing-')
const db = join(dir, 'c.db')

beforeAll(async () => {
  writeFileSync(join(dir, 'b.jsonl'), 'garbage\n{"ts":"x"}\n')
  writeFileSync(join(dir, 'reg.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-aaaaaaaaaaaaaaaaaaaa01,tA,sA,2026-11-01T09:00:00Z\n')
  await run(['ingest', 'logs', join(dir, 'b.jsonl'), '--db', db])
  await run(['ingest', 'canaries', join(dir, 'reg.csv'), '--db', db])
  const scan = await run(['scan', '--db', db])
  expect(scan.code, scan.stderr).toBe(0)
})

describe('a scan over no log record', () => {
  it('status gives provenance as unknown, as the sightings, and says the scan searched nothing', async () => {
    const s = await runJson<{records: number; sightings: number | null; provenance_attributed: number | null; detection: {last_scan_at: string | null}}>(['status', '--json', '--db', db])
    expect(s.records).toBe(0)
    expect(s.detection.last_scan_at).not.toBeNull()
    expect(s.sightings).toBeNull()
    expect(s.provenance_attributed).toBeNull()
    const text = (await run(['status', '--db', db])).stdout
    expect(text).toMatch(/provenance\s+unknown: the case holds no log record, so the scan searched nothing/)
    expect(text).toMatch(/personal data\s+unknown: the case holds no log record, so the scan searched nothing/)
    expect(text).not.toMatch(/never scanned/)
  })

  it('assess does not say the case was never scanned', async () => {
    const a = await run(['assess', '--db', db])
    expect(a.stdout).toMatch(/the scan searched nothing/)
    expect(a.stdout).not.toMatch(/never been scanned/)
  })
})
