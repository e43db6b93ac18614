import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// With no canary registry, whether a response held a canary marker is not known (QA repro-3: 4 of
// 17 responses attributed by verbatim text held CANARY- tokens whose owner is unknown). The Article
// 33 draft said every one reproduced the text "without a canary marker" and counted them "by
// verbatim text only (no marker)", its decode-node table printed the marker columns as 0 and "none
// with a marker" where scope --json has null, and the case page's verdict said "(no canary marker)".

const TEXT = 'Olga Petersen asked us to move the shipment of insulin pens to the clinic in Aarhus before the twelfth of March'

function line(ts: string, rid: string, tenant: string, session: string, prompt: string, answer: string): string {
  return JSON.stringify({
    ts, request_id: rid, tenant_id: tenant, session_id: session, status: 200, prompt_tokens: 10, decode_node: 'd1',
    request: {messages: [{role: 'user', content: prompt}]}, response: {object: 'chat.completion', choices: [{message: {role: 'assistant', content: answer}}]},
  })
}

describe('no canary registry: a marker count is not known, never "without a marker"', () => {
  it('the Article 33 draft, its node table and JSON, and the case page say markers are not known', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(
      join(logs, 'gw.jsonl'),
      [
        line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 'sa', `please note: ${TEXT}`, 'noted'),
        // tn-b is served tn-a's text, with a marker-shaped token nobody registered
        line('2026-11-01T10:05:00Z', 'r2', 'tn-b', 'sb', 'hello', `Sure. ${TEXT} CANARY-0123456789abcdef0123`),
      ].join('\n') + '\n',
    )
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'logs', logs, '--db', db])).code).toBe(0)
    const scan = await run(['scan', '--db', db])
    expect(scan.code, scan.stderr).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    const md = (await run(['report', 'article33', '--lang', 'en', '--db', db])).stdout
    expect(md).toMatch(/1 response carried data belonging to another session/)
    expect(md).not.toMatch(/without a canary marker/)
    expect(md).toMatch(/\| of which by verbatim text only \(no marker\) \| not known: no canary registry/)
    expect(md).toMatch(/^\| d1 \| marker not known: no registry \| marker not known: no registry \| 1 \|/m)
    const json = JSON.parse((await run(['report', 'article33', '--lang', 'en', '--format', 'json', '--db', db])).stdout) as {nature: {nodes: Array<Record<string, unknown>>}}
    expect(json.nature.nodes[0]).toMatchObject({node: 'd1', responses: null, cross_tenant_responses: null, cross_session_responses: null, provenance_responses: 1})
    const html = join(dir, 'page.html')
    expect((await run(['report', 'case', '--format', 'html', '--out', html, '--db', db])).code).toBe(0)
    const page = readFileSync(html, 'utf8')
    // Its answer holds a marker-shaped token nobody's registry places: the rest is not known (exposureKnown).
    expect(page).toContain('Leak indicated by verbatim text; the rest not known (no canary registry)')
    expect(page).not.toContain('(no canary marker)')
    expect(page).not.toContain('verbatim text only, no marker')
  })

  it('the case page (HTML and JSON), scope (console and --json) and triage label the verbatim category "not known", never "without a canary marker"', async () => {
    const dir = tempDir()
    const logs = join(dir, 'logs')
    mkdirSync(logs)
    writeFileSync(
      join(logs, 'gw.jsonl'),
      [
        line('2026-11-01T10:00:00Z', 'r1', 'tn-a', 'sa', `please note: ${TEXT}`, 'noted'),
        line('2026-11-01T10:05:00Z', 'r2', 'tn-b', 'sb', 'hello', `Sure. ${TEXT} CANARY-0123456789abcdef0123`),
      ].join('\n') + '\n',
    )
    const db = join(dir, 'case.db')
    const triage = await run(['triage', logs, '--db', db])
    expect(triage.code, triage.stderr).toBe(0)
    expect((await run(['incident', 'open', '--db', db, '--title', 'T', '--aware-at', '2026-11-02T09:00:00Z', '--role', 'controller'])).code).toBe(0)
    const notKnown = 'reproduced verbatim (whether with a canary marker is not known: no canary registry)'
    const scopeJson = JSON.parse((await run(['scope', '--json', '--db', db])).stdout) as {data_categories: Array<{category: string; label: string}>}
    const caseJson = JSON.parse((await run(['report', 'case', '--format', 'json', '--db', db])).stdout) as {data_categories: Array<{category: string; label: string}>}
    for (const categories of [scopeJson.data_categories, caseJson.data_categories]) {
      const verbatim = categories.find((c) => c.category === 'conversation_content_attributed')
      expect(verbatim?.label).toContain(notKnown)
    }
    const html = join(dir, 'page.html')
    expect((await run(['report', 'case', '--format', 'html', '--out', html, '--db', db])).code).toBe(0)
    const page = readFileSync(html, 'utf8')
    const consoleScope = (await run(['scope', '--db', db])).stdout
    for (const text of [page, consoleScope, triage.stdout]) {
      expect(text).toContain(notKnown)
      expect(text).not.toMatch(/without a canary marker/)
    }
  })
})
