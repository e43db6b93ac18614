import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA docs #12: report article33 --final (E_DELAY_REASON) said "overdue by 794h ..." (the time
// from the deadline to now) for a notification made 3 h after the deadline.

describe('E_DELAY_REASON for a notification made late', () => {
  it('gives how late the notification was, as clock does', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    mkdirSync(join(dir, 'logs'))
    writeFileSync(join(dir, 'logs', 'gw.jsonl'), JSON.stringify({ts: '2026-11-01T10:00:00Z', request_id: 'r1', tenant_id: 'tn-a', session_id: 'sa', status: 200, request: {messages: [{role: 'user', content: 'hi'}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: 'hello'}}]}}) + '\n')
    expect((await run(['ingest', 'logs', join(dir, 'logs'), '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T10:00:00Z', '--role', 'controller', '--controller-name', 'Acme'])).code).toBe(0)
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-11-04T09:00:00Z', '--reference', 'DPC-1'])).code).toBe(0)
    expect((await run(['incident', 'amend-awareness', '--db', db, '--aware-at', '2026-11-01T06:00:00Z', '--reason', 'earlier alert found'])).code).toBe(0)
    const r = await run(['report', 'article33', '--db', db, '--final', '--accept-open-items', 'DPO'])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('the deadline passed at 2026-11-04T06:00:00.000Z (notified 3h 00m 00s after the deadline)')
    expect(r.stderr).not.toMatch(/overdue by/)
  }, 120_000)
})
