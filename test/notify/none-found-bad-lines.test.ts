import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// Quarantined lines (status --bad-lines) were never judged: any one may be the answer that
// carried another session's data. A "none found" over a case holding some said "every log"
// (Art. 33 table, Art. 34 "we searched the logs ... found no answer", the register, the processor
// notice) while the lines were stated elsewhere. noneFoundGaps now names them, as an open item.

const EVERY_LOG = /detection over every log found no response/i
const FOUND_NO_ANSWER = /found no answer that showed text from another person's conversation/

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10, decode_node: 'd1',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

async function buildCase(lines: string[], role = 'controller'): Promise<string> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'gw1.jsonl'), lines.join('\n') + '\n')
  writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000bb01,tn-a,sa,2026-11-01T09:00:00Z\n')
  const db = join(dir, 'case.db')
  await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db])
  const open = await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', role])
  expect(open.code, open.stderr).toBe(0)
  return db
}

const plain = (n: number): string[] =>
  Array.from({length: n}, (_, i) => line(`2026-11-01T10:0${i}:00Z`, `r${i}`, i % 2 ? 'tn-a' : 'tn-b', `sess-${i}`, `hello order ${i}`, `Sure, help for order ${i}.`))

async function out(db: string, args: string[]): Promise<string> {
  const r = await run([...args, '--db', db])
  expect(r.code, r.stderr).toBe(0)
  return r.stdout
}

describe('quarantined lines and "none found"', () => {
  it('every none-found statement names the quarantined lines as not examined, an open item', async () => {
    const db = await buildCase([...plain(4), '{"ts": "2026-11-01T10:09:00Z", "request_id": broken', 'garbage line that is no json at all'])
    const status = JSON.parse(await out(db, ['status', '--json'])) as {bad_lines?: number; totals?: {bad_lines?: number}}
    expect(JSON.stringify(status)).toMatch(/"bad_lines":2/)
    const a33 = await out(db, ['report', 'article33', '--lang', 'en'])
    const a34 = await out(db, ['report', 'article34', '--lang', 'en'])
    const register = await out(db, ['report', 'register', '--lang', 'en'])
    for (const doc of [a33, register]) expect(doc).not.toMatch(EVERY_LOG)
    expect(a34).not.toMatch(FOUND_NO_ANSWER)
    expect(a34).toMatch(/to be completed: 2 quarantined log lines could not be read and were never judged/)
    expect(register).toMatch(/\| Categories of data \| to be completed: 2 quarantined log lines/)
    expect(a33).toMatch(/^\| 70-71 \| Type of breached data \| to be completed: 2 quarantined log lines/m)
    const json = JSON.parse(await out(db, ['report', 'article33', '--lang', 'en', '--format', 'json'])) as {open_items: Array<{item: string}>}
    expect(json.open_items.some((i) => /2 quarantined log lines/.test(i.item))).toBe(true)
    const fr = await out(db, ['report', 'article34', '--lang', 'fr'])
    expect(fr).toMatch(/2 lignes de journal mises en quarantaine/)
  })

  it("a processor notice's \"nothing of yours reached another customer\" names them", async () => {
    const leak = line('2026-11-01T10:08:00Z', 'r8', 'tn-b', 'sess-8', 'hi', 'Sure: CANARY-00000000000000bb01 is here.')
    const db = await buildCase([...plain(4), leak, 'garbage line that is no json at all'], 'processor')
    const notice = await out(db, ['report', 'processor-notice', '--tenant', 'tn-b', '--lang', 'en'])
    expect(notice).toMatch(/1 quarantined log line could not be read and was never judged/)
  })

  it('without quarantined lines none found is still said', async () => {
    const db = await buildCase(plain(4))
    expect(await out(db, ['report', 'register', '--lang', 'en'])).toMatch(EVERY_LOG)
  })
})
