import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {STRAY_LINE} from '../../src/extract/decode.js'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA parts #1: a stream line without `data:` before the end mark was passed over silently, so a
// marker on it (a data line a log shipper broke in two, a line of text between chunks) passed
// --fail-on-leak with no sighting and no note. Now the broken line is joined and read, and a line
// that is no field is searched as raw text, the file named not read whole.

const VICTIM = 'CANARY-a1b2c3d4e5f60718293a4b5c6d7e8f90'
const OWN = 'CANARY-0f1e2d3c4b5a69788796a5b4c3d2e1f0'
const chat = (content: string) => `data: ${JSON.stringify({id: 'x', object: 'chat.completion.chunk', choices: [{index: 0, delta: {content}}]})}\n\n`
const DONE = 'data: [DONE]\n\n'

function caseOf(response: string): {dir: string; db: string; log: string} {
  const dir = tempDir()
  writeFileSync(join(dir, 'reg.csv'), `marker,tenant_id,session_id,issued_at\n${VICTIM},tV,sV,\n${OWN},tR,sR,\n`)
  const log = join(dir, 'log.jsonl')
  writeFileSync(log, JSON.stringify({ts: '2026-11-01T10:00:00Z', request_id: 'r1', tenant_id: 'tR', session_id: 'sR', status: 200, request: {model: 'm', messages: [{role: 'user', content: `Hello ${OWN}`}]}, response}) + '\n')
  return {dir, db: join(dir, 'case.db'), log}
}

it('a data line broken in two by a log shipper, the marker on the continuation: a cross_tenant sighting, gate exit 3', async () => {
  const whole = chat('Hello. ') + chat(`${'lorem ipsum '.repeat(20)}your code is ${VICTIM} and more`) + DONE
  const cut = whole.indexOf(VICTIM) - 5
  const {dir, db, log} = caseOf(`${whole.slice(0, cut)}\n${whole.slice(cut)}`)
  expect((await run(['ingest', 'canaries', join(dir, 'reg.csv'), '--db', db])).code).toBe(0)
  const ingest = await runJson<{per_file: Array<{unread: string | null}>}>(['ingest', 'logs', log, '--db', db])
  expect(ingest.per_file[0]!.unread).toBeNull()
  const gate = await run(['scan', '--db', db, '--fail-on-leak'])
  expect(gate.code, gate.stderr).toBe(3)
  const sightings = await runJson<Array<{class: string; marker: string; partial: boolean}>>(['sightings', '--db', db])
  expect(sightings.map((s) => [s.class, s.marker, s.partial])).toEqual([['cross_tenant', VICTIM, false]])
}, 60_000)

it('a line of text between chunks holding no marker: the file is not read whole and the gate fails closed (exit 1), naming it', async () => {
  const {dir, db, log} = caseOf(`${chat('Hello ')}[shipper] line 2 of 3\n\n${chat('there')}${DONE}`)
  expect((await run(['ingest', 'canaries', join(dir, 'reg.csv'), '--db', db])).code).toBe(0)
  expect((await run(['ingest', 'logs', log, '--db', db])).code).toBe(0)
  const gate = await run(['scan', '--db', db, '--fail-on-leak'])
  expect(gate.code, gate.stderr).toBe(1)
  expect(gate.stderr).toContain(STRAY_LINE)
}, 60_000)
