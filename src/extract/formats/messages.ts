import {uniqueJson, within} from '../duplicate-keys.js'
// Message content in the shapes other tools record it, turned into the OpenAI chat shapes
// src/ingest/decode.ts reads, so a marker or a verbatim copy is found whatever the shape:
//
// - OpenTelemetry GenAI "parts" messages (semantic conventions gen-ai-input-messages.json /
//   gen-ai-output-messages.json): `{role, parts: [{type: "text", content}, {type: "tool_call",
//   id, name, arguments}, {type: "tool_call_response", id, response}, {type: "reasoning",
//   content}, ...], finish_reason}` -> `{role, content, tool_calls, reasoning_content}`;
// - an assistant message object (Langfuse's `output`, a `gen_ai.choice` event's `message`)
//   -> a `chat.completion` with that message as choices[0];
// - several output messages (choices / candidates) -> one choice each, in order.
//
// Text parts of one message become OpenAI text parts, which decode.ts joins without a
// separator (as OpenAI joins them); tool-call arguments become the JSON text OpenAI sends.

export type Json = null | boolean | number | string | Json[] | {[k: string]: Json}
export type Obj = Record<string, unknown>

export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

export interface ChatMessage {
  role: string
  content: string | {type: 'text'; text: string}[] | null
  tool_calls?: {id: string | null; type: 'function'; function: {name: string; arguments: string}}[]
  reasoning_content?: string
  tool_call_id?: string
}

/** True for an OpenTelemetry parts message (`{role?, parts: [...]}`). */
export function isPartsMessage(v: unknown): v is Obj & {parts: unknown[]} {
  return isObj(v) && Array.isArray(v.parts)
}

/** One parts message (or an OpenAI message, returned as it is) as an OpenAI chat message. */
export function toChatMessage(m: unknown, defaultRole: string): ChatMessage | Obj | null {
  if (!isObj(m)) return typeof m === 'string' ? {role: defaultRole, content: m} : null
  if (!isPartsMessage(m)) return withOpenAiToolCalls(m)
  const texts: string[] = []
  const reasoning: string[] = []
  const calls: NonNullable<ChatMessage['tool_calls']> = []
  let toolCallId: string | undefined
  for (const part of m.parts) {
    if (typeof part === 'string') {
      texts.push(part)
      continue
    }
    if (!isObj(part)) continue
    switch (part.type) {
      case 'text':
        // The schema says `content`; some SDKs write OpenAI's `text` in parts messages too.
        if (typeof part.content === 'string') texts.push(part.content)
        else if (typeof part.text === 'string') texts.push(part.text)
        break
      case 'reasoning':
        if (typeof part.content === 'string') reasoning.push(part.content)
        break
      case 'tool_call':
        calls.push({
          id: typeof part.id === 'string' ? part.id : null,
          type: 'function',
          function: {name: typeof part.name === 'string' ? part.name : '', arguments: argumentsText(part.arguments)},
        })
        break
      case 'tool_call_response': {
        // The events example in the semantic conventions writes `result`; the schema says `response`.
        const r = part.response !== undefined ? part.response : part.result
        if (r !== undefined && r !== null) texts.push(typeof r === 'string' ? r : JSON.stringify(r))
        if (typeof part.id === 'string') toolCallId = part.id
        break
      }
      case undefined:
        // Gemini's Part (Google ADK, Vertex AI): {text} (a thought too), {functionCall: {name,
        // args}}, {functionResponse: {name, response}}, with no type.
        if (typeof part.text === 'string') texts.push(part.text)
        else if (typeof part.content === 'string') texts.push(part.content)
        else if (isObj(part.functionCall)) {
          const f = part.functionCall
          calls.push({id: typeof f.id === 'string' ? f.id : null, type: 'function', function: {name: typeof f.name === 'string' ? f.name : '', arguments: argumentsText(f.args)}})
        } else if (isObj(part.functionResponse) && part.functionResponse.response !== undefined && part.functionResponse.response !== null) {
          const r = part.functionResponse.response
          texts.push(typeof r === 'string' ? r : JSON.stringify(r))
        }
        break
      default:
        // blob / uri / file parts carry no text; a custom part with text content is kept.
        if (typeof part.content === 'string' && part.type !== 'blob') texts.push(part.content)
    }
  }
  const out: ChatMessage = {
    role: typeof m.role === 'string' ? m.role : defaultRole,
    content: texts.length === 0 ? null : texts.length === 1 ? texts[0]! : texts.map((text) => ({type: 'text' as const, text})),
  }
  if (calls.length > 0) out.tool_calls = calls
  if (reasoning.length > 0) out.reasoning_content = reasoning.join('')
  if (toolCallId !== undefined) out.tool_call_id = toolCallId
  return out
}

/**
 * A message whose tool calls are LangChain's (`{name, args, id, type: "tool_call"}`, the OpenAI
 * ones kept under `additional_kwargs.tool_calls`) with OpenAI's `{id, type, function: {name,
 * arguments}}` calls, so their arguments are read as any tool call's; any other message as it is.
 */
function withOpenAiToolCalls(m: Obj): Obj {
  const kwargs = isObj(m.additional_kwargs) ? m.additional_kwargs : {}
  const calls = Array.isArray(m.tool_calls) && m.tool_calls.length > 0 ? m.tool_calls : Array.isArray(kwargs.tool_calls) ? kwargs.tool_calls : null
  if (calls === null) return m
  if (calls.every((c) => !isObj(c) || isObj(c.function))) return calls === m.tool_calls ? m : {...m, tool_calls: calls}
  return {
    ...m,
    tool_calls: calls.map((c) =>
      isObj(c) && !isObj(c.function) && ('args' in c || 'name' in c)
        ? {id: typeof c.id === 'string' ? c.id : null, type: 'function', function: {name: typeof c.name === 'string' ? c.name : '', arguments: argumentsText(c.args)}}
        : c,
    ),
  }
}

/** Tool-call arguments as the JSON text OpenAI sends: a string stays as it is, a structure is serialised. */
export function argumentsText(args: unknown): string {
  if (args === undefined || args === null) return ''
  return typeof args === 'string' ? args : JSON.stringify(args)
}

/** Input messages in any of the shapes above as an OpenAI messages array. */
export function toChatMessages(messages: readonly unknown[]): (ChatMessage | Obj)[] {
  const out: (ChatMessage | Obj)[] = []
  for (const m of messages) {
    const c = toChatMessage(m, 'user')
    if (c !== null) out.push(c)
  }
  return out
}

export interface CompletionMeta {
  id?: string | null
  model?: string | null
  /** Epoch seconds, as OpenAI writes `created`. */
  created?: number | null
}

/** Output messages (one per choice) as a `chat.completion` object. */
export function completionFromMessages(messages: readonly unknown[], meta: CompletionMeta = {}): Obj {
  const choices = messages.map((m, index) => {
    const message = toChatMessage(m, 'assistant') ?? {role: 'assistant', content: null}
    const finish = isObj(m) ? (m.finish_reason ?? null) : null
    const {finish_reason: _drop, ...clean} = message as Obj
    return {index, message: {...clean, role: typeof clean.role === 'string' ? clean.role : 'assistant'}, finish_reason: finish}
  })
  return withMeta({object: 'chat.completion', choices}, meta)
}

/** A single assistant message object (or a plain string) as a `chat.completion`. */
export function completionFromMessage(message: unknown, meta: CompletionMeta = {}): Obj {
  return completionFromMessages([message], meta)
}

/** An error response in the OpenAI shape decode.ts marks as an error. */
export function errorResponse(message: string, extra: {type?: string | null; code?: string | number | null} = {}): Obj {
  const error: Obj = {message}
  if (extra.type) error.type = extra.type
  if (extra.code !== undefined && extra.code !== null && extra.code !== '') error.code = extra.code
  return {error}
}

/**
 * A string that is a JSON array of OpenAI text parts (`[{"type":"text","text":…}]`) — how
 * OpenLLMetry-style `gen_ai.prompt.N.content` attributes record multi-part content — parsed;
 * any other string is returned as it is (a prompt can legitimately be JSON text).
 */
export function contentFromAttribute(text: string): ChatMessage['content'] {
  const head = text.trimStart()
  if (!head.startsWith('[')) return text
  let parsed: unknown
  try {
    parsed = JSON.parse(text) as unknown
  } catch {
    return text // not JSON: plain text
  }
  // A part that gives its text twice: which one is the content cannot be told (duplicate-keys.ts).
  within(JSON_TEXT, () => uniqueJson(text, parsed))
  if (Array.isArray(parsed) && parsed.length > 0 && parsed.every((p) => isObj(p) && p.type === 'text' && typeof p.text === 'string')) {
    return parsed.map((p) => ({type: 'text' as const, text: (p as {text: string}).text}))
  }
  return text
}

/** Where a key given twice inside a JSON text held in a string of the line is (the string's own place is not known here). */
const JSON_TEXT = '(a JSON text in the line)'

/** Parses a JSON string when it holds an object or array; anything else is returned unchanged. */
export function parseJsonText(v: unknown): unknown {
  if (typeof v !== 'string') return v
  const head = v.trimStart()
  if (!head.startsWith('{') && !head.startsWith('[')) return v
  let parsed: unknown
  try {
    parsed = JSON.parse(v) as unknown
  } catch {
    return v
  }
  // Throws DuplicateKeyError for a text that gives a key twice (duplicate-keys.ts).
  return within(JSON_TEXT, () => uniqueJson(v, parsed))
}

function withMeta(body: Obj, meta: CompletionMeta): Obj {
  const out: Obj = {}
  if (meta.id) out.id = meta.id
  out.object = body.object
  if (typeof meta.created === 'number') out.created = meta.created
  if (meta.model) out.model = meta.model
  out.choices = body.choices
  return out
}
