import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// `drop` of a file whose record is also a duplicate line of a file that stays: the record
// must stay in the case (at that line), verify must pass, and ingesting the dropped file
// again must give back the case ingesting both gave.

const CANARY = 'CANARY-aaaaaaaaaaaaaaaa1111'
const shared = chatLine({request_id: 'r-shared', tenant_id: 'tenant-b', session_id: 'b1', ts: '2026-11-02T05:00:00.000Z', answer: `leaked ${CANARY}`, prompt_tokens: 900})

function caseFiles(): {dir: string; a: string; b: string; db: string} {
  const dir = tempDir()
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${CANARY},tenant-a,a1,\n`)
  const a = join(dir, 'a.jsonl')
  const b = join(dir, 'b.jsonl')
  writeFileSync(a, `${[chatLine({request_id: 'r-a', tenant_id: 'tenant-a', session_id: 'a1', ts: '2026-11-02T04:00:00.000Z'}), shared].join('\n')}\n`)
  writeFileSync(b, `${[chatLine({request_id: 'r-b1', tenant_id: 'tenant-c', session_id: 'c1', ts: '2026-11-02T06:00:00.000Z'}), shared, chatLine({request_id: 'r-b2', tenant_id: 'tenant-c', session_id: 'c2', ts: '2026-11-02T07:00:00.000Z'})].join('\n')}\n`)
  return {dir, a, b, db: join(dir, 'case.db')}
}

interface Scope {
  cross_tenant_sightings?: number
  [k: string]: unknown
}

async function scopeOf(db: string): Promise<Scope> {
  await runJson(['scan', '--db', db, '--pool-tokens', '800'])
  const scope = await runJson<Scope>(['scope', '--db', db])
  // When it was computed is not what it says.
  delete scope.generated_at
  delete (scope.detection as {last_scan_at?: string}).last_scan_at
  return scope
}

describe('drop of a file whose record is a duplicate line of another file', () => {
  it('keeps the record at that line; verify passes; ingesting the file again gives the same scope', async () => {
    const {dir, a, b, db} = caseFiles()
    await runJson(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])
    await runJson(['ingest', 'logs', a, '--db', db])
    await runJson(['ingest', 'logs', b, '--db', db])
    const before = await scopeOf(db)

    const dropped = await runJson<{records_kept: number; kept_in: Array<{path: string; records: number}>}>(['drop', a, '--reason', 'test', '--db', db])
    expect(dropped.records_kept).toBe(1)
    expect(dropped.kept_in).toEqual([expect.objectContaining({path: b, records: 1})])
    const shown = await run(['show', 'r-shared', '--db', db])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(/evidence\s+\S*b\.jsonl line 2 /)
    // b.jsonl's three lines are now three records, none a duplicate; its cross-tenant sighting stayed.
    expect(await runJson(['status', '--db', db])).toMatchObject({files: 1, records: 3, duplicates: 0, sightings_by_class: {cross_tenant: 1}})
    const verified = await run(['verify', '--db', db])
    expect(verified.stdout + verified.stderr).toMatch(/^OK: /m)
    expect(verified.code).toBe(0)

    await runJson(['ingest', 'logs', a, '--db', db])
    const again = await run(['verify', '--db', db])
    expect(again.stdout + again.stderr).toMatch(/^OK: /m)
    expect(again.code).toBe(0)
    expect(await scopeOf(db)).toEqual(before)
  }, 60_000)

  it('refuses, naming the line, where the duplicate line is not the same bytes', async () => {
    const {dir, a, db} = caseFiles()
    const c = join(dir, 'c.jsonl')
    writeFileSync(c, `${chatLine({request_id: 'r-shared', tenant_id: 'tenant-b', session_id: 'b1', ts: '2026-11-02T05:00:01.000Z'})}\n`)
    await runJson(['ingest', 'logs', a, '--db', db])
    await runJson(['ingest', 'logs', c, '--db', db])
    const r = await run(['drop', a, '--reason', 'test', '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/r-shared.*c\.jsonl line 1, which differs from it/)
    // Nothing was dropped.
    expect((await run(['show', 'r-a', '--db', db])).code).toBe(0)
  }, 60_000)
})
