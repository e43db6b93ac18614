import {appendFileSync, mkdirSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// --evidence reference, then ordinary logrotate: app.log grew, then was renamed app.log.1. The
// next ingest checked that app.log.1 begins with the earlier version's bytes and said they were
// "already in the case", but they are read from app.log, gone: every earlier record became
// unreadable, and `relocate FROM-DIR TO-DIR` (the remedy offered) cannot express a rename.

const line = (i: number): string =>
  JSON.stringify({ts: `2026-11-01T10:0${i}:00Z`, request_id: `req-${i}`, tenant_id: 'tn-a', session_id: `s-${i}`, status: 200, request: `question ${i}`, response: `answer ${i}`}) + '\n'

describe('a log kept by reference, grown, then renamed by logrotate', () => {
  it('ingest says where the earlier records are read and how to point the case at the rename; relocate OLD-FILE NEW-FILE does, checking the SHA-256', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    const app = join(logs, 'app.log')
    const rotated = join(logs, 'app.log.1')
    const db = join(dir, 'c.db')
    writeFileSync(app, line(1) + line(2) + line(3))
    await run(['ingest', 'logs', logs, '--evidence', 'reference', '--db', db])
    appendFileSync(app, line(4) + line(5))
    renameSync(app, rotated)

    const day2 = await run(['ingest', 'logs', logs, '--db', db])
    expect(day2.stderr).toContain('grew from ')
    expect(day2.stderr).toMatch(/kept by reference and read from .*app\.log, not from here: its 3 records are read there, so if that file was renamed to this one \(as logrotate does\), point the case here \(crosstalk relocate \S*app\.log \S*app\.log\.1/)
    expect((await run(['show', 'req-1', '--db', db, '--raw'])).code).toBe(1)

    // A file that does not begin with those bytes is refused, and nothing changes.
    const other = join(dir, 'other.log')
    writeFileSync(other, line(7))
    const refused = await run(['relocate', app, other, '--db', db])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/does not begin with the bytes of any file ingested from .*; nothing was changed/)

    const moved = await run(['relocate', app, rotated, '--db', db])
    expect(moved.code, moved.stderr).toBe(0)
    expect(moved.stdout).toContain('Relocated 1 original')
    const shown = await run(['show', 'req-1', '--db', db, '--raw'])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain('"request_id":"req-1"')
    const verify = await run(['verify', '--db', db])
    expect(verify.code, verify.stdout + verify.stderr).toBe(0)
  }, 120_000)
})
