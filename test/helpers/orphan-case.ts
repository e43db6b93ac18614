import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect} from 'vitest'
import {tempDir} from './cli.js'
import {run} from './commands.js'

// A case with no canary registry whose one marker-shaped token, sent by tn-a, shows up in
// tn-b's answer: an orphan, attributed to no session. Ingested and scanned.

export const ORPHAN_MARKER = 'CANARY-0123456789abcdef0123456789abcdef'

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, endpoint: '/v1/chat/completions', model: 'm',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: answer}}]},
  })
}

/** The case's database path. */
export async function noRegistryOrphanCase(): Promise<string> {
  const dir = tempDir()
  const logs = join(dir, 'logs')
  mkdirSync(logs)
  writeFileSync(join(logs, 'gw.jsonl'), [
    line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 's-a', `hello my secret ${ORPHAN_MARKER}`, 'ok'),
    line('2026-11-01T10:05:00Z', 'r2', 'tn-b', 's-b', 'hi there', `sure, here: ${ORPHAN_MARKER}`),
  ].join('\n') + '\n')
  const db = join(dir, 'case.db')
  expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
  expect((await run(['scan', '--db', db])).code).toBe(0)
  return db
}
