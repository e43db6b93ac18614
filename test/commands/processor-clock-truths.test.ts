import fs from 'node:fs'
import path from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'
import {minuteUp} from '../../src/notify/time.js'

// What the clock, the register and the authority form say about time must be true of what was
// recorded: a controller that sent nothing logged can be notified; reasons recorded with a late
// notice are not asked for again; a clean processor case owes nothing; a draft not yet sent is not
// "within the 72 hours"; the letter's window holds its last answer.

const A = 'CANARY-aaaaaaaaaaaaaaaa0001'
const B = 'CANARY-bbbbbbbbbbbbbbbb0002'
const REGISTRY = `marker,tenant_id,session_id,issued_at\n${A},tA,sA,2026-01-01T00:00:00Z\n${B},tB,sB,2026-01-01T00:00:00Z\n`
const line = (id: string, tenant: string, session: string, prompt: string, answer: string, ts = '2026-11-01T10:00:00Z') =>
  JSON.stringify({ts, request_id: id, tenant_id: tenant, session_id: session, status: 200, request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]}})

async function caseOf(dir: string, name: string, lines: string[]): Promise<string> {
  const db = path.join(dir, `${name}.db`)
  fs.writeFileSync(path.join(dir, `${name}.csv`), REGISTRY)
  fs.writeFileSync(path.join(dir, `${name}.jsonl`), `${lines.join('\n')}\n`)
  expect((await run(['ingest', 'canaries', path.join(dir, `${name}.csv`), '--db', db])).code).toBe(0)
  expect((await run(['ingest', 'logs', path.join(dir, `${name}.jsonl`), '--db', db])).code).toBe(0)
  expect((await run(['scan', '--db', db])).code).toBe(0)
  return db
}

describe('processor clock, register and form truths', () => {
  let dir: string
  let leak: string
  let clean: string
  beforeAll(async () => {
    dir = tempDir('clock-truths-')
    // tA received tB's marker; tB sent nothing logged.
    leak = await caseOf(dir, 'leak', [line('r1', 'tA', 'sA', `hi ${A}`, `leak ${B}`, '2026-11-01T10:00:59.042Z')])
    clean = await caseOf(dir, 'clean', [line('r1', 'tA', 'sA', `hi ${A}`, `fine ${A}`)])
  }, 60_000)

  it('records a notice to a controller that has no log record of its own but a registered canary', async () => {
    expect((await run(['incident', 'open', '--title', 'T', '--aware-at', '2026-11-02T05:00:00Z', '--role', 'processor', '--controller-deadline-hours', '24', '--db', leak])).code).toBe(0)
    const r = await run(['notify', 'record', '--phase', 'initial', '--at', '2026-11-02T10:00:00Z', '--reference', 'N-B', '--recipient', 'tB', '--db', leak])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const unknown = await run(['notify', 'record', '--phase', 'initial', '--at', '2026-11-02T10:00:00Z', '--reference', 'N-Z', '--recipient', 'tZ', '--db', leak])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/tenant "tZ" is not in this case/)
    const clock = JSON.parse((await run(['clock', '--db', leak, '--now', '2026-11-04T00:00:00Z', '--json'])).stdout) as {controllers: Array<{tenant_id: string; status: string}>}
    expect(clock.controllers.find((c) => c.tenant_id === 'tB')?.status).toBe('notified')
  })

  it('asks no reasons for a delay that were recorded with the late notice', async () => {
    const late = await run(['notify', 'record', '--phase', 'initial', '--at', '2026-11-03T09:00:00Z', '--reference', 'N-A', '--recipient', 'tA', '--delay-reason', 'controller contact bounced', '--db', leak])
    expect(late.code).toBe(0)
    const register = (await run(['report', 'register', '--db', leak])).stdout
    expect(register).toContain('controller contact bounced')
    expect(register).not.toMatch(/to be completed: [^\n|]*reasons for the delay/i)
  })

  it('owes nothing, and is not late, in a processor case where detection found no controller affected', async () => {
    expect((await run(['incident', 'open', '--title', 'T', '--aware-at', '2026-11-02T05:00:00Z', '--role', 'processor', '--controller-deadline-hours', '24', '--db', clean])).code).toBe(0)
    const text = (await run(['clock', '--db', clean, '--now', '2026-11-04T00:00:00Z'])).stdout
    expect(text).toMatch(/NOTHING OWED/)
    expect(text).not.toMatch(/OVERDUE|LATE/)
    const json = JSON.parse((await run(['clock', '--db', clean, '--now', '2026-11-04T00:00:00Z', '--json'])).stdout) as Record<string, unknown>
    expect(json.late).toBe(false)
    expect(json.duty_status).not.toBe('overdue')
    expect(json.nothing_owed).toBe(true)
    const html = path.join(dir, 'clean.html')
    expect((await run(['report', 'case', '--db', clean, '--out', html])).code).toBe(0)
    const page = fs.readFileSync(html, 'utf8')
    const section = page.slice(page.indexOf('<section id="clock">'), page.indexOf('</section>', page.indexOf('<section id="clock">')))
    expect(section).toMatch(/nothing owed/)
    expect(section).not.toMatch(/overdue|LATE/)
  })

  it('gives the clock\'s basis without a case too', async () => {
    const json = JSON.parse((await run(['clock', '--aware-at', '2026-10-23T10:00:00Z', '--now', '2026-10-24T10:00:00Z', '--json'])).stdout) as Record<string, unknown>
    expect(json.basis).toBe('art33(1)')
  })

  it('does not tell the authority a draft not yet sent is within the 72 hours', async () => {
    const db = await caseOf(dir, 'controller', [line('r1', 'tA', 'sA', `hi ${A}`, `leak ${B}`)])
    const soon = new Date(Date.now() - 70 * 3600_000).toISOString()
    expect((await run(['incident', 'open', '--title', 'T', '--aware-at', soon, '--role', 'controller', '--db', db])).code).toBe(0)
    const md = (await run(['report', 'article33', '--db', db])).stdout
    const field49 = md.split('\n').find((l) => /^\| 49 /.test(l)) ?? ''
    expect(field49).toMatch(/not applicable if this notification is made by/)
    expect(field49).not.toMatch(/not applicable: within the 72 hours/)
  })

  it('rounds a window\'s end up to the minute, so it holds its last answer', () => {
    expect(minuteUp('2026-11-02T04:46:59.042Z')).toBe('2026-11-02 04:47')
    expect(minuteUp('2026-11-02T04:46:00.000Z')).toBe('2026-11-02 04:46')
  })
})
