import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// Excerpts are windows around a canary marker: a leak found only by verbatim text has none. The
// Article 33 draft with --include-excerpts gave nothing for it and said nothing; it now says what
// the excerpts cover and how many responses have none.

const TEXT = 'Olga Petersen asked us to move the shipment of insulin pens to the clinic in Aarhus before the twelfth of March'

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10,
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

describe('article33 --include-excerpts over a leak found by verbatim text only', () => {
  it('says the excerpts cover marker findings only, and how many responses have none', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'gw.jsonl'), [
      line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 'sa', `please note: ${TEXT}`, 'noted'),
      line('2026-11-01T10:05:00Z', 'r2', 'tn-b', 'sb', 'hello', `Sure. ${TEXT}`),
    ].join('\n') + '\n')
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)

    const md = await run(['report', 'article33', '--db', db, '--lang', 'en', '--include-excerpts'])
    expect(md.code, md.stderr).toBe(0)
    expect(md.stdout).toContain('## Excerpts')
    expect(md.stdout).toContain('Excerpts are shown around canary-marker findings only; 1 response found by verbatim text alone has none')
    expect(md.stdout).not.toContain('Olga Petersen')
    const json = JSON.parse((await run(['report', 'article33', '--db', db, '--lang', 'en', '--include-excerpts', '--format', 'json'])).stdout)
    expect(json.excerpts).toEqual([])
    expect(json.excerpts_note).toMatch(/1 response found by verbatim text alone has none/)
    const fr = await run(['report', 'article33', '--db', db, '--lang', 'fr', '--include-excerpts'])
    expect(fr.stdout).toContain('1 réponse trouvée par le seul texte reproduit n\'en a pas')

    // Without the flag: no excerpt section and no note.
    const plain = JSON.parse((await run(['report', 'article33', '--db', db, '--lang', 'en', '--format', 'json'])).stdout)
    expect(plain.excerpts_note).toBeNull()
    expect((await run(['report', 'article33', '--db', db, '--lang', 'en'])).stdout).not.toContain('## Excerpts')
  }, 60_000)
})
