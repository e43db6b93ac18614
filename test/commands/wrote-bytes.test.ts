import {createHash} from 'node:crypto'
import {mkdirSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// Every command that writes a report says the same of it: its path, its size and its SHA-256,
// read here against the file itself.

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
  writeFileSync(join(logs, 'gw.jsonl'), [line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 'sa', `please note: ${TEXT}`, 'noted'), line('2026-11-01T10:05:00Z', 'r2', 'tn-b', 'sb', 'hello', `Sure. ${TEXT}`)].join('\n') + '\n')
  const db = join(dir, 'case.db')
  expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
  expect((await run(['scan', '--db', db])).code).toBe(0)
  expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', role])).code).toBe(0)
  return {dir, db}
}

function expectWroteLine(stderr: string, file: string): void {
  const bytes = readFileSync(file)
  expect(stderr).toContain(`(${bytes.length} bytes, sha256 ${createHash('sha256').update(bytes).digest('hex')})`)
}

describe('"Wrote ..." lines give the size and the hash of what was written', () => {
  it('report article33, article34, register, case (a controller)', async () => {
    const {dir, db} = await leakCase('controller')
    for (const report of ['article33', 'article34', 'register', 'case']) {
      const out = join(dir, `${report}.md`)
      const r = await run(['report', report, '--db', db, '--out', out, ...(report === 'case' ? [] : ['--format', 'md'])])
      expect(r.code, r.stderr).toBe(0)
      expectWroteLine(r.stderr, out)
    }
  }, 120_000)

  it('report processor-notice, one and --all', async () => {
    const {dir, db} = await leakCase('processor')
    const out = join(dir, 'notice.md')
    const one = await run(['report', 'processor-notice', '--db', db, '--tenant', 'tn-a', '--out', out])
    expect(one.code, one.stderr).toBe(0)
    expectWroteLine(one.stderr, out)
    const folder = join(dir, 'notices')
    const all = await run(['report', 'processor-notice', '--db', db, '--all', '--out', folder])
    expect(all.code, all.stderr).toBe(0)
    const total = readdirSync(folder).reduce((sum, name) => sum + statSync(join(folder, name)).size, 0)
    expect(all.stderr).toContain(`Wrote ${readdirSync(folder).length} notices (${total} bytes) into `)
  }, 120_000)
})
