import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// The HTML case page said "No node served a contaminated or at-risk response" (and its timeline
// "no at-risk response in this case") where no response's being at risk was known: with no
// --pool-tokens, or with one where no record gives both its status and its prompt size.
// Unknown is not zero: the page says it is not known, as its Numbers and the console do.

const A = 'CANARY-aaaaaaaaaaaaaaaaaaaaaaaa'
const REGISTRY = `marker,tenant_id,session_id,issued_at\n${A},tn-a,s-a,2026-11-01T00:00:00Z\n`
// No status and no prompt size: whether a record was at risk cannot be tested, whatever the pool.
const line = (id: string, minute: number) => JSON.stringify({ts: `2026-11-02T08:0${minute}:00Z`, request_id: id, tenant_id: 'tn-a', session_id: 's-a', request: {messages: [{role: 'user', content: `${A} hello`}]}, response: {choices: [{message: {role: 'assistant', content: 'ok'}}]}})

function text(html: string, id: string): string {
  const m = new RegExp(`<section id="${id}">(.*?)</section>`, 's').exec(html)
  return (m?.[1] ?? '').replace(/<[^>]+>/g, ' ').replace(/&#39;/g, "'")
}

describe('the HTML case page does not say "no at-risk response" where at-risk is not known', () => {
  for (const pool of [[], ['--pool-tokens', '1000']]) {
    it(`triage ${pool.join(' ') || 'without --pool-tokens'}: Nodes and Timeline say at-risk is not known`, async () => {
      const dir = tempDir()
      const db = join(dir, 'x.db')
      writeFileSync(join(dir, 'reg.csv'), REGISTRY)
      writeFileSync(join(dir, 'app.jsonl'), `${line('r1', 0)}\n${line('r2', 1)}\n${line('r3', 2)}\n`)
      const t = await run(['triage', join(dir, 'app.jsonl'), '--canaries', join(dir, 'reg.csv'), '--db', db, ...pool])
      expect(t.code, t.stderr).toBe(0)
      const scope = JSON.parse((await run(['scope', '--db', db, '--json', ...pool])).stdout) as {at_risk_responses: number | null}
      expect(scope.at_risk_responses).toBeNull()
      const out = join(dir, 'c.html')
      expect((await run(['report', 'case', '--db', db, '--out', out, ...pool])).code).toBe(0)
      const html = readFileSync(out, 'utf8')
      const nodes = text(html, 'nodes')
      expect(nodes).not.toMatch(/contaminated or at-risk response/)
      expect(nodes).toMatch(/whether any served an at-risk response is not known: (no KV pool size was given|no record gives both its HTTP status and its prompt size)/)
      const timeline = text(html, 'timeline')
      expect(timeline).not.toMatch(/no at-risk response/)
      expect(timeline).toMatch(/whether any response was at risk is not known/)
    })
  }
})
