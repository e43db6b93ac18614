import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// "None found" is said of what detection examined, never beyond it (QA repro-4, -5, -9, -10): a
// response set aside as boilerplate, responses without text, a log source not read (open, or
// dismissed with a reason) each kept Article 34 saying "we searched the logs and found no answer",
// the register saying "none: detection over every log found no response", the case page saying
// "No leak found" and assess taking them as none found. Every output now reads one list of what
// was not covered (none-found.ts) and names each exception.

const TEXT = 'Patient Jane Example was admitted on the fourth of March with acute chest pain and was prescribed a course of beta blockers by the cardiology team'
const EVERY_LOG = /detection over every log found no response/i
const FOUND_NO_ANSWER = /found no answer that showed text from another person's conversation/

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10, decode_node: 'd1',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

/** A case built by triage, with its incident open; `lines` is the log, and `more` extra files in the logs folder. */
async function buildCase(lines: string[], more: Record<string, Buffer> = {}): Promise<{db: string; logs: string}> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'gw1.jsonl'), lines.join('\n') + '\n')
  for (const [name, bytes] of Object.entries(more)) writeFileSync(join(logs, name), bytes)
  writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-00000000000000bb01,tn-a,sa,2026-11-01T09:00:00Z\n')
  const db = join(dir, 'case.db')
  await run(['triage', logs, '--canaries', join(dir, 'canaries.csv'), '--db', db])
  const open = await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])
  expect(open.code, open.stderr).toBe(0)
  return {db, logs}
}

const boilerplate = (): string[] => [
  line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 'sa', `summarise: ${TEXT}`, 'ok summary'),
  line('2026-11-01T10:01:00Z', 'r2', 'tn-b', 'sb', `summarise: ${TEXT}`, 'ok summary two'),
  line('2026-11-01T10:02:00Z', 'r3', 'tn-c', 'sc', `summarise: ${TEXT}`, 'ok summary three'),
  line('2026-11-01T10:03:00Z', 'r4', 'tn-d', 'sd', "what's the weather", `Here you go: ${TEXT}`),
]
const plain = (n: number, empty: number[] = []): string[] =>
  Array.from({length: n}, (_, i) => line(`2026-11-01T10:0${i}:00Z`, `r${i}`, i % 2 ? 'tn-a' : 'tn-b', `sess-${i}`, `hello order ${i}`, empty.includes(i) ? '' : `Sure, help for order ${i}.`))

async function reports(db: string): Promise<{a33: string; a34: string; register: string; page: string; assess: string}> {
  const out = async (args: string[]): Promise<string> => {
    const r = await run([...args, '--db', db])
    expect(r.code, r.stderr).toBe(0)
    return r.stdout
  }
  const html = join(db, '..', 'page.html')
  await out(['report', 'case', '--format', 'html', '--out', html])
  const {readFileSync} = await import('node:fs')
  return {
    a33: await out(['report', 'article33', '--lang', 'en']),
    a34: await out(['report', 'article34', '--lang', 'en']),
    register: await out(['report', 'register', '--lang', 'en']),
    page: readFileSync(html, 'utf8'),
    assess: await out(['assess']),
  }
}

describe('nothing found, and what that covers', () => {
  it('a response set aside as boilerplate: no draft, register, case page or assessment says none was found', async () => {
    const {db} = await buildCase(boilerplate())
    const r = await reports(db)
    expect(r.a34).not.toMatch(FOUND_NO_ANSWER)
    expect(r.a34).toMatch(/to be completed: 1 response repeats text found in 3 or more customers' sessions, set aside as boilerplate/)
    expect(r.register).not.toMatch(EVERY_LOG)
    expect(r.register).toMatch(/\| Categories of data \| to be completed: 1 response repeats text/)
    expect(r.page).not.toMatch(/<strong>No leak found<\/strong>/)
    expect(r.page).toMatch(/not everything was examined/)
    expect(r.page).toMatch(/set aside as boilerplate/)
    expect(r.assess).toMatch(/^cb_confidentiality .*not examined: 1 response repeats text found in the sessions of 3 or more customers/m)
  })

  it('responses without text: the register does not say none over every log', async () => {
    const {db} = await buildCase(plain(6, [2, 3]))
    const r = await reports(db)
    expect(r.register).not.toMatch(EVERY_LOG)
    expect(r.register).toMatch(/\| Effects \| to be completed: 2 responses had no response text/)
    expect(r.a34).not.toMatch(FOUND_NO_ANSWER)
  })

  it('an unread log source keeps Article 34 from saying the logs were searched; dismissed, it is named with its reason', async () => {
    const zst = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0x63, 0x6f])
    const {db, logs} = await buildCase(plain(4), {'gw2.jsonl.zst': zst})
    const open = await reports(db)
    expect(open.a34).not.toMatch(FOUND_NO_ANSWER)
    expect(open.a34).toMatch(/to be completed: 1 log source \(gw2\.jsonl\.zst\) could not be read/)
    const reason = 'archive corrupt, cannot be recovered: its contents are lost'
    const d = await run(['ingest', 'dismiss', join(logs, 'gw2.jsonl.zst'), '--reason', reason, '--db', db])
    expect(d.code, d.stderr).toBe(0)
    const r = await reports(db)
    for (const doc of [r.a33, r.register]) {
      expect(doc).not.toMatch(EVERY_LOG)
      expect(doc).toContain(`gw2.jsonl.zst: dismissed unread, “${reason}”`)
    }
    expect(r.a33).toMatch(/^\| 70-71 \| Type of breached data \| none found in what was searched: .*gw2\.jsonl\.zst/m)
    const json = JSON.parse((await run(['report', 'article33', '--lang', 'en', '--format', 'json', '--db', db])).stdout) as {scope: {log_sources_dismissed: Array<{name: string; reason: string}>}}
    expect(json.scope.log_sources_dismissed).toEqual([{name: 'gw2.jsonl.zst', reason}])
    expect(r.a34).not.toMatch(FOUND_NO_ANSWER)
    expect(r.page).not.toMatch(/<strong>No leak found<\/strong>/)
  })

  it('where everything was examined, none found is still said', async () => {
    const {db} = await buildCase(plain(4))
    const r = await reports(db)
    expect(r.a34).toMatch(FOUND_NO_ANSWER)
    expect(r.register).toMatch(/\| Categories of data \| none: detection over every log found no response/)
    expect(r.page).toMatch(/<strong>No leak found<\/strong>/)
  })
})
