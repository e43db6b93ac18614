import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// An echo is the marker itself in the request's own prompt (contract: `CANARY-` and its hex, the
// hex in either case). A prompt that holds only the hex digits (a hash, an id, a pasted log line)
// did not send the marker: tenant B receiving tenant A's marker is then a cross-tenant leak, and
// the gate fails, in the quick verdict and in the scan alike.

const hexA = '9f8e7d6c5b4a39281706f5e4'
const markerA = `CANARY-${hexA}`

function caseDir(): {canaries: string; logs: string; db: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${markerA},tenant-a,sess-a,2026-10-01T00:00:00Z\nCANARY-00112233445566778899,tenant-b,sess-b,2026-10-01T00:00:00Z\n`)
  return {canaries, logs: join(dir, 'logs.jsonl'), db: join(dir, 'case.db')}
}

type Sighting = {request_id: string; class: string; marker: string}

describe('the echo check', () => {
  it('takes a prompt holding only the marker\'s hex for no echo: the sighting is cross_tenant and triage --fail-on-leak exits 3', async () => {
    const {canaries, logs, db} = caseDir()
    const prompt = `build hash ${hexA.toUpperCase()}, commit ${hexA}; canary-${hexA} lower-case is not the marker either`
    writeFileSync(logs, `${chatLine({request_id: 'r-b', tenant_id: 'tenant-b', session_id: 'sess-b', prompt, answer: `here: ${markerA}`})}\n`)
    const gate = await run(['triage', logs, '--canaries', canaries, '--db', db, '--fail-on-leak', '--json'])
    // The quick verdict (the pass's echo facts) gave the answer, and the scan (the prompt) agreed.
    expect((JSON.parse(gate.stdout) as {verdict: unknown}).verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
    expect(gate.code, gate.stderr).toBe(3)
    const sightings = await runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((s) => [s.request_id, s.class])).toEqual([['r-b', 'cross_tenant']])
  })

  it('still takes the marker the user sent, in any letter case of its hex, for an echo: the gate passes', async () => {
    const {canaries, logs, db} = caseDir()
    const prompt = `what is CANARY-${hexA.toUpperCase()}?`
    writeFileSync(logs, `${chatLine({request_id: 'r-b', tenant_id: 'tenant-b', session_id: 'sess-b', prompt, answer: `It is ${markerA}.`})}\n`)
    const gate = await run(['triage', logs, '--canaries', canaries, '--db', db, '--fail-on-leak', '--json'])
    // The quick verdict (the pass's echo facts) gave the answer, and the scan (the prompt) agreed.
    expect((JSON.parse(gate.stdout) as {verdict: unknown}).verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
    expect(gate.code, gate.stderr).toBe(0)
    const sightings = await runJson<Sighting[]>(['sightings', '--db', db])
    expect(sightings.map((s) => [s.request_id, s.class])).toEqual([['r-b', 'echo']])
  })
})
