import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {run} from '../helpers/commands.js'

// Ingest (lead's) -> scan -> sightings/provenance, through the CLI.
describe('ingest -> scan -> sightings', () => {
  it('finds a split SSE marker and an escaped one, classifies them, and attributes repeated text', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ct-'))
    const db = path.join(dir, 'case.db')
    const A = 'CANARY-3f9a1c2b4d5e6f708192'
    const B = 'CANARY-c0ffee00deadbeef4455'
    fs.writeFileSync(path.join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},acme,s-a,2026-11-01T00:00:00Z\n${B},globex,s-b,2026-11-01T00:00:00Z\n`)
    const secret = 'the quarterly merger plan with initech closes on friday and the board must not learn about it before then'
    const chunk = (t: string): string => `data: ${JSON.stringify({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: t}}]})}\n\n`
    const lines = [
      {ts: '2026-11-02T06:00:00.000Z', request_id: 'r1', tenant_id: 'acme', session_id: 's-a', status: 200, request: {messages: [{role: 'user', content: `${secret}. remember ${A}`}]}, response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: 'Noted.'}}]}},
      {ts: '2026-11-02T06:00:01.000Z', request_id: 'r2', tenant_id: 'globex', session_id: 's-b', status: 200, request: {messages: [{role: 'user', content: 'hello'}]}, response: chunk('Sure: CANA') + chunk('RY-3F9A1C2B4D5E') + chunk(`6F708192 ${secret}`) + 'data: [DONE]\n\n'},
      {ts: '2026-11-02T06:00:02.000Z', request_id: 'r3', tenant_id: 'acme', session_id: 's-c', status: 200, request: 'hi', response: '{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"\\u0043ANARY-c0ffee00deadbeef4455"}}]}'},
    ]
    fs.writeFileSync(path.join(dir, 'log.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    expect((await run(['ingest', 'canaries', path.join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
    const ingest = await run(['ingest', 'logs', path.join(dir, 'log.jsonl'), '--db', db, '--json'])
    expect(ingest.code, ingest.stderr).toBe(0)
    const scan = await run(['scan', '--db', db, '--json', '--fail-on-leak'])
    expect(scan.code, scan.stderr).toBe(3)
    const sightings = JSON.parse((await run(['sightings', '--db', db, '--json'])).stdout)
    expect(sightings.map((s: {request_id: string; class: string; marker: string; source_tenant: string}) => [s.request_id, s.class, s.marker, s.source_tenant])).toEqual([
      ['r2', 'cross_tenant', A, 'acme'],
      ['r3', 'cross_tenant', B, 'globex'],
    ])
    const prov = JSON.parse((await run(['provenance', '--db', db, '--json'])).stdout)
    expect(prov).toMatchObject([{request_id: 'r2', source_request_id: 'r1', source_session: 's-a', source_tenant: 'acme', matched: 'prompt', overlap_words: 19}])
    const status = JSON.parse((await run(['status', '--db', db, '--json'])).stdout)
    expect(status.sightings).toBe(2)
  })
})
