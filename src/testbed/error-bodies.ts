import type {RejectReason} from './engine.js'

// Rejection bodies exactly as the two engines send them (see shared/reference/serving.md §1.1, §2),
// so clients and parsers can be tested against both.

export type ErrorStyle = 'vllm' | 'sglang'

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
    // vLLM itself hangs here (vllm#35541, #39734); this is what a fixed build would say.
    return `This request needs ${n} tokens of KV cache, but the KV cache holds ${r.poolTokens} tokens. Please reduce the length of the input messages.`
  }
  if (r.reason === 'max_model_len') return `The input (${n} tokens) is longer than the model's context length (${L} tokens).`
  if (r.reason === 'max_tokens')
    return `Requested token count exceeds the model's maximum context length of ${L} tokens. You requested a total of ${n + m} tokens: ${n} tokens from the input messages and ${m} tokens for the completion. Please reduce the number of tokens in the input messages or the completion to fit within the limit.`
  // SGLang's scheduler check against the KV pool (sglang#4048).
  return `Input length (${n} tokens) exceeds the maximum allowed length (${r.poolTokens} tokens). Use a shorter input or enable --allow-auto-truncate.`
}

/** HTTP 400 body: vLLM >= 0.10.1 nests under `error`; SGLang keeps the flat `object: "error"` form. */
export function errorBody(style: ErrorStyle, message: string, param: string | null = null): object {
  if (style === 'vllm') return {error: {message, type: 'BadRequestError', param, code: 400}}
  return {object: 'error', message, type: 'BadRequestError', param: null, code: 400}
}

/** SGLang's streaming rejection: an error event inside an HTTP 200 stream. */
export function sglangStreamError(message: string, model: string): object {
  return {error: {code: 400, message, object: 'error', param: null, type: 'BAD_REQUEST'}, model}
}

export function rejectionParam(reason: RejectReason): string {
  return reason === 'max_tokens' ? 'max_tokens' : 'input_tokens'
}
