import {createServer, type IncomingHttpHeaders, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'

// A loopback server whose every answer a test scripts: the misbehaviour QA found in real stacks
// (a leak followed by an error event, an error key beside choices, 401/404 from a proxy, a
// tokenizer's placeholder window). The script sees each request with its prompt, the prompt's
// own markers and the most recent earlier marker that is not its own (another tenant's), and
// returns a reply, or undefined for the default: /v1/models lists model `m`, anything else 404.

const CANARY = /CANARY-[0-9a-f]{8,}/gi

export interface Ask {
  method: string
  path: string
  /** The request target as sent: path and query. */
  url: string
  headers: IncomingHttpHeaders
  body: Record<string, unknown>
  /** The prompt text (chat messages joined, or the completion prompt). */
  prompt: string
  own: string[]
  /** The latest marker of an earlier prompt that this prompt does not hold, or null. */
  foreign: string | null
  stream: boolean
}

export type Reply =
  | {status?: number; json: unknown}
  /** SSE events (each JSON-encoded), then `data: [DONE]` unless done is false. */
  | {status?: number; sse: unknown[]; done?: boolean}
  /** Bytes as given, with the given headers (an HTML page, a BOM, a compressed body); keepOpen: the response never ends. */
  | {status?: number; headers: Record<string, string>; raw: string | Buffer; keepOpen?: boolean}
  | 'hang'

export interface ScriptedServer {
  url: string
  /** Requests seen, by path. */
  asks: Ask[]
  close: () => Promise<void>
}

export async function startScriptedServer(script: (ask: Ask) => Reply | undefined): Promise<ScriptedServer> {
  const seen: string[] = []
  const asks: Ask[] = []
  const hanging: ServerResponse[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let body: Record<string, unknown> = {}
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>
      } catch {
        body = {}
      }
      const messages = Array.isArray(body.messages) ? (body.messages as Array<{content?: unknown}>) : null
      const prompt = messages ? messages.map((m) => (typeof m.content === 'string' ? m.content : '')).join(' ') : typeof body.prompt === 'string' ? body.prompt : ''
      const own: string[] = prompt.match(CANARY) ?? []
      const foreign = [...seen].reverse().find((m) => !own.includes(m)) ?? null
      const path = (req.url ?? '/').split('?')[0]!
      if (path.includes('completions')) seen.push(...own)
      const ask: Ask = {method: req.method ?? 'GET', path, url: req.url ?? '/', headers: req.headers, body, prompt, own, foreign, stream: body.stream === true}
      asks.push(ask)
      const reply = script(ask) ?? (path === '/v1/models' ? {json: {object: 'list', data: [{id: 'm', object: 'model'}]}} : {status: 404, json: {error: {message: 'not found'}}})
      if (reply === 'hang') {
        hanging.push(res)
        return
      }
      if ('raw' in reply) {
        res.writeHead(reply.status ?? 200, reply.headers)
        if (reply.keepOpen) {
          res.write(reply.raw)
          hanging.push(res)
        } else res.end(reply.raw)
        return
      }
      if ('sse' in reply) {
        res.writeHead(reply.status ?? 200, {'content-type': 'text/event-stream'})
        res.end(reply.sse.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('') + (reply.done === false ? '' : 'data: [DONE]\n\n'))
        return
      }
      res.writeHead(reply.status ?? 200, {'content-type': 'application/json'}).end(JSON.stringify(reply.json))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    asks,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** A chat completion carrying `text`, with optional usage. */
export function chatAnswer(text: string, usage?: {prompt_tokens?: number; cached_tokens?: number | null}): Record<string, unknown> {
  return {
    id: 'x',
    object: 'chat.completion',
    model: 'm',
    choices: [{index: 0, message: {role: 'assistant', content: text}, finish_reason: 'stop'}],
    usage: {
      prompt_tokens: usage?.prompt_tokens ?? 10,
      completion_tokens: 2,
      total_tokens: 12,
      ...(usage?.cached_tokens !== undefined && usage.cached_tokens !== null ? {prompt_tokens_details: {cached_tokens: usage.cached_tokens}} : {}),
    },
  }
}

/** A stream's content delta event. */
export function delta(text: string): Record<string, unknown> {
  return {object: 'chat.completion.chunk', choices: [{index: 0, delta: {content: text}}]}
}

/** vLLM's mid-stream GenerationError, as the error event it sends (code 500). */
export const SERVER_ERROR_EVENT = {error: {message: 'generation failed', type: 'InternalServerError', code: 500}}
