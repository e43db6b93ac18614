import {decodeResponse} from '../decode.js'
import {isPlaceholder} from '../redaction.js'
import {finishRecord, intOrNull, notAnObject, pick, single, sniffByShare, strOrNull} from './common.js'
import {completionFromMessage, completionFromMessages, errorResponse, isObj, parseJsonText, toChatMessages, type Obj} from './messages.js'
import type {AdaptResult, CompanionIndex, FormatAdapter} from './types.js'

// Specification: Langfuse observations, as its exports write them, one observation a line:
// - the public API's observation object (v1 GET /api/public/observations and v2
//   GET /api/public/v2/observations, camelCase: id, traceId, type, startTime, endTime, model /
//   providedModelName, input, output, level, statusMessage, usage / usageDetails, metadata;
//   v2 adds sessionId and userId from the trace and returns input/output as JSON text (a
//   string input as a JSON string literal);
//   https://langfuse.com/docs/api-and-data-platform/features/observations-api);
// - the blob-storage and UI exports (snake_case: trace_id, start_time, end_time,
//   usage_details, session_id on enriched observations_v2 rows; timestamps written
//   `YYYY-MM-DD HH:MM:SS.ffffff` in UTC;
//   https://langfuse.com/docs/api-and-data-platform/features/blob-storage-export-fields).
//
//   type GENERATION          -> one record (SPAN, EVENT and the rest are not model calls: ignored;
//                               one with an output in a trace (traceId / trace_id) no GENERATION
//                               of the files given belongs to is counted as unread, as otel does)
//   id                       -> request_id
//   endTime (startTime)      -> ts; Langfuse's zone-less timestamps are UTC by its docs, so they
//                               are written with Z
//   sessionId / session_id   -> session_id (legacy exports keep sessions on the trace only)
//   metadata.tenant_id (tenantId, tenant) -> tenant_id (Langfuse has no tenant; say where it is with --map)
//   model, providedModelName -> model
//   usageDetails.input/output (usage.input/output, promptTokens/completionTokens) -> tokens
//   input  (messages array, {messages}, a prompt string, JSON text of those) -> request
//   input of any other structure (a decorated function's {args, kwargs}) -> its JSON text as the prompt
//   output (assistant message {role, content, tool_calls}, a string, a list of messages,
//           a chat.completion or one of its choices) -> a chat.completion; an Anthropic
//           message object, or a message or list whose content is Anthropic blocks with a
//           thinking or tool_use block -> a Messages API response, read as the decoder reads
//           /v1/messages answers (thinking text, tool inputs, text, in order; in a list of
//           several messages, each such message read so, as one choice); JSON of any other
//           shape (a JSON answer Langfuse kept as text) -> that text as the answer
//   level ERROR              -> an error response carrying statusMessage
//
// Unknown in this format, and left null: status, endpoint, prefill_node, decode_node.

const GENERATION = /^generation$/i

/** Langfuse's observation types besides GENERATION; another (a log's own word) is not repeated in messages. */
const OTHER_TYPES = new Set(['SPAN', 'EVENT', 'AGENT', 'TOOL', 'CHAIN', 'RETRIEVER', 'EVALUATOR', 'EMBEDDING', 'GUARDRAIL'])
const observationKind = (type: string): string => (OTHER_TYPES.has(type.toUpperCase()) ? `Langfuse ${type.toUpperCase()}` : 'Langfuse observations of other types')

/** An input or output that holds something: not absent, null, an empty text, a placeholder (redaction.ts), or an empty object or list. */
function holdsValue(v: unknown): boolean {
  if (v === undefined || v === null) return false
  if (typeof v === 'string') return v.trim() !== '' && v.trim() !== 'null' && !isPlaceholder(v)
  if (Array.isArray(v)) return v.length > 0
  if (isObj(v)) return Object.keys(v).length > 0
  return true
}

/**
 * The traces a GENERATION of the files given belongs to. Exports write one observation a line,
 * a trace's observations on lines of their own, possibly in other files of the set: an
 * observation of another type that carries an output is a chain or span wrapping a model call
 * read (whose texts are judged there) only where its trace has a GENERATION.
 */
export interface LangfuseIndex extends CompanionIndex {
  hasCall(traceId: unknown): boolean
}

function traceKey(traceId: unknown): string | null {
  return typeof traceId === 'string' && traceId !== '' ? traceId : null
}

function newLangfuseIndex(): LangfuseIndex {
  const callTraces = new Set<string>()
  return {
    add(value) {
      if (!isObj(value) || typeof value.type !== 'string' || !GENERATION.test(value.type)) return
      const key = traceKey(pick(value, 'traceId', 'trace_id'))
      if (key !== null) callTraces.add(key)
    },
    hasCall: (traceId) => {
      const key = traceKey(traceId)
      return key !== null && callTraces.has(key)
    },
  }
}

export const langfuse: FormatAdapter<LangfuseIndex> = {
  format: 'langfuse',
  specification:
    'Langfuse observation exports: public API observations v1/v2 and blob-storage/UI exports (https://langfuse.com/docs/api-and-data-platform/features/observations-api)',

  sniff(first) {
    return sniffByShare(
      'langfuse',
      first,
      (o) =>
        'id' in o &&
        ('traceId' in o || 'trace_id' in o) &&
        typeof o.type === 'string' &&
        ('startTime' in o || 'start_time' in o),
      'are Langfuse observations (id, traceId, type, startTime)',
    )
  },

  newIndex: () => newLangfuseIndex(),

  adapt(value, ctx): AdaptResult {
    if (!isObj(value)) return notAnObject(value)
    if (typeof value.type === 'string' && !GENERATION.test(value.type)) {
      // A SPAN or EVENT with an output may be a model call logged without the GENERATION type.
      // Where a GENERATION of its trace is among the lines given, it wraps that call, whose texts
      // are judged there; otherwise its texts are judged nowhere, and it is counted as unread (a
      // file of only such observations is refused, one with records read is not read whole).
      // Without a first pass (a line read alone), no GENERATION of its trace is known.
      const wraps = ctx.index !== null && ctx.index !== undefined && ctx.index.hasCall(pick(value, 'traceId', 'trace_id'))
      return {records: [], problems: [], ignored: 1, ...(!wraps && holdsValue(ioValue(value.output)) ? {unread: {[observationKind(value.type)]: 1}} : {})}
    }
    const notes: string[] = []
    const metadata = parseJsonText(value.metadata)
    const meta: Obj = isObj(metadata) ? metadata : {}
    const level = strOrNull(value.level)
    const statusMessage = strOrNull(pick(value, 'statusMessage', 'status_message'))

    const request = requestOf(ioValue(value.input))
    if (request === null) notes.push('no input recorded')
    let response = responseOf(ioValue(value.output), value.output)
    if (level !== null && level.toUpperCase() === 'ERROR') {
      const error = errorResponse(statusMessage ?? 'Langfuse recorded level ERROR without a status message')
      response = response === null ? error : {...(response as Obj), ...error}
    } else if (response === null) notes.push('no output recorded')

    const usage = pick(value, 'usageDetails', 'usage_details', 'usage')
    const u: Obj = isObj(usage) ? usage : {}
    const sessionId = strOrNull(pick(value, 'sessionId', 'session_id'))

    const out = finishRecord(
      {
        ts: utcIfZoneless(pick(value, 'endTime', 'end_time', 'startTime', 'start_time')),
        request_id: strOrNull(value.id),
        tenant_id: strOrNull(meta.tenant_id) ?? strOrNull(meta.tenantId) ?? strOrNull(meta.tenant),
        session_id: sessionId,
        status: null,
        endpoint: null,
        model: strOrNull(pick(value, 'model', 'providedModelName', 'provided_model_name')),
        prefill_node: null,
        decode_node: null,
        prompt_tokens: intOrNull(pick(u, 'input', 'promptTokens', 'prompt_tokens', 'input_tokens')),
        completion_tokens: intOrNull(pick(u, 'output', 'completionTokens', 'completion_tokens', 'output_tokens')),
        request,
        response,
      },
      value,
      ctx.options,
      {
        ts: 'the observation has no endTime or startTime',
        request_id: 'the observation has no id',
        tenant_id: 'Langfuse has no tenant field and metadata has no tenant_id or tenant; say where it is with --map tenant_id=PATH (e.g. userId, metadata.customer) or --map tenant_id=const:NAME',
        session_id:
          'the observation has no sessionId (legacy exports keep it on the trace only); export enriched observations (observations_v2, or API v2 with fields=basic), which carry it; --map session_id=traceId only where the application used the conversation as its trace (a trace is usually one request, so each would read as a session of its own)',
      },
    )
    return single(out, notes)
  },
}

/** The request body keys the decoder reads its text from (a chat, completions, Responses or Messages body). */
const REQUEST_KEYS = ['messages', 'prompt', 'input', 'system', 'instructions', 'text']

function requestOf(input: unknown): unknown {
  if (input === undefined || input === null || input === '') return null
  if (Array.isArray(input)) return {messages: toChatMessages(input)}
  if (isObj(input) && Array.isArray(input.messages)) return {...input, messages: toChatMessages(input.messages)}
  // One message object ({role, content} or a parts message) as the whole input.
  if (isObj(input) && ('role' in input || 'parts' in input) && !REQUEST_KEYS.some((k) => k in input)) return {messages: toChatMessages([input])}
  // Any other structure (a decorated function's {args, kwargs}, an application's own object) is
  // still what was sent: its JSON text is the prompt, so a marker the user sent is seen (echo).
  if (isObj(input) && !REQUEST_KEYS.some((k) => k in input)) return {prompt: JSON.stringify(input)}
  return input
}

/** A piece of a streamed answer: an OpenAI chunk, a Messages or Responses API stream event, a raw SSE data line. */
function isStreamPiece(p: unknown): boolean {
  if (typeof p === 'string') return p.trimStart().startsWith('data:')
  if (!isObj(p)) return false
  if (p.object === 'chat.completion.chunk') return true
  return typeof p.type === 'string' && /^(message_start|message_delta|message_stop|content_block_(start|delta|stop)|ping|response\.)/.test(p.type)
}

/** Anthropic content blocks that OpenAI's content parts have no kind of: the model's thinking, a tool call it wrote. */
const MESSAGES_ONLY_BLOCKS = new Set(['thinking', 'redacted_thinking', 'tool_use', 'server_tool_use'])

/** Content that is a list of Anthropic Messages API blocks, with at least one OpenAI's parts have no kind of. */
function isMessagesContent(content: unknown): content is Obj[] {
  return Array.isArray(content) && content.length > 0 && content.every((b) => isObj(b) && typeof b.type === 'string') &&
    content.some((b) => MESSAGES_ONLY_BLOCKS.has((b as Obj).type as string))
}

/**
 * An Anthropic answer as a Messages API response (`{type: "message", content: [...]}`), which the
 * response decoder reads block by block (thinking, tool inputs and text, in order), as it reads a
 * /v1/messages body; null for any other output. A chat.completion's message has no thinking
 * block, so converting one that holds them would drop the model's thinking.
 */
function messagesResponseOf(m: unknown): Obj | null {
  if (!isObj(m)) return null
  if (m.type === 'message' && Array.isArray(m.content)) return m
  if (!('tool_calls' in m) && isMessagesContent(m.content)) return {...m, type: 'message', role: typeof m.role === 'string' ? m.role : 'assistant'}
  return null
}

/**
 * One message of an output list as a chat message. An Anthropic message among several (thinking
 * or tool_use blocks in its content) has its text as the response decoder reads that message
 * alone (thinking, tool inputs and text, in order): a chat message's content parts have no kind
 * for a thinking block, so converting its blocks would drop the model's thinking, which the
 * single-message shape reads.
 */
function asChatMessage(m: unknown): unknown {
  const message = isObj(m) && isObj(m.message) ? m.message : m
  const anthropic = messagesResponseOf(message)
  if (anthropic === null) return message
  const finish = isObj(message) ? message.finish_reason : undefined
  return {role: 'assistant', content: decodeResponse(anthropic).text, ...(finish === undefined ? {} : {finish_reason: finish})}
}

/** `raw`: the output as the export wrote it; a string that is JSON of no message shape is the answer's text itself. */
function responseOf(output: unknown, raw: unknown): unknown {
  if (output === undefined || output === null || output === '') return null
  if (typeof output === 'string') return completionFromMessage({role: 'assistant', content: output})
  if (Array.isArray(output)) {
    // A stream kept as its chunks or events: the response decoder reads it as the stream.
    if (output.length > 0 && output.every(isStreamPiece)) return output
    // Anthropic content blocks as the output itself, a thinking or tool_use block among them.
    if (isMessagesContent(output)) return {type: 'message', role: 'assistant', content: output}
    // One Anthropic message (or one message of Anthropic blocks) in a list.
    if (output.length === 1) {
      const one = messagesResponseOf(output[0]) ?? (isObj(output[0]) ? messagesResponseOf(output[0].message) : null)
      if (one !== null) return one
    }
    // OpenAI content parts as the output itself: one answer in parts.
    if (output.length > 0 && output.every((p) => isObj(p) && p.type === 'text' && typeof p.text === 'string')) return completionFromMessage({role: 'assistant', content: output})
    if (output.every((m) => typeof m === 'string' || (isObj(m) && ('content' in m || 'parts' in m || 'tool_calls' in m || 'role' in m || 'message' in m)))) {
      return completionFromMessages(output.map(asChatMessage))
    }
  } else if (isObj(output)) {
    if (Array.isArray(output.choices) || isObj(output.error)) return output
    const messages = messagesResponseOf(output) ?? messagesResponseOf(output.message)
    if (messages !== null) return messages
    // One choice of a chat.completion ({index, message, finish_reason}), as some integrations log it.
    if (isObj(output.message)) return completionFromMessage(output.message)
    if ('content' in output || 'parts' in output || 'tool_calls' in output || 'role' in output) return completionFromMessage(output)
  }
  // A JSON answer (the model asked to reply in JSON) that Langfuse kept as text, or a structure
  // of no message shape: its text is what the user received.
  const text = typeof raw === 'string' && raw.trim() !== '' ? raw : JSON.stringify(output)
  return completionFromMessage({role: 'assistant', content: text})
}

/**
 * The v2 API returns input and output as JSON text unless parseIoAsJson is set: an object or
 * array comes back as `{...}` / `[...]`, and a string input as a JSON string literal
 * (`"\"Hello\""`), which is unwrapped here too.
 */
function ioValue(v: unknown): unknown {
  const parsed = parseJsonText(v)
  if (typeof parsed !== 'string') return parsed
  const t = parsed.trim()
  if (t.length >= 2 && t.startsWith('"') && t.endsWith('"')) {
    try {
      const inner = JSON.parse(t) as unknown
      if (typeof inner === 'string') return inner
    } catch {
      // quoted text, not a JSON string
    }
  }
  return parsed
}

/** Langfuse writes UTC timestamps without a zone (`2024-05-29 13:46:19.963000`): say so. */
function utcIfZoneless(v: unknown): string | number | undefined {
  if (typeof v === 'number') return v
  if (typeof v !== 'string') return undefined
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)$/.exec(v.trim())
  return m ? `${m[1]}T${m[2]}Z` : v
}
