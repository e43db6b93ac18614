import Database from 'better-sqlite3'
import {describe, expect, it} from 'vitest'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {rng} from '../helpers/case-builder.js'

// verify --deep runs detection again and compares every provenance finding: the possible sources
// of an ambiguous text too (a notice goes to each), except where the case never recorded them
// (a scan before schema 13), which the notices already state as an open item.

async function scanned(): Promise<string> {
  const dir = tempDir()
  const rand = rng(9)
  const article = Array.from({length: 50}, () => Array.from({length: 6}, () => String.fromCharCode(97 + Math.floor(rand() * 26))).join('')).join(' ')
  const lines = [
    {ts: '2026-10-22T10:00:00Z', request_id: 'pa', tenant_id: 'tn-a', session_id: 'sa', request: `read ${article}`, response: 'ok'},
    {ts: '2026-10-22T10:01:00Z', request_id: 'pb', tenant_id: 'tn-b', session_id: 'sb', request: `see ${article}`, response: 'ok'},
    {ts: '2026-10-22T10:05:00Z', request_id: 'r', tenant_id: 'tn-c', session_id: 'sc', request: 'hi', response: `so ${article.split(' ').slice(0, 30).join(' ')} end`},
  ]
  const log = join(dir, 'gw.jsonl')
  writeFileSync(log, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
  const db = join(dir, 'case.db')
  expect((await run(['ingest', 'logs', log, '--db', db])).code).toBe(0)
  const scan = await run(['scan', '--db', db])
  expect(scan.code, scan.stderr).toBe(0)
  return db
}

function edit(path: string, sql: string): void {
  const db = new Database(path)
  db.exec(sql)
  db.close()
}

describe('verify --deep and the possible sources of a finding', () => {
  it('names a finding whose possible sources were edited (one left out)', async () => {
    const path = await scanned()
    expect((await run(['verify', '--db', path, '--deep'])).code).toBe(0)
    edit(path, `UPDATE provenance SET source_candidates = '[{"tenant_id":"tn-a","session_id":"sa"}]'`)
    const r = await run(['verify', '--db', path, '--deep'])
    expect(r.code).toBe(1)
    expect(r.stdout + r.stderr).toMatch(/provenance of record "?r"?.*source_candidates/s)
  }, 60_000)

  it('takes possible sources not recorded (NULL) as not recorded, not as a difference', async () => {
    const path = await scanned()
    edit(path, 'UPDATE provenance SET source_candidates = NULL')
    const r = await run(['verify', '--db', path, '--deep'])
    expect(r.code, r.stdout + r.stderr).toBe(0)
  }, 60_000)
})
