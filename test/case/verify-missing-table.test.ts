import Database from 'better-sqlite3'
import {copyFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A case missing one of its tables: every command said "... crosstalk verify says what else is
// wrong ...", and verify refused with that same sentence (it failed on the first statement that read
// the table), adding "TypeError: This database connection is busy executing a query" as a second
// line (a statement left open when the case was closed). verify now runs and lists what is wrong.

const dir = tempDir('ct-missing-table-')
const good = join(dir, 'good.db')

beforeAll(async () => {
  writeFileSync(join(dir, 'a.jsonl'), `${JSON.stringify({ts: '2026-11-01T00:00:00Z', request_id: 'r1', tenant_id: 'tn-a', session_id: 's1', request: 'hello there', response: 'hi'})}\n`)
  for (const args of [['ingest', 'logs', join(dir, 'a.jsonl')], ['scan']]) {
    const r = await run([...args, '--db', good])
    if (r.code !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`)
  }
}, 60_000)

function without(...tables: string[]): string {
  const path = join(dir, `without-${tables.join('-')}.db`)
  copyFileSync(good, path)
  const db = new Database(path)
  for (const t of tables) db.exec(`DROP TABLE ${t}`)
  db.close()
  return path
}

describe('verify on a case missing tables', () => {
  it('runs, lists each missing table as a problem, exits 1 with one line on stderr', async () => {
    for (const table of ['sightings', 'records', 'audit_log', 'notifications', 'tenant_labels']) {
      const db = without(table)
      const r = await run(['verify', '--db', db])
      expect(r.code, table).toBe(1)
      expect(r.stdout, table).toContain(`FAIL database: ${db}: the case has no table ${table}, which every case of its schema holds`)
      expect(r.stderr.trim().split('\n'), table).toHaveLength(1)
      expect(r.stderr, table).not.toMatch(/TypeError|busy executing|crosstalk verify says/)
    }
  })

  it('--json lists them in problems, and the other commands still name verify, which now answers', async () => {
    const db = without('sightings', 'tenant_labels')
    const r = await run(['verify', '--json', '--db', db])
    expect(r.code).toBe(1)
    const doc = JSON.parse(r.stdout) as {error: {code: string; details: {problems: Array<{kind: string; detail: string}>}}}
    expect(doc.error.code).toBe('E_VERIFY_FAILED')
    expect(doc.error.details.problems.map((p) => p.detail.match(/no table (\w+)/)?.[1])).toEqual(['sightings', 'tenant_labels'])
    const status = await run(['status', '--db', db])
    expect(status.code).toBe(1)
    expect(status.stderr).toMatch(/the case has no table sightings.*crosstalk verify says what else is wrong/)
    expect(status.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('an intact case is untouched by the check', async () => {
    expect((await run(['verify', '--db', good])).code).toBe(0)
  })
})
