import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA investigate #7: sources gw1 and gw2 both hold request id r2; only gw2's is cross_tenant.
// sightings gave no log source (its "source" column is the marker's owner), and show r2 refused
// ("exists in several sources; pass --source") without naming them.

const A = 'CANARY-aaaaaaaaaaaaaaaaaaaa01'
const B = 'CANARY-bbbbbbbbbbbbbbbbbbbb02'
const line = (ts: string, id: string, tenant: string, session: string, prompt: string, answer: string): string =>
  JSON.stringify({ts, request_id: id, tenant_id: tenant, session_id: session, status: 200, request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]}})

const dir = tempDir('ct-log-source-')
const db = join(dir, 'c.db')

beforeAll(async () => {
  writeFileSync(join(dir, 'g1.jsonl'), [line('2026-11-01T10:00:00Z', 'r1', 'tA', 'sA', `hi ${A}`, `ok ${A}`), line('2026-11-01T10:00:01Z', 'r2', 'tB', 'sB', `hi ${B}`, 'fine')].join('\n') + '\n')
  writeFileSync(join(dir, 'g2.jsonl'), line('2026-11-01T11:00:00Z', 'r2', 'tB', 'sB', 'again', `leak ${A}`) + '\n')
  writeFileSync(join(dir, 'reg.csv'), `marker,tenant_id,session_id,issued_at\n${A},tA,sA,2026-11-01T09:00:00Z\n${B},tB,sB,2026-11-01T09:00:00Z\n`)
  for (const args of [['ingest', 'logs', join(dir, 'g1.jsonl'), '--source', 'gw1'], ['ingest', 'logs', join(dir, 'g2.jsonl'), '--source', 'gw2'], ['ingest', 'canaries', join(dir, 'reg.csv')], ['scan']]) {
    const r = await run([...args, '--db', db])
    if (r.code !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`)
  }
})

describe('sightings name the log source, and show names the sources to choose from', () => {
  it('--json, --csv and the table carry the log source', async () => {
    const j = await runJson<Array<{request_id: string; log_source: string}>>(['sightings', '--json', '--class', 'cross_tenant', '--db', db])
    expect(j.map((s) => [s.request_id, s.log_source])).toEqual([['r2', 'gw2']])
    const csv = await run(['sightings', '--csv', '--class', 'cross_tenant', '--db', db])
    const [header, row] = csv.stdout.split('\r\n')
    expect(header!.split(',').at(-1)).toBe('log_source')
    expect(row!.split(',').at(-1)).toBe('gw2')
    const table = await run(['sightings', '--db', db])
    expect(table.stdout).toMatch(/log source/)
    expect(table.stdout).toMatch(/r2 .*gw2/)
  })

  it('show of an id in several sources names them, and --source picks one', async () => {
    const r = await run(['show', 'r2', '--db', db])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/exists in several sources \("gw1", "gw2"\); pass --source/)
    const picked = await run(['show', 'r2', '--source', 'gw2', '--db', db])
    expect(picked.code, picked.stderr).toBe(0)
  })
})
