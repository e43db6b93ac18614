import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {tempDir} from '../helpers/cli.js'
import {run} from '../helpers/commands.js'

// scan refused --advertised-tokens below --pool-tokens (exit 2); scope and report case took the
// same pair and printed "at or over the advertised 1000-token window: 0" over prompts of 5,000
// tokens (that figure is counted inside the at-risk set, empty at such a pool). One rule, shared.

describe('--advertised-tokens below the pool it is judged at', () => {
  it('is a usage error for scope and report case, as for scan', async () => {
    const dir = tempDir('ct-window-')
    const lines = [0, 1, 2].map((i) => JSON.stringify({ts: `2026-11-01T00:0${i}:00Z`, request_id: `r${i}`, tenant_id: 'tn-a', session_id: `s${i}`, status: 200, prompt_tokens: 5000, request: 'hello there', response: 'hi'}))
    writeFileSync(join(dir, 'a.jsonl'), `${lines.join('\n')}\n`)
    const db = join(dir, 'case.db')
    expect((await run(['ingest', 'logs', join(dir, 'a.jsonl'), '--db', db])).code).toBe(0)
    expect((await run(['scan', '--db', db, '--pool-tokens', '4000'])).code).toBe(0)
    for (const args of [['scan'], ['scope'], ['scope', '--json'], ['report', 'case', '--json']]) {
      const r = await run([...args, '--db', db, '--pool-tokens', '20000', '--advertised-tokens', '1000'])
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.stderr, args.join(' ')).toMatch(/--advertised-tokens must be at least --pool-tokens/)
    }
    // Judged at the pool the scan recorded (4000 tokens): a window below it is refused too, naming that pool.
    const recorded = await run(['scope', '--db', db, '--advertised-tokens', '1000'])
    expect(recorded.code).toBe(2)
    expect(recorded.stderr).toMatch(/below the pool size the scan recorded \(4000 tokens\)/)
    // A window at or over the pool still works.
    expect((await run(['scope', '--db', db, '--pool-tokens', '4000', '--advertised-tokens', '4000'])).code).toBe(0)
    expect((await run(['report', 'case', '--json', '--db', db, '--pool-tokens', '4000', '--advertised-tokens', '6000'])).code).toBe(0)
  }, 120_000)
})
