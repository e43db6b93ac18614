import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A processor notifying the authority on a controller's behalf after that controller's 72 hours
// (counted from our first notice to it, when it became aware: EDPB Guidelines 9/2022) owes the
// reasons for the delay (Art. 33(1)) like the controller would: `notify record` took it without.

describe("a processor's late notification to the authority for a controller", () => {
  it('is refused without --delay-reason (E_DELAY_REASON), and recorded with one', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    mkdirSync(join(dir, 'logs'))
    writeFileSync(join(dir, 'logs', 'gw.jsonl'), JSON.stringify({ts: '2026-11-01T10:00:00Z', request_id: 'r1', tenant_id: 'tn-a', session_id: 'sa', status: 200, request: {messages: [{role: 'user', content: 'hi'}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: 'hello'}}]}}) + '\n')
    expect((await run(['ingest', 'logs', join(dir, 'logs'), '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T10:00:00Z', '--role', 'processor'])).code).toBe(0)
    expect((await run(['notify', 'record', '--db', db, '--recipient', 'tn-a', '--phase', 'initial', '--at', '2026-11-02T12:00:00Z', '--reference', 'PN-1'])).code).toBe(0)
    // Within the controller's 72 hours (to 2026-11-05T12:00Z) no reasons are owed.
    const inTime = await run(['notify', 'record', '--db', db, '--recipient', 'authority', '--controller', 'tn-a', '--phase', 'initial', '--at', '2026-11-05T11:00:00Z', '--reference', 'SA-1'])
    expect(inTime.code).toBe(0)
    // A second controller's case: another tenant notified, then the authority told for it late.
    const dir2 = tempDir()
    const db2 = join(dir2, 'case.db')
    expect((await run(['ingest', 'logs', join(dir, 'logs'), '--db', db2])).code).toBe(0)
    expect((await run(['scan', '--db', db2])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', db2, '--title', 'T', '--aware-at', '2026-11-02T10:00:00Z', '--role', 'processor'])).code).toBe(0)
    expect((await run(['notify', 'record', '--db', db2, '--recipient', 'tn-a', '--phase', 'initial', '--at', '2026-11-02T12:00:00Z', '--reference', 'PN-1'])).code).toBe(0)
    const late = await run(['notify', 'record', '--db', db2, '--recipient', 'authority', '--controller', 'tn-a', '--phase', 'initial', '--at', '2026-11-05T13:00:00Z', '--reference', 'SA-1'])
    expect(late.code).toBe(1)
    expect(late.stderr).toContain("after that controller's 72-hour deadline 2026-11-05T12:00:00.000Z (it became aware with our notice of 2026-11-02T12:00:00.000Z")
    expect(late.stderr).toContain('--delay-reason')
    const withReason = await run(['notify', 'record', '--db', db2, '--recipient', 'authority', '--controller', 'tn-a', '--phase', 'initial', '--at', '2026-11-05T13:00:00Z', '--reference', 'SA-1', '--delay-reason', 'the controller asked us to file after its own review'])
    expect(withReason.code).toBe(0)
  }, 180_000)
})
