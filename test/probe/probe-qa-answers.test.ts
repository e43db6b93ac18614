import {gzipSync} from 'node:zlib'
import {afterEach, describe, expect, it} from 'vitest'
import {runProbe, type ProbeResult} from '../../src/probe/run-probe.js'
import {seededRng} from '../../src/util/rng.js'
import {chatAnswer, delta, startScriptedServer, type Ask, type Reply, type ScriptedServer} from '../helpers/scripted-server.js'

// QA's probe findings on answers: a proxy's 413 page is no rejection by the stack; text delivered
// before a 400 error event was served; an answer with a BOM, in UTF-16 or gzip is read; a stream
// that opens with an SSE comment under text/plain is a stream.

const POOL = 1024
const WINDOW = 4096
let server: ScriptedServer | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

async function probe(script: (ask: Ask) => Reply | undefined): Promise<ProbeResult> {
  server = await startScriptedServer(script)
  return runProbe({target: server.url, poolTokens: POOL, advertisedTokens: WINDOW, timeoutMs: 1500, rng: seededRng(21), now: () => new Date('2026-11-02T06:48:30.289Z')})
}
const check = (result: ProbeResult, name: string) => result.checks.find((c) => c.name === name)!
const completion = (ask: Ask): boolean => ask.path.includes('completions')
const words = (ask: Ask): number => ask.prompt.split(/\s+/).length
const NGINX_413 = '<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n'

describe("probe: a proxy's 413 page is not the stack rejecting the prompt", () => {
  it('HTML 413 past the pool: no check passes as rejected; the verdict is not pass', async () => {
    const result = await probe((ask) => {
      if (!completion(ask)) return undefined
      if (words(ask) > POOL) return {status: 413, headers: {'content-type': 'text/html'}, raw: NGINX_413}
      return {json: chatAnswer('answer none')}
    })
    for (const name of ['context.gap', 'context.gap_stream', 'context.above_window']) {
      expect(check(result, name)).toMatchObject({outcome: 'error', ok: false, inconclusive: true})
    }
    expect(result.verdict).toBe('inconclusive')
  })

  it("vLLM's own 400 naming the context length is still a rejection", async () => {
    const result = await probe((ask) => {
      if (!completion(ask)) return undefined
      if (words(ask) > POOL) return {status: 400, json: {error: {message: "This model's maximum context length is 1024 tokens. However, your request has 2000 input tokens.", type: 'BadRequestError', param: 'input_tokens', code: 400}}}
      return {json: chatAnswer('answer none')}
    })
    expect(check(result, 'context.gap')).toMatchObject({outcome: 'rejected', ok: true})
  })
})

describe('probe: text delivered before a 400 error event was served', () => {
  it('HTTP 200 stream, two deltas, then a 400 error event past the pool: silent degradation, the gap checks fail', async () => {
    const result = await probe((ask) => {
      if (!completion(ask)) return undefined
      if (words(ask) > POOL) return {sse: [delta('Sure, here'), delta(' is the answer'), {error: {message: 'too long', type: 'BadRequestError', code: 400}}]}
      return ask.stream ? {sse: [delta('answer none')]} : {json: chatAnswer('answer none')}
    })
    expect(check(result, 'context.gap_stream')).toMatchObject({outcome: 'served', ok: false, inconclusive: false})
    expect(result.verdict).toBe('fail')
  })
})

describe('probe: answers with a BOM, in UTF-16 or gzip are read', () => {
  const leaky = (encode: (text: string) => Reply) => (ask: Ask): Reply | undefined => {
    if (!completion(ask)) return undefined
    if (words(ask) > POOL) return {status: 400, json: {object: 'error', message: 'too long', code: 400}}
    return encode(JSON.stringify(chatAnswer(`answer ${ask.foreign ?? 'none'}`)))
  }
  const cases: Array<[string, (text: string) => Reply]> = [
    ['a UTF-8 BOM', (text) => ({headers: {'content-type': 'application/json'}, raw: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])})],
    ['UTF-16LE with a BOM', (text) => ({headers: {'content-type': 'application/json; charset=utf-16'}, raw: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])})],
    ['gzip Content-Encoding', (text) => ({headers: {'content-type': 'application/json', 'content-encoding': 'gzip'}, raw: gzipSync(Buffer.from(text))})],
  ]
  for (const [name, encode] of cases) {
    it(`${name}: the foreign marker is found (leak, verdict fail)`, async () => {
      const result = await probe(leaky(encode))
      expect(check(result, 'contamination.below_pool')).toMatchObject({outcome: 'leak', ok: false})
      expect(result.verdict).toBe('fail')
    })
  }
})

describe('probe: a stream that opens with an SSE comment under text/plain', () => {
  it('": ping" first, then a data event with a foreign marker, [DONE], the connection kept open: read, a leak, not hung', async () => {
    const result = await probe((ask) => {
      if (!completion(ask)) return undefined
      if (words(ask) > POOL) return {status: 400, json: {object: 'error', message: 'too long', code: 400}}
      return {headers: {'content-type': 'text/plain'}, raw: `: ping\n\ndata: ${JSON.stringify(delta(`answer ${ask.foreign ?? 'none'}`))}\n\ndata: [DONE]\n\n`, keepOpen: true}
    })
    expect(result.checks.find((c) => c.name === 'target.responsive')).toBeUndefined()
    expect(check(result, 'contamination.below_pool')).toMatchObject({outcome: 'leak', ok: false})
  })
})

describe('probe: "no foreign markers" only where something was searched', () => {
  it('every completion answered with an HTML page and no completion: contamination says the pages were searched, never that answers were read', async () => {
    // QA probe #6: a page is text the client received, searched for markers (it was not searched, and said so).
    const result = await probe((ask) => (completion(ask) ? {status: 502, headers: {'content-type': 'text/html'}, raw: '<html><body>Bad Gateway</body></html>'} : undefined))
    const contamination = result.checks.filter((c) => c.name.startsWith('contamination.') && c.outcome === 'error')
    expect(contamination.length).toBeGreaterThan(0)
    for (const c of contamination) expect(c.detail).toMatch(/no foreign markers in the text of 8 answers not served \(error bodies\)$/)
    for (const c of contamination) expect(c).toMatchObject({ok: false, inconclusive: true})
  })
})
