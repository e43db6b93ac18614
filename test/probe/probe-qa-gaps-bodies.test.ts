import {afterEach, describe, expect, it} from 'vitest'
import {runProbe, type ProbeResult} from '../../src/probe/run-probe.js'
import {seededRng} from '../../src/util/rng.js'
import {chatAnswer, startScriptedServer, type Ask, type Reply, type ScriptedServer} from '../helpers/scripted-server.js'

// QA probe #1, #6, #9, #10, #11 and lower notes: the probe tests the range between the pool and
// a smaller window the stack's own refusal names; every body a client received is searched for
// markers (an HTML 502, a plain-text 500, a 200 that is no JSON); a plain 200 whose JSON is an
// error is no explicit rejection; a leak count is out of the answers received; a failing model
// list stops nothing; a 404 names --target.

const POOL = 1000
const ADVERTISED = 4000
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

const words = (ask: Ask): number => ask.prompt.split(/\s+/).length
const completion = (ask: Ask): boolean => ask.path.includes('completions')
const check = (result: ProbeResult, name: string) => result.checks.find((c) => c.name === name)!

/** A server whose /tokenize counts words (exact sizes) and lists `listed` as its window; completions follow `answer`. */
async function probe(answer: (ask: Ask) => Reply, opts: {listed?: number; models?: Reply} = {}): Promise<ProbeResult> {
  server = await startScriptedServer((ask) => {
    if (ask.path === '/v1/models') return opts.models
    if (ask.path === '/tokenize') return {json: {count: words(ask), max_model_len: opts.listed ?? ADVERTISED}}
    return completion(ask) ? answer(ask) : undefined
  })
  return runProbe({target: server.url, poolTokens: POOL, advertisedTokens: ADVERTISED, timeoutMs: 2000, rng: seededRng(11), now: () => new Date('2026-11-02T06:48:30.289Z')})
}

/** vLLM's own refusal of a prompt past a window of `window` tokens. */
const vllmRefusal = (window: number, n: number): Reply => ({
  status: 400,
  json: {error: {message: `This model's maximum context length is ${window} tokens. However, your request has ${n} input tokens. Please reduce the length of the input messages.`, type: 'BadRequestError', param: 'input_tokens', code: 400}},
})

describe('probe: a refusal naming a window below --advertised-tokens (QA probe #1)', () => {
  it('a stack refusing at 2000 that serves stale pages between the pool and 2000: the range is tested, the verdict fails', async () => {
    const result = await probe((ask) => (words(ask) + 32 > 2000 ? vllmRefusal(2000, words(ask)) : {json: chatAnswer(words(ask) > POOL ? `Stale: ${ask.foreign ?? 'none'}` : 'OK.')}))
    expect(result.stated_max_model_len).toBe(2000)
    const inRange = check(result, 'context.gap_window')
    expect(inRange.size_tokens).toBeGreaterThan(POOL)
    expect(inRange.size_tokens! + 32).toBeLessThan(2000)
    expect(inRange).toMatchObject({outcome: 'leak', ok: false})
    expect(check(result, 'contamination.gap_window')).toMatchObject({outcome: 'leak', ok: false})
    // The midway gap prompt, past 2000, is refused for that window: never an ok rejection.
    expect(check(result, 'context.gap')).toMatchObject({outcome: 'rejected', ok: false, inconclusive: true})
    expect(check(result, 'context.gap').detail).toMatch(/2000 tokens, as its refusal names it\) is below --advertised-tokens 4000 .*tested by context\.gap_low and context\.gap_window/)
    expect(result.verdict).toBe('fail')
  })

  it('one size just past the pool is always sent, whatever the stack names', async () => {
    const result = await probe((ask) => (words(ask) + 32 > 1100 ? {status: 400, json: {error: {message: 'prompt too long', code: 400}}} : {json: chatAnswer(words(ask) > POOL ? `Stale: ${ask.foreign ?? 'none'}` : 'OK.')}))
    const low = check(result, 'context.gap_low')
    expect(low.size_tokens).toBeGreaterThan(POOL)
    expect(low).toMatchObject({outcome: 'leak', ok: false})
    expect(result.verdict).toBe('fail')
  })

  it('a fixed stack (refuses past the pool) whose refusal names a smaller window: the range is refused, but never a pass', async () => {
    const result = await probe((ask) => (words(ask) > POOL ? vllmRefusal(2000, words(ask)) : {json: chatAnswer('OK.')}))
    expect(check(result, 'context.gap_window')).toMatchObject({outcome: 'rejected', ok: true})
    expect(check(result, 'context.gap')).toMatchObject({ok: false, inconclusive: true})
    expect(check(result, 'context.gap').detail).toMatch(/run again with --advertised-tokens 2000$/)
    expect(result.verdict).toBe('inconclusive')
  })
})

describe('probe: every body is searched for markers (QA probe #6)', () => {
  const past = (ask: Ask): boolean => words(ask) > POOL
  const ok = (ask: Ask): Reply => ({json: chatAnswer(`OK ${ask.own[0] ?? ''}`)})
  it('an HTML 502 quoting another tenant\'s marker past the pool is a leak (verdict fail)', async () => {
    const result = await probe((ask) => (past(ask) ? {status: 502, headers: {'content-type': 'text/html'}, raw: `<html><body><h1>502 Bad Gateway</h1><p>upstream said: Stale ${ask.foreign ?? 'none'}</p></body></html>`} : ok(ask)))
    expect(check(result, 'context.gap')).toMatchObject({outcome: 'leak', ok: false, http_status: 502})
    // The page carried the leak: its text is not quoted in the detail (leaked content is never printed).
    expect(check(result, 'context.gap').detail).not.toMatch(/CANARY-/)
    expect(check(result, 'contamination.gap')).toMatchObject({outcome: 'leak', ok: false})
    expect(check(result, 'contamination.gap').detail).not.toContain('none was searched')
    expect(result.verdict).toBe('fail')
  })

  it('a plain-text 500 quoting another tenant\'s marker is a leak', async () => {
    const result = await probe((ask) => (past(ask) ? {status: 500, headers: {'content-type': 'text/plain'}, raw: `Internal error; last output: ${ask.foreign ?? 'none'}`} : ok(ask)))
    expect(check(result, 'context.gap')).toMatchObject({outcome: 'leak', ok: false})
    expect(result.verdict).toBe('fail')
  })

  it('a 200 that is not JSON quoting another tenant\'s marker is a leak, and one without says HTTP 200, not "server error"', async () => {
    const leaking = await probe((ask) => (past(ask) ? {status: 200, headers: {'content-type': 'text/plain'}, raw: `Stale ${ask.foreign ?? 'none'}`} : ok(ask)))
    expect(check(leaking, 'context.gap')).toMatchObject({outcome: 'leak', ok: false})
    expect(leaking.verdict).toBe('fail')
    await server?.close()
    const clean = await probe((ask) => (past(ask) ? {status: 200, headers: {'content-type': 'text/plain'}, raw: 'busy, try later'} : ok(ask)))
    expect(check(clean, 'context.gap')).toMatchObject({outcome: 'error', inconclusive: true})
    expect(check(clean, 'context.gap').detail).toMatch(/^HTTP 200, not an explicit rejection .*its body was searched: no foreign markers$/)
  })

  it('an answer that gives `content` twice: either value holding another tenant\'s marker is a leak (lower note)', async () => {
    const result = await probe((ask) => ({status: 200, headers: {'content-type': 'application/json'}, raw: `{"choices":[{"message":{"role":"assistant","content":"${ask.foreign ?? 'none'}","content":"fine"},"finish_reason":"stop"}]}`}))
    expect(check(result, 'contamination.small')).toMatchObject({outcome: 'leak', ok: false})
    expect(result.verdict).toBe('fail')
  })
})

describe('probe: a plain HTTP 200 error body is no explicit rejection (QA probe #9)', () => {
  it('a 200 JSON error naming the context length, plain or asked as a stream, is an error (inconclusive), never "rejected with HTTP 200"', async () => {
    const result = await probe((ask) => (words(ask) > POOL ? {status: 200, json: {object: 'error', message: `This model's maximum context length is ${POOL} tokens.`, type: 'BadRequestError', code: 400}} : {json: chatAnswer('OK.')}))
    for (const name of ['context.gap', 'context.gap_stream', 'context.gap_low']) {
      expect(check(result, name)).toMatchObject({outcome: 'error', ok: false, inconclusive: true})
      expect(check(result, name).detail).not.toMatch(/rejected with HTTP 200/)
    }
    expect(result.verdict).not.toBe('pass')
  })
})

describe('probe: a leak count is out of the answers received (QA probe #10)', () => {
  it('requests never sent are not counted as responses', async () => {
    let pastPool = 0
    const result = await probe((ask) => {
      if (words(ask) <= POOL) return {json: chatAnswer('OK.')}
      pastPool++
      // The context checks' gap prompts are refused; then one contamination prompt leaks and the stack overloads.
      if (pastPool <= 4) return {status: 400, json: {error: {message: 'prompt too long', code: 400}}}
      if (pastPool === 5) return {json: chatAnswer(`Stale ${ask.foreign ?? 'none'}`)}
      return {status: 429, headers: {'content-type': 'application/json', 'retry-after': '60'}, raw: '{"error":{"message":"overloaded"}}'}
    })
    const leaking = result.checks.find((c) => c.name.startsWith('contamination.gap') && c.outcome === 'leak')!
    const counts = leaking.counts!
    expect(counts.not_sent).toBeGreaterThan(0)
    const received = counts.served + counts.rejected + counts.error
    expect(leaking.detail).toMatch(new RegExp(`^${counts.leaks} of the ${received} answers? received \\(.*\\) carried foreign markers, ${counts.not_sent} not sent`))
  })
})

describe('probe: lower notes', () => {
  it('an HTTP 500 on GET /v1/models stops nothing: the completions are probed (model "default")', async () => {
    const result = await probe((ask) => (words(ask) > POOL ? vllmRefusal(POOL, words(ask)) : {json: chatAnswer('OK.')}), {models: {status: 500, json: {error: {message: 'boom'}}}})
    expect(result.target_failure).toBeNull()
    expect(result.checks.find((c) => c.name === 'target.responsive')).toBeUndefined()
    expect(result.model).toBe('default')
    expect(check(result, 'context.gap')).toMatchObject({outcome: 'rejected', ok: true})
  })

  it('a corrupt gzip body or an unknown zstd coding is said to be undecodable, not "not JSON"', async () => {
    for (const [coding, bytes] of [['gzip', Buffer.from('1f8b0800676172626167652d6e6f742d677a6970', 'hex')], ['zstd', Buffer.from('28b52ffd000067617262616765', 'hex')]] as const) {
      const result = await probe(() => ({status: 200, headers: {'content-type': 'application/json', 'content-encoding': coding}, raw: bytes}))
      const below = check(result, 'context.below_pool')
      expect(below).toMatchObject({outcome: 'error', ok: false, inconclusive: true})
      expect(below.detail).toContain(`HTTP 200 with a body that could not be decoded (`)
      expect(below.detail).toContain(JSON.stringify(coding))
      expect(below.detail).not.toContain('not JSON')
      expect(below.detail).toMatch(/check --target/)
      await server?.close()
      server = null
    }
  })

  it('a 404 on the chat route names --target, not --pool-tokens', async () => {
    const result = await probe(() => ({status: 404, json: {detail: 'Not Found'}}))
    expect(check(result, 'context.below_pool').detail).toMatch(/check --target \(HTTP 404: the chat route is not there\)$/)
  })
})
