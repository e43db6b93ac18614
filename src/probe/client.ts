// A small OpenAI-compatible client for probing: it needs what the official SDKs hide (the raw
// status, an error event inside a 200 stream, a hard wall-clock limit that tells a hang from an
// error) and nothing they add. Every request goes through exchange() (./http.ts), which always
// ends: a deadline, a cap on bytes read, no redirects followed.
//
// A target that hangs, resets, answers with something that is not HTTP, redirects, or stays
// overloaded for a whole --timeout trips the client's breaker: the first such failure is kept
// in `failure`, and the runs stop sending (each further request could only cost another
// --timeout; on vLLM a request stuck in the scheduler holds up the ones behind it).

import {CliError, InputError} from '../errors.js'
import {decodeResponse} from '../extract/decode.js'
import {DuplicateKeyError} from '../extract/duplicate-keys.js'
import {DEFAULT_MAX_RESPONSE_BYTES, exchange, ExchangeFailure, isUnreachable, looksLikeSse, type ExchangeResponse} from './http.js'
import {count} from '../util/plural.js'
import {scrubSecrets, targetSecrets} from '../util/target-url.js'

export type RequestOutcome = 'served' | 'rejected' | 'hung' | 'error'
export type Endpoint = 'chat' | 'completions'

export interface ClientOptions {
  baseUrl: URL
  apiKey?: string
  /** Wall-clock bound of one request, retries included. */
  timeoutMs: number
  /** Retries on 429 and 503, with exponential backoff (Retry-After honoured while it fits the timeout). */
  retries?: number
  backoffMs?: number
  /** Bytes read from one response at most. */
  maxResponseBytes?: number
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
  /**
   * Every text the client received, read as ingest reads a logged answer (decodeResponse):
   * string content or content parts, reasoning, tool-call arguments, refusals, completion text,
   * stream deltas reassembled. Empty when the answer carried none it could read.
   */
  text: string
  /**
   * The whole body as received (its charset and Content-Encoding decoded), whatever its shape:
   * searched for markers beside `text` (receivedText), since a marker can sit where no answer
   * shape puts text (an HTML error page, a plain-text 500, a member no completion has, a key
   * given twice). Never printed or stored. It holds every attempt's body (a 429 or 503 retried
   * delivered its body too), and what a response that then stalled or reset had delivered (`text` is then what those bytes read as). Empty when no body came back.
   */
  body: string
  /**
   * Why a streamed answer was not read whole, or null: it ended without `data: [DONE]` (cut off),
   * or an event's data was no JSON document (malformed, or cut off mid-event). Its text, such
   * events' raw text included, is searched all the same; but an answer that holds no foreign
   * marker is no clean observation (what was not read is not known): callers count it apart.
   */
  incomplete: string | null
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
  /** The window /tokenize reported, when it is one (see plausibleWindow). */
  maxModelLen: number | null
  /**
   * A max_model_len /tokenize reported that is no window, as the server wrote it: SGLang reports
   * its tokenizer's model_max_length, which Hugging Face sets to int(1e30) when the model sets none.
   */
  ignoredMaxModelLen: string | null
}

/**
 * The largest context window taken as real (tokens). Released models stop at about ten million;
 * anything past this (1e30, 2^63) is a placeholder, and sizing prompts by it would be wrong.
 */
export const MAX_PLAUSIBLE_WINDOW = 100_000_000

/** Whether a reported max_model_len can be a context window: a whole number from 2 to MAX_PLAUSIBLE_WINDOW. */
export function plausibleWindow(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 2 && n <= MAX_PLAUSIBLE_WINDOW
}

/**
 * Tokens a chat template may add around a message (a system prompt, role markers): generous, as
 * templates with a long default system prompt exist; what matters is that 1e18 is far past it.
 */
const TEMPLATE_TOKENS = 100_000

/**
 * Whether a /tokenize count can be the size of `text`: a whole number of at least 1 (the text sent
 * is never empty) and no more than its UTF-8 bytes plus a template's tokens (byte-level BPE and
 * byte-fallback tokenizers give at most one token per byte).
 */
export function plausibleCount(n: number, text: string): boolean {
  return Number.isSafeInteger(n) && n >= 1 && n <= Buffer.byteLength(text, 'utf8') + TEMPLATE_TOKENS
}

/**
 * HTTP statuses the serving stack answers a prompt past its window with: vLLM and SGLang 400,
 * TGI 422. A 413 is a proxy's (a body-size limit in front of the stack: the request never reached
 * it), and any other 4xx (401 and 403: our credentials; 404, 405: a wrong route; 408, 409...) says
 * nothing about the prompt either.
 */
const REJECTION_STATUSES = new Set([400, 422])

/**
 * What the stacks' own refusal of an over-long prompt says: vLLM "This model's maximum context
 * length is N tokens..." or "'max_tokens' ... is too large"; SGLang "The input (N tokens) is
 * longer than the model's context length" or "Requested token count exceeds the model's maximum
 * context length"; OpenAI's code context_length_exceeded; TGI "`inputs` tokens + `max_new_tokens`
 * must be <= N". Tests' stand-ins say "too long".
 */
const CONTEXT_LENGTH_MESSAGE = /context[ _]length|context window|max_model_len|maximum context|too long|too large|exceeds?\b|must be <= ?\d|input_tokens/i

/**
 * Whether an error is the serving stack's own refusal of the prompt's length: an error JSON (vLLM,
 * SGLang, OpenAI or TGI shape: `error` object or string, or `object: "error"` with a message)
 * whose message or code names the context length. An HTML page, plain text or a bare status is
 * a proxy's or gateway's: the request may never have reached the stack.
 */
function contextRejection(chunk: unknown): boolean {
  if (chunk === null || typeof chunk !== 'object') return false
  const c = chunk as Chunk & {error_type?: unknown}
  const error = c.error !== undefined && c.error !== null && typeof c.error === 'object' ? (c.error as {message?: unknown; code?: unknown; param?: unknown}) : null
  const message = error !== null ? error.message : typeof c.error === 'string' ? c.error : c.object === 'error' ? c.message : undefined
  const said = [message, error?.code, error?.param, c.object === 'error' ? (c as {param?: unknown}).param : undefined].filter((v): v is string => typeof v === 'string')
  return said.some((text) => CONTEXT_LENGTH_MESSAGE.test(text))
}

/**
 * Whether an answer says the model asked for is not served: a 404 whose error names the model
 * (vLLM's NotFoundError "The model `x` does not exist." with param "model", SGLang's same message,
 * OpenAI's code model_not_found). Not a missing route, nor a missing /tokenize: a wrong --model.
 */
export function modelNotServed(status: number, body: string): boolean {
  if (status !== 404) return false
  const parsed = safeJson(body) as {error?: unknown; param?: unknown; code?: unknown; message?: unknown; detail?: unknown} | null
  if (parsed === null || typeof parsed !== 'object') return false
  const error = (parsed.error !== null && typeof parsed.error === 'object' ? parsed.error : parsed) as {param?: unknown; code?: unknown; message?: unknown}
  if (error.param === 'model' || error.code === 'model_not_found') return true
  const message = typeof error.message === 'string' ? error.message : typeof parsed.detail === 'string' ? parsed.detail : ''
  return /\bmodel\b.*\b(does not exist|not found|not served|unknown)/i.test(message)
}

/** Why a request was refused for its model: said so, with the flag to check. */
function modelWhy(model: string, status: number, body: string): string {
  const message = errorMessage(body)
  return `the target does not serve the model ${JSON.stringify(model.slice(0, 200))} (HTTP ${status}${message ? `: ${message}` : ''}): check --model`
}

/** 401 or 403: the target refused our credentials. */
export function isAuthStatus(status: number): boolean {
  return status === 401 || status === 403
}

function authWhy(status: number, body: string, keyGiven: boolean): string {
  const message = errorMessage(body)
  return `HTTP ${status}${message ? `: ${message}` : ''}: the target refused ${keyGiven ? 'the --api-key given' : 'a request without credentials (pass --api-key)'}; nothing it answers this way says how it treats a prompt`
}

/**
 * Everything a client received in an answer, to search for markers: its text as an answer reads
 * (deltas reassembled, so a marker split across events is whole) and its whole body (so a marker
 * in an HTML page, a plain-text error or a member no answer shape reads is found too).
 */
export function receivedText(result: GenerateResult): string {
  return result.body === '' ? result.text : `${result.text}\n${result.body}`
}

/**
 * The context window a stack's refusal of an over-long prompt names: vLLM (and OpenAI) "This
 * model's maximum context length is N tokens", SGLang "longer than the model's context length
 * (N tokens)" and "exceeds the model's maximum context length of N tokens", TGI "must be <= N".
 * Null when the message names none (or a number that is no window, see plausibleWindow).
 */
export function statedWindow(message: string | null): number | null {
  if (message === null) return null
  const match = /maximum context length (?:is|of) (\d+) tokens|context length \((\d+) tokens\)|must be <= ?(\d+)/i.exec(message)
  const said = match === null ? NaN : Number(match[1] ?? match[2] ?? match[3])
  return plausibleWindow(said) ? said : null
}

/** Whether an answer carried any text the client could read (see GenerateResult.text): one without was searched for nothing. */
export function hasText(result: GenerateResult): boolean {
  return result.text.trim() !== ''
}

/** Whether a served answer was judged whole: it carried readable text, and (a stream) reached `data: [DONE]` with every event a JSON document. */
export function readWhole(result: GenerateResult): boolean {
  return hasText(result) && result.incomplete === null
}

/** The first request the target failed in a way that stops a run. */
export interface TargetFailure {
  /** Method and path, e.g. `POST /v1/chat/completions`. */
  request: string
  outcome: 'hung' | 'error'
  error: string
  httpStatus: number | null
}

/** A run that could not start or continue because the target failed; exit 1 (the commands make it 3 under --fail-on-leak). */
export class TargetFailed extends CliError {
  constructor(
    readonly failure: TargetFailure,
    origin: string,
  ) {
    super(`${origin} ${failure.outcome === 'hung' ? 'hung' : 'failed'} on ${failure.request}: ${failure.error}`, failure.outcome === 'hung' ? 'E_TARGET_HUNG' : 'E_TARGET_FAILED', 1)
  }
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

type Attempt = {kind: 'response'; response: ExchangeResponse} | {kind: 'failed'; failure: ExchangeFailure}

export class ServingClient {
  private tokenizePath: string | null | undefined
  private firstFailure: TargetFailure | null = null

  /** What the target must not have echoed into a stored or printed message (targetSecrets). */
  private readonly secrets: string[]

  constructor(private readonly options: ClientOptions) {
    this.secrets = targetSecrets(options.baseUrl, options.apiKey)
  }

  /** Set once the target has hung or failed at the transport level; runs stop sending then. */
  get failure(): TargetFailure | null {
    return this.firstFailure
  }

  /**
   * The target with an API path appended to its own path (a trailing /v1 is the API's, not the
   * server's). Built on the URL's parts, not by joining text: a --target with a query string
   * (`?key=abc`) sent every request to `/?key=abc/v1/models`. The query is kept (a gateway may
   * need it); a fragment is never sent over HTTP and is dropped.
   */
  private url(path: string): URL {
    const url = new URL(this.options.baseUrl.href)
    url.hash = ''
    url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '') + path
    return url
  }

  private headers(): Record<string, string> {
    const headers: Record<string, string> = {'content-type': 'application/json', accept: 'application/json, text/event-stream'}
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`
    return headers
  }

  private trip(request: string, outcome: 'hung' | 'error', error: string, httpStatus: number | null = null): void {
    this.firstFailure ??= {request, outcome, error: scrubSecrets(error, this.secrets), httpStatus}
  }

  private async attempt(method: 'GET' | 'POST', path: string, deadline: number, body?: unknown): Promise<Attempt> {
    try {
      const response = await exchange({
        url: this.url(path),
        method,
        headers: this.headers(),
        body: body === undefined ? undefined : JSON.stringify(body),
        deadline,
        maxBytes: this.options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        signal: this.options.signal,
      })
      return {kind: 'response', response}
    } catch (error) {
      if (error instanceof ExchangeFailure) return {kind: 'failed', failure: error}
      throw error
    }
  }

  /**
   * A response that stops the run: a redirect (never followed: the guard vetted --target only,
   * and a POST body must not travel on), or a transport failure (hang, reset, not HTTP, too big).
   */
  private stopper(request: string, attempt: Attempt): TargetFailure | null {
    if (attempt.kind === 'failed') {
      const {kind, message} = attempt.failure
      if (kind === 'interrupted') return null
      return {request, outcome: kind, error: kind === 'hung' ? `${message} within the ${this.options.timeoutMs} ms timeout` : message, httpStatus: null}
    }
    const {status, headers} = attempt.response
    if (status >= 300 && status < 400) {
      const location = typeof headers.location === 'string' ? headers.location.slice(0, 200) : '(no Location)'
      return {request, outcome: 'error', error: `HTTP ${status} redirect to ${JSON.stringify(location)} not followed: point --target at the server itself`, httpStatus: status}
    }
    return null
  }

  /** The chosen model's max_model_len as GET /v1/models listed it (vLLM lists it); null when not listed. */
  listedMaxModelLen: number | null = null

  /**
   * The model to request: the one asked for, else the server's first from /v1/models. This is
   * also the reachability check every run starts with: nothing listening is one clear input
   * error; a target that is there but fails (hangs, resets, redirects) trips the breaker.
   */
  async resolveModel(preferred: string | undefined | null, origin: string): Promise<string | null> {
    // Asked for even with --model: it is the reachability check, and nothing listening must be the
    // same input error (exit 1) with or without --model, not a failed run.
    const request = 'GET /v1/models'
    const attempt = await this.attempt('GET', '/v1/models', Date.now() + this.options.timeoutMs)
    if (attempt.kind === 'failed' && isUnreachable(attempt.failure)) {
      throw new InputError(`cannot reach ${origin}: ${attempt.failure.code}`, 'E_TARGET_UNREACHABLE')
    }
    const stop = this.stopper(request, attempt)
    if (stop) {
      this.trip(stop.request, stop.outcome, stop.error, stop.httpStatus)
      return null
    }
    if (attempt.kind === 'failed') return null // interrupted
    const {status, body} = attempt.response
    // vLLM's model list says each model's window (max_model_len): kept, to check the probe's sizes against.
    if (status >= 200 && status < 300) {
      const models = (safeJson(body) as {data?: Array<{id?: unknown; max_model_len?: unknown}>} | null)?.data
      const listed = Array.isArray(models) ? (models.find((m) => preferred && m?.id === preferred) ?? (preferred ? undefined : models[0])) : undefined
      if (typeof listed?.max_model_len === 'number' && Number.isSafeInteger(listed.max_model_len) && listed.max_model_len > 0) this.listedMaxModelLen = listed.max_model_len
    }
    // Refused credentials: every request would be refused the same way, and that refusal says
    // nothing about the serving stack's limits. Stop here (no 'default' model to carry on with).
    if (isAuthStatus(status)) {
      this.trip(request, 'error', authWhy(status, body, this.options.apiKey !== undefined), status)
      return null
    }
    if (preferred) return preferred
    // No model list (a 404, or a 500 from a list that failed): the server picks. A failing list
    // stops nothing (a hang, reset or redirect would have): the completions say how the stack
    // treats a prompt, and a 5xx there is an error, inconclusive, as on the completions.
    if (status < 200 || status >= 300) return 'default'
    const parsed = safeJson(body) as {data?: Array<{id?: unknown}>} | null
    const id = parsed?.data?.[0]?.id
    return typeof id === 'string' ? id : 'default'
  }

  /**
   * The first token count /tokenize gave that is no count for the text sent (negative, zero, not a
   * whole number, more tokens than the text has bytes plus a chat template's), as the server
   * wrote it; /tokenize is not used after it. Null when every count was plausible.
   */
  ignoredTokenCount: string | null = null

  /** Exact token count from the server's own tokenizer (vLLM `/tokenize`, SGLang `/v1/tokenize`); null if it has none. */
  async tokenize(text: string, endpoint: Endpoint, model: string): Promise<TokenizeResult | null> {
    if (this.firstFailure) return null
    const paths = this.tokenizePath === undefined ? ['/tokenize', '/v1/tokenize'] : this.tokenizePath === null ? [] : [this.tokenizePath]
    for (const path of paths) {
      // The chat form counts the chat template's tokens too, so it matches what the chat endpoint sees.
      const body = endpoint === 'chat' ? {model, messages: [{role: 'user', content: text}]} : {model, prompt: text}
      const attempt = await this.attempt('POST', path, Date.now() + this.options.timeoutMs, body)
      const stop = this.stopper(`POST ${path}`, attempt)
      if (stop) {
        this.trip(stop.request, stop.outcome, stop.error, stop.httpStatus)
        return null
      }
      if (attempt.kind === 'failed') return null // interrupted
      const {status} = attempt.response
      // This /tokenize is there and refused the model: a wrong --model, not a missing /tokenize.
      if (modelNotServed(status, attempt.response.body)) {
        this.trip(`POST ${path}`, 'error', modelWhy(model, status, attempt.response.body), status)
        return null
      }
      if (status < 200 || status >= 300) continue
      const parsed = safeJson(attempt.response.body) as {count?: unknown; tokens?: unknown; max_model_len?: unknown} | null
      const reported = typeof parsed?.count === 'number' ? parsed.count : Array.isArray(parsed?.tokens) ? parsed.tokens.length : null
      if (reported === null) {
        // A count that is no number ("12", SGLang-like servers that quote it) with no token list:
        // this /tokenize answered, unusably. Said as such (ignoredTokenCount), not taken for no /tokenize.
        if (parsed?.count !== undefined) {
          this.ignoredTokenCount ??= JSON.stringify(parsed.count).slice(0, 40)
          this.tokenizePath = null
          return null
        }
        continue
      }
      // A count no tokenizer can give for this text (see plausibleCount) is no size: the server's
      // /tokenize is not used again, and the prompts are sized by estimate, which the run says.
      if (!plausibleCount(reported, text)) {
        this.ignoredTokenCount ??= (parsed?.count !== undefined ? JSON.stringify(parsed.count) : `${reported} tokens listed`).slice(0, 40)
        this.tokenizePath = null
        return null
      }
      const count = reported
      this.tokenizePath = path
      const said = parsed?.max_model_len
      if (typeof said !== 'number' && typeof said !== 'string') return {count, maxModelLen: null, ignoredMaxModelLen: null}
      return plausibleWindow(Number(said)) ? {count, maxModelLen: Number(said), ignoredMaxModelLen: null} : {count, maxModelLen: null, ignoredMaxModelLen: String(said).slice(0, 40)}
    }
    this.tokenizePath = null
    return null
  }

  /**
   * What the server's /version says (vLLM: {"version": "..."}), or null when it has none. Only
   * informative: a target that fails here is not marked as failed (the run judged it already).
   */
  async serverVersion(): Promise<string | null> {
    if (this.firstFailure) return null
    const attempt = await this.attempt('GET', '/version', Date.now() + this.options.timeoutMs)
    if (this.stopper('GET /version', attempt) || attempt.kind === 'failed' || attempt.response.status < 200 || attempt.response.status >= 300) return null
    const parsed = safeJson(attempt.response.body) as {version?: unknown} | null
    return typeof parsed?.version === 'string' ? parsed.version.slice(0, 200) : null
  }

  /** Raw Prometheus text from /metrics, or null. */
  async metrics(): Promise<string | null> {
    if (this.firstFailure) return null
    const attempt = await this.attempt('GET', '/metrics', Date.now() + this.options.timeoutMs)
    const stop = this.stopper('GET /metrics', attempt)
    if (stop) {
      this.trip(stop.request, stop.outcome, stop.error, stop.httpStatus)
      return null
    }
    if (attempt.kind === 'failed') return null
    return attempt.response.status >= 200 && attempt.response.status < 300 ? attempt.response.body : null
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const started = Date.now()
    const deadline = started + this.options.timeoutMs
    const path = request.endpoint === 'chat' ? '/v1/chat/completions' : '/v1/completions'
    const name = `POST ${path}`
    const base = {httpStatus: null, text: '', body: '', incomplete: null, cachedTokens: null, promptTokens: null, error: null, inStreamError: false}
    // An error message quotes what the target said, which may echo a key it was sent.
    const done = (result: Omit<GenerateResult, 'elapsedMs' | 'attempts'>, attempts: number): GenerateResult => ({...result, error: result.error === null ? null : scrubSecrets(result.error, this.secrets), elapsedMs: Date.now() - started, attempts})
    if (this.firstFailure) return done({...base, outcome: 'error', error: `not sent: the target already failed (${this.firstFailure.request} ${this.firstFailure.outcome})`}, 0)

    const retries = this.options.retries ?? 3
    const sleep = this.options.sleep ?? defaultSleep
    // The bodies of earlier attempts (a 429 or 503 that was retried): the client received them, so
    // they are searched with the last one's (a stale output quoted in an overload page is a leak).
    const earlier: string[] = []
    const withEarlier = (body: string): string => [...earlier, body].filter((b) => b !== '').join('\n')
    for (let attempts = 1; ; attempts++) {
      const attempt = await this.attempt('POST', path, deadline, requestBody(request))
      const stop = this.stopper(name, attempt)
      if (stop) {
        this.trip(stop.request, stop.outcome, stop.error, stop.httpStatus)
        // A response that stalled or reset after delivering bytes: those bytes
        // reached the client and are searched (receivedText). The answer was not read whole.
        const partial = attempt.kind === 'failed' ? attempt.failure.partial : null
        if (partial !== null) {
          const text = partialText(partial)
          return done({...base, outcome: stop.outcome, httpStatus: partial.status, error: stop.error, text, body: withEarlier(partial.body), incomplete: `the response stopped before its end (${stop.error})`}, attempts)
        }
        return done({...base, outcome: stop.outcome, httpStatus: stop.httpStatus, error: stop.error, body: withEarlier('')}, attempts)
      }
      if (attempt.kind === 'failed') return done({...base, outcome: 'error', error: 'interrupted', body: withEarlier(attempt.failure.partial?.body ?? '')}, attempts)
      const {status, headers, body: last} = attempt.response
      const body = withEarlier(last)
      if (status === 429 || status === 503) {
        // Overloaded. Retry while the wait fits what is left of the timeout; a Retry-After past
        // it (a server saying "10 s" to a 5 s probe) ends the request instead of stretching it.
        const retryAfter = Number(headers['retry-after'])
        const wait = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : (this.options.backoffMs ?? 250) * 2 ** (attempts - 1)
        const left = deadline - Date.now()
        if (attempts <= retries && wait < left && !this.options.signal?.aborted) {
          earlier.push(last)
          await sleep(wait)
          continue
        }
        const why = `HTTP ${status} after ${count(attempts, 'attempt')}${headers['retry-after'] !== undefined ? ` (Retry-After ${JSON.stringify(String(headers['retry-after']).slice(0, 40))})` : ''}; ${
          this.options.signal?.aborted
            ? 'interrupted while overloaded'
            : attempts > retries
              ? `still overloaded after the ${count(retries, 'retry', 'retries')} allowed`
              : `still overloaded: the next wait (${Math.round(wait)} ms) would pass the ${this.options.timeoutMs} ms timeout`
        }`
        this.trip(name, 'error', why, status)
        return done({...base, outcome: 'error', httpStatus: status, error: why, body}, attempts)
      }
      // A model the target does not serve: every request would be refused the same way. Stop here, saying so.
      if (modelNotServed(status, last)) {
        const why = modelWhy(request.model, status, last)
        this.trip(name, 'error', why, status)
        return done({...base, outcome: 'error', httpStatus: status, error: why, body}, attempts)
      }
      if (isAuthStatus(status)) {
        const why = authWhy(status, last, this.options.apiKey !== undefined)
        this.trip(name, 'error', why, status)
        return done({...base, outcome: 'error', httpStatus: status, error: why, body}, attempts)
      }
      try {
        return done({...interpret(status, headers['content-type'], last, attempt.response.sawDone, attempt.response.undecoded ?? null), body}, attempts)
      } catch (error) {
        if (!(error instanceof DuplicateKeyError)) throw error
        return done({...duplicateKeyAnswer(status, last, error.path), body}, attempts)
      }
    }
  }
}

/**
 * The text a response read before it failed carried (a stream's deltas reassembled, a JSON body's
 * text): read as a whole answer's is. Empty where it reads as none (the whole body is searched
 * all the same).
 */
function partialText(partial: ExchangeResponse): string {
  try {
    const isStream = (String(partial.headers['content-type'] ?? '')).includes('text/event-stream') || looksLikeSse(partial.body) === true
    return answerText(partial.body, isStream)
  } catch (error) {
    if (error instanceof DuplicateKeyError) return ''
    throw error
  }
}

/**
 * An answer that gives a key twice (two `content` values in one message): which value the client
 * of that server would read cannot be told, so its text is not read (the text is empty, as for an
 * answer that carried none: no clean observation) and the error says why. It was still served
 * (a 2xx) or refused as its status says; an error status with such a body is no explicit refusal
 * (it may have held a completion beside the error), so it is an error, not a rejection.
 */
function duplicateKeyAnswer(status: number, raw: string, path: string): Omit<GenerateResult, 'elapsedMs' | 'attempts' | 'body'> {
  const why = `the answer gives the key ${JSON.stringify(path).slice(0, 200)} twice: which value it carries cannot be told, so its text was not read`
  const served = status >= 200 && status < 300
  return {outcome: served ? 'served' : 'error', httpStatus: status, text: '', incomplete: null, cachedTokens: null, promptTokens: null, error: served ? why : `${errorMessage(raw) ?? `HTTP ${status}`} (${why})`, inStreamError: false}
}

function requestBody(request: GenerateRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {model: request.model, max_tokens: request.maxTokens, temperature: 0, stream: request.stream}
  if (request.endpoint === 'chat') body.messages = [{role: 'user', content: request.text}]
  else body.prompt = request.text
  if (request.stream) body.stream_options = {include_usage: true}
  if (request.cacheSalt !== undefined) body.cache_salt = request.cacheSalt
  return body
}

/**
 * What an answer was. Its text is read whatever the outcome (an error event after or beside the
 * text still delivered the text: a marker in it is as much a leak), so callers search `text`
 * for every answer that has some. Only a refusal of the prompt is `rejected`: an error status
 * or error event that says the server failed (5xx, or code/type saying so) is `error`.
 */
function interpret(status: number, contentType: string | undefined, raw: string, sawDone: boolean, undecoded: string | null = null): Omit<GenerateResult, 'elapsedMs' | 'attempts' | 'body'> {
  const base = {httpStatus: status, text: '', incomplete: null, cachedTokens: null, promptTokens: null, error: null, inStreamError: false}
  const isStream = sawDone || (contentType ?? '').includes('text/event-stream') || looksLikeSse(raw) === true
  if (status < 200 || status >= 300) {
    // An error status's body is text the client received, whatever its shape: a completion beside
    // the error (choices, deltas), the error's message, an HTML page or plain text (a gateway's 502
    // quoting what the stack sent it). All of it is searched for markers.
    const text = status >= 400 ? decodeResponse(raw).text : ''
    // A rejection is the stack's own context-length error and nothing else: no page, no bare status, no text delivered beside it.
    const rejected = REJECTION_STATUSES.has(status) && !delivered(raw, false) && contextRejection(safeJson(raw))
    const message = errorMessage(raw)
    const said = message ?? `HTTP ${status}`
    const why = rejected || !REJECTION_STATUSES.has(status) ? said : `${said} (HTTP ${status}, ${delivered(raw, false) ? 'with text delivered beside it' : "not the serving stack's context-length error"}: no rejection)`
    return {...base, outcome: rejected ? 'rejected' : 'error', error: why, text}
  }
  const parsed = isStream ? parseSse(raw) : parseJson(raw)
  // A 2xx whose body is no JSON document (an HTML page, plain text) is no completion: nothing was
  // served. Its text still reached the client, and is searched for markers.
  // A body whose Content-Encoding could not be undone was not read at all: said so, not "not JSON".
  if (!isStream && !parsed.json) return {...base, outcome: 'error', error: undecoded !== null ? `HTTP ${status} with a body that could not be decoded (${undecoded}): not read` : `HTTP ${status} with a body that is not a completion (not JSON)`, text: decodeResponse(raw).text}
  const decoded = decodeResponse(raw)
  const text = isStream && decoded.kind === 'text' ? '' : decoded.text
  const incomplete = isStream ? streamIncomplete(sawDone, decoded.unparsed ?? 0) : null
  if (parsed.error !== null) {
    // Text delivered before or beside a refusal was served all the same (silent degradation, not a
    // rejection); a refusal is the stack's context-length error with nothing served, sent as a 4xx
    // or as an error event in a 200 stream. A plain 200 whose JSON body is an error is neither: an
    // OpenAI client reads it as a success with no choices, so it is an error, never a rejection.
    const outcome = parsed.serverError ? 'error' : delivered(raw, isStream) ? 'served' : parsed.contextRejection && isStream ? 'rejected' : 'error'
    const error = isStream || outcome !== 'error' || parsed.serverError ? parsed.error : `error body with no stream: ${parsed.error}`
    return {...base, outcome, error: error.slice(0, MAX_ERROR_CHARS), inStreamError: parsed.isStream, text, incomplete, cachedTokens: parsed.cachedTokens, promptTokens: parsed.promptTokens}
  }
  return {...base, outcome: 'served', text, incomplete, cachedTokens: parsed.cachedTokens, promptTokens: parsed.promptTokens}
}

/**
 * Whether an answer delivered text besides its error (a completion, deltas, a tool call): read as
 * decodeResponse reads it with the error events (a stream) or the error key (a JSON body) left
 * out, since the text it gives for the whole answer holds the error's message too (so that a
 * marker echoed in it is searched).
 */
function delivered(raw: string, isStream: boolean): boolean {
  let rest: string
  if (isStream) {
    rest = raw
      .split(/\r?\n/)
      .filter((line) => {
        if (!line.startsWith('data:')) return true
        const chunk = safeJson(line.slice(5).trim()) as Chunk | null
        return chunk === null || typeof chunk !== 'object' || chunkError(chunk) === null
      })
      .join('\n')
  } else {
    const body = safeJson(raw) as (Chunk & Record<string, unknown>) | null
    if (body === null || typeof body !== 'object' || Array.isArray(body) || body.object === 'error') return false
    const {error: _error, ...completion} = body
    rest = JSON.stringify(completion)
  }
  const decoded = decodeResponse(rest)
  return decoded.kind !== 'text' && decoded.kind !== 'error' && decoded.text.trim() !== ''
}

/**
 * Why a stream was not read whole, or null: an OpenAI-compatible stream (vLLM, SGLang, TGI,
 * OpenAI) ends with `data: [DONE]`, so one that closed without it was cut off; an event whose
 * data never made a JSON document (decodeResponse's `unparsed`) was not read as an event.
 */
function streamIncomplete(sawDone: boolean, unparsed: number): string | null {
  const why = [
    sawDone ? '' : 'the stream ended without data: [DONE]',
    unparsed > 0 ? `${count(unparsed, 'event')} whose data was no JSON document` : '',
  ].filter(Boolean)
  return why.length > 0 ? why.join('; ') : null
}

/**
 * The answer's text as ingest reads a logged response (decodeResponse: string content, content
 * parts, reasoning (`reasoning_content` or `reasoning`), tool-call arguments, refusals,
 * completion text, per stream delta). A stream with no event is no text.
 */
export function answerText(raw: string, isStream: boolean): string {
  const decoded = decodeResponse(raw)
  if (isStream && decoded.kind === 'text') return ''
  return decoded.text
}

interface ParsedBody {
  /** whether the body was a JSON object (a stream's is always counted as read) */
  json: boolean
  error: string | null
  /** The error says the server failed (code 5xx, or a type naming a server/internal error), not that it refused the prompt. */
  serverError: boolean
  /** The error is the stack's own refusal of the prompt's length (contextRejection). */
  contextRejection: boolean
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

/**
 * Whether an error object says the server failed: vLLM's mid-stream GenerationError is
 * {"type": "InternalServerError", "code": 500}; a refusal of the prompt is a 4xx code or a
 * BadRequestError. An error with neither code nor type is taken as the refusal it usually is.
 */
function chunkServerError(chunk: Chunk): boolean {
  const error = (chunk.error !== undefined && chunk.error !== null && typeof chunk.error === 'object' ? chunk.error : chunk) as {code?: unknown; type?: unknown; status?: unknown}
  const codes = [error.code, error.status].map((value) => (typeof value === 'number' ? value : typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : null))
  if (codes.some((code) => code !== null && code >= 500 && code < 600)) return true
  if (codes.some((code) => code !== null && code >= 400 && code < 500)) return false
  return typeof error.type === 'string' && /internal|server_error|servererror|service_unavailable|overloaded/i.test(error.type)
}

function chunkError(chunk: Chunk): string | null {
  if (chunk.error !== undefined && chunk.error !== null) {
    const error = chunk.error as {message?: unknown}
    return typeof error.message === 'string' ? error.message : JSON.stringify(chunk.error)
  }
  if (chunk.object === 'error') return typeof chunk.message === 'string' ? chunk.message : 'error'
  return null
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return null
  }
}

function parseJson(raw: string): ParsedBody {
  const chunk = safeJson(raw) as Chunk | null
  if (chunk === null || typeof chunk !== 'object') return {json: false, error: null, serverError: false, contextRejection: false, cachedTokens: null, promptTokens: null, isStream: false}
  const error = chunkError(chunk)
  return {json: true, error, serverError: error !== null && chunkServerError(chunk), contextRejection: error !== null && contextRejection(chunk), ...usageOf(chunk), isStream: false}
}

/** An SSE body's error event and usage (its text is answerText's: deltas reassembled, a marker split across events is one marker). */
export function parseSse(raw: string): ParsedBody {
  const out: ParsedBody = {json: true, error: null, serverError: false, contextRejection: false, cachedTokens: null, promptTokens: null, isStream: true}
  for (const line of raw.split(/\r?\n/)) {
    if (!line.startsWith('data:')) continue
    const data = line.slice(5).trim()
    if (data === '' || data === '[DONE]') continue
    const chunk = safeJson(data) as Chunk | null
    if (chunk === null || typeof chunk !== 'object') continue
    if (out.error === null) {
      out.error = chunkError(chunk)
      out.serverError = out.error !== null && chunkServerError(chunk)
      out.contextRejection = out.error !== null && contextRejection(chunk)
    }
    const usage = usageOf(chunk)
    if (usage.cachedTokens !== null) out.cachedTokens = usage.cachedTokens
    if (usage.promptTokens !== null) out.promptTokens = usage.promptTokens
  }
  return out
}

/** The server's error text, cut to a length a report can carry (vLLM can echo a whole request into a validation error). */
function errorMessage(raw: string): string | null {
  const body = safeJson(raw) as (Chunk & {detail?: unknown}) | null
  const message = body !== null && typeof body === 'object' ? (chunkError(body) ?? (typeof body.message === 'string' ? body.message : typeof body.detail === 'string' ? body.detail : null)) : raw.trim() || null
  return message === null ? null : message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message
}

const MAX_ERROR_CHARS = 500
