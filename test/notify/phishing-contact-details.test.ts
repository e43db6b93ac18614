import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// The Art. 33 consequence "phishing using disclosed contact details" was printed ("depending on
// content") even where the personal-data search found no contact details in any leaked response,
// and the Art. 34 letter warned of phishing "using these details" for a bank account number alone.
// Each is now said only where an e-mail address or phone number was found; the Art. 33 draft
// otherwise says phishing with disclosed contact details is not established.

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10, decode_node: 'd1',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

async function leakCase(leakedAnswer: string): Promise<string> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  const lines = [
    line('2026-11-01T10:00:00Z', 'r0', 'tn-a', 'sa', 'hello order 0', 'Sure, help for order 0.'),
    line('2026-11-01T10:01:00Z', 'r1', 'tn-b', 'sb', 'hello order 1', `Sure: CANARY-00000000000000bb01 ${leakedAnswer}`),
  ]
  writeFileSync(join(logs, 'gw1.jsonl'), lines.join('\n') + '\n')
  writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000bb01,tn-a,sa,2026-11-01T09:00:00Z\n')
  const db = join(dir, 'case.db')
  await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db])
  const open = await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])
  expect(open.code, open.stderr).toBe(0)
  return db
}

async function consequences(db: string, lang = 'en'): Promise<{a33: string[]; a34: string[]}> {
  const a33 = await run(['report', 'article33', '--lang', lang, '--format', 'json', '--db', db])
  expect(a33.code, a33.stderr).toBe(0)
  const a34 = await run(['report', 'article34', '--lang', lang, '--format', 'json', '--db', db])
  expect(a34.code, a34.stderr).toBe(0)
  return {a33: (JSON.parse(a33.stdout) as {consequences: string[]}).consequences, a34: (JSON.parse(a34.stdout) as {consequences: string[]}).consequences}
}

describe('phishing is a consequence only where contact details were found', () => {
  it('no contact details found: not said as a consequence, said not established', async () => {
    const db = await leakCase('and the account DE89370400440532013000 was debited.')
    const c = await consequences(db)
    expect(c.a33.join(' ')).not.toMatch(/phishing using the contact details disclosed|phishing using disclosed contact details,/)
    expect(c.a33.join(' ')).toMatch(/found no contact details \(e-mail addresses, phone numbers\) in the leaked responses: phishing using disclosed contact details is not established/)
    expect(c.a34.join(' ')).toMatch(/bank or card details/)
    expect(c.a34.join(' ')).not.toMatch(/phishing/)
    const fr = await consequences(db, 'fr')
    expect(fr.a33.join(' ')).toMatch(/n'est pas établi/)
  })

  it('an e-mail address found in a leaked response: phishing is said', async () => {
    const db = await leakCase('write to jane.doe@example.com for the refund.')
    const c = await consequences(db)
    expect(c.a33.join(' ')).toMatch(/phishing using the contact details disclosed/)
    expect(c.a33.join(' ')).not.toMatch(/not established/)
    expect(c.a34.join(' ')).toMatch(/phishing/)
  })
})
