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

/**
 * One parts message (or an OpenAI message, returned as it is) as an OpenAI chat message.
 *
 * Read closed-world, as decode.ts reads a chat answer: every part type and member is read or
 * known to hold no text. A part of a type not known here, a member of a part or of the message
 * not known here, or a blob whose text cannot be decoded, is kept on the message under a name
 * saying where it was (`parts[1]`, `parts[1].annotation`, or the member's own name), so decode.ts
 * names it as not read (a member of a chat answer it does not know): the record is then not read
 * whole and no gate passes on it. A request's messages are not judged so (decodeRequest reads
 * what it knows): there, such an entry only goes unread.
 */
export function toChatMessage(m: unknown, defaultRole: string): ChatMessage | Obj | null {
  if (!isObj(m)) return typeof m === 'string' ? {role: defaultRole, content: m} : null
  if (!isPartsMessage(m)) return withOpenAiToolCalls(m)
  const texts: string[] = []
  const reasoning: string[] = []
  const calls: NonNullable<ChatMessage['tool_calls']> = []
  const unread: Obj = {}
  let toolCallId: string | undefined
  m.parts.forEach((part, i) => {
    if (typeof part === 'string') {
      texts.push(part)
      return
    }
    if (!isObj(part)) {
      if (part !== null) unread[`parts[${i}]`] = part
      return
    }
    const str = (k: string): string | null => (typeof part[k] === 'string' ? (part[k] as string) : null)
    // The part's members not read and not known to hold no text, kept to be named.
    const rest = (known: readonly string[]): void => {
      for (const [k, v] of Object.entries(part)) if (!known.includes(k) && holdsText(v)) unread[`parts[${i}].${k}`] = v
    }
    // Both of `content` (the schema's) and `text` (OpenAI's, which some SDKs write), where they differ.
    const bothTexts = (into: string[]): void => {
      const c = str('content')
      const t = str('text')
      if (c !== null) into.push(c)
      if (t !== null && t !== c) into.push(t)
    }
    switch (part.type) {
      case 'text':
        bothTexts(texts)
        rest(['type', 'content', 'text'])
        break
      case 'reasoning':
        bothTexts(reasoning)
        rest(['type', 'content', 'text'])
        break
      case 'refusal':
        // OpenAI's refusal part ({type: "refusal", refusal}), as some SDKs copy it into parts.
        for (const k of ['refusal', 'content', 'text']) if (str(k) !== null) texts.push(str(k)!)
        rest(['type', 'refusal', 'content', 'text'])
        break
      case 'tool_call':
        calls.push({id: str('id'), type: 'function', function: {name: str('name') ?? '', arguments: argumentsText(part.arguments)}})
        rest(['type', 'id', 'name', 'arguments'])
        break
      case 'tool_call_response': {
        // The events example in the semantic conventions writes `result`; the schema says `response`.
        for (const r of [part.response, part.result]) if (r !== undefined && r !== null) texts.push(typeof r === 'string' ? r : JSON.stringify(r))
        if (typeof part.id === 'string') toolCallId = part.id
        rest(['type', 'id', 'response', 'result'])
        break
      }
      case 'uri':
        // A reference the client was given (an image's or a file's address): read as text, as a citation's URL is.
        if (str('uri') !== null) texts.push(str('uri')!)
        rest(['type', 'uri', 'mime_type', 'modality'])
        break
      case 'file':
        // A file by its id: no text.
        rest(['type', 'file_id', 'mime_type', 'modality'])
        break
      case 'blob': {
        // Inline data, base64 (the schema): an image's, a sound's or other binary data holds no
        // text; a text's is read; content that is no base64 at all is named.
        const blob = blobText(part)
        if (typeof blob === 'string') texts.push(blob)
        rest(['type', 'mime_type', 'modality', ...(blob === null ? [] : ['content'])])
        break
      }
      case undefined: {
        // Gemini's Part (Google ADK, Vertex AI): {text} (a thought too), {functionCall: {name,
        // args}}, {functionResponse: {name, response}}, {executableCode: {language, code}},
        // {codeExecutionResult: {outcome, output}}, with no type; inline and file data hold no text.
        bothTexts(texts)
        const f = isObj(part.functionCall) ? part.functionCall : null
        if (f !== null) calls.push({id: typeof f.id === 'string' ? f.id : null, type: 'function', function: {name: typeof f.name === 'string' ? f.name : '', arguments: argumentsText(f.args)}})
        const r = isObj(part.functionResponse) ? part.functionResponse.response : undefined
        if (r !== undefined && r !== null) texts.push(typeof r === 'string' ? r : JSON.stringify(r))
        const code = isObj(part.executableCode) ? part.executableCode.code : undefined
        if (typeof code === 'string') texts.push(code)
        const output = isObj(part.codeExecutionResult) ? part.codeExecutionResult.output : undefined
        if (typeof output === 'string') texts.push(output)
        rest(['text', 'content', 'thought', 'thoughtSignature', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult', 'inlineData', 'fileData', 'videoMetadata'])
        for (const [k, known] of GEMINI_PART_MEMBERS) {
          const v = part[k]
          if (!isObj(v)) continue
          for (const [mk, mv] of Object.entries(v)) if (!known.includes(mk) && holdsText(mv)) unread[`parts[${i}].${k}.${mk}`] = mv
        }
        break
      }
      default:
        // A part of another type (the schema's GenericPart): its content or text is read, and it is
        // named as not read where it holds any other text.
        bothTexts(texts)
        rest(['type', 'content', 'text'])
    }
  })
  const out: ChatMessage & Obj = {
    role: typeof m.role === 'string' ? m.role : defaultRole,
    content: texts.length === 0 ? null : texts.length === 1 ? texts[0]! : texts.map((text) => ({type: 'text' as const, text})),
  }
  if (calls.length > 0) out.tool_calls = calls
  if (reasoning.length > 0) out.reasoning_content = reasoning.join('')
  if (toolCallId !== undefined) out.tool_call_id = toolCallId
  // The message's own members besides its role and parts: its finish reason (the choice's) and an
  // author's name hold no text; any other is kept (decode.ts reads those it knows, such as a
  // refusal, and names the rest), under another name where the parts gave that member already.
  for (const [k, v] of Object.entries(m)) {
    if (k === 'role' || k === 'parts' || k === 'finish_reason' || k === 'name' || !holdsText(v)) continue
    out[k in out ? `${k} (beside parts)` : k] = v
  }
  Object.assign(out, unread)
  return out
}

/** The members of a Gemini part's objects read or known to hold no text (what decode.ts reads of a Gemini answer's parts). */
const GEMINI_PART_MEMBERS: readonly [string, readonly string[]][] = [
  ['functionCall', ['id', 'name', 'args']],
  ['functionResponse', ['id', 'name', 'response', 'willContinue', 'scheduling']],
  ['executableCode', ['id', 'language', 'code']],
  ['codeExecutionResult', ['id', 'outcome', 'output']],
]

/** Whether a value holds a string anywhere (a member holding only numbers, flags or nulls drops no text). */
function holdsText(v: unknown, depth = 0): boolean {
  if (typeof v === 'string') return v !== ''
  if (depth > 32) return true
  if (Array.isArray(v)) return v.some((x) => holdsText(x, depth + 1))
  return isObj(v) && Object.values(v).some((x) => holdsText(x, depth + 1))
}

/** A blob part of an image, a sound or a video (by its MIME type or modality): binary data, no text. */
function isBinaryBlob(part: Obj): boolean {
  const mime = typeof part.mime_type === 'string' ? part.mime_type.toLowerCase() : null
  if (mime !== null) return /^(image|audio|video)\//.test(mime) || mime === 'application/octet-stream' || mime === 'application/pdf'
  return part.modality === 'image' || part.modality === 'audio' || part.modality === 'video'
}

/**
 * A blob's text: its content decoded from base64 (the schema's encoding) where that gives UTF-8
 * text; BINARY for binary data (an image's, a sound's, a video's, or bytes that are no text);
 * null for content that is no base64 (what it holds was not read).
 */
function blobText(part: Obj): string | typeof BINARY | null {
  if (isBinaryBlob(part) || part.content === undefined || part.content === null) return BINARY
  if (typeof part.content !== 'string') return null
  const b64 = part.content.replace(/\s+/g, '')
  if (b64.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) return null
  let text: string
  try {
    text = new TextDecoder('utf-8', {fatal: true}).decode(Buffer.from(b64, 'base64'))
  } catch {
    return BINARY
  }
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text) ? BINARY : text
}
const BINARY = Symbol('binary')

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
