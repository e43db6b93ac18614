import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {heatmapSvg} from '../../src/cli/html/charts.js'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA docs, minor: article33 --include-excerpts printed the e-mail address and phone number of the
// leaked answer while the category table says values are "counted by hash, never reproduced
// here". The excerpts show how the data reached the answer; the values are replaced by their kind
// (data minimisation: the draft goes to an authority). And the flows legend said "1 responses".

describe('excerpts and personal data', () => {
  it('never reproduce a personal-data value the detector finds', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000a1,acme,s1,2026-11-01T00:00:00Z\nCANARY-00000000000000b2,globex,s2,2026-11-01T00:00:00Z\n')
    const line = (ts: string, rid: string, tenant: string, session: string, prompt: string, text: string): string =>
      JSON.stringify({ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: text}}]}})
    writeFileSync(join(dir, 'logs.jsonl'), [
      line('2026-11-02T08:00:00Z', 'r1', 'acme', 's1', 'hi CANARY-00000000000000a1', 'leak CANARY-00000000000000b2 write to alice@example.com or +33 6 12 34 56 78'),
      line('2026-11-02T08:01:00Z', 'r2', 'globex', 's2', 'hello CANARY-00000000000000b2', 'ok'),
    ].join('\n') + '\n')
    for (const args of [['ingest', 'canaries', join(dir, 'canaries.csv')], ['ingest', 'logs', join(dir, 'logs.jsonl')], ['scan'], ['incident', 'open', '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller']]) {
      const r = await run([...args, '--db', db])
      expect(r.code, r.stderr).toBe(0)
    }
    const a33 = await run(['report', 'article33', '--db', db, '--include-excerpts', '--lang', 'en'])
    expect(a33.code, a33.stderr).toBe(0)
    const row = a33.stdout.split('\n').find((l) => l.startsWith('| r1 |'))
    expect(row).toMatch(/\\?\[email\\?\]/)
    expect(row).toMatch(/\\?\[phone\\?\]/)
    expect(a33.stdout).not.toContain('alice@example.com')
    expect(a33.stdout).not.toMatch(/12 34 56 78/)
    expect(a33.stdout).toMatch(/are replaced by their kind, e\.g\. \\?\[email\\?\]/)
  }, 60_000)

  it('the flows legend says "1 response", not "1 responses"', () => {
    const {svg} = heatmapSvg({tenants: ['acme', 'globex'], responses: [[0, 0], [1, 0]]}, 10)
    expect(svg).not.toContain('1 responses')
    expect(svg).toContain('>1 response<')
  })
})
