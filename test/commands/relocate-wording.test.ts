import {cpSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA investigate #13: relocate said "1 other file kept by reference elsewhere left as they were",
// and relocate X X said it relocated every original and added an audit entry.

describe('relocate', () => {
  it('says one file left elsewhere in the singular', async () => {
    const dir = tempDir('ct-relocate-words-')
    const db = join(dir, 'c.db')
    const line = (id: string) => JSON.stringify({ts: '2026-11-01T10:00:00Z', request_id: id, tenant_id: 't', session_id: 's', response: 'hello'}) + '\n'
    for (const [d, id] of [['a', 'r1'], ['b', 'r2']] as const) {
      mkdirSync(join(dir, d))
      writeFileSync(join(dir, d, `${d}.jsonl`), line(id))
      expect((await run(['ingest', 'logs', join(dir, d), '--db', db, '--evidence', 'reference', '--log-format', 'native'])).code).toBe(0)
    }
    cpSync(join(dir, 'a'), join(dir, 'moved'), {recursive: true})
    rmSync(join(dir, 'a'), {recursive: true})
    const r = await run(['relocate', join(dir, 'a'), join(dir, 'moved'), '--db', db])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain('1 other file kept by reference elsewhere left as it was')

    // relocate X X changes nothing: not said to be relocated, and no audit entry.
    const before = await runJson<{audit_entries: number}>(['status', '--json', '--db', db])
    const same = await run(['relocate', join(dir, 'moved'), join(dir, 'moved'), '--db', db])
    expect(same.code, same.stderr).toBe(0)
    expect(same.stdout).toMatch(/^Nothing relocated: 1 original under .* is already recorded there/)
    const j = await runJson<{relocated: unknown[]; unchanged: number}>(['relocate', join(dir, 'moved'), join(dir, 'moved'), '--db', db, '--json'])
    expect(j.relocated).toEqual([])
    expect(j.unchanged).toBe(1)
    expect((await runJson<{audit_entries: number}>(['status', '--json', '--db', db])).audit_entries).toBe(before.audit_entries)
  })
})
