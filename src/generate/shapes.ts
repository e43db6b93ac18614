// Request and response bodies in every shape the contract accepts (OpenAI chat and completions,
// vLLM/SGLang error bodies, raw JSON strings, SSE streams, tool calls, plain text), and the
// timestamp forms real gateways write. Pure functions of their arguments and the rng.

import type {Rng} from './rng.js'

export type RequestShape = 'chat_string' | 'chat_parts' | 'completion_string' | 'completion_array' | 'raw_text'
export type ResponseShape =
  | 'chat_completion'
  | 'text_completion'
  | 'tool_call'
  | 'raw_json_string'
  | 'sse_chat'
  | 'sse_completion'
  | 'sse_in_stream_error'
  | 'plain_text'
  | 'error_vllm_flat'
  | 'error_vllm_nested'
  | 'error_sglang_flat'
  | 'error_openai'
export type TimestampForm = 'iso_z' | 'iso_offset' | 'epoch_ms' | 'space_micro'

export interface Usage {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
}

export interface PromptParts {
  marker: string | null
  system: string | null
  /** The user's words (already joined). */
  user: string
}

// ------------------------------------------------------------------ requests

export function renderRequest(shape: RequestShape, p: PromptParts, model: string, stream: boolean, maxTokens: number): unknown {
  const lead = p.marker ? `${p.marker} ` : ''
  switch (shape) {
    case 'chat_string':
    case 'chat_parts': {
      const messages: unknown[] = []
      // The canary goes at the very start of the prompt: into the system message when there is one.
      if (p.system !== null) messages.push({role: 'system', content: lead + p.system})
      const userText = p.system !== null ? p.user : lead + p.user
      if (shape === 'chat_string') messages.push({role: 'user', content: userText})
      else if (p.system === null && p.marker) messages.push({role: 'user', content: [{type: 'text', text: lead}, {type: 'text', text: p.user}]})
      else messages.push({role: 'user', content: [{type: 'text', text: userText}]})
      return {model, messages, max_tokens: maxTokens, stream, stream_options: stream ? {include_usage: true} : undefined}
    }
    case 'completion_string':
      return {model, prompt: lead + p.user, max_tokens: maxTokens, stream}
    case 'completion_array': {
      // A batch-of-strings prompt: the canary leads the first element.
      const words = p.user.split(' ')
      const cut = Math.max(1, Math.floor(words.length / 2))
      return {model, prompt: [lead + words.slice(0, cut).join(' '), words.slice(cut).join(' ')], max_tokens: maxTokens, stream}
    }
    case 'raw_text':
      return lead + (p.system !== null ? `${p.system}\n${p.user}` : p.user)
  }
}

/** The prompt text as decodeRequest reads it back (used only to describe where the canary sits). */
export function promptText(shape: RequestShape, p: PromptParts): string {
  const lead = p.marker ? `${p.marker} ` : ''
  if (shape === 'chat_string' || shape === 'chat_parts' || shape === 'raw_text') return p.system !== null ? `${lead}${p.system}\n${p.user}` : lead + p.user
  return lead + p.user
}

// ------------------------------------------------------------------ responses

export interface ResponseContext {
  id: string
  created: number
  model: string
  usage: Usage
  finish: 'stop' | 'length'
  /** Strings that must be cut across SSE chunks (markers), when the stream splits them. */
  splitTargets: string[]
}

export function chatCompletion(c: ResponseContext, text: string): Record<string, unknown> {
  return {
    id: `chatcmpl-${c.id}`,
    object: 'chat.completion',
    created: c.created,
    model: c.model,
    choices: [{index: 0, message: {role: 'assistant', content: text}, logprobs: null, finish_reason: c.finish}],
    usage: c.usage,
  }
}

export function textCompletion(c: ResponseContext, text: string): Record<string, unknown> {
  return {
    id: `cmpl-${c.id}`,
    object: 'text_completion',
    created: c.created,
    model: c.model,
    choices: [{index: 0, text, logprobs: null, finish_reason: c.finish}],
    usage: c.usage,
  }
}

/** A tool call whose arguments carry the text (spaces keep the JSON punctuation off the first and last word). */
export function toolCall(c: ResponseContext, text: string): Record<string, unknown> {
  return {
    id: `chatcmpl-${c.id}`,
    object: 'chat.completion',
    created: c.created,
    model: c.model,
    choices: [
      {
        index: 0,
        message: {role: 'assistant', content: null, tool_calls: [{id: `call_${c.id.slice(0, 12)}`, type: 'function', function: {name: 'save_note', arguments: JSON.stringify({note: ` ${text} `})}}]},
        finish_reason: 'tool_calls',
      },
    ],
    usage: c.usage,
  }
}

/** Splits text into SSE pieces of a few words, cutting every split target into 2-3 pieces. */
export function ssePieces(rng: Rng, text: string, splitTargets: readonly string[]): string[] {
  const cuts = new Set<number>()
  let pos = 0
  let words = 0
  let every = rng.range(3, 9)
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 32) continue
    words++
    if (words >= every) {
      cuts.add(i + 1)
      words = 0
      every = rng.range(3, 9)
    }
  }
  for (const target of splitTargets) {
    let at = text.indexOf(target)
    while (at >= 0) {
      // Remove the cuts inside the target, then cut it into 2 or 3 pieces at random places.
      for (let k = at + 1; k < at + target.length; k++) cuts.delete(k)
      const n = rng.range(1, 2)
      for (let j = 0; j < n; j++) cuts.add(at + rng.range(1, target.length - 1))
      at = text.indexOf(target, at + target.length)
    }
  }
  const sorted = [...cuts].filter((c) => c > 0 && c < text.length).sort((a, b) => a - b)
  const pieces: string[] = []
  pos = 0
  for (const c of sorted) {
    if (c > pos) pieces.push(text.slice(pos, c))
    pos = c
  }
  if (pos < text.length) pieces.push(text.slice(pos))
  return pieces
}

export type UsageChunk = 'none' | 'empty_choices' | 'null_choices'

export function sseStream(
  rng: Rng,
  c: ResponseContext,
  text: string,
  kind: 'chat' | 'completion',
  usageChunk: UsageChunk,
  errorAfter: number | null,
): string {
  const pieces = ssePieces(rng, text, c.splitTargets)
  // Chunks are assembled as text (JSON.stringify only for the pieces): this is the hot path.
  const head =
    kind === 'chat'
      ? `data: {"id":"chatcmpl-${c.id}","object":"chat.completion.chunk","created":${c.created},"model":${JSON.stringify(c.model)},"choices":`
      : `data: {"id":"cmpl-${c.id}","object":"text_completion","created":${c.created},"model":${JSON.stringify(c.model)},"choices":`
  const tail = usageChunk === 'none' ? '}' : ',"usage":null}'
  const out: string[] = []
  if (kind === 'chat') out.push(`${head}[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]${tail}`)
  const limit = errorAfter === null ? pieces.length : Math.min(errorAfter, pieces.length)
  for (let i = 0; i < limit; i++) {
    const piece = JSON.stringify(pieces[i]!)
    out.push(kind === 'chat' ? `${head}[{"index":0,"delta":{"content":${piece}},"finish_reason":null}]${tail}` : `${head}[{"index":0,"text":${piece},"finish_reason":null}]${tail}`)
  }
  if (errorAfter !== null) {
    // An error event inside a 200 stream, as SGLang and vLLM send it.
    if (rng.next() < 0.5) out.push('event: error')
    out.push(`data: ${JSON.stringify({error: {message: 'Internal server error', type: 'InternalServerError', param: null, code: 500}})}`)
    out.push('data: [DONE]')
    return out.join('\n\n') + '\n\n'
  }
  out.push(kind === 'chat' ? `${head}[{"index":0,"delta":{},"finish_reason":"${c.finish}"}]${tail}` : `${head}[{"index":0,"text":"","finish_reason":"${c.finish}"}]${tail}`)
  if (usageChunk !== 'none') out.push(`${head}${usageChunk === 'empty_choices' ? '[]' : 'null'},"usage":${JSON.stringify(c.usage)}}`)
  out.push('data: [DONE]')
  return out.join('\n\n') + '\n\n'
}

/** JSON text of a body with every `CANARY-` written as `\u0043ANARY-` (valid JSON, same string). */
export function escapeMarkers(json: string): string {
  return json.replaceAll('CANARY-', '\\u0043ANARY-')
}

// ------------------------------------------------------------------ errors

export function contextErrorMessage(style: 'vllm' | 'sglang', promptTokens: number, advertised: number): string {
  return style === 'vllm'
    ? `This model's maximum context length is ${advertised} tokens. However, your request has ${promptTokens} input tokens. Please reduce the length of the input messages.`
    : `The input (${promptTokens} tokens) is longer than the model's context length (${advertised} tokens).`
}

export function poolErrorMessage(promptTokens: number, pool: number): string {
  return `Input length (${promptTokens} tokens) exceeds the maximum allowed length (${pool} tokens). Use a shorter input or enable --allow-auto-truncate.`
}

export function errorBody(shape: 'error_vllm_flat' | 'error_vllm_nested' | 'error_sglang_flat' | 'error_openai', message: string, code: number): Record<string, unknown> {
  switch (shape) {
    case 'error_vllm_flat':
      return {object: 'error', message, type: 'BadRequestError', param: null, code}
    case 'error_vllm_nested':
      return {error: {message, type: 'BadRequestError', param: 'input_tokens', code}}
    case 'error_sglang_flat':
      return {object: 'error', message, type: 'BadRequestError', param: null, code}
    case 'error_openai':
      return {error: {message, type: code === 429 ? 'rate_limit_error' : 'server_error', param: null, code: code === 429 ? 'rate_limit_exceeded' : 'service_unavailable'}}
  }
}

// ------------------------------------------------------------------ timestamps

const pad = (n: number, w = 2): string => String(n).padStart(w, '0')

export function formatTimestamp(form: TimestampForm, ms: number, rng: Rng): string | number {
  switch (form) {
    case 'iso_z':
      return new Date(ms).toISOString()
    case 'epoch_ms':
      return ms
    case 'iso_offset': {
      const offset = rng.pick([120, 60, -300, 330, -420, 540])
      const d = new Date(ms + offset * 60_000)
      const sign = offset < 0 ? '-' : '+'
      const abs = Math.abs(offset)
      return `${d.toISOString().slice(0, 23)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
    }
    case 'space_micro': {
      // SQL style, to the microsecond, with the zone written out (a zone-less time is refused
      // without --assume-tz, so a gateway that logs without one is a separate test case).
      const d = new Date(ms)
      return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 23)}${pad(rng.int(1000), 3)}+00:00`
    }
  }
}
