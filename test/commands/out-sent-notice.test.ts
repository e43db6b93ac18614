import {createHash} from 'node:crypto'
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA docs #10b: the file recorded as sent (notify record --file, its SHA-256 stored) was
// silently replaced by the next report run over the same path (a follow-up drafted with
// processor-notice --all, or report article33 --out): the copy of what was sent was lost.

const TEXT = 'Olga Petersen asked us to move the shipment of insulin pens to the clinic in Aarhus before the twelfth of March'

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10, decode_node: 'd1',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

async function leakCase(role: 'controller' | 'processor'): Promise<{dir: string; db: string}> {
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
  expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', role])).code).toBe(0)
  return {dir, db}
}

const sha = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex')

describe('a notice file recorded as sent is never silently replaced', () => {
  it('report article33 --out over the file recorded as sent: refused (one line, naming the notification) unless --force', async () => {
    const {dir, db} = await leakCase('controller')
    const out = join(dir, 'a33.md')
    expect((await run(['report', 'article33', '--db', db, '--out', out])).code).toBe(0)
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-11-03T09:00:00Z', '--reference', 'DPC-1', '--file', out])).code).toBe(0)
    const sent = sha(out)
    const again = await run(['report', 'article33', '--db', db, '--out', out])
    expect(again.code).toBe(2)
    // one line naming the notification (a usage error's "See: ... --help" hint follows it)
    expect(again.stderr.split('\n')[0]).toMatch(/holds the notice recorded as sent \(notification \d+: initial to the authority, reference "DPC-1", sha256 [0-9a-f]{64}\)/)
    expect(again.stderr).toContain('reference "DPC-1"')
    expect(sha(out)).toBe(sent)
    const forced = await run(['report', 'article33', '--db', db, '--out', out, '--force'])
    expect(forced.code, forced.stderr).toBe(0)
  }, 120_000)

  it('processor-notice --all over a folder holding the notice recorded as sent: refused before writing any', async () => {
    const {dir, db} = await leakCase('processor')
    const folder = join(dir, 'notices')
    expect((await run(['report', 'processor-notice', '--db', db, '--all', '--out', folder])).code).toBe(0)
    const files = readdirSync(folder).map((f) => join(folder, f))
    const a = files.find((f) => f.includes('tn-a'))!
    expect((await run(['notify', 'record', '--db', db, '--phase', 'initial', '--at', '2026-11-02T20:00:00Z', '--reference', 'N-1', '--recipient', 'tn-a', '--file', a])).code).toBe(0)
    const before = new Map(files.map((f) => [f, sha(f)]))
    const again = await run(['report', 'processor-notice', '--db', db, '--all', '--out', folder])
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/notification \d+: initial to controller "tn-a", reference "N-1"/)
    for (const f of files) expect(sha(f)).toBe(before.get(f))
  }, 120_000)
})
