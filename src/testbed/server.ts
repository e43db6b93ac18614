import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {z} from 'zod'
import {Engine, type EngineOutcome, type OverflowMode} from './engine.js'
import {errorBody, rejectionMessage, rejectionParam, sglangStreamError, type ErrorStyle} from './error-bodies.js'
import {renderMetrics} from './metrics.js'
import {tokenId, tokenize} from './tokenizer.js'

// An OpenAI-compatible HTTP front end over the simulated engine, on node:http alone.
// A simulator: it models KV paging, prefix caching and the known failure modes, not a model.

export interface TestbedOptions {
  host?: string
  /** 0 picks a free port. */
  port?: number
  poolTokens?: number
  pageSize?: number
  maxModelLen?: number
  onOverflow?: OverflowMode
  disaggregated?: boolean
  errorStyle?: ErrorStyle
  prefixCache?: boolean
  ignoreCacheSalt?: boolean
  model?: string
  /** When set, /v1 routes require `Authorization: Bearer <apiKey>` (like vLLM's --api-key). */
  apiKey?: string
  now?: () => Date
}

export interface Testbed {
  url: string
  engine: Engine
  close(): Promise<void>
}

export const TESTBED_DEFAULTS = {
  host: '127.0.0.1',
  port: 8000,
  poolTokens: 4096,
  pageSize: 16,
  maxModelLen: 16384,
  onOverflow: 'reject' as OverflowMode,
  errorStyle: 'vllm' as ErrorStyle,
  model: 'crosstalk-testbed',
}

const MAX_BODY = 16 * 1024 * 1024
const DEFAULT_MAX_TOKENS = 64

const content = z.union([z.string(), z.array(z.object({type: z.string(), text: z.string().optional()}).loose())]).nullish()
const common = {
  model: z.string().optional(),
  stream: z.boolean().nullish(),
  stream_options: z.object({include_usage: z.boolean().nullish()}).loose().nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  cache_salt: z.string().min(1, "Parameter 'cache_salt' must be a non-empty string if provided.").optional(),
}
const ChatRequest = z.object({...common, messages: z.array(z.object({role: z.string(), content}).loose()).min(1)}).loose()
const CompletionRequest = z.object({...common, prompt: z.union([z.string(), z.array(z.string())])}).loose()
const TokenizeRequest = z.union([
  z.object({prompt: z.string(), return_token_strs: z.boolean().nullish()}).loose(),
  z.object({messages: z.array(z.object({role: z.string(), content}).loose()), return_token_strs: z.boolean().nullish()}).loose(),
])

type Kind = 'chat' | 'completion'

function chatText(messages: z.infer<typeof ChatRequest>['messages']): string {
  return messages
    .map((m) => (typeof m.content === 'string' ? m.content : (m.content ?? []).map((part) => part.text ?? '').join(' ')))
    .join('\n')
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

export async function startTestbed(options: TestbedOptions = {}): Promise<Testbed> {
  const opts = {...TESTBED_DEFAULTS, ...stripUndefined(options)}
  if (opts.poolTokens < opts.pageSize) throw new Error(`--pool-tokens (${opts.poolTokens}) must hold at least one page of ${opts.pageSize} tokens`)
  const engine = new Engine({
    poolTokens: opts.poolTokens,
    pageSize: opts.pageSize,
    maxModelLen: opts.maxModelLen,
    onOverflow: opts.onOverflow,
    disaggregated: options.disaggregated ?? false,
    prefixCache: options.prefixCache ?? true,
    ignoreCacheSalt: options.ignoreCacheSalt ?? false,
  })
  const now = options.now ?? (() => new Date())
  let seq = 0

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500
      const message = error instanceof z.ZodError ? (error.issues[0]?.message ?? 'invalid request') : (error as Error).message
      if (!res.headersSent) sendJson(res, status, errorBody(opts.errorStyle, message))
      else res.end()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    if (path.startsWith('/v1/') && opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      sendJson(res, 401, {error: {message: 'Unauthorized', type: 'AuthenticationError', param: null, code: 401}})
      return
    }
    if (req.method === 'GET' && path === '/health') return void res.writeHead(200).end()
    if (req.method === 'GET' && path === '/metrics') {
      res.writeHead(200, {'content-type': 'text/plain; version=0.0.4; charset=utf-8'})
      return void res.end(renderMetrics(engine, opts.model))
    }
    if (req.method === 'GET' && path === '/v1/models') {
      const created = Math.floor(now().getTime() / 1000)
      return sendJson(res, 200, {object: 'list', data: [{id: opts.model, object: 'model', created, owned_by: 'crosstalk-testbed', max_model_len: opts.maxModelLen}]})
    }
    if (req.method === 'POST' && (path === '/tokenize' || path === '/v1/tokenize')) {
      const body = TokenizeRequest.parse(await readJson(req))
      const tokens = tokenize(typeof body.prompt === 'string' ? body.prompt : chatText(body.messages as z.infer<typeof ChatRequest>['messages']))
      return sendJson(res, 200, {count: tokens.length, max_model_len: opts.maxModelLen, tokens: tokens.map(tokenId), token_strs: body.return_token_strs ? tokens : null})
    }
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      const body = ChatRequest.parse(await readJson(req))
      return generate(res, 'chat', chatText(body.messages), body)
    }
    if (req.method === 'POST' && path === '/v1/completions') {
      const body = CompletionRequest.parse(await readJson(req))
      return generate(res, 'completion', Array.isArray(body.prompt) ? body.prompt.join('\n') : body.prompt, body)
    }
    throw new HttpError(404, `Not Found: ${req.method} ${path}`)
  }

  function generate(res: ServerResponse, kind: Kind, prompt: string, body: z.infer<typeof ChatRequest> | z.infer<typeof CompletionRequest>): void {
    const stream = body.stream === true
    const maxTokens = body.max_completion_tokens ?? body.max_tokens ?? DEFAULT_MAX_TOKENS
    const outcome = engine.process({tokens: tokenize(prompt), maxTokens, cacheSalt: body.cache_salt ?? null})
    if (outcome.kind === 'hang') return // Never answers: the socket stays open until the client gives up or we close.
    const id = `${kind === 'chat' ? 'chatcmpl' : 'cmpl'}-testbed-${++seq}`
    const created = Math.floor(now().getTime() / 1000)
    if (outcome.kind === 'rejected') {
      const message = rejectionMessage(opts.errorStyle, {...outcome, maxModelLen: opts.maxModelLen, poolTokens: engine.prefill.capacityTokens})
      // SGLang's scheduler rejects an over-pool prompt after the stream has started: HTTP 200, error event.
      if (stream && opts.errorStyle === 'sglang' && outcome.reason === 'pool') {
        startSse(res)
        res.write(`data: ${JSON.stringify(sglangStreamError(message, opts.model))}\n\n`)
        return void res.end('data: [DONE]\n\n')
      }
      return sendJson(res, 400, errorBody(opts.errorStyle, message, rejectionParam(outcome.reason)))
    }
    const usage = usageOf(outcome)
    if (!stream) {
      const choice =
        kind === 'chat'
          ? {index: 0, message: {role: 'assistant', content: outcome.text}, logprobs: null, finish_reason: outcome.finishReason}
          : {index: 0, text: outcome.text, logprobs: null, finish_reason: outcome.finishReason}
      return sendJson(res, 200, {id, object: kind === 'chat' ? 'chat.completion' : 'text_completion', created, model: opts.model, choices: [choice], usage})
    }
    startSse(res)
    const object = kind === 'chat' ? 'chat.completion.chunk' : 'text_completion'
    const send = (choices: unknown[], extra: object = {}): void => {
      res.write(`data: ${JSON.stringify({id, object, created, model: opts.model, choices, ...extra})}\n\n`)
    }
    const piece = (text: string, finish: string | null): object =>
      kind === 'chat' ? {index: 0, delta: text === '' && finish !== null ? {} : {content: text}, logprobs: null, finish_reason: finish} : {index: 0, text, logprobs: null, finish_reason: finish}
    if (kind === 'chat') send([{index: 0, delta: {role: 'assistant', content: ''}, logprobs: null, finish_reason: null}])
    // Small fixed-size chunks: a marker is routinely split across two events, as in real streams.
    for (let i = 0; i < outcome.text.length; i += 7) send([piece(outcome.text.slice(i, i + 7), null)])
    send([piece('', outcome.finishReason)])
    if (body.stream_options?.include_usage) send([], {usage})
    res.end('data: [DONE]\n\n')
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => resolve())
  })
  const address = server.address() as AddressInfo
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${host}:${address.port}`,
    engine,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        // Hung requests never finish on their own.
        server.closeAllConnections()
      }),
  }
}

function usageOf(outcome: Extract<EngineOutcome, {kind: 'served'}>): object {
  return {
    prompt_tokens: outcome.promptTokens,
    completion_tokens: outcome.completionTokens,
    total_tokens: outcome.promptTokens + outcome.completionTokens,
    prompt_tokens_details: {cached_tokens: outcome.cachedTokens},
  }
}

function startSse(res: ServerResponse): void {
  res.writeHead(200, {'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive'})
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {'content-type': 'application/json', 'content-length': Buffer.byteLength(text)})
  res.end(text)
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY) throw new HttpError(413, `request body over ${MAX_BODY} bytes`)
    chunks.push(chunk as Buffer)
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new HttpError(400, 'request body is not JSON')
  }
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
