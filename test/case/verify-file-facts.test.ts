import Database from 'better-sqlite3'
import {copyFileSync, existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run, runJson} from '../helpers/commands.js'

// QA (integrity, findings 0 and 3, 6): what an ingest recorded of a log file in its audit entry
// (what it left unread, how many answers decoded to no text, its format, the path it was given
// as) was never compared with the case. Cleared by hand, `verify` said OK and
// `scan --fail-on-leak` exited 0 over another tenant's marker nobody read. Each test tampers a
// copy as QA did and expects verify to name the file, before a scan speaks for the file (the
// ingest's entry) and after (the scan's `unreadable_files`).

const A = 'CANARY-0123456789abcdef0123'
const B = 'CANARY-fedcba9876543210fedc'
const chunk = (text: string): string => `data: ${JSON.stringify({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: text}}]})}\n\n`
const line = (o: Record<string, unknown>): string => JSON.stringify({status: 200, ...o})

let dir: string
/** r1's stream holds B after data: [DONE] (unread); r2's answer decodes to no text. */
let ingested: string
let scanned: string

beforeAll(async () => {
  dir = tempDir()
  const canaries = join(dir, 'canaries.csv')
  writeFileSync(canaries, `marker,tenant_id,session_id,issued_at\n${A},tA,sA,2026-11-01T00:00:00Z\n${B},tB,sB,2026-11-01T00:00:00Z\n`)
  const unreadLog = join(dir, 'stream.jsonl')
  writeFileSync(unreadLog, `${[
    line({ts: '2026-11-02T10:00:00Z', request_id: 'r1', tenant_id: 'tA', session_id: 'sA', request: {messages: [{role: 'user', content: `hi ${A}`}]}, response: `${chunk('hello')}data: [DONE]\n\n${chunk(`leaked ${B}`)}`}),
    line({ts: '2026-11-02T10:00:01Z', request_id: 'r2', tenant_id: 'tB', session_id: 'sB', request: {messages: [{role: 'user', content: `hi ${B}`}]}, response: `${chunk('ok')}data: [DONE]\n\n`}),
  ].join('\n')}\n`)
  const emptyLog = join(dir, 'empty.jsonl')
  writeFileSync(emptyLog, `${[
    line({ts: '2026-11-02T11:00:00Z', request_id: 'e1', tenant_id: 'tA', session_id: 'sA', request: {messages: [{role: 'user', content: `hi ${A}`}]}, response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: ''}}]}}),
    line({ts: '2026-11-02T11:00:01Z', request_id: 'e2', tenant_id: 'tB', session_id: 'sB', request: {messages: [{role: 'user', content: `hi ${B}`}]}, response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: 'ok'}}]}}),
  ].join('\n')}\n`)
  ingested = join(dir, 'ingested.db')
  await runJson(['ingest', 'canaries', canaries, '--db', ingested])
  await runJson(['ingest', 'logs', unreadLog, emptyLog, '--db', ingested])
  scanned = join(dir, 'scanned.db')
  await run(['triage', unreadLog, emptyLog, '--canaries', canaries, '--db', scanned])
})

let copies = 0
function tampered(base: string, sql: string): string {
  const path = join(dir, `tampered-${++copies}.db`)
  for (const suffix of ['', '-wal', '-shm']) if (existsSync(base + suffix)) copyFileSync(base + suffix, path + suffix)
  const db = new Database(path)
  db.exec(sql)
  db.close()
  return path
}

async function verify(path: string): Promise<{code: number; out: string}> {
  const r = await run(['verify', '--db', path, '--no-originals'])
  return {code: r.code, out: r.stdout + r.stderr}
}

describe.each([['after the ingest', () => ingested], ['after a scan', () => scanned]])('verify %s', (_when, base) => {
  it('passes the untouched case, whose gate fails closed', async () => {
    expect((await verify(base())).code).toBe(0)
    expect((await run(['scan', '--db', tampered(base(), ''), '--fail-on-leak'])).code).toBe(1)
  })

  it('fails when what a file left unread is cleared, and the gate still fails closed', async () => {
    const t = tampered(base(), "UPDATE files SET unread = NULL WHERE name = 'stream.jsonl'")
    const r = await verify(t)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL recorded: .*stream\.jsonl: .*unread/)
  })

  it('fails when the answers without text are zeroed', async () => {
    const t = tampered(base(), "UPDATE files SET no_response_text = 0 WHERE name = 'empty.jsonl'")
    const r = await verify(t)
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL recorded: .*empty\.jsonl: .*(no_response_text|without response text)/)
  })

  it('fails when what a file left unread is reworded', async () => {
    const r = await verify(tampered(base(), "UPDATE files SET unread = 'nothing much' WHERE name = 'stream.jsonl'"))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL recorded: .*stream\.jsonl/)
  })

  it('fails when a file is said to be read in another format', async () => {
    const r = await verify(tampered(base(), "UPDATE files SET log_format = 'litellm' WHERE name = 'empty.jsonl'"))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL recorded: .*empty\.jsonl: its log format is "litellm", but audit entry \d+ recorded "native"/)
  })

  it('fails when a file is renamed', async () => {
    const r = await verify(tampered(base(), "UPDATE files SET name = 'other-gateway.jsonl', path = 'other-gateway.jsonl' WHERE name = 'empty.jsonl'"))
    expect(r.code).toBe(1)
    expect(r.out).toMatch(/FAIL recorded: other-gateway\.jsonl: its path is "other-gateway\.jsonl", but audit entry \d+ recorded its ingest from ".*empty\.jsonl"/)
    const named = await verify(tampered(base(), "UPDATE files SET name = 'other-gateway.jsonl' WHERE name = 'empty.jsonl'"))
    expect(named.code).toBe(1)
    expect(named.out).toMatch(/its name is "other-gateway\.jsonl"/)
  })
})
