import {createServer, type IncomingMessage, type ServerResponse} from 'node:http'
import type {AddressInfo, Socket} from 'node:net'
import {Engine, type EngineOutcome, type OverflowMode} from './engine.js'
import {errorBody, METHOD_NOT_ALLOWED, NOT_FOUND, rejectionMessage, rejectionParam, sglangStreamError, UNAUTHORIZED, type ErrorInfo, type ErrorStyle} from './error-bodies.js'
import {renderMetrics} from './metrics.js'
import {tokenId, tokenize} from './tokenizer.js'
import {parseBody, pydanticMessage, validateChat, validateCompletion, validateTokenize, type FieldError, type GenerationRequest, type Validated} from './validate.js'

// An OpenAI-compatible HTTP front end over the simulated engine, on node:http alone.
// A simulator: it models KV paging, prefix caching and the known failure modes, not a model.
// What a client sees follows vLLM's OpenAI server (status codes, error bodies, defaults, `n`,
// /version, the model-name check); where the testbed departs from released vLLM on purpose
// (--on-overflow reject: an explicit 400 in the gap) the message says so in the code.

/** What /version reports: parseable as a version, and plainly not a vLLM release. */
export const TESTBED_VERSION = '0.0.0+crosstalk.testbed'

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
  /** Stops listening and closes every connection at once (hung requests included); resolves with how many were open. */
  close(): Promise<{connections: number}>
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

type Kind = 'chat' | 'completion'

/** Routes and their methods: a known path with another method is 405, anything else 404 (FastAPI). */
const ROUTES: Record<string, readonly string[]> = {
  '/health': ['GET'],
  '/version': ['GET'],
  '/metrics': ['GET'],
  '/v1/models': ['GET'],
  '/tokenize': ['POST'],
  '/v1/tokenize': ['POST'],
  '/v1/chat/completions': ['POST'],
  '/v1/completions': ['POST'],
}

/** An error answered as JSON with this status and body. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: object,
  ) {
    super(`HTTP ${status}`)
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

  const fail = (status: number, info: Omit<ErrorInfo, 'code'>): HttpError => new HttpError(status, errorBody(opts.errorStyle, {...info, code: status}))
  /** pydantic rejected the body: vLLM's RequestValidationError handler (HTTP 400, type "Bad Request"). */
  const invalid = (errors: readonly FieldError[]): HttpError =>
    fail(400, {message: pydanticMessage(errors), type: 'Bad Request', param: opts.errorStyle === 'vllm' ? (errors.find((e) => e.param)?.param ?? null) : null})
  const valid = <T>(result: Validated<T>): T => {
    if (!result.ok) throw invalid(result.errors)
    return result.value
  }
  /** vLLM's _check_model: an unknown model name is 404 (no name means the served model). */
  const checkModel = (model: string | null): void => {
    if (model !== null && model !== opts.model) throw fail(404, {message: `The model \`${model}\` does not exist.`, type: 'NotFoundError', param: opts.errorStyle === 'vllm' ? 'model' : null})
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const reply = error instanceof HttpError ? error : fail(500, {message: (error as Error).message, type: 'InternalServerError', param: null})
      if (!res.headersSent) sendJson(res, reply.status, reply.body)
      else res.end()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    // vLLM's API-key middleware guards /v1 paths only, before routing.
    if (path.startsWith('/v1') && opts.apiKey !== undefined && req.headers.authorization !== `Bearer ${opts.apiKey}`) {
      return sendJson(res, 401, UNAUTHORIZED)
    }
    const methods = ROUTES[path]
    if (methods === undefined) return sendJson(res, 404, NOT_FOUND)
    if (!methods.includes(req.method ?? '')) {
      res.setHeader('allow', methods.join(', '))
      return sendJson(res, 405, METHOD_NOT_ALLOWED)
    }
    if (path === '/health') return void res.writeHead(200).end()
    if (path === '/version') return sendJson(res, 200, {version: TESTBED_VERSION})
    if (path === '/metrics') {
      res.writeHead(200, {'content-type': 'text/plain; version=0.0.4; charset=utf-8'})
      return void res.end(renderMetrics(engine, opts.model))
    }
    if (path === '/v1/models') {
      const created = Math.floor(now().getTime() / 1000)
      return sendJson(res, 200, {object: 'list', data: [{id: opts.model, object: 'model', created, owned_by: 'crosstalk-testbed', root: opts.model, parent: null, max_model_len: opts.maxModelLen, permission: []}]})
    }
    const body = valid(parseBody(await readBody(req)))
    if (path === '/tokenize' || path === '/v1/tokenize') {
      const request = valid(validateTokenize(body))
      checkModel(request.model)
      const tokens = tokenize(request.text)
      return sendJson(res, 200, {count: tokens.length, max_model_len: opts.maxModelLen, tokens: tokens.map(tokenId), token_strs: request.returnTokenStrs ? tokens : null})
    }
    const kind: Kind = path === '/v1/chat/completions' ? 'chat' : 'completion'
    const request = valid(kind === 'chat' ? validateChat(body) : validateCompletion(body))
    checkModel(request.model)
    return generate(res, kind, request)
  }

  function generate(res: ServerResponse, kind: Kind, request: GenerationRequest): void {
    const tokens = tokenize(request.text)
    // vLLM's get_max_tokens: without max_tokens a request may use what is left of the window.
    const maxTokens = request.maxTokens ?? Math.max(0, opts.maxModelLen - tokens.length)
    // SamplingParams' checks come after the length checks (the engine's), so only for prompts that fit.
    if (tokens.length < opts.maxModelLen) {
      if (request.n < 1) throw fail(400, {message: `n must be at least 1, got ${request.n}.`, type: 'BadRequestError', param: null})
      if (maxTokens < 1) {
        const param = opts.errorStyle === 'vllm' ? 'max_tokens' : null
        throw fail(400, {message: `max_tokens must be at least 1, got ${maxTokens}. (parameter=max_tokens, value=${maxTokens})`, type: 'BadRequestError', param})
      }
    }
    const stream = request.stream
    const n = Math.max(1, request.n)
    const outcome = engine.process({tokens, maxTokens, cacheSalt: request.cacheSalt})
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
      throw fail(400, {message, type: 'BadRequestError', param: opts.errorStyle === 'vllm' ? rejectionParam(outcome.reason) : null})
    }
    // n sequences share the prompt; the deterministic "model" writes the same answer for each.
    const usage = usageOf(outcome, n)
    const indices = Array.from({length: n}, (_, i) => i)
    if (!stream) {
      const choices = indices.map((index) =>
        kind === 'chat'
          ? {index, message: {role: 'assistant', content: outcome.text}, logprobs: null, finish_reason: outcome.finishReason}
          : {index, text: outcome.text, logprobs: null, finish_reason: outcome.finishReason},
      )
      return sendJson(res, 200, {id, object: kind === 'chat' ? 'chat.completion' : 'text_completion', created, model: opts.model, choices, usage})
    }
    startSse(res)
    const object = kind === 'chat' ? 'chat.completion.chunk' : 'text_completion'
    const send = (choices: unknown[], extra: object = {}): void => {
      res.write(`data: ${JSON.stringify({id, object, created, model: opts.model, choices, ...extra})}\n\n`)
    }
    const piece = (index: number, text: string, finish: string | null): object =>
      kind === 'chat' ? {index, delta: text === '' && finish !== null ? {} : {content: text}, logprobs: null, finish_reason: finish} : {index, text, logprobs: null, finish_reason: finish}
    for (const index of indices) {
      if (kind === 'chat') send([{index, delta: {role: 'assistant', content: ''}, logprobs: null, finish_reason: null}])
      // Small fixed-size chunks: a marker is routinely split across two events, as in real streams.
      for (let i = 0; i < outcome.text.length; i += 7) send([piece(index, outcome.text.slice(i, i + 7), null)])
      send([piece(index, '', outcome.finishReason)])
    }
    if (request.includeUsage) send([], {usage})
    res.end('data: [DONE]\n\n')
  }

  const sockets = new Set<Socket>()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
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
      new Promise<{connections: number}>((resolve) => {
        const connections = sockets.size
        // Hung requests never finish on their own, and keep-alive clients would hold close() open.
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve({connections}))
      }),
  }
}

function usageOf(outcome: Extract<EngineOutcome, {kind: 'served'}>, n: number): object {
  return {
    prompt_tokens: outcome.promptTokens,
    completion_tokens: outcome.completionTokens * n,
    total_tokens: outcome.promptTokens + outcome.completionTokens * n,
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

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    // Ours (uvicorn sets no limit): the simulator does not buffer unbounded bodies.
    if (size > MAX_BODY) throw new HttpError(413, {error: {message: `request body over ${MAX_BODY} bytes`, type: 'Request Entity Too Large', param: null, code: 413}})
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>
}
