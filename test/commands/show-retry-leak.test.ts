import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA investigate #2: a retry line (request id rb repeated, another answer) carried tenant tA's
// marker to tB. status, sightings, scope and timeline say NOT COUNTED; show said of ra "this
// session's markers were not seen in another session's response" and of rb only "no marker in
// this response", with nothing in --json: a response someone received, denied.

const A = 'CANARY-aaaaaaaaaaaaaaaaaaaa01'
const B = 'CANARY-bbbbbbbbbbbbbbbbbbbb02'
const line = (ts: string, id: string, tenant: string, session: string, prompt: string, answer: string): string =>
  JSON.stringify({ts, request_id: id, tenant_id: tenant, session_id: session, status: 200, request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]}})

const dir = tempDir('ct-show-retry-')
const db = join(dir, 'c.db')

interface Findings {
  sightings: unknown[] | null
  session_marker_sightings: number | null
  retry_leaks: Array<{line: string; class: string; recipient_tenant: string; source_tenants: string[]}>
  session_marker_retry_leaks: number
}

beforeAll(async () => {
  const logs = join(dir, 'd.jsonl')
  writeFileSync(logs, [
    line('2026-11-01T10:00:00Z', 'ra', 'tA', 'sA', `hi ${A}`, `ok ${A}`),
    line('2026-11-01T10:00:05Z', 'rb', 'tB', 'sB', `hi ${B}`, 'fine'),
    line('2026-11-01T10:00:09Z', 'rb', 'tB', 'sB', `hi ${B}`, `retry answer leaks ${A} of tenant A`),
  ].join('\n') + '\n')
  const reg = join(dir, 'reg.csv')
  writeFileSync(reg, `marker,tenant_id,session_id,issued_at\n${A},tA,sA,2026-11-01T09:00:00Z\n${B},tB,sB,2026-11-01T09:00:00Z\n`)
  for (const args of [['ingest', 'logs', logs], ['ingest', 'canaries', reg], ['scan']]) {
    const r = await run([...args, '--db', db])
    if (r.code !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`)
  }
})

describe('show names a leaking retry line', () => {
  it('the record whose request id the retry repeats names the line, in text and --json', async () => {
    const j = await runJson<{findings: Findings}>(['show', 'rb', '--db', db, '--json'])
    expect(j.findings.retry_leaks).toEqual([expect.objectContaining({line: 'd.jsonl:3', class: 'cross_tenant', recipient_tenant: 'tB', source_tenants: ['tA']})])
    const text = await run(['show', 'rb', '--db', db])
    expect(text.stdout).toMatch(/retries\s+1 line repeating this request id carries another session's marker, NOT COUNTED in any figure: d\.jsonl:3/)
  })

  it("the session whose marker the retry carried is not told its markers were not seen", async () => {
    const j = await runJson<{findings: Findings}>(['show', 'ra', '--db', db, '--json'])
    expect(j.findings.session_marker_sightings).toBe(0)
    expect(j.findings.session_marker_retry_leaks).toBe(1)
    expect(j.findings.retry_leaks).toEqual([])
    const text = await run(['show', 'ra', '--db', db])
    expect(text.stdout).not.toMatch(/markers were not seen in another session's response/)
    expect(text.stdout).toMatch(/its markers.*in 1 retry line served to another session, NOT COUNTED/)
  })
})
