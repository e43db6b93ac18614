import type {RejectReason} from './engine.js'

// Error bodies as the two engines send them (facts: vLLM's api_server.py exception handlers and
// OpenAIServing.create_error_response; SGLang's serving_base.create_error_response and
// http_server.py handlers), so clients and parsers can be tested against both:
//  - vLLM >= 0.10.1 nests: {"error": {"message", "type", "param", "code"}}.
//  - SGLang keeps the flat form: {"object": "error", "message", "type", "param", "code"}.
//    The official openai clients read the message from `error.message` only, so against SGLang
//    (and this testbed's sglang style) they report "400 status code (no body)": that is real.
//  - Request-validation failures have type "Bad Request" (HTTPStatus.BAD_REQUEST.phrase) in
//    both; serving-level ones "BadRequestError", "NotFoundError", "InternalServerError".
//  - Routes that do not exist answer as FastAPI does, {"detail": "Not Found"}, in both; a
//    missing or wrong API key on /v1 answers {"error": "Unauthorized"} (vLLM's middleware).

export type ErrorStyle = 'vllm' | 'sglang'

export interface ErrorInfo {
  message: string
  type: string
  param: string | null
  code: number
}

export interface Rejection {
  reason: RejectReason
  promptTokens: number
  maxTokens: number
  maxModelLen: number
  poolTokens: number
}

export function rejectionMessage(style: ErrorStyle, r: Rejection): string {
  const {promptTokens: n, maxTokens: m, maxModelLen: L} = r
  if (style === 'vllm') {
    if (r.reason === 'max_model_len')
      return `This model's maximum context length is ${L} tokens. However, your request has ${n} input tokens. Please reduce the length of the input messages.`
    if (r.reason === 'max_tokens')
      return `'max_tokens' or 'max_completion_tokens' is too large: ${m}. This model's maximum context length is ${L} tokens and your request has ${n} input tokens (${m} > ${L} - ${n}).`
    // Not vLLM: released vLLM hangs here (vllm#35541, #39734), and in disaggregated mode serves
    // the prompt from stale KV. This is what a fixed build would say (--on-overflow reject).
    return `This request needs ${n} tokens of KV cache, but the KV cache holds ${r.poolTokens} tokens. Please reduce the length of the input messages.`
  }
  if (r.reason === 'max_model_len') return `The input (${n} tokens) is longer than the model's context length (${L} tokens).`
  if (r.reason === 'max_tokens')
    return `Requested token count exceeds the model's maximum context length of ${L} tokens. You requested a total of ${n + m} tokens: ${n} tokens from the input messages and ${m} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`
  // SGLang's scheduler check against the KV pool (sglang#4048).
  return `Input length (${n} tokens) exceeds the maximum allowed length (${r.poolTokens} tokens). Use a shorter input or enable --allow-auto-truncate.`
}

/** The body of an error response in the engine's shape. */
export function errorBody(style: ErrorStyle, error: ErrorInfo): object {
  if (style === 'vllm') return {error}
  return {object: 'error', ...error}
}

/** SGLang's streaming rejection: an error event inside an HTTP 200 stream. */
export function sglangStreamError(message: string, model: string): object {
  return {error: {code: 400, message, object: 'error', param: null, type: 'BAD_REQUEST'}, model}
}

export function rejectionParam(reason: RejectReason): string {
  return reason === 'max_tokens' ? 'max_tokens' : 'input_tokens'
}

/** FastAPI's answer for a path no route matches, and for a known path with the wrong method. */
export const NOT_FOUND = {detail: 'Not Found'}
export const METHOD_NOT_ALLOWED = {detail: 'Method Not Allowed'}
export const UNAUTHORIZED = {error: 'Unauthorized'}
