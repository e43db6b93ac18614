import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// With no canary registry and marker-shaped tokens in answers (orphans), `scope --json` gives the
// exposure as null (whose data the tokens carry is not known), but `scope --tenant T --json` still
// gave each side's exposure as a number: a lower bound read as a total. Both now give null.

const MARKER = 'CANARY-0123456789abcdef0123456789abcdef'

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, endpoint: '/v1/chat/completions', model: 'm',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{index: 0, message: {role: 'assistant', content: answer}}]},
  })
}

describe('scope --tenant --json over orphan markers without a registry', () => {
  it("gives each side's exposure as null, as scope --json gives the case's", async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'gw.jsonl'), [
      line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 's-a', `hello my secret ${MARKER}`, 'ok'),
      line('2026-11-01T10:05:00Z', 'r2', 'tn-b', 's-b', 'hi there', `sure, here: ${MARKER}`),
    ].join('\n') + '\n')
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const scope = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout) as {exposure: unknown}
    expect(scope.exposure).toBeNull()
    for (const t of ['tn-a', 'tn-b']) {
      const r = await run(['scope', '--tenant', t, '--db', db, '--json'])
      expect(r.code, r.stderr).toBe(0)
      const v = JSON.parse(r.stdout) as {received: {exposure: unknown; counterparts: Array<{exposure_responses: unknown}>}; leaked: {exposure: unknown; counterparts: Array<{exposure_responses: unknown}>}}
      expect(v.received.exposure).toBeNull()
      expect(v.leaked.exposure).toBeNull()
      for (const c of [...v.received.counterparts, ...v.leaked.counterparts]) expect(c.exposure_responses).toBeNull()
    }
  })
})
