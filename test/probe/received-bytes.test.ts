import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {receivedText, ServingClient} from '../../src/probe/client.js'
import {foreignMarkers} from '../../src/probe/markers.js'

// QA probe report (hostile servers), defects 2 and 3: bytes the client received are searched
// whatever became of the exchange: a stream that delivered a marker and then stalled, reset or
// overran the byte cap, and the bodies of 429/503 answers that were retried.

const OWN = 'CANARY-00000000000000000001'
const OTHER = 'CANARY-ffffffffffffffffffff'
const request = {endpoint: 'chat' as const, text: `hi ${OWN}`, stream: true, maxTokens: 8, model: 'm'}
const leakEvent = `data: ${JSON.stringify({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: `stale: ${OTHER}`}}]})}\n\n`

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

describe('bytes delivered before an exchange failed are searched (QA probe #2)', () => {
  it('a stream that delivers a marker and then stalls: hung, and the marker is in what was received', async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'text/event-stream'})
      res.write(leakEvent)
    })
    const result = await new ServingClient({baseUrl: url, timeoutMs: 800}).generate(request)
    expect(result.outcome).toBe('hung')
    expect(result.incomplete).not.toBeNull()
    expect(foreignMarkers(receivedText(result), [OWN])).toEqual([OTHER.toLowerCase().replace('canary', 'CANARY')])
    expect(result.text).toContain(OTHER)
  })

  it('a stream that delivers a marker and then resets: an error, and the marker is in what was received', async () => {
    const url = await serve((req, res) => {
      req.resume()
      res.writeHead(200, {'content-type': 'text/event-stream'})
      res.write(leakEvent)
      setTimeout(() => res.socket?.destroy(), 100)
    })
    const result = await new ServingClient({baseUrl: url, timeoutMs: 3000}).generate(request)
    expect(result.outcome).toBe('error')
    expect(foreignMarkers(receivedText(result), [OWN])).toHaveLength(1)
  })
})

describe('the bodies of retried 429/503 answers are searched (QA probe #3)', () => {
  it('a 503 quoting another tenant\'s marker, then a clean answer: the marker is in what was received', async () => {
    let calls = 0
    const url = await serve((req, res) => {
      req.resume()
      if (++calls === 1) return void res.writeHead(503, {'retry-after': '0', 'content-type': 'text/plain'}).end(`overloaded; partial output: ${OTHER}`)
      res.writeHead(200, {'content-type': 'application/json'}).end(JSON.stringify({choices: [{index: 0, message: {content: 'ok'}}]}))
    })
    const result = await new ServingClient({baseUrl: url, timeoutMs: 3000, backoffMs: 10}).generate({...request, stream: false})
    expect(result).toMatchObject({outcome: 'served', text: 'ok', attempts: 2})
    expect(foreignMarkers(receivedText(result), [OWN])).toHaveLength(1)
  })
})
