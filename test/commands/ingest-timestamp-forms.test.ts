import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA time #5/#6: a log whose times are in RFC 3339's lower-case form ("2026-10-25t00:30:00z"),
// written "2026-10-25 00:30:00.123456 UTC" (BigQuery's TIMESTAMP text) or with an RFC 9557 [zone]
// after the offset was refused whole as "unrecognised timestamp", its leak never examined, with a
// --log-format / --map hint that could not work. They are read (extract scheme x13); a time in a
// form still not read names the forms read, never another --log-format.

const A = 'CANARY-aaaa1111aaaa1111'
const B = 'CANARY-bbbb2222bbbb2222'
const REGISTRY = `marker,tenant_id,session_id,issued_at\n${A},acme,s-a1,2026-10-01T00:00:00Z\n${B},beta,s-b1,2026-10-01T00:00:00Z\n`
const lines = (ts1: string, ts2: string): string =>
  [
    {ts: ts1, request_id: 'r1', tenant_id: 'acme', session_id: 's-a1', status: 200, request: `hello ${A}`, response: 'ok'},
    {ts: ts2, request_id: 'r2', tenant_id: 'beta', session_id: 's-b1', status: 200, request: `hi ${B}`, response: `here is ${A}`},
  ].map((r) => JSON.stringify(r)).join('\n') + '\n'

async function ingest(content: string, ...extra: string[]) {
  const dir = tempDir()
  const db = join(dir, 'c.db')
  writeFileSync(join(dir, 'canaries.csv'), REGISTRY)
  mkdirSync(join(dir, 'logs'))
  writeFileSync(join(dir, 'logs', 'a.jsonl'), content)
  expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
  return run(['ingest', 'logs', join(dir, 'logs'), '--db', db, ...extra])
}

describe('log times that state their zone in other forms', () => {
  it.each([
    ['lower-case t and z', '2026-10-25t00:30:00z', '2026-10-25t01:30:00.123+01:00'],
    ['" UTC" after the time', '2026-10-25 00:30:00.123456 UTC', '2026-10-25 01:30:00 UTC'],
    ['an RFC 9557 [zone] after the offset', '2026-10-25T02:30:00+02:00[Europe/Paris]', '2026-10-25T01:30:00Z[!u-ca=iso8601]'],
  ])('%s are read', async (_what, ts1, ts2) => {
    for (const extra of [[], ['--assume-tz', 'UTC']]) {
      const r = await ingest(lines(ts1, ts2), ...extra)
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout + r.stderr).toContain('2 new records, 0 duplicates, 0 bad lines quarantined')
    }
  })

  it('a time in a form not read: the refusal names the forms read, not another --log-format', async () => {
    const r = await ingest(lines('2026-10-25 00:30:00 CET', '2026-10-25 01:30:00 CET'))
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('its times are in a form crosstalk does not read')
    expect(r.stderr).not.toContain('--log-format (otel')
  })
})
