import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA (documentation as printed): a processor notice for a mistyped tenant said the tenant "has
// no exposure in this case" (E_NO_EXPOSURE), which reads as a finding that the customer was not
// affected; and a time flag that is no timestamp at all ("tomorrow", epoch milliseconds) was
// refused for lacking a time zone, advice that leads to a second refusal.

const A = 'CANARY-aaaa0000aaaa0000aaaa'
const line = (i: number, tenant: string, session: string, request: string, response: string): string =>
  JSON.stringify({ts: `2026-11-03T01:${String(i).padStart(2, '0')}:00Z`, request_id: `r-${i}`, tenant_id: tenant, session_id: session, status: 200, request, response}) + '\n'

describe('report processor-notice --tenant', () => {
  it('refuses a tenant the case knows nothing of as unknown, not as unaffected; a registered tenant with no log record is not refused as unknown', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'app.jsonl'), line(1, 'tn-a', 's-a', `remember ${A}`, 'ok') + line(2, 'tn-b', 's-b', 'hi', `here: ${A}`) + line(3, 'tn-c', 's-c', 'hi', 'fine'))
    const reg = join(dir, 'reg.csv')
    writeFileSync(reg, `marker,tenant_id,session_id,issued_at\n${A},tn-a,s-a,2026-11-01T00:00:00Z\nCANARY-dddd3333dddd3333dddd,tn-d,s-d,2026-11-01T00:00:00Z\n`)
    const db = join(dir, 'c.db')
    await run(['ingest', 'canaries', reg, '--db', db])
    await run(['ingest', 'logs', logs, '--db', db])
    await run(['scan', '--db', db])
    expect((await run(['incident', 'open', '--db', db, '--title', 'Leak', '--role', 'processor', '--aware-at', '2026-11-04T09:00:00Z'])).code).toBe(0)

    const typo = await run(['report', 'processor-notice', '--db', db, '--tenant', 'tn-aa', '--json'])
    expect(typo.code).toBe(1)
    const error = (JSON.parse(typo.stdout) as {error: {code: string; message: string}}).error
    expect(error.code).toBe('E_NO_TENANT')
    expect(error.message).toContain('tenant "tn-aa" has no records in this case')
    expect(error.message).not.toContain('no exposure')

    // A tenant with records and no exposure is still told apart from a typo.
    const unaffected = await run(['report', 'processor-notice', '--db', db, '--tenant', 'tn-c', '--json'])
    expect((JSON.parse(unaffected.stdout) as {error: {code: string}}).error.code).toBe('E_NO_EXPOSURE')
    // Registered but never logged: known to the case (its data may have reached others), not a typo.
    const registered = await run(['report', 'processor-notice', '--db', db, '--tenant', 'tn-d', '--json'])
    expect(registered.stdout).not.toContain('E_NO_TENANT')
    // The affected one is drafted.
    expect((await run(['report', 'processor-notice', '--db', db, '--tenant', 'tn-a'])).code).toBe(0)
  }, 120_000)
})

describe('a time flag that is not a timestamp', () => {
  it.each([['tomorrow'], ['1761955200000'], ['notadate']])('%s is refused as no timestamp, not for a missing zone', async (value) => {
    const dir = tempDir()
    const r = await run(['incident', 'open', '--db', join(dir, 'c.db'), '--title', 'Leak', '--role', 'controller', '--aware-at', value])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`--aware-at: "${value}" is not a timestamp; give a date and time with its zone`)
    expect(r.stderr).not.toContain('has no time zone')
  })

  it('a date and time without a zone is still refused for the zone', async () => {
    const r = await run(['incident', 'open', '--db', join(tempDir(), 'c.db'), '--title', 'Leak', '--role', 'controller', '--aware-at', '2026-11-03T09:00:00'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('has no time zone')
  })
})
