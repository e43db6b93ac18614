import {spawnSync} from 'node:child_process'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {fileURLToPath} from 'node:url'
import {afterEach, describe, expect, it} from 'vitest'
import {ServingClient} from '../../src/probe/client.js'

// ServingClient's bounds, one behaviour at a time, against in-process loopback servers.

let server: Server | null = null
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve) ?? resolve(null))
  server = null
})

async function serve(handler: Parameters<typeof createServer>[1]): Promise<URL> {
  server = createServer(handler)
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve))
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
}

const request = {endpoint: 'chat' as const, text: 'hi', stream: true, maxTokens: 8, model: 'm'}

describe('ServingClient bounds', () => {
  it('a stream that ends with data: [DONE] is served even if the server then keeps the socket open', async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'text/event-stream'})
      res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'hello '}}]})}\n\n`)
      res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'CANARY-0123456789abcdef'}}]})}\n\ndata: [DONE]\n\n`)
      // ... and never res.end()
    })
    const result = await new ServingClient({baseUrl: url, timeoutMs: 3000}).generate(request)
    expect(result).toMatchObject({outcome: 'served', text: 'hello CANARY-0123456789abcdef', httpStatus: 200})
    expect(result.elapsedMs).toBeLessThan(1500)
  })

  it('[DONE] followed in the same chunk by a long SSE comment, socket left open: served, not hung', async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'text/event-stream'})
      res.write(`data: ${JSON.stringify({choices: [{index: 0, delta: {content: 'hello'}}]})}\n\ndata: [DONE]\n\n: ${'keepalive '.repeat(20)}\n\n`)
    })
    const result = await new ServingClient({baseUrl: url, timeoutMs: 2000}).generate(request)
    expect(result).toMatchObject({outcome: 'served', text: 'hello'})
  })

  it('honours a Retry-After that fits the timeout, and retries', async () => {
    let calls = 0
    const url = await serve((req, res) => {
      req.resume()
      if (++calls === 1) return void res.writeHead(503, {'retry-after': '0.1'}).end()
      res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({choices: [{index: 0, message: {content: 'ok'}}]}))
    })
    const result = await new ServingClient({baseUrl: url, timeoutMs: 3000}).generate({...request, stream: false})
    expect(result).toMatchObject({outcome: 'served', text: 'ok', attempts: 2})
  })

  it('quick 503s that use up the retries say so, not that the timeout ran out', async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(503).end()
    })
    const result = await new ServingClient({baseUrl: url, timeoutMs: 30_000, backoffMs: 10}).generate({...request, stream: false})
    expect(result).toMatchObject({outcome: 'error', httpStatus: 503, attempts: 4})
    expect(result.error).toContain('still overloaded after the 3 retries allowed')
    expect(result.error).not.toContain('timeout')
  })

  it('a Retry-After past the timeout says the next wait would pass it', async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(503, {'retry-after': '10'}).end()
    })
    const result = await new ServingClient({baseUrl: url, timeoutMs: 2000}).generate({...request, stream: false})
    expect(result.error).toContain('the next wait (10000 ms) would pass the 2000 ms timeout')
  })

  it('does not wait out a Retry-After longer than the timeout: error at once, and the breaker trips', async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(503, {'retry-after': '10'}).end()
    })
    const client = new ServingClient({baseUrl: url, timeoutMs: 2000})
    const result = await client.generate({...request, stream: false})
    expect(result).toMatchObject({outcome: 'error', httpStatus: 503, attempts: 1})
    expect(result.elapsedMs).toBeLessThan(1000)
    expect(client.failure).toMatchObject({request: 'POST /v1/chat/completions', outcome: 'error', httpStatus: 503})
    // Once tripped, nothing more is sent.
    const next = await client.generate({...request, stream: false})
    expect(next).toMatchObject({outcome: 'error', attempts: 0})
    expect(next.error).toMatch(/^not sent: the target already failed/)
  })

  it('a plain 500 is an error for that request but does not stop the run', async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(500, {'content-type': 'application/json'}).end(JSON.stringify({error: {message: 'Internal server error', type: 'InternalServerError', code: 500}}))
    })
    const client = new ServingClient({baseUrl: url, timeoutMs: 2000})
    expect(await client.generate({...request, stream: false})).toMatchObject({outcome: 'error', httpStatus: 500, error: 'Internal server error'})
    expect(client.failure).toBeNull()
  })

  it('cuts a huge error message to a length a report can carry', async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(400, {'content-type': 'application/json'}).end(JSON.stringify({error: {message: `This model's maximum context length is 4096 tokens. ${'x'.repeat(100_000)}`, type: 'Bad Request', code: 400}}))
    })
    const result = await new ServingClient({baseUrl: url, timeoutMs: 2000}).generate({...request, stream: false})
    expect(result.outcome).toBe('rejected')
    expect(result.error!.length).toBeLessThanOrEqual(501)
  })

  it('the deadline holds after garbage collection (the composite AbortSignal of the old fetch path did not)', () => {
    // A child with --expose-gc: a silent server, a 600 ms request with a caller's abort signal, gc() forced while it waits.
    // The source, through tsx (as the in-process tests run it), never a possibly stale dist/.
    const source = fileURLToPath(new URL('../../src/probe/client.ts', import.meta.url))
    const script = `
      import net from 'node:net'
      const {ServingClient} = await import(${JSON.stringify(source)})
      const silent = net.createServer(() => {}).listen(0, '127.0.0.1')
      await new Promise((r) => silent.once('listening', r))
      const baseUrl = new URL('http://127.0.0.1:' + silent.address().port)
      // As the CLI does: a Ctrl-C controller's signal is passed along with the timeout.
      const interrupt = new AbortController()
      const gc = setInterval(() => globalThis.gc(), 20)
      const started = Date.now()
      const result = await new ServingClient({baseUrl, timeoutMs: 600, signal: interrupt.signal}).generate({endpoint: 'chat', text: 'hi', stream: false, maxTokens: 8, model: 'm'})
      clearInterval(gc)
      console.log(JSON.stringify({outcome: result.outcome, ms: Date.now() - started}))
      process.exit(0)
    `
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {cwd: fileURLToPath(new URL('../..', import.meta.url)), encoding: 'utf8', timeout: 15_000})
    expect(run.signal, `killed: the request never ended (${run.stderr})`).toBeNull()
    const out = JSON.parse(run.stdout.trim())
    expect(out.outcome).toBe('hung')
    expect(out.ms).toBeGreaterThanOrEqual(550)
    expect(out.ms).toBeLessThan(3000)
  })
})
