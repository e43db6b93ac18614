import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA investigate #11: status --bad-lines quoted a bad field's value in full ("unrecognised timestamp
// "SECRET text of another user CANARY-…01""): free text and an unshortened marker, where a JSON
// error's excerpt is withheld.

describe('status --bad-lines withholds a bad field value', () => {
  it('in text and --json, the reason names the field and withholds its value', async () => {
    const dir = tempDir('ct-bad-value-')
    const db = join(dir, 'c.db')
    const log = join(dir, 'l.jsonl')
    const secret = 'SECRET text of another user CANARY-aaaaaaaaaaaaaaaaaaaa01'
    writeFileSync(log, [JSON.stringify({ts: secret, request_id: 'r1', tenant_id: 't', session_id: 's'}), JSON.stringify({ts: '2026-11-01T10:00:00Z', request_id: 'r2', tenant_id: 't', session_id: 's', response: 'hello'})].join('\n') + '\n')
    await run(['ingest', 'logs', log, '--db', db, '--log-format', 'native'])
    const text = await run(['status', '--bad-lines', '--db', db])
    expect(text.stdout).toMatch(/l\.jsonl:1 .*field ts: unrecognised timestamp \(value withheld\)/)
    const j = await runJson<{bad_line_list: Array<{reason: string}>}>(['status', '--bad-lines', '--json', '--db', db])
    expect(j.bad_line_list).toHaveLength(1)
    for (const out of [text.stdout, JSON.stringify(j)]) {
      expect(out).not.toContain('SECRET')
      expect(out).not.toContain('CANARY-aaaaaaaaaaaaaaaaaaaa01')
    }
  })
})
