import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA investigate #11 (second part): show --max-chars -1 was accepted and read as no limit.

describe('show --max-chars', () => {
  it('a negative count is a usage error (exit 2); 0 stays no limit', async () => {
    const dir = tempDir('ct-max-chars-')
    const db = join(dir, 'c.db')
    const log = join(dir, 'l.jsonl')
    writeFileSync(log, JSON.stringify({ts: '2026-11-01T10:00:00Z', request_id: 'r2', tenant_id: 't', session_id: 's', response: 'hello'}) + '\n')
    expect((await run(['ingest', 'logs', log, '--db', db, '--log-format', 'native'])).code).toBe(0)
    const bad = await run(['show', 'r2', '--db', db, '--show-text', '--max-chars', '-1'])
    expect(bad.code).toBe(2)
    expect((await run(['show', 'r2', '--db', db, '--show-text', '--max-chars', '0'])).code).toBe(0)
  })
})
