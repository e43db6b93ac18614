import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA docs #4: a processor drafting for controller acme. At 08:00 acme's user s1 was served
// globex's marker; at 10:00 acme's s4 marker reached globex. The letter to acme's data subjects
// counts both sides (2 conversations) and gave the window of one side only (10:00 to 10:00); the
// Art. 33 draft for acme says 08:00 to 10:00.

const answer = (ts: string, rid: string, tenant: string, session: string, prompt: string, text: string): string =>
  JSON.stringify({ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: text}}]}})

describe('article34 --on-behalf-of-controller', () => {
  it('gives the window of every answer it counts, on both sides, as the Art. 33 draft does', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000a1,acme,s1,2026-11-01T00:00:00Z\nCANARY-00000000000000a4,acme,s4,2026-11-01T00:00:00Z\nCANARY-00000000000000b2,globex,s2,2026-11-01T00:00:00Z\n')
    writeFileSync(join(dir, 'logs.jsonl'), [
      answer('2026-11-02T08:00:00Z', 'r1', 'acme', 's1', 'hi CANARY-00000000000000a1', 'got CANARY-00000000000000b2'),
      answer('2026-11-02T10:00:00Z', 'r2', 'globex', 's2', 'hello CANARY-00000000000000b2', 'got CANARY-00000000000000a4'),
    ].join('\n') + '\n')
    for (const args of [['ingest', 'canaries', join(dir, 'canaries.csv')], ['ingest', 'logs', join(dir, 'logs.jsonl')], ['scan'], ['incident', 'open', '--title', 'T', '--aware-at', '2026-11-02T12:00:00Z', '--role', 'processor']]) {
      const r = await run([...args, '--db', db])
      expect(r.code, r.stderr).toBe(0)
    }
    const a33 = (await run(['report', 'article33', '--db', db, '--on-behalf-of-controller', 'acme'])).stdout
    expect(a33).toContain('| First affected response in the logs | 2026-11-02T08:00:00.000Z |')
    expect(a33).toContain('| Last affected response in the logs | 2026-11-02T10:00:00.000Z |')
    const a34 = await run(['report', 'article34', '--db', db, '--on-behalf-of-controller', 'acme', '--lang', 'en'])
    expect(a34.code, a34.stderr).toBe(0)
    expect(a34.stdout).toMatch(/At least 2 conversations/)
    expect(a34.stdout).toContain('given between 2026-11-02 08:00 and 2026-11-02 10:00 (UTC)')
    const fr = (await run(['report', 'article34', '--db', db, '--on-behalf-of-controller', 'acme', '--lang', 'fr'])).stdout
    expect(fr).toMatch(/2026-11-02 08:00/)
    expect(fr).toMatch(/2026-11-02 10:00/)
  }, 60_000)
})
