import {afterEach, describe, expect, it} from 'vitest'
import {runProbe} from '../../src/probe/run-probe.js'
import {seededRng} from '../../src/util/rng.js'
import {chatAnswer, startScriptedServer, type ScriptedServer} from '../helpers/scripted-server.js'

// The cache-isolation answers are searched for foreign markers like every other. One that carried
// no text the probe could read (content null; or, as QA found, a key given twice) was searched
// for nothing: the cache figures beside it do not make the check ok.

const POOL = 1024
const WINDOW = 4096
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

/** Cache requests (those with cache_salt) hit on a salt's second use; their content is `content`. Others are plain answers. */
async function cacheServer(content: string | null) {
  const salts = new Set<string>()
  server = await startScriptedServer((ask) => {
    if (!ask.path.includes('completions')) return undefined
    if (ask.prompt.split(/\s+/).length > POOL) return {status: 400, json: {object: 'error', message: 'too long', code: 400}}
    const salt = ask.body.cache_salt
    if (typeof salt !== 'string') return {json: chatAnswer('a normal answer')}
    const hit = salts.has(salt)
    salts.add(salt)
    const answer = chatAnswer('x', {prompt_tokens: 100, cached_tokens: hit ? 100 : 0}) as {choices: Array<{message: {content: string | null}}>}
    answer.choices[0]!.message.content = content
    return {json: answer}
  })
  return runProbe({target: server.url, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 2000, rng: seededRng(9), now: () => new Date('2026-11-02T06:48:30.289Z')})
}

describe('probe: cache answers with no readable text', () => {
  it('the cache checks are inconclusive, never ok, and say why', async () => {
    const result = await cacheServer(null)
    for (const name of ['cache_isolation.same_salt', 'cache_isolation.different_salt']) {
      const check = result.checks.find((c) => c.name === name)!
      expect(check).toMatchObject({ok: false, inconclusive: true})
      expect(check.detail).toMatch(/but 3 cache answers carried no text the probe could read: only searched as raw bodies, not read as answers$/)
    }
  })

  it('read answers with the same figures pass (sanity)', async () => {
    const result = await cacheServer('a normal answer')
    expect(result.checks.find((c) => c.name === 'cache_isolation.same_salt')).toMatchObject({ok: true, detail: 'same salt hit 100 cached tokens'})
    expect(result.checks.find((c) => c.name === 'cache_isolation.different_salt')).toMatchObject({ok: true, detail: 'different salt missed'})
  })
})
