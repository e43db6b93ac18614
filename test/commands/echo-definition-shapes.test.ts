import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, runJson, tempDir, type CliResult} from '../helpers/cli.js'
import {definitionShapes} from '../helpers/request-shapes.js'

// A session whose own request carries another tenant's marker in what it defined for the model
// (a tool's description or schema, a structured output's schema, a message's name) sent that
// marker itself: the model is shown those definitions, so its repeating the marker is an echo.
// They were not read, so the repeat was classed cross_tenant (gate exit 3, a leak in the drafts).
// Each shape is answered as a chat completion (a line the native addon reads or leaves to TypeScript).

const markerA = 'CANARY-5e5e5e5e1a1a1a1a2b2b2b2b'

function caseDir(): {canaries: string; logs: string; db: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${markerA},tenant-a,sess-a,2026-10-01T00:00:00Z\nCANARY-00112233445566778899,tenant-b,sess-b,2026-10-01T00:00:00Z\n`)
  return {canaries, logs: join(dir, 'logs.jsonl'), db: join(dir, 'case.db')}
}

const answer = {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: `You said ${markerA}.`}}]}

function lines(text: string): {ids: string[]; jsonl: string} {
  const ids = definitionShapes.map((_, i) => `d-${i}`)
  const out = definitionShapes.map(([, make], i) => JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id: ids[i], tenant_id: 'tenant-b', session_id: 'sess-b', status: 200, request: make(text), response: answer}))
  return {ids, jsonl: out.join('\n') + '\n'}
}

type Sighting = {request_id: string; class: string}

/** The built CLI run with the addon in use or turned off (a process of its own: the addon is loaded once per thread). */
function runWith(native: boolean, args: string[]): CliResult {
  return runCli(args, {env: native ? {} : {CROSSTALK_NATIVE: '0'}})
}

describe('the echo check reads what a caller defined for the model', () => {
  for (const native of [true, false]) {
    it(`takes the marker a request's definitions held, in any of ${definitionShapes.length} shapes, repeated by the model, for an echo: the gate passes (native addon ${native ? 'on' : 'off'})`, () => {
      const {canaries, logs, db} = caseDir()
      const {ids, jsonl} = lines(`recall ${markerA}`)
      writeFileSync(logs, jsonl)
      const gate = runWith(native, ['triage', logs, '--canaries', canaries, '--db', db, '--fail-on-leak', '--json'])
      const sightings = runJson<Sighting[]>(['sightings', '--db', db])
      expect(sightings.map((s) => [s.request_id, s.class]).sort()).toEqual(ids.map((r) => [r, 'echo']).sort())
      expect(gate.code, gate.stderr).toBe(0)
    }, 120_000)
  }

  it('still takes the marker for a leak where the same definitions did not hold it', () => {
    const {canaries, logs, db} = caseDir()
    const {ids, jsonl} = lines('recall nothing')
    writeFileSync(logs, jsonl)
    const gate = runWith(true, ['triage', logs, '--canaries', canaries, '--db', db, '--fail-on-leak', '--json'])
    expect(gate.code, gate.stderr).toBe(3)
    const sightings = runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((s) => [s.request_id, s.class]).sort()).toEqual(ids.map((r) => [r, 'cross_tenant']).sort())
  }, 120_000)
})
