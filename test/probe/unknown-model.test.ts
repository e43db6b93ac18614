import {afterEach, describe, expect, it} from 'vitest'
import {modelNotServed} from '../../src/probe/client.js'
import {runProbe} from '../../src/probe/run-probe.js'
import {runReplay} from '../../src/replay/run-replay.js'
import {seededRng} from '../../src/util/rng.js'
import {caseWithRecords} from '../helpers/replay-case.js'
import {chatAnswer, startScriptedServer, type Ask, type Reply, type ScriptedServer} from '../helpers/scripted-server.js'

// QA probe report (hostile servers), defect 7: a --model the target does not serve (vLLM's 404
// NotFoundError naming the model) is said to be that, with --model to check: not a missing chat
// route (probe), not a missing /tokenize (replay).

const notServed = (ask: Ask): Reply => ({status: 404, json: {object: 'error', message: `The model \`${String(ask.body.model)}\` does not exist.`, type: 'NotFoundError', param: 'model', code: 404}})
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

describe('modelNotServed', () => {
  it("reads vLLM's, SGLang's and OpenAI's answers to an unknown model, and nothing else", () => {
    expect(modelNotServed(404, JSON.stringify({object: 'error', message: 'The model `nope` does not exist.', type: 'NotFoundError', param: 'model', code: 404}))).toBe(true)
    expect(modelNotServed(404, JSON.stringify({object: 'error', message: 'The model `nope` does not exist.', type: 'NotFoundError', param: null, code: 404}))).toBe(true)
    expect(modelNotServed(404, JSON.stringify({error: {message: 'no such model', code: 'model_not_found'}}))).toBe(true)
    expect(modelNotServed(404, JSON.stringify({detail: 'Not Found'}))).toBe(false)
    expect(modelNotServed(404, '<html>404</html>')).toBe(false)
    expect(modelNotServed(400, JSON.stringify({error: {message: 'The model `nope` does not exist.', param: 'model'}}))).toBe(false)
  })
})

describe('an unknown --model (QA probe #7)', () => {
  it('replay: one line naming the model and --model, not "no /tokenize"', async () => {
    server = await startScriptedServer((ask) => (ask.path === '/tokenize' || ask.path.includes('completions') ? notServed(ask) : undefined))
    const {db} = await caseWithRecords([{request_id: 'req-b', prompt_tokens: 200, response_text: 'leak CANARY-0000aaaa0000aaaa'}], [['CANARY-0000aaaa0000aaaa', 'tenant-x', 'sx']])
    try {
      const run = runReplay(db, {target: server.url, requestIds: [], fromSightings: true, trials: 1, model: 'nope', poolTokens: 1024, timeoutMs: 2000, rng: seededRng(5), now: () => new Date('2026-11-02T07:00:00.000Z')})
      await expect(run).rejects.toThrow(/does not serve the model "nope".*check --model/)
      await expect(run).rejects.not.toThrow(/no \/tokenize/)
    } finally {
      db.close()
    }
  }, 30_000)

  it('probe: says to check --model, never that the chat route is not there', async () => {
    server = await startScriptedServer((ask) => (ask.path.includes('completions') ? notServed(ask) : undefined))
    const result = await runProbe({target: server.url, poolTokens: 1024, advertisedTokens: 4096, timeoutMs: 2000, model: 'nope', rng: seededRng(5), now: () => new Date('2026-11-02T07:00:00.000Z')} as Parameters<typeof runProbe>[0])
    const details = result.checks.map((c) => c.detail).join('\n')
    expect(details).toContain('check --model')
    expect(details).not.toContain('route is not there')
    expect(result.verdict).toBe('inconclusive')
  }, 30_000)
})
