import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// Registered markers are matched whole (QA registry #1, #3, #6), and the gate follows: a foreign
// marker whose longer sibling the recipient's own prompt holds is a leak (exit 3), a response
// holding only its own longer marker is none (exit 0), and a CANARY-<hex><suffix> marker is one
// whole sighting. The quick verdict and the scan agree on each.

type Sighting = {request_id: string; class: string; marker: string; partial: boolean; source_tenant: string | null}

function files(registry: string, lines: string[]): {canaries: string; logs: string; db: string} {
  const dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  const logs = join(dir, 'logs.jsonl')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${registry}`)
  writeFileSync(logs, `${lines.join('\n')}\n`)
  return {canaries, logs, db: join(dir, 'case.db')}
}

async function triage(f: {canaries: string; logs: string; db: string}): Promise<{code: number; sightings: Sighting[]; verdict: unknown}> {
  const gate = await run(['triage', f.logs, '--canaries', f.canaries, '--db', f.db, '--fail-on-leak', '--json'])
  const verdict = (JSON.parse(gate.stdout) as {verdict: unknown}).verdict
  return {code: gate.code, verdict, sightings: await runJson<Sighting[]>(['sightings', '--db', f.db])}
}

const REGISTRY = 'ZEBRA-MARKER-7,tenant-a,sess-a,\nZEBRA-MARKER-71,tenant-b,sess-b,\nCANARY-0123456789abcdef,tenant-c,sess-c,\nCANARY-0123456789abcdef42,tenant-d,sess-d,\n'

describe('triage --fail-on-leak over nesting markers', () => {
  it('exits 3 where the recipient\'s prompt holds only its own longer marker and the response a foreign shorter one (#1)', async () => {
    const f = files(REGISTRY, [
      chatLine({request_id: 'r2', tenant_id: 'tenant-b', session_id: 'sess-b', prompt: 'ref ZEBRA-MARKER-71', answer: "The other customer's ref is ZEBRA-MARKER-7."}),
      chatLine({request_id: 'r3', tenant_id: 'tenant-d', session_id: 'sess-d', prompt: 'ref CANARY-0123456789abcdef42', answer: "Another session's marker: CANARY-0123456789abcdef."}),
    ])
    const t = await triage(f)
    expect(t.verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
    expect(t.code).toBe(3)
    expect(t.sightings.map((s) => [s.request_id, s.class, s.marker])).toEqual([
      ['r2', 'cross_tenant', 'ZEBRA-MARKER-7'],
      ['r3', 'cross_tenant', 'CANARY-0123456789abcdef'],
    ])
  })

  it('exits 0 where each response holds only its own marker, which holds another registered marker inside it (#3)', async () => {
    const f = files('ZEBRA-MARKER-7,tenant-a,sess-a,\nZEBRA-MARKER-71,tenant-b,sess-b,\nabcdef0123,tenant-c,sess-c,\nCANARY-abcdef0123456789abcd,tenant-d,sess-d,\n', [
      chatLine({request_id: 'r1', tenant_id: 'tenant-b', session_id: 'sess-b', prompt: 'what was my reference?', answer: 'Your reference is ZEBRA-MARKER-71.'}),
      chatLine({request_id: 'r2', tenant_id: 'tenant-d', session_id: 'sess-d', prompt: 'repeat it', answer: 'CANARY-abcdef0123456789abcd'}),
    ])
    const t = await triage(f)
    expect(t.verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
    expect(t.code).toBe(0)
    expect(t.sightings.map((s) => [s.request_id, s.class, s.marker])).toEqual([
      ['r1', 'own', 'ZEBRA-MARKER-71'],
      ['r2', 'own', 'CANARY-abcdef0123456789abcd'],
    ])
  })

  it('counts a registered CANARY-<hex><suffix> found exactly as one whole sighting, its needle the whole marker (#6)', async () => {
    const f = files('CANARY-0123456789abcdef-s42,tenant-a,sess-42,\nCANARY-fedcba9876543210-s7,tenant-a,sess-7,\nCANARY-fedcba9876543210-s8,tenant-a,sess-8,\n', [
      chatLine({request_id: 'r1', tenant_id: 'tenant-b', session_id: 'sess-b', prompt: 'my id is CANARY-0123456789abcdef', answer: 'here: CANARY-0123456789abcdef-s42'}),
      chatLine({request_id: 'r2', tenant_id: 'tenant-b', session_id: 'sess-b', prompt: 'hi', answer: 'here: CANARY-fedcba9876543210-s7'}),
    ])
    const t = await triage(f)
    expect(t.verdict).toEqual({basis: 'quick', confirmed_by_scan: true})
    expect(t.code).toBe(3)
    expect(t.sightings.map((s) => [s.request_id, s.class, s.marker, s.partial])).toEqual([
      ['r1', 'cross_tenant', 'CANARY-0123456789abcdef-s42', false],
      ['r2', 'cross_tenant', 'CANARY-fedcba9876543210-s7', false],
    ])
  })
})
