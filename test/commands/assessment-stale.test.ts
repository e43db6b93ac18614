import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// QA docs #10: a risk decision made when the case showed no exposure was still stated as the
// current one ("Minor", "unlikely to result in a risk") after more logs were scanned. A decision
// made before a scan that added records is flagged as made on an earlier state of the case.

const TEXT = 'Olga Petersen asked us to move the shipment of insulin pens to the clinic in Aarhus before the twelfth of March'

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10, decode_node: 'd1',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

describe('a risk decision made on an earlier scan', () => {
  it('is an open item in the Article 33 draft once a later scan added records', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    mkdirSync(join(dir, 'a'))
    mkdirSync(join(dir, 'b'))
    writeFileSync(join(dir, 'a', 'gw1.jsonl'), line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 'sa', `please note: ${TEXT}`, 'noted') + '\n')
    writeFileSync(join(dir, 'b', 'gw2.jsonl'), line('2026-11-01T10:05:00Z', 'r2', 'tn-b', 'sb', 'hello', `Sure. ${TEXT}`) + '\n')
    expect((await run(['ingest', 'logs', join(dir, 'a'), '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    const assessed = await run(['assess', '--db', db, '--decide', 'document', '--rationale', 'nothing found so far', '--decided-by', 'J Doe'])
    expect(assessed.code, assessed.stderr).toBe(0)
    const stale = /^the risk assessment and decision of \S+ were made on an earlier state of the case: a scan since \(the last on \S+\) may have changed the findings it rests on/
    const before = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout) as {open_items: Array<{item: string}>}
    expect(before.open_items.map((o) => o.item)).not.toContainEqual(expect.stringMatching(stale))
    expect((await run(['ingest', 'logs', join(dir, 'b'), '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db])).code).toBe(0)
    const after = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout) as {open_items: Array<{item: string}>}
    expect(after.open_items.map((o) => o.item)).toContainEqual(expect.stringMatching(stale))
    const md = (await run(['report', 'article33', '--db', db, '--lang', 'fr'])).stdout
    expect(md).toMatch(/l'évaluation du risque et la décision du \S+ ont été faites sur un état antérieur du dossier/)
  }, 120_000)

  it('is an open item in the draft and the register after a rescan that added no record (another KV pool size)', async () => {
    const dir = tempDir()
    const db = join(dir, 'case.db')
    writeFileSync(join(dir, 'gw.jsonl'), [line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 'sa', `please note: ${TEXT}`, 'noted'), line('2026-11-01T10:05:00Z', 'r2', 'tn-b', 'sb', 'hello', `Sure. ${TEXT}`)].join('\n') + '\n')
    expect((await run(['ingest', 'logs', join(dir, 'gw.jsonl'), '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db, '--pool-tokens', '5'])).code).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    expect((await run(['assess', '--db', db, '--decide', 'notify', '--rationale', 'r', '--decided-by', 'J Doe'])).code).toBe(0)
    const stale = /the risk assessment and decision of \S+ were made on an earlier state of the case/
    expect((await run(['report', 'register', '--db', db])).stdout).not.toMatch(stale)
    expect((await run(['scan', '--db', db, '--pool-tokens', '50'])).code).toBe(0)
    const draft = JSON.parse((await run(['report', 'article33', '--db', db, '--format', 'json'])).stdout) as {open_items: Array<{item: string}>}
    expect(draft.open_items.map((o) => o.item)).toContainEqual(expect.stringMatching(stale))
    expect((await run(['report', 'register', '--db', db])).stdout).toMatch(stale)
  }, 120_000)
})
