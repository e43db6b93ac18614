import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {ServingClient} from '../../src/probe/client.js'

// QA: a --target with a query string sent every request to "/?key=abc/v1/models" (the API path
// was glued onto the URL's text, into its query). The path goes after the target's own path and
// the query stays a query.

let server: Server | null = null
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()))
  server = null
})

async function recordingServer(): Promise<{base: string; seen: string[]}> {
  const seen: string[] = []
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    req.resume()
    req.on('end', () => res.writeHead(404, {'content-type': 'application/json'}).end('{}'))
  })
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', () => done()))
  return {base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen}
}

describe('ServingClient: the request URL from --target', () => {
  it.each([
    ['/?key=abc', ['GET /v1/models?key=abc', 'POST /tokenize?key=abc', 'POST /v1/tokenize?key=abc']],
    ['/proxy/v1?api-version=2&x=y#frag', ['GET /proxy/v1/models?api-version=2&x=y', 'POST /proxy/tokenize?api-version=2&x=y', 'POST /proxy/v1/tokenize?api-version=2&x=y']],
    ['/proxy/#frag', ['GET /proxy/v1/models', 'POST /proxy/tokenize', 'POST /proxy/v1/tokenize']],
  ])('--target <server>%s: the API path follows the target\'s path, its query kept, no fragment', async (suffix, expected) => {
    const {base, seen} = await recordingServer()
    const client = new ServingClient({baseUrl: new URL(base + suffix), timeoutMs: 2000})
    await client.resolveModel(undefined, base)
    await client.tokenize('x', 'chat', 'm')
    expect(seen).toEqual(expected)
  })
})
