import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {runProbe, type ProbeResult} from '../../src/probe/run-probe.js'
import {startTestbed, type Testbed} from '../../src/testbed/server.js'
import {seededRng} from '../../src/util/rng.js'

// What a probe did not observe is never a pass: a gap prompt past the server's own (smaller)
// window, a 200 that is no completion, a class below the pool in which nothing was served.

const POOL = 1024
const WINDOW = 4096
let testbed: Testbed | null = null
let server: Server | null = null
afterEach(async () => {
  await testbed?.close()
  testbed = null
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
  server = null
})

const probe = (target: string): Promise<ProbeResult> =>
  runProbe({target, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 1000, rng: seededRng(7), now: () => new Date('2026-11-02T06:48:30.289Z')})
const check = (result: ProbeResult, name: string) => result.checks.find((c) => c.name === name)!

/** A server that lists a model and answers every completion with `answer` (status and body). */
async function serve(answer: {status: number; type: string; body: string}): Promise<string> {
  server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      if (req.url === '/v1/models') {
        res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({object: 'list', data: [{id: 'm', object: 'model'}]}))
      } else if (req.url?.includes('tokenize')) res.writeHead(404).end()
      else res.writeHead(answer.status, {'content-type': answer.type}).end(answer.body)
    })
  })
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', () => resolve()))
  return `http://127.0.0.1:${(server!.address() as AddressInfo).port}`
}

describe('probe: what was not observed is not a pass', () => {
  it("a server whose window is below --advertised-tokens rejects the gap prompt for its window: inconclusive, naming the window to probe with; the range below that window is tested", async () => {
    testbed = await startTestbed({port: 0, poolTokens: POOL, maxModelLen: 2048, onOverflow: 'stale', disaggregated: true})
    const result = await probe(testbed.url)
    expect(result.server_max_model_len).toBe(2048)
    expect(check(result, 'context.gap')).toMatchObject({outcome: 'rejected', ok: false, inconclusive: true})
    expect(check(result, 'context.gap').detail).toMatch(/max_model_len 2048\) is below --advertised-tokens 4096 .*tested by context\.gap_low and context\.gap_window .*run again with --advertised-tokens 2048$/)
    // QA probe #1: the prompts between the pool and 2048 reach the stale pages this testbed serves there: a leak, not merely inconclusive.
    expect(check(result, 'context.gap_window')).toMatchObject({outcome: 'leak', ok: false})
    expect(result.verdict).toBe('fail')
  })

  it('a server whose window is at or below the pool (the fix for the leak) leaves no gap to test: its rejection passes', async () => {
    testbed = await startTestbed({port: 0, poolTokens: POOL, maxModelLen: POOL, onOverflow: 'stale', disaggregated: true})
    const result = await probe(testbed.url)
    expect(result.server_max_model_len).toBe(POOL)
    expect(check(result, 'context.gap')).toMatchObject({outcome: 'rejected', ok: true, inconclusive: false})
    expect(result.verdict).toBe('pass')
  })

  it('a 200 whose body is an HTML page is no completion: an error, never served (nor a silent degradation)', async () => {
    const result = await probe(await serve({status: 200, type: 'text/html', body: '<html><body>Service temporarily unavailable</body></html>'}))
    expect(check(result, 'context.below_pool')).toMatchObject({outcome: 'error', ok: false, inconclusive: true})
    expect(check(result, 'context.gap')).toMatchObject({outcome: 'error', inconclusive: true})
    expect(result.verdict).toBe('inconclusive')
  })

  it('every request answered with an error: the classes below the pool served nothing, so their cleanliness is not known', async () => {
    const result = await probe(await serve({status: 200, type: 'application/json', body: JSON.stringify({object: 'error', message: 'overloaded', type: 'ServiceUnavailable', code: 503})}))
    // A 503 error object is the server failing, not a refusal of the prompt: an error, in every class (the gap's included).
    expect(check(result, 'contamination.small')).toMatchObject({outcome: 'error', ok: false, inconclusive: true})
    expect(check(result, 'contamination.small').counts).toMatchObject({served: 0, error: 8})
    expect(check(result, 'contamination.gap')).toMatchObject({outcome: 'error', ok: false, inconclusive: true})
    expect(result.verdict).toBe('inconclusive')
  })
})
