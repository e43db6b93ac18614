import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA sentences S2-2: the open item for quarantined (unread) log lines reached a processor notice only
// where one of its personal-data tables was empty, so the notice to a customer whose three tables
// all had rows went --final without it. Here tn-alpha's tables all have rows (its IBAN reached
// tn-beta and another of its own sessions; tn-beta's e-mail address reached it), tn-beta's do not.

const IBAN = 'My name is Johanna Svensson and my account number is DE89370400440532013000 please transfer the full remaining balance to my sister before Friday morning'
const EMAIL = 'Please write to Marcel Dupont at marcel.dupont@example.org about the delivery of the twelve crates of apples next Tuesday afternoon'
const answer = (ts: string, rid: string, tenant: string, session: string, prompt: string, text: string): string =>
  JSON.stringify({ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: text}}]}})

describe('processor notices of a case with quarantined lines', () => {
  it('each carry the unread lines as an open item, and --final refuses each', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'canaries.csv'), 'marker,tenant_id,session_id,issued_at\nCANARY-aaaaaaaaaaaaaaaaaaaa1,tn-alpha,s-a1,2026-11-01T09:00:00Z\nCANARY-bbbbbbbbbbbbbbbbbbbb2,tn-beta,s-b1,2026-11-01T09:00:00Z\n')
    writeFileSync(join(dir, 'logs.jsonl'), [
      answer('2026-11-01T10:00:00Z', 'r1', 'tn-alpha', 's-a1', `CANARY-aaaaaaaaaaaaaaaaaaaa1 ${IBAN}`, 'I will help you with that transfer.'),
      answer('2026-11-01T10:01:00Z', 'r2', 'tn-beta', 's-b1', `CANARY-bbbbbbbbbbbbbbbbbbbb2 ${EMAIL}`, 'I will write that e-mail.'),
      answer('2026-11-01T10:05:00Z', 'r3', 'tn-beta', 's-b2', 'What is the weather like today in Paris', `Sure: ${IBAN} as you asked.`),
      answer('2026-11-01T10:06:00Z', 'r4', 'tn-alpha', 's-a2', 'Tell me a story about a cat', `Here: ${IBAN} as requested.`),
      answer('2026-11-01T10:07:00Z', 'r5', 'tn-alpha', 's-a3', 'Give me a recipe for soup', `Of course: ${EMAIL} as you wished.`),
      '{"ts": "2026-11-01T10:08:00Z", "request_id": "r6", this line is cut',
    ].join('\n') + '\n')
    for (const args of [['ingest', 'canaries', join(dir, 'canaries.csv')], ['ingest', 'logs', join(dir, 'logs.jsonl')], ['scan'], ['incident', 'open', '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor'],
      ['incident', 'set', '--processor-name', 'LLM Co', '--dpo-name', 'P DPO', '--dpo-contact', 'dpo@llm.example', '--next-update', '2099-01-10T10:00:00Z', '--cause', 'KV cache block reuse bug', '--cause-category', 'internal-non-malicious', '--measures-taken', 'Disabled prefix caching']]) {
      const r = await run([...args, '--db', db])
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0)
    }
    const unread = /1 quarantined log line .*never judged/
    for (const tenant of ['tn-alpha', 'tn-beta']) {
      const json = await run(['report', 'processor-notice', '--db', db, '--tenant', tenant, '--format', 'json'])
      expect(json.code, json.stderr).toBe(0)
      type Side = {personal_data_found: unknown[]}
      const notice = JSON.parse(json.stdout) as {open_items: Array<{item: string}>; your_data_reached_others: Side; you_received_other_data: Side; within_your_own_sessions: Side}
      if (tenant === 'tn-alpha') for (const side of [notice.your_data_reached_others, notice.you_received_other_data, notice.within_your_own_sessions]) expect(side.personal_data_found.length, JSON.stringify(side)).toBeGreaterThan(0)
      expect(notice.open_items.map((o) => o.item).filter((i) => unread.test(i)), tenant).toHaveLength(1)
      const final = await run(['report', 'processor-notice', '--db', db, '--tenant', tenant, '--final'])
      expect(final.code, `${tenant}: ${final.stdout.slice(0, 200)}`).toBe(1)
      expect(final.stderr).toMatch(/--final: \d+ open items? remains?/)
    }
  }, 120_000)
})
