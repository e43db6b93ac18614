import {appendFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// One log ingested, then again once it grew: status said "1 log, with 1 earlier version ...
// counted with them" in one line and "never scanned (2 log files, ...)" in the next.

const line = (i: number): string =>
  JSON.stringify({ts: `2026-11-01T10:0${i}:00Z`, request_id: `req-${i}`, tenant_id: 'tn-a', session_id: `s-${i}`, status: 200, request: `q ${i}`, response: `a ${i}`}) + '\n'

describe('status of a grown log never scanned', () => {
  it('counts the log once in every line, its versions with it', async () => {
    const dir = tempDir()
    const log = join(dir, 'app.log')
    const db = join(dir, 'c.db')
    writeFileSync(log, line(1) + line(2))
    await run(['ingest', 'logs', log, '--db', db])
    appendFileSync(log, line(3) + line(4) + line(5))
    await run(['ingest', 'logs', log, '--db', db])
    const status = (await run(['status', '--db', db])).stdout
    expect(status).toMatch(/evidence files +1 +\(1 log, with 1 earlier version/)
    expect(status).toMatch(/sightings +unknown: the case was never scanned \(1 log file, 5 records\)/)
    expect(status).not.toContain('2 log files')
  }, 60_000)
})
