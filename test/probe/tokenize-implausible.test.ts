import {afterEach, describe, expect, it} from 'vitest'
import {ServingClient} from '../../src/probe/client.js'
import {runProbe} from '../../src/probe/run-probe.js'
import {seededRng} from '../../src/util/rng.js'
import {chatAnswer, startScriptedServer, type ScriptedServer} from '../helpers/scripted-server.js'

// QA: probe took any number /tokenize returned as the prompt's size (-5; 0 for count "abc" with
// no tokens; 1e18, reported "sized by tokenize" and a 1e18-token prompt "served ok" below the
// pool). A count no tokenizer gives for the text sent is ignored, /tokenize is not used after it,
// and the run says so.

const POOL = 1024
const WINDOW = 4096
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

/** /tokenize answers `tokenizeBody`; completions are served, 400 past POOL words. */
async function serverWithTokenize(tokenizeBody: (prompt: string) => unknown): Promise<ScriptedServer> {
  server = await startScriptedServer((ask) => {
    if (ask.path === '/tokenize') return {json: tokenizeBody(ask.prompt)}
    if (ask.path.includes('completions')) return ask.prompt.split(/\s+/).length > POOL ? {status: 400, json: {object: 'error', message: 'too long', code: 400}} : {json: chatAnswer('a normal answer')}
    return undefined
  })
  return server
}

const words = (prompt: string): number => prompt.split(/\s+/).length

describe('ServingClient.tokenize: an implausible count is no size', () => {
  it.each([
    ['negative', {count: -5, tokens: []}, '-5'],
    ['zero (count "abc", no tokens)', {count: 'abc', tokens: []}, '"abc"'],
    ['1e18', {count: 1e18, tokens: []}, '1000000000000000000'],
    ['fractional', {count: 12.5}, '12.5'],
    // QA probe (lower note): a count given as a string, with no token list, was taken for "no /tokenize".
    ['a string ("12"), no token list', {count: '12', max_model_len: '1e30'}, '"12"'],
  ])('%s: ignored, said as the server wrote it, and /tokenize not asked again', async (_name, body, shown) => {
    const s = await serverWithTokenize(() => body)
    const client = new ServingClient({baseUrl: new URL(s.url), timeoutMs: 2000})
    expect(await client.tokenize('Synthetic prompt of a few words', 'chat', 'm')).toBeNull()
    expect(client.ignoredTokenCount).toBe(shown)
    const asked = s.asks.filter((a) => a.path.endsWith('tokenize')).length
    expect(await client.tokenize('another prompt', 'chat', 'm')).toBeNull()
    expect(s.asks.filter((a) => a.path.endsWith('tokenize')).length).toBe(asked)
  })

  it('a plausible count is still the size', async () => {
    const s = await serverWithTokenize((prompt) => ({count: words(prompt), tokens: []}))
    const client = new ServingClient({baseUrl: new URL(s.url), timeoutMs: 2000})
    expect(await client.tokenize('five words in this prompt', 'chat', 'm')).toMatchObject({count: 5})
    expect(client.ignoredTokenCount).toBeNull()
  })
})

describe('probe: a /tokenize that gives 1e18', () => {
  it('sizes by estimate, says why, and never reports a 1e18-token prompt', async () => {
    await serverWithTokenize(() => ({count: 1e18, max_model_len: WINDOW, tokens: []}))
    const notes: string[] = []
    const result = await runProbe({target: server!.url, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 2000, rng: seededRng(4), now: () => new Date('2026-11-02T06:48:30.289Z'), onProgress: (m) => notes.push(m)})
    expect(result.sizing).toBe('estimate')
    expect(notes.join('\n')).toMatch(/\/tokenize gave 1000000000000000000 as a prompt's token count, which is no count for it: ignored/)
    for (const check of result.checks) if (check.size_tokens !== null) expect(check.size_tokens).toBeLessThanOrEqual(WINDOW + 16)
    expect(result.checks.find((c) => c.name === 'context.below_pool')).toMatchObject({outcome: 'served', ok: true})
  })
})
