import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// An OpenAI Batch answer is judged against its own request: given without its input file, a
// marker the user pasted into the prompt would read as another session's. The answer is refused
// (nothing stored), so the same output ingested later with its input is read whole.

describe('OpenAI Batch output without its input', () => {
  it('is refused, naming the fix; ingested with its input, the pasted marker is an echo, not a leak', async () => {
    const dir = tempDir()
    const input = join(dir, 'input.jsonl')
    const output = join(dir, 'output.jsonl')
    const canaries = join(dir, 'canaries.csv')
    writeFileSync(canaries, 'marker,tenant_id,session_id,issued_at\nCANARY-00112233445566778899,tn-b,s-b,2026-10-01T00:00:00Z\n')
    writeFileSync(input, JSON.stringify({custom_id: 'tn-a|s-a|1', method: 'POST', url: '/v1/chat/completions', body: {model: 'm', messages: [{role: 'user', content: 'what is CANARY-00112233445566778899?'}]}}) + '\n')
    writeFileSync(output, JSON.stringify({id: 'batch_req_1', custom_id: 'tn-a|s-a|1', response: {status_code: 200, request_id: 'req_1', body: {id: 'c', created: 1793404940, model: 'm', choices: [{index: 0, message: {role: 'assistant', content: 'CANARY-00112233445566778899 is a marker'}}]}}, error: null}) + '\n')
    const db = join(dir, 'case.db')
    const flags = ['--canaries', canaries, '--db', db, '--log-format', 'openai-batch', '--custom-id-pattern', '^(?<tenant>[^|]+)\\|(?<session>[^|]+)\\|']
    const alone = await run(['triage', output, '--fail-on-leak', ...flags])
    expect(alone.code).toBe(1)
    expect(alone.stderr).toMatch(/output\.jsonl: not ingested: .*is in no input file given.*; to fix: ingest each batch's output file with its own input file/)
    const both = await run(['triage', input, output, '--fail-on-leak', ...flags])
    expect(both.code, both.stderr).toBe(0)
    const sightings = await runJson<Array<{class: string}>>(['sightings', '--db', db])
    expect(sightings.map((s) => s.class)).toEqual(['echo'])
  })

  it('holds an error line to its input as well: a marker the user sent, repeated in the error message, is never stated as a leak (QA accuracy #2)', async () => {
    const dir = tempDir()
    const input = join(dir, 'input.jsonl')
    const output = join(dir, 'output.jsonl')
    const canaries = join(dir, 'canaries.csv')
    writeFileSync(canaries, 'marker,tenant_id,session_id,issued_at\nCANARY-00112233445566778899,tn-b,s-b,2026-10-01T00:00:00Z\n')
    writeFileSync(input, JSON.stringify({custom_id: 'tn-a|s-a|1', method: 'POST', url: '/v1/chat/completions', body: {model: 'm', messages: [{role: 'user', content: 'please repeat CANARY-00112233445566778899'}]}}) + '\n')
    writeFileSync(output, JSON.stringify({id: 'batch_req_e', custom_id: 'tn-a|s-a|1', response: null, error: {code: 'server_error', message: 'failed with CANARY-00112233445566778899'}}) + '\n')
    const flags = ['--canaries', canaries, '--log-format', 'openai-batch', '--custom-id-pattern', '^(?<tenant>[^|]+)\\|(?<session>[^|]+)\\|', '--batch-ts', '2026-11-01T12:00:00Z']
    const aloneDb = join(dir, 'alone.db')
    const alone = await run(['triage', output, '--fail-on-leak', '--db', aloneDb, ...flags])
    // Not judged (the case holds nothing of it), so the gate fails closed: no cross-tenant leak stated.
    expect(alone.code, alone.stderr).toBe(1)
    expect(alone.stderr).toMatch(/is in no input file given, so its request is unknown and its error line cannot be judged/)
    expect(alone.stdout).not.toMatch(/cross-tenant/)
    const db = join(dir, 'both.db')
    const both = await run(['triage', input, output, '--fail-on-leak', '--db', db, ...flags])
    expect(both.code, both.stderr).toBe(0)
    expect((await runJson<Array<{class: string}>>(['sightings', '--db', db])).map((s) => s.class)).toEqual(['echo'])
  })
})
