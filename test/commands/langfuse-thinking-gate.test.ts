import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A Langfuse GENERATION whose output is a list of several messages: the thinking blocks of an
// Anthropic message among them were dropped (a single-message output read them), so another
// customer's marker in the second message's thinking was missed and --fail-on-leak passed.

const A = 'CANARY-a1a1a1a1a1a1a1a1a1a1'
const B = 'CANARY-b2b2b2b2b2b2b2b2b2b2'

it('langfuse: a marker in a thinking block of the second message of an output list is found (sighting, exit 3)', async () => {
  const dir = tempDir()
  const db = join(dir, 'case.db')
  writeFileSync(join(dir, 'canaries.csv'), `marker,tenant_id,session_id,issued_at\n${A},tn-alpha,sess-a1,\n${B},tn-beta,sess-b1,\n`)
  const output = [
    {role: 'assistant', content: 'Let me check.'},
    {role: 'assistant', content: [{type: 'thinking', thinking: `the account is ${A}`, signature: 's'}, {type: 'text', text: 'All set.'}]},
  ]
  writeFileSync(join(dir, 'langfuse.jsonl'), JSON.stringify({
    id: 'obs-1', traceId: 'trace-1', type: 'GENERATION', startTime: '2026-11-02T06:48:30.000Z', endTime: '2026-11-02T06:48:31.000Z',
    sessionId: 'sess-b1', metadata: {tenant_id: 'tn-beta'}, input: [{role: 'user', content: `hi ${B}`}], output,
  }) + '\n')
  expect((await run(['ingest', 'canaries', join(dir, 'canaries.csv'), '--db', db])).code).toBe(0)
  const ingest = await runJson<{per_file: Array<{records: number; no_response_text: number}>}>(['ingest', 'logs', join(dir, 'langfuse.jsonl'), '--log-format', 'langfuse', '--db', db])
  expect(ingest.per_file[0]).toMatchObject({records: 1, no_response_text: 0})
  const gate = await run(['scan', '--db', db, '--fail-on-leak'])
  expect(gate.code, gate.stderr).toBe(3)
  const sightings = await runJson<Array<{request_id: string; class: string; marker: string}>>(['sightings', '--db', db])
  expect(sightings.map((s) => [s.request_id, s.class, s.marker])).toEqual([['obs-1', 'cross_tenant', A]])
}, 60_000)
