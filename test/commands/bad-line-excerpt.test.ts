import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// V8's JSON error quotes the start of the line it could not parse: for a log line that is
// someone's conversation. Nothing prints leaked content unless asked.

const good = JSON.stringify({ts: '2026-11-02T10:00:00Z', request_id: 'r1', tenant_id: 't', session_id: 's', status: 200, response: 'ok'})
const bad = '{"ts":"2026-11-02T10:00:01Z","request_id":"r2","tenant_id":"t","session_id":"s","response":Jane Doe lives at 12 Rose Street}'

describe('quarantined lines are listed without the excerpt a JSON error quotes', () => {
  it('status --bad-lines (console and --json) and the refusal of a file of bad lines', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'a.jsonl'), `${good}\n${bad}\n`)
    expect((await run(['ingest', 'logs', join(dir, 'a.jsonl'), '--db', db])).code).toBe(0)
    const text = await run(['status', '--bad-lines', '--db', db])
    expect(text.stdout).toContain("a.jsonl:2")
    expect(text.stdout).toContain("not valid JSON (Unexpected token 'J' (excerpt of the line withheld) is not valid JSON)")
    expect(text.stdout).not.toContain('Jane Doe')
    const json = await runJson<{bad_line_list: Array<{reason: string}>}>(['status', '--bad-lines', '--db', db])
    expect(JSON.stringify(json.bad_line_list)).not.toContain('Jane Doe')
    writeFileSync(join(dir, 'b.jsonl'), `${bad}\n`)
    const refused = await run(['ingest', 'logs', join(dir, 'b.jsonl'), '--db', db])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('excerpt of the line withheld')
    expect(refused.stdout + refused.stderr).not.toContain('Jane Doe')
  })
})
