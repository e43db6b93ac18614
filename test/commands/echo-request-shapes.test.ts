import Database from 'better-sqlite3'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli, runJson, tempDir, type CliResult} from '../helpers/cli.js'
import {EXTRACT_SCHEME} from '../../src/extract/extract.js'
import {requestShapes} from '../helpers/request-shapes.js'

// A session that replays its own history (an assistant's thinking, a refusal, Responses API
// reasoning and tool items) or hands the model a tool's output, a search result or a predicted
// output sent that text itself: the model repeating a marker from it is an echo. Those parts of a
// request were not read, so the repeat was taken for a marker from another session (QA repro 5:
// cross_session, triage --fail-on-leak exit 3). Each shape is answered as a chat completion (whose
// line the native addon reads, request included, or leaves to TypeScript) and as a Responses API
// body (TypeScript's).

const markerA = 'CANARY-5e5e5e5e1a1a1a1a2b2b2b2b'

function caseDir(): {canaries: string; logs: string; db: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${markerA},tenant-a,sess-a,2026-10-01T00:00:00Z\nCANARY-00112233445566778899,tenant-b,sess-b,2026-10-01T00:00:00Z\n`)
  return {canaries, logs: join(dir, 'logs.jsonl'), db: join(dir, 'case.db')}
}

const answers = {
  chat: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: `You said ${markerA}.`}}]},
  responses: {id: 'resp_1', object: 'response', output: [{type: 'message', role: 'assistant', content: [{type: 'output_text', text: `You said ${markerA}.`}]}]},
}

function lines(text: string): {ids: string[]; jsonl: string} {
  const ids: string[] = []
  const out: string[] = []
  requestShapes.forEach(([, make], i) => {
    for (const [kind, response] of Object.entries(answers)) {
      const request_id = `r-${i}-${kind}`
      ids.push(request_id)
      out.push(JSON.stringify({ts: '2026-11-02T06:48:30.289Z', request_id, tenant_id: 'tenant-b', session_id: 'sess-b', status: 200, request: make(text), response}))
    }
  })
  return {ids, jsonl: out.join('\n') + '\n'}
}

type Sighting = {request_id: string; class: string}

/** The built CLI run with the addon in use or turned off (a process of its own: the addon is loaded once per thread). */
function runWith(native: boolean, args: string[]): CliResult {
  return runCli(args, {env: native ? {} : {CROSSTALK_NATIVE: '0'}})
}

describe('the echo check reads the text a caller sent in every request shape', () => {
  for (const native of [true, false]) {
    it(`takes the marker the request held, in any of ${requestShapes.length} shapes, repeated by the model, for an echo: the gate passes (native addon ${native ? 'on' : 'off'})`, () => {
      const {canaries, logs, db} = caseDir()
      const {ids, jsonl} = lines(`recall ${markerA}`)
      writeFileSync(logs, jsonl)
      const gate = runWith(native, ['triage', logs, '--canaries', canaries, '--db', db, '--fail-on-leak', '--json'])
      const sightings = runJson<Sighting[]>(['sightings', '--db', db])
      expect(sightings.filter((s) => s.class !== 'echo').map((s) => s.request_id)).toEqual([])
      expect(sightings.map((s) => s.request_id).sort()).toEqual([...ids].sort())
      expect(gate.code, gate.stderr).toBe(0)
    }, 120_000)
  }

  it('still takes the marker for a leak where the same shapes did not hold it', () => {
    const {canaries, logs, db} = caseDir()
    const {ids, jsonl} = lines('recall nothing')
    writeFileSync(logs, jsonl)
    const gate = runWith(true, ['triage', logs, '--canaries', canaries, '--db', db, '--fail-on-leak', '--json'])
    expect(gate.code, gate.stderr).toBe(3)
    const sightings = runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((s) => [s.request_id, s.class]).sort()).toEqual(ids.map((r) => [r, 'cross_tenant']).sort())
  }, 120_000)

  it('a case extracted before (x5), which took these echoes for leaks, is extracted again by the next scan, whose gate passes', () => {
    const {canaries, logs, db} = caseDir()
    const {ids, jsonl} = lines(`recall ${markerA}`)
    writeFileSync(logs, jsonl)
    expect(runWith(true, ['triage', logs, '--canaries', canaries, '--db', db]).code).toBe(0)
    // What x5 left: the prompts' texts unread, so every repeat of the marker a cross-tenant sighting.
    const c = new Database(db)
    c.prepare("UPDATE files SET extract_scheme = 'x5/words-k5-w8-v2' WHERE kind = 'log'").run()
    c.prepare("UPDATE sightings SET class = 'cross_tenant', source_session = 'sess-a', source_tenant = 'tenant-a'").run()
    c.close()
    const s = runWith(true, ['scan', '--db', db, '--fail-on-leak'])
    expect(s.code, s.stderr).toBe(0)
    const sightings = runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((x) => [x.request_id, x.class]).sort()).toEqual(ids.map((r) => [r, 'echo']).sort())
    const check = new Database(db, {readonly: true})
    expect(check.prepare("SELECT DISTINCT extract_scheme FROM files WHERE kind = 'log'").pluck().all()).toEqual([EXTRACT_SCHEME])
    check.close()
  }, 120_000)
})
