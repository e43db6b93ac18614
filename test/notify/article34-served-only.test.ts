import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// A letter for a controller whose users were only shown others' data (none of its data reached
// anyone) left "What information was involved" and "What this could mean for you" empty. Each now
// says what the facts support: what its users were shown, and what that means for them.

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10, decode_node: 'd1',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

function section(md: string, heading: string): string {
  const start = md.indexOf(`## ${heading}`)
  expect(start, heading).toBeGreaterThanOrEqual(0)
  const rest = md.slice(start + heading.length + 3)
  const end = rest.indexOf('\n## ')
  return (end < 0 ? rest : rest.slice(0, end)).trim()
}

describe('Article 34 for a controller whose users were only shown others\' data', () => {
  it('no empty heading: what they were shown and what it means for them', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'gw1.jsonl'), [
      line('2026-11-01T10:00:00Z', 'r0', 'tn-a', 'sa', 'hello order 0', 'Sure, help for order 0.'),
      line('2026-11-01T10:01:00Z', 'r1', 'tn-b', 'sb', 'hello order 1', 'Sure: CANARY-00000000000000bb01 is here.'),
    ].join('\n') + '\n')
    writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000bb01,tn-a,sa,2026-11-01T09:00:00Z\n')
    const db = join(dir, 'case.db')
    await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db])
    const open = await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor'])
    expect(open.code, open.stderr).toBe(0)
    for (const [lang, info, mean] of [['en', 'What information was involved', 'What this could mean for you']] as const) {
      const r = await run(['report', 'article34', '--lang', lang, '--on-behalf-of-controller', 'tn-b', '--db', db])
      expect(r.code, r.stderr).toBe(0)
      expect(section(r.stdout, info)).toMatch(/answers you were given contained parts of another person's conversation/)
      expect(section(r.stdout, mean)).toMatch(/may contain information that is wrong for you/)
    }
    const fr = await run(['report', 'article34', '--lang', 'fr', '--on-behalf-of-controller', 'tn-b', '--format', 'json', '--db', db])
    expect(fr.code, fr.stderr).toBe(0)
    const j = JSON.parse(fr.stdout) as {what_data: string[]; consequences: string[]}
    expect(j.what_data.length).toBeGreaterThan(0)
    expect(j.consequences.length).toBeGreaterThan(0)
  })
})
