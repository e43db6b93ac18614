import {cpSync, mkdirSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA investigate #13: relocate said "1 other file kept by reference elsewhere left as they were".

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
  })
})
