import {appendFileSync, mkdirSync, renameSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A log ingested day by day: it grew (day 2), then logrotate renamed it and a new file took its
// path (day 3). The Art. 33 evidence manifest listed three rows all named app.log, the grown
// version's records were only the lines it added, and the body said "2 log files" beside 3 log rows.

const A = 'CANARY-00112233445566778899aabb'
const line = (i: number, response = 'fine'): string =>
  JSON.stringify({ts: `2026-11-03T01:${String(i).padStart(2, '0')}:00Z`, request_id: `r-${i}`, tenant_id: 'tn-a', session_id: 's-a', status: 200, request: 'hello there', response}) + '\n'

interface Row {name: string; records: number; size: number; version?: {number: number; of: number; records_held: number}; same_name?: {number: number; of: number}}

describe('the evidence manifest of a log that grew, then rotated', () => {
  it('each row says which version of which file it is, and the body counts files and versions as the rows do', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    const app = join(logs, 'app.log')
    const db = join(dir, 'c.db')
    writeFileSync(join(dir, 'reg.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-a,s-a,2026-11-01T00:00:00Z\n`)
    await runJson(['ingest', 'canaries', join(dir, 'reg.csv'), '--db', db])
    writeFileSync(app, line(1) + line(2))
    await runJson(['ingest', 'logs', logs, '--db', db])
    appendFileSync(app, line(3) + line(4) + line(5))
    await runJson(['ingest', 'logs', logs, '--db', db])
    renameSync(app, join(logs, 'app.log.1'))
    writeFileSync(app, line(6) + line(7) + line(8) + line(9))
    await runJson(['ingest', 'logs', logs, '--db', db])
    await runJson(['scan', '--db', db])
    await runJson(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-03T08:00:00Z', '--role', 'controller'])

    const draft = await runJson<{evidence: Row[]}>(['report', 'article33', '--db', db])
    const logRows = draft.evidence.filter((e) => e.name === 'app.log').map((e) => ({records: e.records, version: e.version, same_name: e.same_name}))
    expect(logRows).toEqual([
      {records: 2, version: {number: 1, of: 2, records_held: 2}, same_name: {number: 1, of: 2}},
      {records: 3, version: {number: 2, of: 2, records_held: 5}, same_name: {number: 1, of: 2}},
      {records: 4, version: undefined, same_name: {number: 2, of: 2}},
    ])

    const text = (await run(['report', 'article33', '--db', db])).stdout
    expect(text).toContain('from 2 log files (3 versions) were searched')
    const annex = text.slice(text.indexOf('## Annex: evidence manifest'))
    expect(annex).toMatch(/\| app\.log \(file 1 of 2 so named; version 1 of 2: as first ingested; continued by a later version\) \| log \| 2 \|/)
    expect(annex).toMatch(/\| app\.log \(file 1 of 2 so named; version 2 of 2: grown from version 1, whose bytes it begins with\) \| log \| 3 added \(5 held\) \|/)
    expect(annex).toMatch(/\| app\.log \(file 2 of 2 so named\) \| log \| 4 \|/)
  }, 120_000)
})
