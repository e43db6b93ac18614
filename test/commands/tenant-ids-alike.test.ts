import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// Two customers whose tenant ids differ only by Unicode normalisation (`café` precomposed, and
// `cafe` + U+0301) print alike on a terminal and in a document: a reader takes them for one. They
// stay two tenants; the one not in NFC is shown escaped, and status names the pair.

const NFC = 'caf\u00e9'
const NFD = 'cafe\u0301'
const TEXT = 'Olga Petersen asked us to move the shipment of insulin pens to the clinic in Aarhus before the twelfth of March'

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10, decode_node: 'd1',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

describe('tenant ids that differ only by normalisation', () => {
  it('are counted apart, shown apart in the console and the drafts, and named by status', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(join(logs, 'gw.jsonl'), [line('2026-11-01T10:00:00Z', 'r1', NFC, 'sa', `please note: ${TEXT}`, 'noted'), line('2026-11-01T10:05:00Z', 'r2', NFD, 'sb', 'hello', `Sure. ${TEXT}`)].join('\n') + '\n')
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db])).code).toBe(0)

    const scope = JSON.parse((await run(['scope', '--db', db, '--json'])).stdout)
    expect(scope.exposure.flows).toEqual([{source_tenant: NFC, recipient_tenant: NFD, responses: 1, by_canary: 0, by_text_only: 1}].map((f) => expect.objectContaining({source_tenant: f.source_tenant, recipient_tenant: f.recipient_tenant})))
    const console = (await run(['scope', '--db', db])).stdout
    expect(console).toContain('cafe\\u0301')
    expect(console).toContain(NFC)

    const status = await run(['status', '--db', db])
    expect(status.stdout).toContain(`IDS ALIKE        tenants "cafe\\u0301" and "${NFC}" read alike`)
    expect(JSON.parse((await run(['status', '--db', db, '--json'])).stdout).tenant_ids_alike).toEqual([[NFD, NFC].sort()])

    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'processor'])).code).toBe(0)
    const out = join(dir, 'notice.md')
    const notice = await run(['report', 'processor-notice', '--db', db, '--tenant', NFD, '--out', out])
    expect(notice.code, notice.stderr).toBe(0)
    const md = readFileSync(out, 'utf8')
    // Markdown writes the escape's backslash escaped: it renders as cafe\u0301.
    expect(md).toContain('| To (customer / controller) | cafe\\\\u0301 |')
    expect(md).not.toContain(NFD)
  }, 120_000)
})
