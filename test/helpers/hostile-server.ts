import {randomBytes} from 'node:crypto'
import {createServer as createHttpServer, type IncomingMessage, type ServerResponse} from 'node:http'
import {createServer as createTcpServer, type AddressInfo, type Server, type Socket} from 'node:net'

// Loopback servers that misbehave the ways a probe target can (127.0.0.1 only, port 0). Used by
// the end-to-end tests to check that probe and replay always end.

export type HostileMode =
  | 'silent' // accepts the connection, never sends a byte
  | 'models-then-silent' // answers GET /v1/models, then never answers anything else
  | 'headers-then-stall' // answers /v1/models; elsewhere sends 200 headers and stalls
  | 'endless-sse' // answers /v1/models; elsewhere an SSE stream as fast as the socket takes it, never ending
  | 'slow-sse' // answers /v1/models; elsewhere one SSE event a second, never ending
  | 'garbage' // answers every connection with random bytes, not HTTP
  | 'reset' // resets every connection
  | 'overloaded' // answers /v1/models; elsewhere 503 with Retry-After: 10
  | 'redirect' // answers /v1/models; elsewhere 307 to another server (which counts connections)

export interface HostileServer {
  url: string
  /** Connections the server accepted. */
  connections(): number
  close(): Promise<void>
}

const MODELS = JSON.stringify({object: 'list', data: [{id: 'hostile', object: 'model', created: 0, owned_by: 'test'}]})

export async function startHostileServer(mode: HostileMode, redirectTo?: string): Promise<HostileServer> {
  const sockets = new Set<Socket>()
  const timers = new Set<NodeJS.Timeout>()
  let connections = 0
  const track = (socket: Socket): void => {
    connections++
    sockets.add(socket)
    socket.on('error', () => {})
    socket.on('close', () => sockets.delete(socket))
  }

  let server: Server
  if (mode === 'silent' || mode === 'garbage' || mode === 'reset') {
    server = createTcpServer((socket) => {
      track(socket)
      if (mode === 'reset') socket.resetAndDestroy()
      else if (mode === 'garbage') socket.write(Buffer.concat([Buffer.from('\x00\x01GARBAGE\r\n'), randomBytes(4096)]))
    })
  } else {
    const http = createHttpServer((req, res) => handle(req, res))
    http.on('connection', track)
    server = http
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    req.resume()
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.writeHead(200, {'content-type': 'application/json'}).end(MODELS)
      return
    }
    if (req.url === '/tokenize' || req.url === '/v1/tokenize') {
      if (mode !== 'models-then-silent' && mode !== 'headers-then-stall') {
        res.writeHead(404, {'content-type': 'application/json'}).end('{"detail":"Not Found"}')
        return
      }
    }
    switch (mode) {
      case 'models-then-silent':
        return // never answers
      case 'headers-then-stall':
        res.writeHead(200, {'content-type': 'application/json'})
        res.flushHeaders()
        return
      case 'endless-sse': {
        res.writeHead(200, {'content-type': 'text/event-stream'})
        const event = Buffer.from(`data: ${JSON.stringify({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: 'x'.repeat(4000)}}]})}\n\n`.repeat(16))
        const pump = (): void => {
          while (!res.destroyed && res.write(event)) {
            /* fill the socket */
          }
          if (!res.destroyed) res.once('drain', pump)
        }
        pump()
        return
      }
      case 'slow-sse': {
        res.writeHead(200, {'content-type': 'text/event-stream'})
        const event = (): boolean => res.write(`data: ${JSON.stringify({object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: 'tick '}}]})}\n\n`)
        event()
        const tick = setInterval(event, 1000)
        timers.add(tick)
        res.on('close', () => clearInterval(tick))
        return
      }
      case 'overloaded':
        res.writeHead(503, {'content-type': 'application/json', 'retry-after': '10'}).end('{"error":{"message":"overloaded","type":"ServiceUnavailable","code":503}}')
        return
      case 'redirect':
        res.writeHead(307, {location: `${redirectTo ?? 'http://169.254.169.254'}${req.url ?? '/'}`}).end()
        return
    }
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearInterval(timer)
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A plain server that only counts the connections it gets: where a redirect would lead. */
export async function startCountingServer(): Promise<HostileServer> {
  let connections = 0
  const server = createHttpServer((req, res) => {
    req.resume()
    res.writeHead(200, {'content-type': 'application/json'}).end('{}')
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
