import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA's gate repros: a logged stream whose last event was cut off mid-document or is malformed
// JSON, and a body logged as NDJSON, each carrying another tenant's marker, passed
// triage --fail-on-leak (exit 0). A cut-off plain JSON body with the same marker was caught.

const MARKER = 'CANARY-cccccccccccc3333dd'
const registry = `marker,tenant_id,session_id,issued_at\n${MARKER},t2,s2,2026-11-01T09:00:00Z\n`
const owner = {ts: '2026-11-01T10:00:00Z', request_id: 'a1', tenant_id: 't2', session_id: 's2', request: `my code ${MARKER}`, response: 'ok'}
const chunk = (content: string) => JSON.stringify({id: 'c', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content}}]})
const ollama = (content: string, done = false) => JSON.stringify({model: 'llama3', message: {role: 'assistant', content}, done})

async function triage(response: string): Promise<{code: number; stderr: string}> {
  const dir = tempDir()
  const other = {ts: '2026-11-01T10:01:00Z', request_id: 'a2', tenant_id: 't3', session_id: 's3', request: 'hi', response}
  writeFileSync(join(dir, 'log.jsonl'), `${JSON.stringify(owner)}\n${JSON.stringify(other)}\n`)
  writeFileSync(join(dir, 'reg.csv'), registry)
  const r = await run(['triage', join(dir, 'log.jsonl'), '--canaries', join(dir, 'reg.csv'), '--db', join(dir, 'c.db'), '--fail-on-leak'])
  return {code: r.code, stderr: r.stderr}
}

describe('triage --fail-on-leak over a stream not sent whole, and over NDJSON bodies', () => {
  it.each([
    ['a stream cut off inside its last event', `data: ${chunk('hello ')}\n\ndata: {"choices":[{"delta":{"content":"${MARKER}`],
    ['a stream whose last event is malformed JSON', `data: ${chunk('hello ')}\n\ndata: {"choices":[{"delta":{"content":"${MARKER}"}}]\n\ndata: [DONE]\n\n`],
    ['OpenAI chunks one per line, the marker split across them', [chunk('Here: '), chunk(MARKER.slice(0, 12)), chunk(MARKER.slice(12)), ''].join('\n')],
    ['a plain JSON body cut off (as before)', `{"choices":[{"message":{"content":"hello ${MARKER}`],
    // The marker split across the last whole event and one cut off (or broken) after it: found
    // only where the cut event's piece is read as the delta it began.
    ['the marker split across a whole event and a cut one', `data: ${chunk(`hello ${MARKER.slice(0, 12)}`)}\n\ndata: {"choices":[{"delta":{"content":"${MARKER.slice(12)}`],
    ['the marker split across a whole event and a broken one', `data: ${chunk(`hello ${MARKER.slice(0, 12)}`)}\n\ndata: {"choices":[{"delta":{"content":"${MARKER.slice(12)}"}}]\n\ndata: [DONE]\n\n`],
    ['the marker split, the cut event escaping a letter', `data: ${chunk(`hello ${MARKER.slice(0, 12)}`)}\n\ndata: {"choices":[{"delta":{"content":"\\u0063${MARKER.slice(13)}`],
    [
      'a Responses API stream, the marker split across a whole delta and a cut one',
      `data: {"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"hello ${MARKER.slice(0, 10)}"}\n\ndata: {"type":"response.output_text.delta","output_index":0,"content_index":0,"delta":"${MARKER.slice(10)}`,
    ],
    [
      'a Messages API stream, the marker split across a whole delta and a cut one',
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hello ${MARKER.slice(0, 9)}"}}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${MARKER.slice(9)}`,
    ],
  ])('%s: the marker is found, exit 3', {timeout: 30_000}, async (_, response) => {
    expect((await triage(response)).code).toBe(3)
  })

  it('an Ollama NDJSON stream is read as its chunks joined: the split marker is found, exit 3', {timeout: 30_000}, async () => {
    const r = await triage([ollama('Here: '), ollama(MARKER.slice(0, 12)), ollama(MARKER.slice(12)), ollama('', true), ''].join('\n'))
    expect(r.code).toBe(3)
  })

  it('an Ollama NDJSON stream with a line cut off is no text: exit 1, never a pass', {timeout: 30_000}, async () => {
    const r = await triage([ollama('Here: '), ollama(MARKER.slice(0, 12)), ollama(MARKER.slice(12)).slice(0, 40)].join('\n'))
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/no text/)
  })
})
