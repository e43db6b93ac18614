import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {chatLine} from '../helpers/log-lines.js'

// `--fail-on-leak` trips on every exposure the drafts state: a response repeating another
// session's text verbatim (provenance, no canary marker in it) is a leak as a sighting is (exit 3),
// with or without a registry, in scan and in triage (whose verdict is decided on the markers
// before provenance runs).

const MEMO = 'Our quarterly merger plan with Halvorsen Maritime closes on the ninth of March and the board approved a price of forty two million euros for the northern shipyard'

function textLeakLogs(dir: string): {logs: string; canaries: string} {
  const logs = join(dir, 'logs.jsonl')
  writeFileSync(logs, [
    chatLine({ts: '2026-11-01T10:00:00Z', request_id: 'r-a', tenant_id: 'tenant-a', session_id: 'sa1', prompt: `Please summarise this memo: ${MEMO}`, answer: 'Sure, here is a summary.'}),
    chatLine({ts: '2026-11-01T11:00:00Z', request_id: 'r-b', tenant_id: 'tenant-b', session_id: 'sb1', prompt: 'What is the weather like in Oslo today?', answer: `Here is what I found: ${MEMO}. Anything else?`}),
    chatLine({ts: '2026-11-01T12:00:00Z', request_id: 'r-c', tenant_id: 'tenant-c', session_id: 'sc1', prompt: 'Tell me a joke', answer: 'Why did the chicken cross the road?'}),
  ].join('\n') + '\n')
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, 'marker,tenant_id,session_id,issued_at\nCANARY-0123456789abcdef0123456789abcdef,tenant-a,sa1,2026-11-01T09:00:00Z\nCANARY-1123456789abcdef0123456789abcdef,tenant-b,sb1,2026-11-01T09:00:00Z\n')
  return {logs, canaries}
}

describe('--fail-on-leak over a leak found by verbatim text', () => {
  it('scan exits 3 naming it, with a registry and without one; --no-provenance on a fresh case judges markers only', async () => {
    const dir = tempDir()
    const {logs, canaries} = textLeakLogs(dir)
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'canaries', canaries, '--db', db])).code).toBe(0)
    expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
    const scan = await run(['scan', '--db', db, '--fail-on-leak'])
    expect(scan.code, scan.stderr).toBe(3)
    expect(scan.stderr).toMatch(/Gate: contamination found: 1 response repeats another session's text verbatim \(provenance: 1 cross-tenant, 0 same-tenant, 0 source not named\)/)
    // The leaked text is never printed by the gate.
    expect(scan.stderr).not.toContain('Halvorsen')

    const bare = join(dir, 'bare.db')
    expect((await run(['ingest', 'logs', logs, '--db', bare])).code).toBe(0)
    const noRegistry = await run(['scan', '--db', bare, '--fail-on-leak'])
    // A leak is a leak without a registry too: 3, not "cannot pass" (1); the missing registry is said beside it.
    expect(noRegistry.code, noRegistry.stderr).toBe(3)
    expect(noRegistry.stderr).toMatch(/1 response repeats another session's text verbatim/)
    expect(noRegistry.stderr).toMatch(/Gate: also: .*no canary registry/)

    const markersOnly = join(dir, 'markers.db')
    expect((await run(['ingest', 'canaries', canaries, '--db', markersOnly])).code).toBe(0)
    expect((await run(['ingest', 'logs', logs, '--db', markersOnly])).code).toBe(0)
    expect((await run(['scan', '--db', markersOnly, '--no-provenance', '--fail-on-leak'])).code).toBe(0)
  })

  it('triage exits 3 after a canary verdict of no leak, and says the text leak was found after it', async () => {
    const dir = tempDir()
    const {logs, canaries} = textLeakLogs(dir)
    const r = await run(['triage', logs, '--canaries', canaries, '--db', join(dir, 't.db'), '--fail-on-leak'])
    expect(r.code, r.stderr).toBe(3)
    expect(r.stdout).toMatch(/No response carried another session's canary marker/)
    expect(r.stderr).toMatch(/Gate: contamination found after the canary verdict above: 1 response repeats another session's text verbatim/)
    const withoutRegistry = await run(['triage', logs, '--db', join(dir, 'u.db'), '--fail-on-leak'])
    expect(withoutRegistry.code, withoutRegistry.stderr).toBe(3)
  })
})
