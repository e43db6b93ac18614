import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// A marker the caller itself sent is an echo wherever in the request the caller put it: in a tool
// result handed back to the model (Messages API `tool_result`, Responses API
// `function_call_output`) or a document it attached. Those parts of a request were not read, so
// the model repeating the marker was called a cross-tenant leak and the gate failed.

const hexA = '9f8e7d6c5b4a39281706f5e4'
const markerA = `CANARY-${hexA}`

function caseDir(): {canaries: string; logs: string; db: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${markerA},tenant-a,sess-a,2026-10-01T00:00:00Z\nCANARY-00112233445566778899,tenant-b,sess-b,2026-10-01T00:00:00Z\n`)
  return {canaries, logs: join(dir, 'logs.jsonl'), db: join(dir, 'case.db')}
}

const line = (request_id: string, request: unknown, response: unknown): string =>
  JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id, tenant_id: 'tenant-b', session_id: 'sess-b', status: 200, request, response})

const chatAnswer = {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: `The tool said ${markerA}.`}}]}
const messagesAnswer = {id: 'msg_1', type: 'message', role: 'assistant', content: [{type: 'text', text: `The tool said ${markerA}.`}]}
const responsesAnswer = {id: 'resp_1', object: 'response', output: [{type: 'message', role: 'assistant', content: [{type: 'output_text', text: `The tool said ${markerA}.`}]}]}
const toolUse = {role: 'assistant', content: [{type: 'tool_use', id: 'tu_1', name: 'lookup', input: {q: 'x'}}]}

type Sighting = {request_id: string; class: string}

describe('the echo check reads what the caller sent in tool results and documents', () => {
  it('takes a marker the caller sent in a tool result or a document, repeated by the model, for an echo: the gate passes', async () => {
    const {canaries, logs, db} = caseDir()
    const lines = [
      // Messages API: a tool result as a string and as text blocks, a text document, a content document.
      line('r-1', {model: 'm', messages: [{role: 'user', content: 'look it up'}, toolUse, {role: 'user', content: [{type: 'tool_result', tool_use_id: 'tu_1', content: `found ${markerA}`}]}]}, messagesAnswer),
      line('r-2', {model: 'm', messages: [toolUse, {role: 'user', content: [{type: 'tool_result', tool_use_id: 'tu_1', content: [{type: 'text', text: `found ${markerA}`}]}]}]}, messagesAnswer),
      line('r-3', {model: 'm', messages: [{role: 'user', content: [{type: 'document', source: {type: 'text', media_type: 'text/plain', data: `memo ${markerA}`}}, {type: 'text', text: 'summarise'}]}]}, messagesAnswer),
      line('r-4', {model: 'm', messages: [{role: 'user', content: [{type: 'document', source: {type: 'content', content: [{type: 'text', text: `memo ${markerA}`}]}}]}]}, messagesAnswer),
      // Responses API: a function call's output as a string and as input_text parts.
      line('r-5', {model: 'm', input: [{role: 'user', content: 'look it up'}, {type: 'function_call', call_id: 'c1', name: 'lookup', arguments: '{"q":"x"}'}, {type: 'function_call_output', call_id: 'c1', output: `found ${markerA}`}]}, responsesAnswer),
      line('r-6', {model: 'm', input: [{type: 'function_call_output', call_id: 'c1', output: [{type: 'input_text', text: `found ${markerA}`}]}]}, responsesAnswer),
      // A chat completion answering a request in the Messages API's shape (a gateway that translates):
      // the native reader decodes such an answer itself, and must leave this request to the full decoder.
      line('r-7', {model: 'm', messages: [{role: 'user', content: [{type: 'tool_result', tool_use_id: 'tu_1', content: `found ${markerA}`}]}]}, chatAnswer),
    ]
    writeFileSync(logs, lines.join('\n') + '\n')
    const gate = await run(['triage', logs, '--canaries', canaries, '--db', db, '--fail-on-leak', '--json'])
    expect(gate.code, gate.stderr + gate.stdout).toBe(0)
    const sightings = await runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((s) => [s.request_id, s.class]).sort()).toEqual(['r-1', 'r-2', 'r-3', 'r-4', 'r-5', 'r-6', 'r-7'].map((r) => [r, 'echo']))
  })

  it('still calls the marker a leak where the tool result the caller sent did not hold it', async () => {
    const {canaries, logs, db} = caseDir()
    writeFileSync(logs, line('r-1', {model: 'm', messages: [toolUse, {role: 'user', content: [{type: 'tool_result', tool_use_id: 'tu_1', content: 'nothing found'}]}]}, messagesAnswer) + '\n')
    const gate = await run(['triage', logs, '--canaries', canaries, '--db', db, '--fail-on-leak', '--json'])
    expect(gate.code, gate.stderr).toBe(3)
    const sightings = await runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((s) => [s.request_id, s.class])).toEqual([['r-1', 'cross_tenant']])
  })
})
