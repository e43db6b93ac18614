// A small OpenAI-compatible client for probing: it needs what the official SDKs hide (the raw
// status, an error event inside a 200 stream, a hard wall-clock limit that tells a hang from an
// error) and nothing they add. Uses Node's global fetch.

import {InputError} from '../errors.js'

export type RequestOutcome = 'served' | 'rejected' | 'hung' | 'error'
export type Endpoint = 'chat' | 'completions'

export interface ClientOptions {
  baseUrl: URL
  apiKey?: string
  timeoutMs: number
  /** Retries on 429 and 503, with exponential backoff (Retry-After honoured, capped). */
  retries?: number
  backoffMs?: number
  signal?: AbortSignal
  sleep?: (ms: number) => Promise<void>
}

export interface GenerateRequest {
  endpoint: Endpoint
  text: string
  stream: boolean
  maxTokens: number
  model: string
  cacheSalt?: string
}

export interface GenerateResult {
  outcome: RequestOutcome
  httpStatus: number | null
  /** What the client received: message content, completion text, or reassembled stream deltas. */
  text: string
  cachedTokens: number | null
  promptTokens: number | null
  error: string | null
  /** True when the rejection arrived as an error event inside an HTTP 200 stream (SGLang). */
  inStreamError: boolean
  elapsedMs: number
  attempts: number
}

export interface TokenizeResult {
  count: number
  maxModelLen: number | null
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export class ServingClient {
  private tokenizePath: string | null | undefined

  constructor(private readonly options: ClientOptions) {}

  private url(path: string): string {
    const base = this.options.baseUrl.href.replace(/\/+$/, '').replace(/\/v1$/, '')
    return base + path
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {'content-type': 'application/json'}
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`
    return headers
  }

  private signal(): AbortSignal {
    const timeout = AbortSignal.timeout(this.options.timeoutMs)
    return this.options.signal ? AbortSignal.any([timeout, this.options.signal]) : timeout
  }

  /** Model id from /v1/models; throws when the target cannot be reached at all. */
  async firstModel(): Promise<string | null> {
    const response = await fetch(this.url('/v1/models'), {headers: this.headers(), signal: this.signal()})
    if (!response.ok) return null
    const body = (await response.json().catch(() => null)) as {data?: Array<{id?: unknown}>} | null
    const id = body?.data?.[0]?.id
    return typeof id === 'string' ? id : null
  }

  /**
   * The model to request: the one asked for, else the server's first. Also the reachability
   * check every run starts with, so an unreachable target is one clear input error.
   */
  async resolveModel(preferred: string | undefined | null, origin: string): Promise<string> {
    if (preferred) return preferred
    try {
      return (await this.firstModel()) ?? 'default'
    } catch (error) {
      throw new InputError(`cannot reach ${origin}: ${networkCause(error)}`, 'E_TARGET_UNREACHABLE')
    }
  }

  /** Exact token count from the server's own tokenizer (vLLM `/tokenize`, SGLang `/v1/tokenize`); null if it has none. */
  async tokenize(text: string, endpoint: Endpoint, model: string): Promise<TokenizeResult | null> {
    const paths = this.tokenizePath === undefined ? ['/tokenize', '/v1/tokenize'] : this.tokenizePath === null ? [] : [this.tokenizePath]
    for (const path of paths) {
      // The chat form counts the chat template's tokens too, so it matches what the chat endpoint sees.
      const body = endpoint === 'chat' ? {model, messages: [{role: 'user', content: text}]} : {model, prompt: text}
      try {
        const response = await fetch(this.url(path), {method: 'POST', headers: this.headers(), body: JSON.stringify(body), signal: this.signal()})
        if (!response.ok) continue
        const parsed = (await response.json()) as {count?: unknown; tokens?: unknown; max_model_len?: unknown}
        const count = typeof parsed.count === 'number' ? parsed.count : Array.isArray(parsed.tokens) ? parsed.tokens.length : null
        if (count === null) continue
        this.tokenizePath = path
        return {count, maxModelLen: typeof parsed.max_model_len === 'number' ? parsed.max_model_len : null}
      } catch {
        continue
      }
    }
    this.tokenizePath = null
    return null
  }

  /** Raw Prometheus text from /metrics, or null. */
  async metrics(): Promise<string | null> {
    try {
      const response = await fetch(this.url('/metrics'), {headers: this.headers(), signal: this.signal()})
      return response.ok ? await response.text() : null
    } catch {
      return null
    }
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const retries = this.options.retries ?? 3
    const sleep = this.options.sleep ?? defaultSleep
    const started = Date.now()
    let attempt = 0
    for (;;) {
      attempt++
      const result = await this.once(request)
      const retryable = result.httpStatus === 429 || result.httpStatus === 503
      if (!retryable || attempt > retries || this.options.signal?.aborted) {
        return {...result, elapsedMs: Date.now() - started, attempts: attempt, outcome: retryable ? 'error' : result.outcome}
      }
      const retryAfter = Number(result.retryAfter)
      const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter * 1000, 10_000) : (this.options.backoffMs ?? 250) * 2 ** (attempt - 1)
      await sleep(wait)
    }
  }

  private async once(request: GenerateRequest): Promise<Omit<GenerateResult, 'elapsedMs' | 'attempts'> & {retryAfter: string | null}> {
    const base = {httpStatus: null, text: '', cachedTokens: null, promptTokens: null, error: null, inStreamError: false, retryAfter: null}
    const body: Record<string, unknown> = {model: request.model, max_tokens: request.maxTokens, temperature: 0, stream: request.stream}
    if (request.endpoint === 'chat') body.messages = [{role: 'user', content: request.text}]
    else body.prompt = request.text
    if (request.stream) body.stream_options = {include_usage: true}
    if (request.cacheSalt !== undefined) body.cache_salt = request.cacheSalt
    const signal = this.signal()
    try {
      const response = await fetch(this.url(request.endpoint === 'chat' ? '/v1/chat/completions' : '/v1/completions'), {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify(body),
        signal,
      })
      const raw = await response.text()
      const status = response.status
      const retryAfter = response.headers.get('retry-after')
      if (status >= 400 && status < 500) return {...base, outcome: 'rejected', httpStatus: status, error: errorMessage(raw) ?? `HTTP ${status}`, retryAfter}
      if (status < 200 || status >= 300) return {...base, outcome: 'error', httpStatus: status, error: errorMessage(raw) ?? `HTTP ${status}`, retryAfter}
      const parsed = (response.headers.get('content-type') ?? '').includes('text/event-stream') || raw.trimStart().startsWith('data:') ? parseSse(raw) : parseJson(raw)
      if (parsed.error !== null) return {...base, outcome: 'rejected', httpStatus: status, error: parsed.error, inStreamError: parsed.isStream, text: parsed.text}
      return {...base, outcome: 'served', httpStatus: status, text: parsed.text, cachedTokens: parsed.cachedTokens, promptTokens: parsed.promptTokens}
    } catch (error) {
      if (this.options.signal?.aborted) return {...base, outcome: 'error', error: 'interrupted'}
      if (signal.aborted) return {...base, outcome: 'hung', error: `no complete answer within ${this.options.timeoutMs} ms`}
      const cause = (error as {cause?: {code?: string; message?: string}}).cause
      return {...base, outcome: 'error', error: cause?.code ?? cause?.message ?? (error as Error).message}
    }
  }
}

interface ParsedBody {
  text: string
  error: string | null
  cachedTokens: number | null
  promptTokens: number | null
  isStream: boolean
}

interface Chunk {
  error?: unknown
  object?: unknown
  message?: unknown
  choices?: Array<{delta?: {content?: unknown}; message?: {content?: unknown}; text?: unknown}> | null
  usage?: {prompt_tokens?: unknown; prompt_tokens_details?: {cached_tokens?: unknown} | null} | null
}

function usageOf(chunk: Chunk): {cachedTokens: number | null; promptTokens: number | null} {
  const cached = chunk.usage?.prompt_tokens_details?.cached_tokens
  const prompt = chunk.usage?.prompt_tokens
  return {cachedTokens: typeof cached === 'number' ? cached : null, promptTokens: typeof prompt === 'number' ? prompt : null}
}

function chunkError(chunk: Chunk): string | null {
  if (chunk.error !== undefined && chunk.error !== null) {
    const error = chunk.error as {message?: unknown}
    return typeof error.message === 'string' ? error.message : JSON.stringify(chunk.error)
  }
  if (chunk.object === 'error') return typeof chunk.message === 'string' ? chunk.message : 'error'
  return null
}

function parseJson(raw: string): ParsedBody {
  let chunk: Chunk
  try {
    chunk = JSON.parse(raw) as Chunk
  } catch {
    return {text: raw, error: null, cachedTokens: null, promptTokens: null, isStream: false}
  }
  const choice = chunk.choices?.[0]
  const content = choice?.message?.content ?? choice?.text
  return {text: typeof content === 'string' ? content : '', error: chunkError(chunk), ...usageOf(chunk), isStream: false}
}

/** Reassembles an SSE body: deltas concatenated (a marker split across events is one marker), any error event noted. */
export function parseSse(raw: string): ParsedBody {
  const out: ParsedBody = {text: '', error: null, cachedTokens: null, promptTokens: null, isStream: true}
  for (const line of raw.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue
    const data = line.slice(5).trim()
    if (data === '' || data === '[DONE]') continue
    let chunk: Chunk
    try {
      chunk = JSON.parse(data) as Chunk
    } catch {
      continue
    }
    out.error ??= chunkError(chunk)
    for (const choice of chunk.choices ?? []) {
      const piece = choice.delta?.content ?? choice.text
      if (typeof piece === 'string') out.text += piece
    }
    const usage = usageOf(chunk)
    if (usage.cachedTokens !== null) out.cachedTokens = usage.cachedTokens
    if (usage.promptTokens !== null) out.promptTokens = usage.promptTokens
  }
  return out
}

function errorMessage(raw: string): string | null {
  try {
    const body = JSON.parse(raw) as Chunk
    return chunkError(body) ?? (typeof body.message === 'string' ? body.message : null)
  } catch {
    return raw.trim().slice(0, 300) || null
  }
}

/** fetch() hides the reason in `cause` (sometimes an AggregateError of per-address attempts). */
function networkCause(error: unknown): string {
  let e = error as {code?: unknown; cause?: unknown; errors?: unknown[]; message?: string} | undefined
  let deepest = (error as Error).message
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string') return e.code
    if (typeof e.message === 'string' && e.message) deepest = e.message
    if (Array.isArray(e.errors) && e.errors.length > 0) e = e.errors[0] as typeof e
    else e = e.cause as typeof e
  }
  return deepest
}
